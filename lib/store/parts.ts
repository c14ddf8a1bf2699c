/**
 * A database's part files. SQLite maps at most the first 2 GB of a file
 * into memory (`SQLITE_MAX_MMAP_SIZE`), and on a host that reclaims file
 * pages no process maps, every page beyond that is read from disk again
 * once it has gone cold. So the two large tables live in files of their
 * own beside the main file, each small enough to be mapped whole: the
 * posting lists (64 KB pages: a long list is one run of large pages, not a
 * chain of small ones) and the records, split by arrival number into files
 * of at most {@linkcode RECORD_PART_BYTES} (a server may hold their
 * pages mapped: `RecordParts.hold`).
 *
 * The main file names its parts in its `meta` table (`parts`), relative to
 * its own folder. Part names carry the stamp of the build that wrote them,
 * so a new build never touches the parts a server is reading, and the main
 * file can be renamed (a replica's `providers.db`, a published
 * `<release>.db`) while its parts keep their names.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { basename, dirname } from "../paths.ts";

/** The `meta` key naming a database's parts. */
export const PARTS_META_KEY = "parts";

/** Bytes a records part grows to before the next record starts a new one (1.5 GiB). */
export const RECORD_PART_BYTES = 1536 * 1024 * 1024;

/** Page size of the postings part: long lists are read in few, large pages. */
export const POSTINGS_PAGE_SIZE = 65536;

/** SQLite's most bytes mapped per file (`SQLITE_MAX_MMAP_SIZE`); a larger setting is cut to it. */
export const MMAP_BYTES = 2147418112;

/** A records part: its file and the first arrival number (`seq`) it holds. */
export interface RecordPartName {
  file: string;
  first: number;
}

/** The part files of a database, as its `meta` table names them. */
export interface PartNames {
  /** The file of the posting lists. */
  postings: string;
  /** The records' files, by ascending first seq. */
  records: RecordPartName[];
  /**
   * The index map (`index_map.ts`): the posting lists and index columns in
   * one file, read in place. Optional: without it they are read from SQLite.
   */
  map?: string;
  /**
   * The kept unions (`lib/search/kept_unions.ts`): the commonest words'
   * dense unions, read in place. Optional: without them those unions are
   * built as searches meet them.
   */
  unions?: string;
}

/**
 * The name of a part of a build of `target` stamped `stamp`:
 * `<target's name>.<stamp>.<kind>`.
 *
 * @example
 * ```ts
 * partName("data/providers.db", "4242-m1x2y3", "records-0"); // "providers.db.4242-m1x2y3.records-0"
 * ```
 */
export function partName(target: string, stamp: string, kind: string): string {
  return `${basename(target)}.${stamp}.${kind}`;
}

/**
 * The path of part `file` of the database at `main` (parts lie beside it).
 *
 * @example
 * ```ts
 * partPath("data/providers.db", "providers.db.4242-m1x2y3.postings"); // "data/providers.db.4242-m1x2y3.postings"
 * ```
 */
export function partPath(main: string, file: string): string {
  const folder = dirname(main);
  return folder === "." ? file : `${folder}/${file}`;
}

/** Whether `file` is a plain file name (no folder, no `..`): what a part may be called. */
function plainName(file: unknown): file is string {
  return typeof file === "string" && /^[A-Za-z0-9._-]{1,200}$/.test(file) && file !== "." &&
    file !== "..";
}

/**
 * Reads and checks the part names of a database's `meta` value; throws a
 * `TypeError` saying what is wrong.
 *
 * @example
 * ```ts
 * parseParts('{"postings":"p.db.1-a.postings","records":[{"file":"p.db.1-a.records-0","first":1}]}');
 * ```
 */
export function parseParts(value: string | undefined): PartNames {
  if (value === undefined) throw new TypeError("The database names no part files");
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new TypeError("The database's list of part files is not JSON");
  }
  const { postings, records, map, unions } = (parsed ?? {}) as {
    postings?: unknown;
    records?: unknown;
    map?: unknown;
    unions?: unknown;
  };
  if (!plainName(postings)) throw new TypeError("The database's postings part has no valid name");
  if (map !== undefined && !plainName(map)) {
    throw new TypeError("The database's index map has no valid name");
  }
  if (unions !== undefined && !plainName(unions)) {
    throw new TypeError("The database's kept unions have no valid name");
  }
  if (!Array.isArray(records) || records.length === 0) {
    throw new TypeError("The database names no records part");
  }
  let previous = 0;
  const parts = records.map((part: { file?: unknown; first?: unknown }, i) => {
    if (!plainName(part?.file) || !Number.isSafeInteger(part.first)) {
      throw new TypeError(`The database's records part ${i} has no valid name or first seq`);
    }
    const first = part.first as number;
    if (first <= previous) throw new TypeError("The database's records parts are out of order");
    previous = first;
    return { file: part.file, first };
  });
  return {
    postings,
    records: parts,
    ...(map === undefined ? {} : { map }),
    ...(unions === undefined ? {} : { unions }),
  };
}

