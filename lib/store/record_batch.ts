/**
 * Reading stored records many at a time: one statement for a batch of
 * provider ids (`WHERE p.id IN (…)`, a read transaction and a statement
 * step per batch instead of per record: at 1 million records about 2 µs a
 * record against 9 µs for one statement each), and one per reference table
 * for the batch's NPIs that have rows there (4.4 µs a record in all, against
 * 9 µs and the joins).
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { SIDE } from "./sides.ts";
import type { StoredRecord } from "./record_text.ts";
import { arrayRows } from "../sqlite_rows.ts";

/** Ids a statement reads at once; shorter batches are padded with an id no provider has. */
export const RECORD_BATCH = 250;

/** A stored record with its provider id and NPI. */
export interface StoredRecordRow extends StoredRecord {
  id: number;
  npi: number;
}

/**
 * Statement sizes: a batch binds the smallest that holds it, padded with an
 * id no provider has (SQLite sorts the whole `IN` list on every run: a page
 * of ten binding 250 values cost a third more).
 */
const SIZES = [16, RECORD_BATCH] as const;

/** The smallest statement size holding `count` values. */
function sizeFor(count: number): number {
  return SIZES.find((size) => size >= count) ?? RECORD_BATCH;
}

/** `values` padded with `pad` to the statement size that holds them. */
function padded(values: readonly number[], pad: number): number[] {
  const out = values.slice();
  const size = sizeFor(out.length);
  while (out.length < size) out.push(pad);
  return out;
}

/** One prepared statement per size of {@linkcode SIZES}, made on first use. */
function bySize(make: (marks: string) => StatementSync): (count: number) => StatementSync {
  const made = new Map<number, StatementSync>();
  return (count) => {
    const size = sizeFor(count);
    let statement = made.get(size);
    if (!statement) made.set(size, statement = make(Array(size).fill("?").join(",")));
    return statement;
  };
}

const NONE: readonly string[] = [];

/**
 * Reads stored records by provider id over `db`.
 *
 * @example
 * ```ts
 * const read = recordBatchReader(store.db);
 * read([3, 1, 2]).map((r) => r.id); // [3, 1, 2]
 * ```
 */
export function recordBatchReader(
  db: DatabaseSync,
): (ids: readonly number[]) => StoredRecordRow[] {
  const main = bySize((marks) =>
    arrayRows(db.prepare(
      `SELECT p.id, p.npi, p.sides, r.doc FROM provider p JOIN record r ON r.seq = p.record WHERE p.id IN (${marks})`,
    ))
  );
  const side = (table: string) =>
    bySize((marks) =>
      arrayRows(db.prepare(
        `SELECT npi, doc FROM ${table} WHERE npi IN (${marks}) ORDER BY npi, rowid`,
      ))
    );
  const tables: [
    number,
    (count: number) => StatementSync,
    "otherNames" | "locations" | "endpoints",
  ][] = [
    [SIDE.otherNames, side("other_name"), "otherNames"],
    [SIDE.locations, side("location"), "locations"],
    [SIDE.endpoints, side("endpoint"), "endpoints"],
  ];
  /** Rows of one reference table for the NPIs given, by NPI, in table order. */
  const sideRows = (
    statement: (count: number) => StatementSync,
    npis: number[],
  ): Map<number, string[]> => {
    const byNpi = new Map<number, string[]>();
    for (let at = 0; at < npis.length; at += RECORD_BATCH) {
      const chunk = npis.slice(at, at + RECORD_BATCH);
      const rows = statement(chunk.length).all(...padded(chunk, -1)) as unknown as [
        number,
        string,
      ][];
      for (const [npi, doc] of rows) {
        const list = byNpi.get(npi);
        if (list) list.push(doc);
        else byNpi.set(npi, [doc]);
      }
    }
    return byNpi;
  };
  return (ids) => {
    const byId = new Map<number, StoredRecordRow>();
    for (let at = 0; at < ids.length; at += RECORD_BATCH) {
      const chunk = ids.slice(at, at + RECORD_BATCH);
      const rows = main(chunk.length).all(...padded(chunk, -1)) as unknown as [
        number,
        number,
        number,
        string,
      ][];
      for (const [id, npi, sides, doc] of rows) {
        byId.set(id, { id, npi, sides, doc, otherNames: NONE, locations: NONE, endpoints: NONE });
      }
    }
    for (const [bit, statement, key] of tables) {
      const npis: number[] = [];
      for (const row of byId.values()) if ((row.sides & bit) !== 0) npis.push(row.npi);
      if (npis.length === 0) continue;
      const found = sideRows(statement, npis);
      for (const row of byId.values()) {
        if ((row.sides & bit) !== 0) row[key] = found.get(row.npi) ?? NONE;
      }
    }
    const out: StoredRecordRow[] = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (row) out.push(row);
    }
    return out;
  };
}
