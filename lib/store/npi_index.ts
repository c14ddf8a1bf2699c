/**
 * The records of a build by NPI, in two typed arrays sorted by NPI (a radix
 * sort of a few hundred milliseconds for ten million records): finding a
 * record's seq from an NPI is a binary search in memory instead of a probe
 * of a SQLite index that does not fit its cache.
 *
 * @module
 */

/** Parallel arrays sorted together: the keys, the seqs, and perhaps more key bits. */
type Rows = [keys: Uint32Array, seqs: Uint32Array, rest: Uint32Array | null];

/**
 * One pass of an LSD radix sort: the rows reordered, stably, by the 16-bit
 * digit of the keys at `shift`.
 */
function radixPass([keys, seqs, rest]: Rows, shift: number, counts: Uint32Array): Rows {
  const n = keys.length;
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[((keys[i]! >>> shift) & 0xffff) + 1]!++;
  for (let d = 1; d <= 0xffff; d++) counts[d]! += counts[d - 1]!;
  const keysOut = new Uint32Array(n), seqsOut = new Uint32Array(n);
  const restOut = rest ? new Uint32Array(n) : null;
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    const at = counts[(key >>> shift) & 0xffff]!++;
    keysOut[at] = key;
    seqsOut[at] = seqs[i]!;
    if (restOut) restOut[at] = rest![i]!;
  }
  return [keysOut, seqsOut, restOut];
}

/**
 * Sorts `seqs` by `npiBySeq[seq]`, keeping their order among equal NPIs: a
 * radix sort of `npi - min` in 16-bit digits, its low and high 32 bits
 * moving with the seqs so that every pass reads in order. Two passes when
 * the NPIs span less than 2^32 (valid NPIs, ten digits starting with 1 or
 * 2, always do), three otherwise. Returns a new array.
 *
 * @example
 * ```ts
 * sortByNpi(Uint32Array.of(1, 2), Float64Array.of(0, 1003000126, 1003000118)); // [2, 1]
 * ```
 */
export function sortByNpi(seqs: Uint32Array, npiBySeq: Float64Array): Uint32Array {
  const n = seqs.length;
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < n; i++) {
    const npi = npiBySeq[seqs[i]!]!;
    if (npi < min) min = npi;
    if (npi > max) max = npi;
  }
  const wide = max - min >= 2 ** 32;
  if (wide && !(max - min < 2 ** 48)) {
    throw new RangeError(`Numbers from ${min} to ${max} are not NPIs (ten digits)`);
  }
  const low = new Uint32Array(n), high = new Uint32Array(wide ? n : 0);
  for (let i = 0; i < n; i++) {
    const key = npiBySeq[seqs[i]!]! - min;
    low[i] = key % 2 ** 32;
    if (wide) high[i] = Math.floor(key / 2 ** 32);
  }
  const counts = new Uint32Array(0x10001);
  let rows: Rows = [low, seqs, wide ? high : null];
  rows = radixPass(rows, 0, counts);
  rows = radixPass(rows, 16, counts);
  if (wide) rows = radixPass([rows[2]!, rows[1], null], 0, counts);
  return rows[1];
}

/**
 * Seqs sorted by NPI.
 *
 * @example
 * ```ts
 * const npiBySeq = Float64Array.of(0, 1003000126, 1003000118);
 * const index = NpiIndex.of(npiBySeq, Uint32Array.of(1, 2));
 * index.seqOf(1003000118); // 2
 * ```
 */
export class NpiIndex {
  readonly #npis: Float64Array;
  readonly #seqs: Uint32Array;
  /**
   * Where each bucket of NPIs starts in `#npis` (bucket `b` holds NPIs from
   * `#min + b * #width`): a lookup reads one bucket of a few entries instead
   * of binary-searching millions, each step of which misses the cache.
   */
  readonly #buckets: Uint32Array;
  readonly #min: number;
  readonly #width: number;

  private constructor(npis: Float64Array, seqs: Uint32Array) {
    this.#npis = npis;
    this.#seqs = seqs;
    const n = npis.length;
    this.#min = n > 0 ? npis[0]! : 0;
    const span = n > 0 ? npis[n - 1]! - this.#min + 1 : 1;
    // About two NPIs a bucket.
    const count = Math.max(1, Math.ceil(n / 2));
    this.#width = Math.max(1, Math.ceil(span / count));
    this.#buckets = new Uint32Array(count + 1);
    let b = 0;
    for (let i = 0; i < n; i++) {
      const bucket = Math.floor((npis[i]! - this.#min) / this.#width);
      while (b <= bucket) this.#buckets[b++] = i;
    }
    while (b <= count) this.#buckets[b++] = n;
  }

  /** The index of `seqs`, whose NPIs are `npiBySeq[seq]`. */
  static of(npiBySeq: Float64Array, seqs: Uint32Array): NpiIndex {
    const sorted = sortByNpi(seqs, npiBySeq);
    const npis = new Float64Array(sorted.length);
    for (let i = 0; i < sorted.length; i++) npis[i] = npiBySeq[sorted[i]!]!;
    return new NpiIndex(npis, sorted);
  }

  /** The number of records indexed. */
  get size(): number {
    return this.#seqs.length;
  }

  /** Every seq of `npi`, in seq order (more than one only when the NPI is repeated). */
  seqsOf(npi: number): Uint32Array {
    const start = this.#start(npi);
    return this.#seqs.subarray(start, this.#end(npi, start));
  }

  /** The first position whose NPI is not below `npi`, looked for in its bucket only. */
  #start(npi: number): number {
    const npis = this.#npis;
    const bucket = Math.floor((npi - this.#min) / this.#width);
    if (!(bucket >= 0 && bucket < this.#buckets.length - 1)) return npis.length;
    let lo = this.#buckets[bucket]!, hi = this.#buckets[bucket + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (npis[mid]! < npi) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The position after the run of `npi` that starts at `start`. */
  #end(npi: number, start: number): number {
    let end = start;
    while (end < this.#npis.length && this.#npis[end] === npi) end++;
    return end;
  }

  /** The NPIs with more than one seq, ascending. */
  repeated(): number[] {
    const out: number[] = [];
    const npis = this.#npis;
    for (let i = 1; i < npis.length; i++) {
      if (npis[i] === npis[i - 1] && npis[i] !== out.at(-1)) out.push(npis[i]!);
    }
    return out;
  }

  /** The last seq of `npi`, or null when it has none. */
  seqOf(npi: number): number | null {
    const start = this.#start(npi);
    const end = this.#end(npi, start);
    return end > start ? this.#seqs[end - 1]! : null;
  }

  /** The index without the seqs `dropped` says to drop. */
  without(dropped: (seq: number) => boolean): NpiIndex {
    let n = 0;
    const npis = new Float64Array(this.#npis.length);
    const seqs = new Uint32Array(this.#seqs.length);
    for (let i = 0; i < seqs.length; i++) {
      const seq = this.#seqs[i]!;
      if (dropped(seq)) continue;
      npis[n] = this.#npis[i]!;
      seqs[n++] = seq;
    }
    return new NpiIndex(npis.slice(0, n), seqs.slice(0, n));
  }
}
