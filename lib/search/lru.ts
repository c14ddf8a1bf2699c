/**
 * A byte-bounded LRU cache, for the engine's caches of result sets and word
 * unions.
 *
 * @module
 */

/**
 * A byte-bounded LRU cache of values that know their size. A value larger
 * than a quarter of the budget is not kept.
 *
 * @example
 * ```ts
 * const cache = new ByteLru<{ bytes: number }>(1024);
 * cache.set("a", { bytes: 100 });
 * cache.get("a")?.bytes; // 100
 * ```
 */
export class ByteLru<V extends { bytes: number }> {
  #entries = new Map<string, V>();
  #bytes = 0;
  constructor(readonly budget: number) {}
  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }
  set(key: string, value: V): void {
    if (value.bytes > this.budget / 4) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    this.#entries.set(key, value);
    this.#bytes += value.bytes;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.budget) break;
      this.#entries.delete(k);
      this.#bytes -= v.bytes;
    }
  }
}
