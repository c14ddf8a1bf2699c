/**
 * The reference tables (other names, secondary locations, endpoints): the
 * side bit each sets on a provider, and how an update replaces their rows.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { SideTable } from "./prepare.ts";
import { SIDE } from "./sides.ts";

/** The bit each side table sets. */
export const SIDE_BITS: Readonly<Record<SideTable, number>> = {
  other_name: SIDE.otherNames,
  location: SIDE.locations,
  endpoint: SIDE.endpoints,
};

/** The side tables and the bit each sets. */
export const SIDE_TABLES = Object.entries(SIDE_BITS) as [SideTable, number][];

/**
 * Reference rows joined to their records: a side bit per seq, the number of
 * secondary locations per seq (counted up to 2: one, or more than one), and
 * rows without a record.
 */
export interface Joins {
  sides: Uint8Array;
  locations: Uint8Array;
  orphans: number;
}

/**
 * Updates: the weekly reference rows staged in `stage` replace all rows of
 * their kind for their NPI in `db`.
 *
 * @example
 * ```ts
 * applyStagedSides(db, stage);
 * ```
 */
export function applyStagedSides(db: DatabaseSync, stage: DatabaseSync): void {
  db.exec("BEGIN");
  for (const [table] of SIDE_TABLES) {
    const remove = db.prepare(`DELETE FROM ${table} WHERE npi = ?`);
    const insert = db.prepare(`INSERT INTO ${table} (npi, doc) VALUES (?, ?)`);
    let last: number | null = null;
    const staged = stage.prepare(`SELECT npi, doc FROM ${table} ORDER BY npi, rowid`);
    for (const row of staged.iterate()) {
      const { npi, doc } = row as { npi: number; doc: string };
      if (npi !== last) remove.run(npi);
      last = npi;
      insert.run(npi, doc);
    }
  }
  db.exec("COMMIT");
}
