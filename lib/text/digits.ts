/**
 * Reading numbers written in ASCII digits without regular expressions or
 * `Number()` of a substring: the import reads dates and ZIPs of millions of
 * rows.
 *
 * @module
 */

/**
 * The number the digits `s[from, to)` write, or -1 when the range is empty,
 * runs past the end of `s`, or holds anything but ASCII digits.
 *
 * @example
 * ```ts
 * digitsValue("90210-1234", 0, 5); // 90210
 * digitsValue("9021A", 0, 5); // -1
 * ```
 */
export function digitsValue(s: string, from: number, to: number): number {
  if (to <= from || to > s.length) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
