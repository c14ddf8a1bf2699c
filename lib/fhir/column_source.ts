/**
 * Columns a FHIR search reads beside the search index (endpoint rows,
 * secondary locations), loaded once per store: the store must be a SQLite
 * store whose database has them.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { SearchIndex } from "../index/reader.ts";

/** Columns of one kind, with the index and connection of the store they were read from. */
export interface ColumnSource<C> {
  columns: C;
  index: SearchIndex;
  db: DatabaseSync;
}

/**
 * A function giving a store's columns of one kind, read by `read` on the
 * first call for that store and kept; `null` for a store without them.
 *
 * @example
 * ```ts
 * const endpointSource = columnSource(readEndpointColumns);
 * endpointSource(store)?.columns;
 * ```
 */
export function columnSource<C>(
  read: (db: DatabaseSync) => C | null,
): (store: object) => ColumnSource<C> | null {
  const sources = new WeakMap<object, ColumnSource<C> | null>();
  return (store) => {
    if (sources.has(store)) return sources.get(store)!;
    const sqlite = store as { db?: DatabaseSync; index?: SearchIndex };
    let source: ColumnSource<C> | null = null;
    if (sqlite.db && "index" in sqlite) {
      const columns = read(sqlite.db);
      if (columns) source = { columns, index: sqlite.index!, db: sqlite.db };
    }
    sources.set(store, source);
    return source;
  };
}
