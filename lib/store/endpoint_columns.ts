/**
 * Columns of every endpoint row, for searching endpoints without an owner
 * (FHIR `Endpoint?connection-type=…`): the owner's provider id, the row's
 * position among its owner's endpoints (as the store reads them, so
 * `Endpoint/{npi}-{n}`), and its NPPES endpoint type as a dictionary number.
 * Rows are in (id, position) order, so in the owners' name order. Written
 * by the build after the index (whose rewrite clears `index_blob`); about 7
 * bytes an endpoint row.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { parseEndpoint } from "./sides.ts";

/** The loaded endpoint columns. */
export interface EndpointColumns {
  /** Owner provider id of each row. */
  ids: Uint32Array;
  /** Position of each row among its owner's endpoints. */
  positions: Uint16Array;
  /** NPPES endpoint type of each row, as a number into {@linkcode types}. */
  types: Uint8Array;
  /** The NPPES endpoint types (upper case; "" for none). */
  typeNames: readonly string[];
}

const NAMES = {
  ids: "endpoint_ids",
  positions: "endpoint_positions",
  types: "endpoint_types",
  dictionary: "endpoint_type_names",
} as const;

/**
 * Writes the endpoint columns from the `endpoint` table and the provider
 * lookup (`provider_npi`) into `index_blob`; rows whose NPI has no record are
 * left out, as reads leave them out.
 *
 * @example
 * ```ts
 * writeEndpointColumns(db); // after the index is written
 * ```
 */
export function writeEndpointColumns(db: DatabaseSync): number {
  const rows = db.prepare(
    "SELECT p.id AS id, e.doc AS doc FROM endpoint e JOIN provider_npi p ON p.npi = e.npi " +
      "ORDER BY p.id, e.rowid",
  );
  const ids: number[] = [], positions: number[] = [], types: number[] = [];
  const typeNames: string[] = [];
  const numberOf = new Map<string, number>();
  let lastId = 0, position = 0;
  for (const row of rows.iterate()) {
    const { id, doc } = row as { id: number; doc: string };
    position = id === lastId ? position + 1 : 0;
    lastId = id;
    const type = (parseEndpoint(doc).type ?? "").toUpperCase();
    let k = numberOf.get(type);
    if (k === undefined) {
      k = typeNames.length;
      if (k > 255) throw new Error("More than 256 endpoint types: widen the endpoint type column");
      typeNames.push(type);
      numberOf.set(type, k);
    }
    ids.push(id);
    positions.push(Math.min(position, 65_535));
    types.push(k);
  }
  const put = db.prepare("INSERT OR REPLACE INTO index_blob (name, data) VALUES (?, ?)");
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  put.run(NAMES.ids, bytes(Uint32Array.from(ids)));
  put.run(NAMES.positions, bytes(Uint16Array.from(positions)));
  put.run(NAMES.types, bytes(Uint8Array.from(types)));
  put.run(NAMES.dictionary, new TextEncoder().encode(JSON.stringify(typeNames)));
  return ids.length;
}

/**
 * Reads the endpoint columns; `null` when the database has none.
 *
 * @example
 * ```ts
 * const columns = readEndpointColumns(db);
 * columns?.ids.length; // endpoint rows
 * ```
 */
export function readEndpointColumns(db: DatabaseSync): EndpointColumns | null {
  const get = db.prepare("SELECT data FROM index_blob WHERE name = ?");
  const blob = (name: string) => (get.get(name) as { data: Uint8Array } | undefined)?.data;
  const ids = blob(NAMES.ids), positions = blob(NAMES.positions), types = blob(NAMES.types);
  const dictionary = blob(NAMES.dictionary);
  if (!ids || !positions || !types || !dictionary) return null;
  const copy = (b: Uint8Array) => b.slice().buffer as ArrayBuffer;
  const out: EndpointColumns = {
    ids: new Uint32Array(copy(ids)),
    positions: new Uint16Array(copy(positions)),
    types: new Uint8Array(copy(types)),
    typeNames: JSON.parse(new TextDecoder().decode(dictionary)) as string[],
  };
  const n = out.ids.length;
  if (out.positions.length !== n || out.types.length !== n) {
    throw new Error("The endpoint columns disagree in length: import the data again");
  }
  return out;
}
