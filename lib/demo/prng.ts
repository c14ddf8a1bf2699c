/**
 * Small, fast, seeded pseudo-random numbers for the demo data generator:
 * a 32-bit mulberry-style generator, a 32-bit integer hash for deriving
 * independent streams, and cumulative-weight tables sampled by binary search.
 *
 * Everything here is deterministic: the same seed gives the same sequence on
 * every platform (only 32-bit integer arithmetic and exact float division).
 *
 * @module
 */

/**
 * Mixes a 32-bit integer into a well-distributed 32-bit integer (a
 * murmur3-style finaliser). Used to derive per-record seeds.
 *
 * @example
 * ```ts
 * hash32(1) !== hash32(2); // true
 * hash32(7) === hash32(7); // true
 * ```
 */
export function hash32(x: number): number {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A seeded 32-bit pseudo-random generator (mulberry32 construction: a Weyl
 * sequence passed through an xorshift-multiply output function).
 *
 * @example
 * ```ts
 * const a = new Rng(42), b = new Rng(42);
 * a.uint32() === b.uint32(); // true
 * new Rng(1).int(6) < 6; // true
 * ```
 */
export class Rng {
  #state: number;

  /** Starts a stream from a 32-bit seed. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next value, an unsigned 32-bit integer. */
  uint32(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** An integer in [min, max], both inclusive. */
  range(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** `true` with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** One element of a non-empty list, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** `n` decimal digits (leading zeros allowed). */
  digits(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += String.fromCharCode(48 + this.int(10));
    return s;
  }
}

/**
 * A list of items with weights, sampled in O(log n) by binary search over
 * the cumulative weights.
 *
 * @example
 * ```ts
 * const t = new WeightedTable(["a", "b"], [9, 1]);
 * t.sample(new Rng(3)); // "a" nine times in ten
 * t.probability(1); // 0.1
 * ```
 */
export class WeightedTable<T> {
  /** The items, in the order given. */
  readonly items: readonly T[];
  readonly #cumulative: Float64Array;
  /** The sum of all weights. */
  readonly total: number;

  /** Builds a table; weights must be finite and >= 0, and not all 0. */
  constructor(items: readonly T[], weights: readonly number[]) {
    if (items.length !== weights.length || items.length === 0) {
      throw new RangeError(
        `Cannot build a weighted table: ${items.length} items, ${weights.length} weights`,
      );
    }
    this.items = items;
    this.#cumulative = new Float64Array(items.length);
    let sum = 0;
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i]!;
      if (!(w >= 0) || !Number.isFinite(w)) {
        throw new RangeError(`Cannot build a weighted table: weight ${i} is '${w}'`);
      }
      sum += w;
      this.#cumulative[i] = sum;
    }
    if (sum <= 0) throw new RangeError("Cannot build a weighted table: all weights are 0");
    this.total = sum;
  }

  /** Builds a table from `[item, weight]` pairs. */
  static of<T>(pairs: readonly (readonly [T, number])[]): WeightedTable<T> {
    return new WeightedTable(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
  }

  /** Index of the item that owns position `x` in [0, total). */
  indexAt(x: number): number {
    const c = this.#cumulative;
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (c[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** A random index, weighted. */
  sampleIndex(rng: Rng): number {
    return this.indexAt(rng.float() * this.total);
  }

  /** A random item, weighted. */
  sample(rng: Rng): T {
    return this.items[this.sampleIndex(rng)]!;
  }

  /** The share of item `i` in the total weight. */
  probability(i: number): number {
    const c = this.#cumulative;
    return ((c[i] ?? 0) - (i > 0 ? c[i - 1]! : 0)) / this.total;
  }
}
