/**
 * Cheap string distances for spelling suggestions.
 *
 * @module
 */

/** Rolling rows for {@link boundedDistance}, grown on demand and reused. */
let rows: [Int32Array, Int32Array, Int32Array] = [
  new Int32Array(64),
  new Int32Array(64),
  new Int32Array(64),
];

/** Optimal string alignment distance, or `max + 1` once it must exceed `max`. */
export function boundedDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (rows[0].length <= b.length) {
    const size = b.length * 2 + 1;
    rows = [new Int32Array(size), new Int32Array(size), new Int32Array(size)];
  }
  let [prevPrev, prev, row] = rows;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        d = Math.min(d, prevPrev[j - 2]! + 1);
      }
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, row] = [prev, row, prevPrev];
  }
  return prev[b.length]!;
}

export function commonPrefixLength(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Counts of a–z and 0–9 in folded, space-free text. */
export function letterCounts(compact: string): Uint8Array {
  const counts = new Uint8Array(36);
  for (let i = 0; i < compact.length; i++) {
    const c = compact.charCodeAt(i);
    const slot = c >= 97 ? c - 97 : c - 48 + 26;
    if (slot >= 0 && slot < 36) counts[slot] = Math.min(255, (counts[slot] ?? 0) + 1);
  }
  return counts;
}

/**
 * A lower bound on the edit distance of two texts from their letter counts:
 * every edit adds, removes or swaps at most one letter on each side.
 */
export function letterBound(a: Uint8Array, b: Uint8Array): number {
  let extraA = 0;
  let extraB = 0;
  for (let i = 0; i < 36; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d > 0) extraA += d;
    else extraB -= d;
  }
  return extraA > extraB ? extraA : extraB;
}