/** Every file a database's parts are (postings first, the records in order, the index map, the kept unions). */
export function partFiles(names: PartNames): string[] {
  return [
    names.postings,
    ...names.records.map((r) => r.file),
    ...(names.map ? [names.map] : []),
    ...(names.unions ? [names.unions] : []),
  ];
}

/**
 * The part names the database at `main` holds, or null when it cannot be
 * read or names none (a missing file, another schema). Never throws.
 *
 * @example
 * ```ts
 * const names = readPartNames("data/providers.db");
 * ```
 */
export function readPartNames(main: string): PartNames | null {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(main, { readOnly: true });
    const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(PARTS_META_KEY) as
      | { value: string }
      | undefined;
    return parseParts(row?.value);
  } catch {
    return null;
  } finally {
    try {
      db?.close();
    } catch { /* never opened */ }
  }
}

/**
 * Opens a part read-only for serving: the file's shared lock taken once
 * and kept, the whole file mapped by SQLite (its pages read in place), a
 * small page cache.
 *
 * @example
 * ```ts
 * const postings = openPart("data/providers.db.4242-m1x2y3.postings");
 * ```
 */
export function openPart(path: string): DatabaseSync {
  try {
    if (!Deno.statSync(path).isFile) throw new Error("not a file");
  } catch {
    throw missingPart(basename(path));
  }
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec(
      `PRAGMA query_only = ON; PRAGMA cache_size = -2048; PRAGMA mmap_size = ${MMAP_BYTES}; ` +
        "PRAGMA locking_mode = EXCLUSIVE;",
    );
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Removes the part files of `old` that `kept` does not name, beside the
 * database at `main`: the parts of a release just replaced. A part already
 * gone, or one the system will not let go of (open elsewhere on Windows),
 * is left. Returns the paths removed.
 *
 * @example
 * ```ts
 * const old = readPartNames("data/providers.db");
 * Deno.renameSync(built, "data/providers.db");
 * if (old) removeReplacedParts("data/providers.db", old, readPartNames("data/providers.db"));
 * ```
 */
export function removeReplacedParts(
  main: string,
  old: PartNames,
  kept: PartNames | null,
): string[] {
  const keep = new Set(kept ? partFiles(kept) : []);
  const removed: string[] = [];
  for (const file of partFiles(old)) {
    if (keep.has(file)) continue;
    const path = partPath(main, file);
    try {
      Deno.removeSync(path);
      removed.push(path);
    } catch { /* gone, or held open */ }
  }
  return removed;
}

/**
 * The error of a part file the database names but that is not beside it,
 * saying what to do (`remedy`: how to write it again).
 *
 * @example
 * ```ts
 * throw missingPart("providers.db.4242-m1x2y3.map");
 * ```
 */
export function missingPart(file: string, remedy = "import again"): Error {
  return new Error(
    `its part '${file}' is missing: keep every file the import wrote beside it ` +
      `(the release manifest lists them), or ${remedy}`,
  );
}

/**
 * Names `file`, a derived part just written beside the database at `db`,
 * in its meta as its `kind` (the index map, the kept unions), through
 * `main`, a connection that may write to it; when that fails (a server
 * holds the database), removes the file and throws what to do.
 */
export function nameDerivedPart(
  main: DatabaseSync,
  db: string,
  parts: PartNames,
  kind: "map" | "unions",
  file: string,
): void {
  try {
    main.prepare("UPDATE meta SET value = ? WHERE key = ?").run(
      JSON.stringify({ ...parts, [kind]: file }),
      PARTS_META_KEY,
    );
  } catch (error) {
    Deno.removeSync(partPath(db, file));
    throw new Error(
      `Cannot name the part '${file}' in '${db}' (${
        error instanceof Error ? error.message : error
      }): stop the servers of the database and run it again`,
    );
  }
}
