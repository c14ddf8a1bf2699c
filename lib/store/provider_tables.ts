/**
 * The provider tables of a build, written once the providers are ranked:
 * `provider` in rank order (id = rank), and its lookups `provider_npi` and
 * `provider_zip9`, each in key order so SQLite appends pages.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { BatchInsert } from "../index/batch_insert.ts";
import type { RankedProviders } from "./rank_keys.ts";
import { PROVIDER_TABLES } from "./schema.ts";
import type { FinalizeProgress } from "./build_meta.ts";

/** Provider rows written between two chances for other work (see `IndexBuilder.writeBeside`). */
export const PROVIDER_ROWS_A_STEP = 100_000;

/**
 * Writes the provider table in rank order, with each record's side bits
 * from `sides` (by seq), and its lookups by NPI and by ZIP+4, each in key
 * order. Yields every {@linkcode PROVIDER_ROWS_A_STEP} rows, so a
 * caller can let other work run between steps; `npiBySeq` gives each
 * record's NPI.
 *
 * @example
 * ```ts
 * for (const _ of writeProviderTables(db, ranked, active, sides, () => {}, npiBySeq));
 * ```
 */
export function* writeProviderTables(
  db: DatabaseSync,
  ranked: RankedProviders,
  active: Uint8Array,
  sides: Uint8Array,
  onProgress: FinalizeProgress,
  npiBySeq: Float64Array,
): Generator<void> {
  const n = ranked.size;
  const { seqById } = ranked;
  onProgress(0, n, "provider table");
  db.exec(PROVIDER_TABLES);
  const rows = new BatchInsert(db, "INSERT INTO provider (id, npi, record, active, sides)", 5);
  for (let id = 1; id <= n; id++) {
    const seq = seqById[id]!;
    rows.add(id, npiBySeq[seq]!, seq, active[id]!, sides[seq] ?? 0);
    if (id % PROVIDER_ROWS_A_STEP === 0) yield;
  }
  rows.flush();
  onProgress(n, n, "provider table");
  const npis = new BatchInsert(db, "INSERT INTO provider_npi (npi, id)", 2);
  const { idsByNpi } = ranked;
  for (let k = 0; k < idsByNpi.length; k++) {
    const id = idsByNpi[k]!;
    npis.add(npiBySeq[seqById[id]!]!, id);
    if (k % PROVIDER_ROWS_A_STEP === 0) yield;
  }
  npis.flush();
  const zip9 = new BatchInsert(db, "INSERT INTO provider_zip9 (zip9, id)", 2);
  const { zip9Ids, zip9Codes } = ranked;
  for (let k = 0; k < zip9Ids.length; k++) {
    zip9.add(zip9Codes[k]!, zip9Ids[k]!);
    if (k % PROVIDER_ROWS_A_STEP === 0) yield;
  }
  zip9.flush();
}
