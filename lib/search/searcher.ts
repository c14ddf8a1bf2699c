/**
 * Searching over a store: the layer that puts the engine and its caches on
 * top of a {@linkcode SqliteStore}'s connection and index. The store knows
 * records and tables; this module knows queries.
 *
 * @module
 */
import type { ProviderStore } from "../store/store.ts";
import {
  openSqliteStore,
  type SqliteStore,
  type SqliteStoreOptions,
} from "../store/sqlite_store.ts";
import type { Watch } from "../deadline.ts";
import { type EngineContext, nameIds, ResultCache, search, type SearchPage } from "./engine.ts";
import type { SearchQuery } from "./query.ts";
import { FIELD } from "../index/fields.ts";
import { surnameRange } from "../store/name_range.ts";
import { MemberBitsCache, type SharedWordSet, WordSetCache } from "./word_sets.ts";
import { FilterCache } from "./filter_lists.ts";
import { TypoFinder } from "./text_query.ts";
import { specialtyVocabulary } from "./specialty_words.ts";
import { passesCheck, type RecordCheck } from "./record_check.ts";
import { LazyPoints } from "./points.ts";
import { type KeptUnions, openKeptUnions } from "./kept_unions.ts";

/** Runs searches. */
export interface Searcher {
  /** Runs a search; the watch's signal or deadline abandons it. */
  search(query: SearchQuery, watch?: Watch): SearchPage;
}

/** A store that can also be searched: what routes and workers answer from. */
export interface SearchableStore extends ProviderStore, Searcher {}

/** A searchable SQLite store (its connection and index stay reachable). */
export interface SearchableSqliteStore extends SqliteStore, Searcher {
  /** Word unions kept since the last call, in shared memory (with `shareWordSets`), for other workers. */
  takeWordSets(): SharedWordSet[];
  /** Keeps word unions another worker of the same file built. */
  adoptWordSets(sets: readonly SharedWordSet[]): void;
  /** The engine's context (its index, vocabulary and caches): for building files derived from it. */
  engineContext(): EngineContext;
}

/** Budgets of the caches a searcher keeps between searches. */
export interface SearcherOptions {
  /** Bytes of finished result sets. Default 32 MB. */
  resultCacheBytes?: number;
  /**
   * Bytes of common words' unions. Default 128 MB (448 MB before the commonest words' dense unions
   * were kept with the database, 256 MB before their sparse ones were: `kept_unions.ts`).
   */
  wordSetCacheBytes?: number;
  /** Bytes of recurring common words' member bits (1.2 MB each at 9.7 million). Default 32 MB. */
  memberBitsCacheBytes?: number;
  /** Keep word unions in shared memory, for {@linkcode SearchableSqliteStore.takeWordSets}. */
  shareWordSets?: boolean;
  /** Bytes of long filter unions (a specialty's codes, states). Default 48 MB. */
  filterCacheBytes?: number;
  /** Build the engine on the first search instead of now (see `lazyIndex`). */
  lazy?: boolean;
  /** Most candidate records a record check reads before the search is refused (see engine.ts). */
  maxRecordChecks?: number;
  /** Read the kept unions the database names (`kept_unions.ts`). Default true. */
  keptUnions?: boolean;
}

/**
 * Adds searching to an open store. The engine (typo finder, specialty
 * vocabulary, caches) is built now, or on the first search with `lazy`.
 *
 * @example
 * ```ts
 * const store = withSearch(openSqliteStore("data/providers.db"));
 * store.search(parseSearchParams(new URLSearchParams("q=smith"))).total;
 * ```
 */
export function withSearch(
  store: SqliteStore,
  options: SearcherOptions = {},
): SearchableSqliteStore {
  let engine: EngineContext | undefined;
  const load = (): EngineContext => {
    if (engine) return engine;
    const index = store.index;
    let keptUnions: KeptUnions | null = null;
    try {
      keptUnions = options.keptUnions === false
        ? null
        : openKeptUnions(store.path, store.parts, index.size + 1);
    } catch (error) {
      throw new Error(
        `Cannot serve '${store.path}': ${error instanceof Error ? error.message : error}`,
      );
    }
    return engine = {
      db: store.db,
      index,
      keptUnions,
      typos: new TypoFinder(store.db, index.typoBuckets()),
      specialties: specialtyVocabulary(index.codes, store.describe),
      cache: new ResultCache(options.resultCacheBytes ?? 32 * 1024 * 1024),
      wordSets: new WordSetCache(options.wordSetCacheBytes ?? 128 * 1024 * 1024, {
        share: options.shareWordSets,
      }),
      filterLists: new FilterCache(options.filterCacheBytes ?? 48 * 1024 * 1024),
      memberBits: new MemberBitsCache(options.memberBitsCacheBytes ?? 32 * 1024 * 1024),
      points: new LazyPoints(() => ({
        lat: index.lat,
        lon: index.lon,
        first: 1,
        last: index.size,
      })),
    };
  };
  if (!options.lazy) load();
  // Copied by descriptors, so the store's lazy `index` getter stays lazy.
  const searchable = Object.defineProperties(
    {},
    Object.getOwnPropertyDescriptors(store),
  ) as SearchableSqliteStore;
  // Criteria the index cannot answer (see `RecordCheck`) are tested on the stored record.
  const checkRecord = (id: number, check: RecordCheck): boolean => {
    const found = store.getProvidersById([id])[0];
    return found !== undefined && passesCheck(found.provider, check);
  };
  // A Registry API `last_name` keeps to the own last name: its id range, read off the name's list.
  const withOwnName = (query: SearchQuery): SearchQuery => {
    const { ownLastName, lastNames } = query;
    if (!ownLastName) return query;
    const listed = lastNames ? () => nameIds(store.index, FIELD.lastKey, lastNames) : undefined;
    return { ...query, idRange: surnameRange(store, ownLastName, listed) };
  };
  searchable.search = (query, watch = {}) =>
    search(withOwnName(query), {
      ...load(),
      signal: watch.signal,
      deadline: watch.deadline,
      stopped: watch.stopped,
      checkRecord,
      maxRecordChecks: options.maxRecordChecks,
    });
  searchable.takeWordSets = () => engine?.wordSets?.takeFresh() ?? [];
  searchable.adoptWordSets = (sets) => load().wordSets?.adopt(sets);
  searchable.engineContext = load;
  // The index's columns first, then the vocabulary's term counts, then the points.
  searchable.warm = () =>
    store.warm() || (engine?.typos.warm() ?? false) || (engine?.points?.warm() ?? false);
  // The store counts records and posting lists; the engine's caches are counted here.
  searchable.cacheCounters = () => {
    const out = store.cacheCounters();
    if (engine) {
      const counts = (lru: { hits: number; misses: number }) => ({
        hits: lru.hits,
        misses: lru.misses,
      });
      out.results = counts(engine.cache);
      if (engine.wordSets) out.word_sets = counts(engine.wordSets);
      if (engine.filterLists) out.filters = counts(engine.filterLists);
    }
    return out;
  };
  return searchable;
}

/**
 * Opens a database file and adds searching: {@linkcode openSqliteStore}
 * then {@linkcode withSearch}, with the options of both.
 *
 * @example
 * ```ts
 * const store = openSearchableStore("data/providers.db");
 * ```
 */
export function openSearchableStore(
  path: string,
  options: SqliteStoreOptions & SearcherOptions = {},
): SearchableSqliteStore {
  const store = openSqliteStore(path, options);
  try {
    return withSearch(store, { ...options, lazy: options.lazy ?? options.lazyIndex });
  } catch (error) {
    store.close();
    throw error;
  }
}
