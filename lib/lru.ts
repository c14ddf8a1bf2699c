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
  constructor(
    readonly budget: number,
    readonly sizeOf: (value: V) => number = (value) => (value as { bytes: number }).bytes,
  ) {}
  get(key: K): V | undefined {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
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
