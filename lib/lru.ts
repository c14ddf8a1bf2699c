/**
 * A byte-bounded LRU cache, for the search index's posting lists and the
 * engine's result sets, word unions and filter lists.
 *
 * @module
 */

/**
 * What an entry costs besides its value (the map's slot, the link, a short
 * key), counted with each: a cache of empty values (a term no provider has)
 * is bounded too, not a map that grows with every new key.
 */
export const ENTRY_BYTES = 128;

/**
 * A byte-bounded LRU cache. A value larger than `1 / largestShare` of the
 * budget (a quarter unless given) is not kept. Values are sized by
 * `sizeOf` (by default their `bytes`), plus `entryBytes` each
 * ({@linkcode ENTRY_BYTES} unless given).
 *
 * @example
 * ```ts
 * const cache = new ByteLru<Uint32Array>(1024, (v) => v.byteLength);
 * cache.set("a", new Uint32Array(25));
 * cache.get("a")?.length; // 25
 * ```
 */
export class ByteLru<V, K = string> {
  /** Entries by key, each a link of a list from least to most recently used. */
  readonly #entries = new Map<K, Entry<K, V>>();
  /** The least recently used entry, and the most. */
  #oldest: Entry<K, V> | null = null;
  #newest: Entry<K, V> | null = null;
  #bytes = 0;
  /** Lookups answered from the cache since it was made. */
  hits = 0;
  /** Lookups the cache could not answer since it was made. */
  misses = 0;
  constructor(
    readonly budget: number,
    readonly sizeOf: (value: V) => number = (value) => (value as { bytes: number }).bytes,
    readonly entryBytes: number = ENTRY_BYTES,
    readonly largestShare: number = 4,
  ) {}
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#unlink(entry);
    this.#append(entry);
    return entry.value;
  }
  /** Whether `key` is kept (neither counted as a lookup nor made recent). */
  has(key: K): boolean {
    return this.#entries.has(key);
  }
  set(key: K, value: V): void {
    const bytes = this.sizeOf(value) + this.entryBytes;
    if (bytes > this.budget / this.largestShare) return;
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#unlink(old);
      this.#bytes -= old.bytes;
      if (old.value !== value) this.dropped(old.value);
    }
    const entry: Entry<K, V> = { key, value, bytes, older: null, newer: null };
    this.#entries.set(key, entry);
    this.#append(entry);
    this.#bytes += bytes;
    // Least recently used first; a link list, so that evicting never walks over deleted keys
    // (a Map iterated from its start does, until it is rehashed).
    while (this.#bytes > this.budget && this.#oldest) {
      const gone = this.#oldest;
      this.#unlink(gone);
      this.#entries.delete(gone.key);
      this.#bytes -= gone.bytes;
      this.dropped(gone.value);
    }
  }
  /**
   * Called with each value the cache lets go of (evicted, or replaced by
   * another under its key); a subclass may take it back for reuse.
   */
  protected dropped(_value: V): void {}
  #append(entry: Entry<K, V>): void {
    entry.older = this.#newest;
    entry.newer = null;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }
  #unlink(entry: Entry<K, V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = entry.newer = null;
  }
}

/** A kept value with its size, linked to its neighbours in order of use. */
interface Entry<K, V> {
  key: K;
  value: V;
  bytes: number;
  older: Entry<K, V> | null;
  newer: Entry<K, V> | null;
}

/** Hits and misses of one cache. */
export interface CacheCounts {
  hits: number;
  misses: number;
}

/** Hits and misses of a store's caches, by cache name (`postings`, `results`, `records`...). */
export type CacheCounters = Record<string, CacheCounts>;

/**
 * Sums cache counters by name.
 *
 * @example
 * ```ts
 * addCacheCounters({ a: { hits: 1, misses: 2 } }, { a: { hits: 3, misses: 0 } });
 * // { a: { hits: 4, misses: 2 } }
 * ```
 */
export function addCacheCounters(...all: CacheCounters[]): CacheCounters {
  const sum: CacheCounters = {};
  for (const counters of all) {
    for (const [name, { hits, misses }] of Object.entries(counters)) {
      const into = sum[name] ??= { hits: 0, misses: 0 };
      into.hits += hits;
      into.misses += misses;
    }
  }
  return sum;
}
