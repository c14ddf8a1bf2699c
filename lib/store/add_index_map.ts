/**
 * Gives a database built before index maps (`index_map.ts`) or record maps
 * (`record_map.ts`) the maps it lacks: each is written beside it from its
 * own parts and named in its `meta` table, so that servers opened on it
 * afterwards read their index and records in place.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { type IndexMapStats, writeIndexMap } from "../index/index_map.ts";
import { type RecordMapStats, writeRecordMap } from "./record_map.ts";
import { openPart, type PartNames, partPath, PARTS_META_KEY, readPartNames } from "./parts.ts";
import { RecordParts } from "./record_parts.ts";

/** What {@linkcode addIndexMap} did for one map. */
export interface AddedMap {
  /** The map's file name (beside the database). */
  file: string;
  /** False when the database named this map already (nothing was written). */
  written: boolean;
  bytes: number;
}

/** What {@linkcode addIndexMap} did. */
export interface AddedMaps {
  index: AddedMap & Pick<IndexMapStats, "entries">;
  records: AddedMap & Pick<RecordMapStats, "providers">;
}

/**
 * Writes the maps the database at `db` lacks — its index map
 * (`<db>.<stamp>.map`) and its record map (`<db>.<stamp>.docs`), named
 * with the stamp of the postings part — and names each in its meta.
 * Throws when the database has no parts to read, or cannot be written (a
 * server holding it: stop it).
 *
 * @example
 * ```ts
 * const { index, records } = addIndexMap("data/providers.db");
 * ```
 */
export function addIndexMap(db: string): AddedMaps {
  const parts = readPartNames(db);
  if (!parts) throw new Error(`'${db}' is not a database this version serves: import it again`);
  if (!parts.postings.endsWith(".postings")) {
    throw new Error(`The postings part '${parts.postings}' has no build stamp: import again`);
  }
  const stem = parts.postings.slice(0, -".postings".length);
  const main = new DatabaseSync(db);
  try {
    const index = { file: parts.map ?? `${stem}.map`, written: false, bytes: 0, entries: 0 };
    if (!parts.map) {
      const postings = openPart(partPath(db, parts.postings));
      try {
        Object.assign(
          index,
          writeIndexMap(partPath(db, index.file), main, postings, parts.postings),
        );
      } finally {
        postings.close();
      }
      nameMap(db, main, { ...parts, map: index.file }, index.file);
      index.written = true;
    }
    const records = { file: parts.docs ?? `${stem}.docs`, written: false, bytes: 0, providers: 0 };
    if (!parts.docs) {
      const recordParts = RecordParts.open(db, parts.records);
      try {
        Object.assign(
          records,
          writeRecordMap(
            partPath(db, records.file),
            main,
            recordParts.rows(),
            recordParts.lastSeq(),
            parts.records[0]!.file,
          ),
        );
      } finally {
        recordParts.close();
      }
      nameMap(db, main, { ...parts, map: index.file, docs: records.file }, records.file);
      records.written = true;
    }
    return { index, records };
  } finally {
    main.close();
  }
}

/** Names the parts `parts` in the meta of `main` (at `db`); removes map `file` when it cannot. */
function nameMap(db: string, main: DatabaseSync, parts: PartNames, file: string): void {
  try {
    main.prepare("UPDATE meta SET value = ? WHERE key = ?").run(
      JSON.stringify(parts),
      PARTS_META_KEY,
    );
  } catch (error) {
    Deno.removeSync(partPath(db, file));
    throw new Error(
      `Cannot name the map '${file}' in '${db}' (${
        error instanceof Error ? error.message : error
      }): stop the servers of the database and run it again`,
    );
  }
}
