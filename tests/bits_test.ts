/**
 * Counting bitmaps' bits: the cardinality of their intersection over the
 * shortest, whatever their number, lengths and fill (blocks of full words
 * included, where the byte lanes come closest to overflowing), and a
 * deadline that stops it.
 */
import { assertEquals, assertThrows } from "@std/assert";
import { countBits, countShared } from "../lib/index/bits.ts";
import { seededRandom } from "./_utils.ts";

const random = seededRandom(Number(Deno.env.get("BITS_SEED") ?? 4242));

/** A bitmap of `words` words, each bit set with probability `fill` (0 and 1: empty and full). */
function bitmap(words: number, fill: number): Uint32Array {
  const out = new Uint32Array(words);
  for (let bit = 0; bit < words * 32; bit++) {
    if (random() < fill) out[bit >>> 5]! |= 1 << (bit & 31);
  }
  return out;
}

/** The count, bit by bit. */
function slowCount(bitmaps: readonly Uint32Array[]): number {
  if (bitmaps.length === 0) return 0;
  const length = Math.min(...bitmaps.map((b) => b.length));
  let n = 0;
  for (let bit = 0; bit < length * 32; bit++) {
    if (bitmaps.every((b) => ((b[bit >>> 5]! >>> (bit & 31)) & 1) === 1)) n++;
  }
  return n;
}

Deno.test("[bits] the intersection's count, any number, length and fill of bitmaps", () => {
  const lengths = [0, 1, 30, 31, 32, 62, 63, 500, 2048];
  const fills = [0, 0.02, 0.3, 0.9, 1];
  let checked = 0;
  for (const words of lengths) {
    for (let count = 1; count <= 5; count++) {
      const fill = fills[Math.floor(random() * fills.length)]!;
      // Lengths differ by up to three words: the shortest bounds the count.
      const bitmaps = Array.from(
        { length: count },
        () => bitmap(words + Math.floor(random() * 4), count === 1 ? fill : Math.max(fill, 0.7)),
      );
      assertEquals(countShared(bitmaps), slowCount(bitmaps), `${count} of ${words} words`);
      checked++;
    }
    assertEquals(countBits(bitmap(words, 1)), words * 32, `${words} full words`);
  }
  assertEquals(checked, lengths.length * 5);
  assertEquals(countShared([]), 0);
  // Views into a larger buffer count only their own words.
  const whole = Uint32Array.of(0xffffffff, 0b101, 0xffffffff);
  assertEquals(countBits(whole.subarray(1, 2)), 2);
});

Deno.test("[bits] a deadline is watched on long bitmaps, and stops the count", () => {
  let calls = 0;
  const long = bitmap(200_000, 0.5);
  assertEquals(countShared([long], () => calls++), slowCount([long]));
  // Every 2,048 blocks of 31 words: four times over 200,000 words.
  assertEquals(calls, 4);
  assertThrows(
    () =>
      countShared([long], () => {
        throw new Error("deadline");
      }),
    Error,
    "deadline",
  );
});
