/**
 * The SQLite implementation of {@linkcode ProviderStore}, opened read-only.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Provider } from "../provider.ts";
import type { TaxonomyEntry, TaxonomySection } from "../taxonomy/nucc.ts";
import { decodeProvider } from "./codec.ts";
import { parseEndpoint, parseLocation, SIDE, unpackOtherName, withSides } from "./sides.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { type DatasetInfo, type ProviderStore, StoreOpenError } from "./store.ts";
import type { CacheCounters } from "../lru.ts";
import { TextRing } from "../text_ring.ts";
import { type ColumnBytes, SearchIndex } from "../index/reader.ts";
import { IndexMap } from "../index/index_map.ts";
import { canMapFiles } from "../index/mapped_file.ts";
import { recordBatchReader } from "./record_batch.ts";
import { PROVIDER_ROWS, providerRowsOf } from "./provider_rows.ts";
import { RecordText, type StoredRecord } from "./record_text.ts";
import {
  missingPart,
  MMAP_BYTES,
  openPart,
  parseParts,
  type PartNames,
  partPath,
  PARTS_META_KEY,
} from "./parts.ts";
import { RecordParts } from "./record_parts.ts";

/**
 * A SQLite store, with its connection and index for the search layer
 * (`lib/search/searcher.ts` adds searching on top).
 */
export interface SqliteStore extends ProviderStore {
  /** The read-only connection to the main file. */
  readonly db: DatabaseSync;
  /** The records parts. */
  readonly records: RecordParts;
  /**
   * With `holdRecords`: resolves once every page of the records parts is
   * mapped (or the store closed first) with the records read, or with why
   * a part could not be read; null without. Never rejects.
   */
  readonly held: Promise<HoldOutcome> | null;
  /** The main file it was opened from. */
  readonly path: string;
  /** The part files the main file names (see `parts.ts`). */
  readonly parts: PartNames;
  /** Description of a taxonomy code. */
  describe(code: string): string | null;
  /** The search index (loaded on first use when opened with `lazyIndex`). */
  readonly index: SearchIndex;
  /**
   * Reads one more column of a loaded search index ({@linkcode SearchIndex.warm});
   * returns whether any is left. Does nothing on a `lazyIndex` store not searched yet.
   */
  warm(): boolean;
  /**
   * Hits and misses of this store's caches: `records` (provider JSON) and,
   * once the search index is loaded, `postings`, `results`, `word_sets`
   * and `filters`.
   */
  cacheCounters(): CacheCounters;
}

/** The provider of a stored record and its rows of the reference files. */
function providerOf(stored: StoredRecord, describe: (code: string) => string | null): Provider {
  const base = decodeProvider(stored.doc, describe);
  if (stored.sides === 0) return base;
  return withSides(base, {
    otherNames: stored.otherNames.map(unpackOtherName),
    locations: stored.locations.map(parseLocation),
    endpoints: stored.endpoints.map(parseEndpoint),
  });
}

/**
 * Reads one provider record: the stored record (from its records part)
 * joined with its rows of the reference files (only when its `sides` bits
 * say there are some).
 */
function recordReader(
  db: DatabaseSync,
  parts: RecordParts,
  describe: (code: string) => string | null,
) {
  const columns = "SELECT record, npi, sides FROM provider";
  const byId = db.prepare(`${columns} WHERE id = ?`);
  const byNpi = db.prepare(
    `${columns} WHERE id = (SELECT id FROM provider_npi WHERE npi = ?)`,
  );
  const side = (table: string) =>
    db.prepare(`SELECT doc FROM ${table} WHERE npi = ? ORDER BY rowid`);
  const other = side("other_name"), location = side("location"), endpoint = side("endpoint");
  const docs = (statement: StatementSync, npi: number, sides: number, bit: number) =>
    (sides & bit) !== 0 ? statement.all(npi).map((row) => (row as { doc: string }).doc) : [];
  const provider = (row: unknown): Provider | null => {
    if (!row) return null;
    const { record, npi, sides } = row as { record: number; npi: number; sides: number };
    const doc = parts.doc(record);
    if (doc === undefined) return null;
    return providerOf({
      doc,
      sides,
      otherNames: docs(other, npi, sides, SIDE.otherNames),
      locations: docs(location, npi, sides, SIDE.locations),
      endpoints: docs(endpoint, npi, sides, SIDE.endpoints),
    }, describe);
  };
  return {
    byId: (id: number) => provider(byId.get(id)),
    byNpi: (npi: number) => provider(byNpi.get(npi)),
  };
}

