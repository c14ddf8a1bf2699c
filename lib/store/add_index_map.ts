/**
 * Gives a database built before index maps (`index_map.ts`) its map: the
 * map is written beside it from its own postings part and columns, and
 * named in its `meta` table, so that servers opened on it afterwards read
 * their index in place.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { type IndexMapStats, writeIndexMap } from "../index/index_map.ts";
import { nameDerivedPart, openPart, partPath, readPartNames } from "./parts.ts";
import { PROVIDER_ROWS, writeProviderRows } from "./provider_rows.ts";

/** What {@linkcode addIndexMap} did. */
export interface AddedIndexMap extends IndexMapStats {
  /** The map's file name (beside the database). */
  file: string;
  /** False when the database named a map already (nothing was written). */
  written: boolean;
}

/**
 * Writes the index map of the database at `db` and names it in its meta,
 * unless it names one already; with `again`, a map it names is written
 * anew in its place (one an earlier version wrote, without the typo
 * buckets: `index_map.ts`, or without the provider rows column:
 * `provider_rows.ts`, which is then written into the database first).
 * The map takes the stamp of the postings part it is made of
 * (`<db>.<stamp>.map`). Throws when the database has no parts to read,
 * or cannot be written (a server holding it: stop it).
 *
 * @example
 * ```ts
 * const { file, bytes } = addIndexMap("data/providers.db");
 * ```
 */
export function addIndexMap(
  db: string,
  { again = false }: { again?: boolean } = {},
): AddedIndexMap {
  const parts = readPartNames(db);
  if (!parts) throw new Error(`'${db}' is not a database this version serves: import it again`);
  if (parts.map && !again) return { file: parts.map, written: false, entries: 0, bytes: 0 };
  if (parts.map) {
    // A database imported before the provider rows column gets it first (stop its servers).
    addProviderRows(db);
    // Written through a temporary file renamed over the old one: a server still mapping the old
    // one keeps reading it until it stops.
    const main = new DatabaseSync(db, { readOnly: true });
    try {
      const postings = openPart(partPath(db, parts.postings));
      try {
        const stats = writeIndexMap(partPath(db, parts.map), main, postings, parts.postings);
        return { file: parts.map, written: true, ...stats };
      } finally {
        postings.close();
      }
    } finally {
      main.close();
    }
  }
  if (!parts.postings.endsWith(".postings")) {
    throw new Error(`The postings part '${parts.postings}' has no build stamp: import again`);
  }
  const file = `${parts.postings.slice(0, -".postings".length)}.map`;
  const main = new DatabaseSync(db);
  try {
    if (!hasBlob(main, PROVIDER_ROWS)) writeProviderRows(main);
    const postings = openPart(partPath(db, parts.postings));
    let stats: IndexMapStats;
    try {
      stats = writeIndexMap(partPath(db, file), main, postings, parts.postings);
    } finally {
      postings.close();
    }
    nameDerivedPart(main, db, parts, "map", file);
    return { file, written: true, ...stats };
  } finally {
    main.close();
  }
}

/** Whether the database's `index_blob` holds a blob named `name`. */
function hasBlob(main: DatabaseSync, name: string): boolean {
  return main.prepare("SELECT 1 FROM index_blob WHERE name = ?").get(name) !== undefined;
}

/** Writes the provider rows column into the database at `db` unless it has one. */
function addProviderRows(db: string): void {
  const main = new DatabaseSync(db, { readOnly: true });
  let has: boolean;
  try {
    has = hasBlob(main, PROVIDER_ROWS);
  } finally {
    main.close();
  }
  if (has) return;
  const writable = new DatabaseSync(db);
  try {
    writeProviderRows(writable);
  } finally {
    writable.close();
  }
}
