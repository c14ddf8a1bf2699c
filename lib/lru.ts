/**
 * A byte-bounded LRU cache, for the search index's posting lists and the
 * engine's result sets, word unions and filter lists.
 *
 * @module
 */

/**
 * A byte-bounded LRU cache. A value larger than a quarter of the budget is
 * not kept. Values are sized by `sizeOf` (by default their `bytes`).
 *
 * @example
 * ```ts
 * const cache = new ByteLru<Uint32Array>(1024, (v) => v.byteLength);
 * cache.set("a", new Uint32Array(25));
 * cache.get("a")?.length; // 25
 * ```
 */
export class ByteLru<V, K = string> {
  #entries = new Map<K, V>();
  #bytes = 0;
  /** Lookups answered from the cache since it was made. */
  hits = 0;
  /** Lookups the cache could not answer since it was made. */
  misses = 0;
  constructor(
    readonly budget: number,
    readonly sizeOf: (value: V) => number = (value) => (value as { bytes: number }).bytes,
  ) {}
  get(key: K): V | undefined {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    } else this.misses++;
    return hit;
  }
  /** Whether `key` is kept (neither counted as a lookup nor made recent). */
  has(key: K): boolean {
    return this.#entries.has(key);
  }
  set(key: K, value: V): void {
    const bytes = this.sizeOf(value);
    if (bytes > this.budget / 4) return;
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= this.sizeOf(old);
    }
    this.#entries.set(key, value);
    this.#bytes += bytes;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.budget) break;
      this.#entries.delete(k);
      this.#bytes -= this.sizeOf(v);
    }
  }
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