/** How {@linkcode openSqliteStore} opens a database. */
export interface SqliteStoreOptions {
  /**
   * Bytes of posting lists kept between searches (see `SearchIndexOptions.cacheBytes`): with an
   * index map, the unions of prefixes' terms. Default 16 MB.
   */
  postingCacheBytes?: number;
  /** Bytes of providers' JSON texts (UTF-8) kept between requests. Default 8 MB. */
  recordCacheBytes?: number;
  /**
   * Load the search index on first use instead of now: for a thread that
   * serves records while search workers hold the index.
   */
  lazyIndex?: boolean;
  /** Read the index's large columns into shared memory (see `SearchIndexOptions.shared`). */
  shareColumns?: boolean;
  /**
   * Large columns other threads already read into shared memory (the search
   * pool's), taken when this store's index is loaded instead of reading
   * copies (see `SearchIndex.adopt`).
   */
  sharedColumns?: () => ColumnBytes;
  /**
   * Read the index from its index map (`index_map.ts`) when the database
   * has one and this process can map files. Default true; false reads it
   * from SQLite.
   */
  indexMap?: boolean;
  /**
   * Map every page of the records parts into this store's connections now,
   * in the background (`RecordParts.hold`; see {@linkcode SqliteStore.held}).
   */
  holdRecords?: boolean;
}

/**
 * The index map of the database at `path`, mapped; null when it names
 * none, `wanted` is false, or files cannot be mapped here. Throws when
 * the map it names is missing, unreadable or made of other postings.
 */
function openIndexMap(path: string, parts: PartNames, wanted: boolean): IndexMap | null {
  if (!parts.map || !wanted || !canMapFiles()) return null;
  const file = partPath(path, parts.map);
  let map: IndexMap | null;
  try {
    map = IndexMap.open(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw missingPart(parts.map);
    throw error;
  }
  if (map && map.postings !== parts.postings) {
    throw new Error(`its index map '${parts.map}' was made of other postings: import again`);
  }
  return map;
}

/** How holding the records parts ended: the records read, or why it stopped. */
export type HoldOutcome = { records: number } | { error: string };

/**
 * Milliseconds between two chunks of holding the records parts: a tenth of
 * the thread's time at most (some 30 s a connection at 9.7 million
 * records), so that the first searches after a start hardly wait for it.
 */
const HOLD_PAUSE_MS = 4;

/** Resolves after {@linkcode HOLD_PAUSE_MS}, the thread's tasks run meanwhile. */
function holdPause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, HOLD_PAUSE_MS));
}

