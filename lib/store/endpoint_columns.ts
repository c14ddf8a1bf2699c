/**
 * Columns of every endpoint row, for searching endpoints without an owner
 * (FHIR `Endpoint?connection-type=…`): the owner's provider id, the row's
 * position among its owner's endpoints (as the store reads them, so
 * `Endpoint/{npi}-{n}`), and its NPPES endpoint type as a dictionary number.
 * Rows are in (id, position) order, so in the owners' name order. Written
 * by the build after the index (whose rewrite clears `index_blob`); about 7
 * bytes an endpoint row.
 *
 * Beside them, the name key (`nameKey`) of each row's `Endpoint.name` as the
 * FHIR directory renders it (the description, else the affiliation's name):
 * a dictionary of distinct keys and a number per row, 4 bytes a row, for
 * FHIR `Endpoint?name=`. They are optional: a database written before they
 * existed has none, and the directory then reads the names from the
 * `endpoint` table on first use.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { parseEndpoint } from "./sides.ts";
import { nameKey } from "../text/fold.ts";

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
  /** The name keys of the rows' names; `null` in a database written before they were. */
  names: EndpointNameKeys | null;
}

/** The name key of each row's `Endpoint.name`: a dictionary (key 0 is "", no name) and a number per row. */
export interface EndpointNameKeys {
  keys: string[];
  rows: Uint32Array;
}

const NAMES = {
  ids: "endpoint_ids",
  positions: "endpoint_positions",
  types: "endpoint_types",
  dictionary: "endpoint_type_names",
  nameRows: "endpoint_name_rows",
  nameKeys: "endpoint_name_keys",
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
  const nameRows: number[] = [], nameKeys = [""];
  const nameNumber = new Map<string, number>([["", 0]]);
  let lastId = 0, position = 0;
  for (const row of rows.iterate()) {
    const { id, doc } = row as { id: number; doc: string };
    position = id === lastId ? position + 1 : 0;
    lastId = id;
    const endpoint = parseEndpoint(doc);
    const type = (endpoint.type ?? "").toUpperCase();
    // As `lib/fhir/resources.ts` renders Endpoint.name.
    const key = nameKey(endpoint.description ?? endpoint.affiliation_name ?? "");
    let nk = nameNumber.get(key);
    if (nk === undefined) {
      nk = nameKeys.length;
      nameKeys.push(key);
      nameNumber.set(key, nk);
    }
    nameRows.push(nk);
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
  put.run(NAMES.nameRows, bytes(Uint32Array.from(nameRows)));
  put.run(NAMES.nameKeys, new TextEncoder().encode(JSON.stringify(nameKeys)));
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
    names: null,
  };
  const nameRows = blob(NAMES.nameRows), nameKeys = blob(NAMES.nameKeys);
  if (nameRows && nameKeys) {
    out.names = {
      rows: new Uint32Array(copy(nameRows)),
      keys: JSON.parse(new TextDecoder().decode(nameKeys)) as string[],
    };
  }
  const n = out.ids.length;
  if (
    out.positions.length !== n || out.types.length !== n ||
    (out.names !== null && out.names.rows.length !== n)
  ) {
    throw new Error("The endpoint columns disagree in length: import the data again");
  }
  return out;
}
