/**
 * The provider table as a column: each provider id's NPI, the seq of its
 * record in the records parts, and its side bits, three `u32`s an id in id
 * order (index 0 unused). A page of records found by a search starts from
 * these three numbers; read in place from the index map (`index_map.ts`),
 * they cost one memory read an id instead of a seek into the `provider`
 * table's B-tree (at 9.7 million, over the benchmark's `/api/` pages by
 * city and state: 0.4 µs a record against 3.1, of 10.9 µs in all that a
 * record took the search worker to read). Written by the build
 * after the index, from the provider table, which stays the record of
 * truth: a database without the column reads the table.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { arrayRows } from "../sqlite_rows.ts";

/** The column's name in `index_blob` (and among the index map's blobs). */
export const PROVIDER_ROWS = "provider_rows";

/** `u32`s an id takes in the column: NPI, record seq, side bits. */
export const PROVIDER_ROW_WORDS = 3;

/** The provider table's rows read at a time while the column is written. */
const CHUNK = 100_000;

/**
 * Writes the provider rows column of the provider table into `index_blob`
 * (after the index, whose rewrite clears that table). Returns the number
 * of ids (the largest).
 *
 * @example
 * ```ts
 * writeProviderRows(db); // after the index is written
 * ```
 */
export function writeProviderRows(db: DatabaseSync): number {
  const { size } = db.prepare("SELECT coalesce(max(id), 0) AS size FROM provider").get() as {
    size: number;
  };
  const rows = new Uint32Array((size + 1) * PROVIDER_ROW_WORDS);
  const range = arrayRows(
    db.prepare("SELECT id, npi, record, sides FROM provider WHERE id >= ? AND id < ?"),
  );
  for (let from = 1; from <= size; from += CHUNK) {
    for (const row of range.all(from, from + CHUNK) as unknown as number[][]) {
      const at = row[0]! * PROVIDER_ROW_WORDS;
      rows[at] = row[1]!;
      rows[at + 1] = row[2]!;
      rows[at + 2] = row[3]!;
    }
  }
  db.prepare("INSERT OR REPLACE INTO index_blob (name, data) VALUES (?, ?)")
    .run(PROVIDER_ROWS, new Uint8Array(rows.buffer));
  return size;
}

/**
 * The provider rows column of an index of `size` ids, over its bytes (a
 * view, not a copy); null when the bytes are not the column of that many
 * ids or not aligned to read as `u32`s.
 *
 * @example
 * ```ts
 * const rows = providerRowsOf(map.blob(PROVIDER_ROWS), index.size);
 * const seq = rows?.[id * PROVIDER_ROW_WORDS + 1];
 * ```
 */
export function providerRowsOf(bytes: Uint8Array | undefined, size: number): Uint32Array | null {
  const expected = (size + 1) * PROVIDER_ROW_WORDS * 4;
  if (!bytes || bytes.byteLength !== expected || bytes.byteOffset % 4 !== 0) return null;
  return new Uint32Array(bytes.buffer, bytes.byteOffset, expected / 4);
}
