/**
 * A stable sort of byte-string keys: the order SQLite gives `TEXT` under its
 * default `BINARY` collation (bytes compared as unsigned, a key that is a
 * prefix of another first), computed over typed arrays. Ranking ten million
 * providers by name this way takes a few seconds and no SQL sorter.
 *
 * How: the next few bytes of each key and its position in the range are
 * packed into one 64-bit number, and the numbers are sorted natively
 * (`BigUint64Array#sort`: a fraction of a second for ten million). Keys
 * that share those bytes form runs, sorted the same way on their next
 * bytes; short runs by insertion. Each round reads each key of a run once.
 *
 * @module
 */

/**
 * Keys laid end to end: key `i` is `bytes[offsets[i] .. offsets[i + 1])`.
 * No key may contain a zero byte (it marks a key's end while sorting).
 */
export interface ByteKeys {
  bytes: Uint8Array;
  offsets: Uint32Array;
}

/**
 * How equal keys are ordered: by `of[key]`, values unique among the keys
 * sorted, with `key[value]` naming the key of each (an NPI's position in
 * NPI order, say).
 */
export interface TieBreak {
  of: Uint32Array;
  key: Uint32Array;
}

/** Runs this short are sorted by insertion. */
const INSERTION_MAX = 24;

/**
 * Sorts `order` (indexes of keys) by key, in place; equal keys by `ties`,
 * else in the order they have in `order` (stable). Returns `order`. Keys
 * fed in the order they are laid out are read in address order, which is
 * what makes ten million of them fast: keep that order and break ties with
 * `ties`.
 *
 * `positionBits` reserves at least that many bits of each packed number for
 * positions, which leaves fewer for key bytes (tests use it to reach the
 * layouts of inputs of a hundred million keys).
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("bab" + "a" + "ba");
 * const keys = { bytes, offsets: Uint32Array.of(0, 3, 4, 6) };
 * sortByKey(keys, Uint32Array.of(0, 1, 2)); // Uint32Array [1, 2, 0]: "a", "ba", "bab"
 * ```
 */
export function sortByKey(
  keys: ByteKeys,
  order: Uint32Array,
  ties: TieBreak | null = null,
  positionBits = 0,
): Uint32Array {
  if (order.length > 1) new KeySorter(keys, order, ties, positionBits).sort(0, order.length, 0);
  return order;
}

class KeySorter {
  readonly #bytes: Uint8Array;
  readonly #offsets: Uint32Array;
  readonly #order: Uint32Array;
  readonly #ties: TieBreak | null;
  readonly #minPositionBits: number;
  /** The packed numbers of the range being sorted (from index 0). */
  readonly #packed: BigUint64Array;
  /** The same memory as 32-bit words, low word first. */
  readonly #words: Uint32Array;
  /** A copy of the range's order while it is rewritten. */
  readonly #copy: Uint32Array;

  constructor(
    keys: ByteKeys,
    order: Uint32Array,
    ties: TieBreak | null,
    minPositionBits: number,
  ) {
    this.#bytes = keys.bytes;
    this.#offsets = keys.offsets;
    this.#order = order;
    this.#ties = ties;
    this.#minPositionBits = minPositionBits;
    this.#packed = new BigUint64Array(order.length);
    this.#words = new Uint32Array(this.#packed.buffer);
    this.#copy = new Uint32Array(order.length);
  }

  /** Sorts `order[lo, hi)`, whose keys agree on their first `depth` bytes. */
  sort(lo: number, hi: number, depth: number): void {
    const n = hi - lo;
    if (n <= INSERTION_MAX && this.#minPositionBits === 0) {
      this.#insertion(lo, hi, depth);
      return;
    }
    const positionBits = Math.min(56, Math.max(this.#minPositionBits, Math.ceil(Math.log2(n))));
    const prefixBytes = Math.floor((64 - positionBits) / 8);
    const order = this.#order, words = this.#words, bytes = this.#bytes, offsets = this.#offsets;
    for (let k = 0; k < n; k++) {
      const item = order[lo + k]!;
      const start = offsets[item]! + depth;
      const length = Math.min(prefixBytes, offsets[item + 1]! - start);
      let high = 0, low = 0;
      for (let b = 0; b < length; b++) {
        const byte = bytes[start + b]!;
        if (b < 4) high |= byte << (24 - 8 * b);
        else low |= byte << (56 - 8 * b);
      }
      words[2 * k] = (low | k) >>> 0;
      words[2 * k + 1] = high >>> 0;
    }
    this.#packed.subarray(0, n).sort();
    const copy = this.#copy;
    copy.set(order.subarray(lo, hi));
    const positionMask = positionBits >= 32 ? 0xffffffff : (1 << positionBits) - 1;
    // Runs of one prefix, as pairs of bounds: sorted further once this round is done with the
    // shared arrays. A run whose prefix ends in a zero byte holds keys that all ended: equal.
    const runs: number[] = [];
    const lastInHigh = prefixBytes <= 4;
    const lastShift = lastInHigh ? 32 - 8 * prefixBytes : 64 - 8 * prefixBytes;
    let runStart = 0;
    for (let k = 0; k <= n; k++) {
      const low = k < n ? words[2 * k]! : 0;
      if (k < n) order[lo + k] = copy[low & positionMask]!;
      const ends = k === n || (k > 0 && (
        words[2 * k + 1] !== words[2 * k - 1] ||
        ((low ^ words[2 * k - 2]!) & ~positionMask) !== 0
      ));
      if (!ends) continue;
      if (k - runStart > 1) {
        const word = lastInHigh ? words[2 * runStart + 1]! : words[2 * runStart]!;
        if (((word >>> lastShift) & 0xff) !== 0) runs.push(lo + runStart, lo + k);
        else if (this.#ties) runs.push(lo + runStart, -(lo + k));
      }
      runStart = k;
    }
    for (let r = 0; r < runs.length; r += 2) {
      const end = runs[r + 1]!;
      // A negative end marks a run of equal keys.
      if (end < 0) this.#sortTies(runs[r]!, -end);
      else this.sort(runs[r]!, end, depth + prefixBytes);
    }
  }

  /** Orders `order[lo, hi)`, keys that are all equal, by their tie-break values. */
  #sortTies(lo: number, hi: number): void {
    const { of, key } = this.#ties!;
    const order = this.#order;
    const values = this.#copy.subarray(0, hi - lo);
    for (let i = lo; i < hi; i++) values[i - lo] = of[order[i]!]!;
    values.sort();
    for (let i = lo; i < hi; i++) order[i] = key[values[i - lo]!]!;
  }

  /** Insertion sort of `order[lo, hi)` from byte `depth` on (stable). */
  #insertion(lo: number, hi: number, depth: number): void {
    const order = this.#order;
    for (let i = lo + 1; i < hi; i++) {
      const k = order[i]!;
      let j = i - 1;
      while (j >= lo && this.#compare(order[j]!, k, depth) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = k;
    }
  }

  /** Compares keys `a` and `b` from byte `depth` on, then their tie-break values. */
  #compare(a: number, b: number, depth: number): number {
    const bytes = this.#bytes, offsets = this.#offsets;
    let i = offsets[a]! + depth, j = offsets[b]! + depth;
    const aEnd = offsets[a + 1]!, bEnd = offsets[b + 1]!;
    while (i < aEnd && j < bEnd) {
      const diff = bytes[i]! - bytes[j]!;
      if (diff !== 0) return diff;
      i++;
      j++;
    }
    const longer = (aEnd - i) - (bEnd - j);
    if (longer !== 0 || !this.#ties) return longer;
    return this.#ties.of[a]! - this.#ties.of[b]!;
  }
}
