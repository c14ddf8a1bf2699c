/**
 * Counting the bits of bitmaps (one bit per provider id, 32 to a word).
 *
 * @module
 */

/**
 * The number of bits set in a 32-bit word.
 *
 * @example
 * ```ts
 * popcount(0b1011); // 3
 * ```
 */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
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
  const words = new Int32Array(bits.buffer, bits.byteOffset, bits.length);
  let n = 0;
  for (let w = 0; w < words.length; w++) {
    const x = words[w]!;
    if (x !== 0) n += popcount(x);
  }
  return n;
}
