/**
 * Columns of every secondary practice location row (the `location` table),
 * so that Location searches cover them (FHIR `Location?address-state=…`,
 * `near`): the owner's provider id, the row's Location position (`n` of
 * `Location/{npi}-{n}`: 1 for the owner's first secondary location…), its
 * state and city (folded upper case, as the index keeps the primary ones),
 * ZIP (first five digits) and ZIP+4, and its ZIP centroid. Rows are in (id,
 * position) order. Written by the build after the index; about 29 bytes a
 * row.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { parseLocation } from "./sides.ts";
import { foldText } from "../text/fold.ts";
import { digitsValue } from "../text/digits.ts";

/** The loaded secondary location columns. */
export interface LocationColumns {
  /** Owner provider id of each row. */
  ids: Uint32Array;
  /** The row's Location position (1…). */
  positions: Uint16Array;
  /** State of each row, a number into {@linkcode states} (0: none). */
  state: Uint8Array;
  /** City of each row, folded upper case, a number into {@linkcode cities} (0: none). */
  city: Uint32Array;
  /** First five digits of the postal code plus one (0: none). */
  zip5: Uint32Array;
  /** The nine-digit postal code plus one (0: not nine digits). */
  zip9: Uint32Array;
  lat: Float32Array;
  lon: Float32Array;
  states: readonly string[];
  cities: readonly string[];
}

const PREFIX = "secondary_";
const COLUMNS = ["ids", "positions", "state", "city", "zip5", "zip9", "lat", "lon"] as const;

/**
 * Writes the secondary location columns from the `location` table and the
 * provider lookup into `index_blob`; rows whose NPI has no record are left
 * out, as reads leave them out. Returns the number of rows.
 *
 * @example
 * ```ts
 * writeLocationColumns(db); // after the index is written
 * ```
 */
export function writeLocationColumns(db: DatabaseSync): number {
  const rows = db.prepare(
    "SELECT p.id AS id, l.doc AS doc FROM location l JOIN provider_npi p ON p.npi = l.npi " +
      "ORDER BY p.id, l.rowid",
  );
  const ids: number[] = [], positions: number[] = [], state: number[] = [], city: number[] = [];
  const zip5: number[] = [], zip9: number[] = [], lat: number[] = [], lon: number[] = [];
  const states = [""], cities = [""];
  const stateNumber = new Map<string, number>(), cityNumber = new Map<string, number>();
  const numberIn = (value: string, list: string[], numbers: Map<string, number>) => {
    if (!value) return 0;
    let k = numbers.get(value);
    if (k === undefined) {
      k = list.length;
      list.push(value);
      numbers.set(value, k);
    }
    return k;
  };
  let lastId = 0, position = 0;
  for (const row of rows.iterate()) {
    const { id, doc } = row as { id: number; doc: string };
    position = id === lastId ? position + 1 : 1;
    lastId = id;
    const loc = parseLocation(doc);
    const postal = (loc.postal_code ?? "").replace(/[^0-9A-Za-z]/g, "");
    ids.push(id);
    positions.push(Math.min(position, 65_535));
    state.push(numberIn(loc.state?.toUpperCase() ?? "", states, stateNumber));
    if (states.length > 256) throw new Error("More than 255 states in secondary locations");
    city.push(numberIn(loc.city ? foldText(loc.city).toUpperCase() : "", cities, cityNumber));
    zip5.push(digitsValue(postal, 0, 5) + 1);
    zip9.push(postal.length === 9 ? digitsValue(postal, 0, 9) + 1 : 0);
    lat.push(loc.lat ?? NaN);
    lon.push(loc.lon ?? NaN);
  }
  const put = db.prepare("INSERT OR REPLACE INTO index_blob (name, data) VALUES (?, ?)");
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  put.run(`${PREFIX}ids`, bytes(Uint32Array.from(ids)));
  put.run(`${PREFIX}positions`, bytes(Uint16Array.from(positions)));
  put.run(`${PREFIX}state`, bytes(Uint8Array.from(state)));
  put.run(`${PREFIX}city`, bytes(Uint32Array.from(city)));
  put.run(`${PREFIX}zip5`, bytes(Uint32Array.from(zip5)));
  put.run(`${PREFIX}zip9`, bytes(Uint32Array.from(zip9)));
  put.run(`${PREFIX}lat`, bytes(Float32Array.from(lat)));
  put.run(`${PREFIX}lon`, bytes(Float32Array.from(lon)));
  put.run(`${PREFIX}names`, new TextEncoder().encode(JSON.stringify({ states, cities })));
  return ids.length;
}

/**
 * Reads the secondary location columns; `null` when the database has none.
 *
 * @example
 * ```ts
 * readLocationColumns(db)?.ids.length; // secondary location rows
 * ```
 */
export function readLocationColumns(db: DatabaseSync): LocationColumns | null {
  const get = db.prepare("SELECT data FROM index_blob WHERE name = ?");
  const blob = (name: string) =>
    (get.get(`${PREFIX}${name}`) as { data: Uint8Array } | undefined)?.data.slice().buffer as
      | ArrayBuffer
      | undefined;
  const raw = Object.fromEntries(COLUMNS.map((c) => [c, blob(c)]));
  const names = blob("names");
  if (!names || COLUMNS.some((c) => !raw[c])) return null;
  const { states, cities } = JSON.parse(new TextDecoder().decode(names)) as {
    states: string[];
    cities: string[];
  };
  const out: LocationColumns = {
    ids: new Uint32Array(raw.ids!),
    positions: new Uint16Array(raw.positions!),
    state: new Uint8Array(raw.state!),
    city: new Uint32Array(raw.city!),
    zip5: new Uint32Array(raw.zip5!),
    zip9: new Uint32Array(raw.zip9!),
    lat: new Float32Array(raw.lat!),
    lon: new Float32Array(raw.lon!),
    states,
    cities,
  };
  const n = out.ids.length;
  if (COLUMNS.some((c) => out[c].length !== n)) {
    throw new Error("The secondary location columns disagree in length: import the data again");
  }
  return out;
}