/** {@linkcode RecordParts.hold} between the thread's tasks, its failure an outcome. */
function holdParts(parts: RecordParts): Promise<HoldOutcome> {
  return parts.hold(holdPause).then(
    (records) => ({ records }),
    (error) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
}

function readMeta(db: DatabaseSync): Map<string, string> {
  const rows = db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[];
  return new Map(rows.map((r) => [r.key, r.value]));
}

/**
 * Opens a database file read-only and checks that it is one this version
 * serves. Throws {@linkcode StoreOpenError} with a message that says what is
 * wrong and what to do.
 *
 * @example
 * ```ts
 * const store = openSqliteStore("data/providers.db");
 * store.getProvider("1003000126")?.name;
 * ```
 */
export function openSqliteStore(
  path: string,
  options: SqliteStoreOptions = {},
): SqliteStore {
  try {
    const stat = Deno.statSync(path);
    if (!stat.isFile) throw new StoreOpenError(`Cannot open '${path}': it is not a file`);
  } catch (error) {
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(
      `Cannot open '${path}': the file does not exist; import data or remove PROVIDERS_DB to get the demo`,
    );
  }
  let db: DatabaseSync;
  let meta: Map<string, string>;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    // A served file is never written (a new release is a new file), so the connection takes its
    // shared lock once and keeps it: without that, every statement locks, checks and unlocks the
    // file, some 5-10 µs of system calls, more than most index reads cost. The first 2 GB of the
    // file (SQLite's most) are read through memory mapping, without a system call a page: a page of
    // ten random records at 9.7 million read in about a fifth less time than with 1 GB.
    db.exec(
      `PRAGMA query_only = ON; PRAGMA cache_size = -32768; PRAGMA mmap_size = ${MMAP_BYTES}; ` +
        "PRAGMA locking_mode = EXCLUSIVE;",
    );
    meta = readMeta(db);
  } catch (error) {
    throw new StoreOpenError(
      `Cannot open '${path}': not a provider database (${
        error instanceof Error ? error.message : error
      }); ` +
        "delete it to rebuild the demo, or import the NPPES files again",
    );
  }
  const version = Number(meta.get("schema_version"));
  if (version !== SCHEMA_VERSION) {
    db.close();
    throw new StoreOpenError(
      `Cannot serve '${path}': its schema version is ${meta.get("schema_version") ?? "unknown"}, ` +
        `this version needs ${SCHEMA_VERSION}; import the files again (or delete it to rebuild the demo)`,
    );
  }
  let parts: PartNames;
  let recordParts: RecordParts;
  let postings: DatabaseSync;
  try {
    parts = parseParts(meta.get(PARTS_META_KEY));
    recordParts = RecordParts.open(path, parts.records);
    try {
      postings = openPart(partPath(path, parts.postings));
    } catch (error) {
      recordParts.close();
      throw error;
    }
  } catch (error) {
    db.close();
    throw new StoreOpenError(
      `Cannot serve '${path}': ${error instanceof Error ? error.message : error}`,
    );
  }
  const closeAll = () => {
    for (const connection of [db, postings]) {
      try {
        connection.close();
      } catch { /* closed */ }
    }
    recordParts.close();
  };
  const taxonomy = (db.prepare(
    "SELECT code, display, grouping, classification, specialization, definition, section FROM taxonomy ORDER BY code",
  ).all() as unknown as TaxonomyEntry[]).map((t) => ({
    ...t,
    section: t.section as TaxonomySection | null,
  }));
  const names = new Map(taxonomy.map((t) => [t.code, t.display]));
  const describe = (code: string) => names.get(code) ?? null;
  const records = recordReader(db, recordParts, describe);
  let index: SearchIndex | undefined;
  // The provider rows column, once the index is loaded: null when its map holds none.
  let rows: Uint32Array | null | undefined;
  const readBatch = recordBatchReader(db, recordParts, () => {
    if (rows === undefined && index) {
      rows = providerRowsOf(index.mappedBlob(PROVIDER_ROWS), index.size);
    }
    return rows ?? null;
  });
  const text = new RecordText(describe);
  const idByNpi: StatementSync = db.prepare("SELECT id FROM provider_npi WHERE npi = ?");
  // Provider JSON texts by id, as UTF-8 outside the heap (nothing for the collectors to copy).
  const jsonCache = new TextRing(options.recordCacheBytes ?? 8 * 1024 * 1024);
  const jsonOf = (id: number): string | null => {
    let text = jsonCache.get(id);
    if (text === undefined) {
      const provider = records.byId(id);
      if (!provider) return null;
      text = JSON.stringify(provider);
      jsonCache.set(id, text);
    }
    return text;
  };
  // Databases built before the key's separator record no form: the first one.
  const nameKey = Number(meta.get("name_key") ?? 1);
  const info: DatasetInfo = {
    source: meta.get("source") === "demo" ? "demo" : "nppes",
    synthetic: meta.get("synthetic") === "true",
    records: Number(meta.get("records") ?? 0),
    active: Number(meta.get("active") ?? 0),
    deactivated: Number(meta.get("records") ?? 0) - Number(meta.get("active") ?? 0),
    built_at: meta.get("built_at") ?? "",
    schema_version: version,
    files: JSON.parse(meta.get("files") ?? "[]"),
    taxonomy_source: meta.get("taxonomy_source") ?? "",
    zip_dataset: meta.get("zip_dataset") ?? "",
    zips_not_found: Number(meta.get("zips_not_found") ?? 0),
  };
  const loadIndex = (): SearchIndex => {
    if (index) return index;
    try {
      index = SearchIndex.open(db, postings, {
        cacheBytes: options.postingCacheBytes ?? 16 * 1024 * 1024,
        shared: options.shareColumns,
        map: openIndexMap(path, parts, options.indexMap ?? true),
      });
      try {
        index.adopt(options.sharedColumns?.() ?? {});
      } catch {
        // Columns that do not fit this file are not taken: the index reads its own.
      }
    } catch (error) {
      throw new StoreOpenError(
        `Cannot serve '${path}': its search index is unreadable (${
          error instanceof Error ? error.message : error
        }); ` +
          "import the files again",
      );
    }
    return index;
  };
  if (!options.lazyIndex) {
    try {
      loadIndex();
    } catch (error) {
      closeAll();
      throw error;
    }
  }
  return {
    db,
    records: recordParts,
    held: options.holdRecords ? holdParts(recordParts) : null,
    path,
    parts,
    get index() {
      return loadIndex();
    },
    warm: () => index?.warm() ?? false,
    describe,
    getProvider(npi: string): Provider | null {
      if (!/^\d{10}$/.test(npi)) return null;
      return records.byNpi(Number(npi));
    },
    getProvidersById(ids, stored) {
      // One record by its own statement; more in one batch (a statement step per batch, not each).
      if (!stored && ids.length === 1) {
        const provider = records.byId(ids[0]!);
        return provider ? [{ id: ids[0]!, provider }] : [];
      }
      return (stored ?? readBatch(ids)).map((row) => ({
        id: row.id,
        provider: providerOf(row, describe),
      }));
    },
    storedRecords: readBatch,
    providerJsonById(ids) {
      // Records not cached are read in one batch and written as text without the record object.
      const texts = ids.map((id) => jsonCache.get(id));
      const missing = ids.filter((_, i) => texts[i] === undefined);
      if (missing.length > 0) {
        const read = new Map<number, string>();
        for (const row of readBatch(missing)) {
          const json = text.json(row);
          read.set(row.id, json);
          jsonCache.set(row.id, json);
        }
        ids.forEach((id, i) => (texts[i] ??= read.get(id)));
      }
      return texts.filter((json) => json !== undefined);
    },
    exportText(ids, format) {
      let out = "";
      for (const row of readBatch(ids)) {
        out += format === "csv" ? text.csv(row) : `${text.json(row)}\n`;
      }
      return out;
    },
    providerJson(npi) {
      if (!/^\d{10}$/.test(npi)) return null;
      const row = idByNpi.get(Number(npi)) as { id: number } | undefined;
      return row ? jsonOf(row.id) : null;
    },
    dataset: () => structuredClone(info),
    nameKeyVersion: () => nameKey,
    cacheCounters(): CacheCounters {
      const counts = (lru: { hits: number; misses: number }) => ({
        hits: lru.hits,
        misses: lru.misses,
      });
      const out: CacheCounters = { records: counts(jsonCache) };
      if (index) out.postings = index.cacheCounts;
      return out;
    },
    taxonomy: () => taxonomy,
    close: closeAll,
  };
}
