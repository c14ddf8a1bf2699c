/**
 * Edit distance between short strings.
 *
 * @module
 */

/**
 * Levenshtein distance (insertions, deletions, substitutions), giving up as
 * soon as it must exceed `max` (then it returns `max + 1`).
 *
 * @example
 * ```ts
 * editDistance("lmit", "limit"); // 1
 * editDistance("kitten", "sitting", 1); // 2 (more than 1)
 * ```
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [previous, current] = [current, previous];
  }
  const distance = previous[b.length]!;
  return distance > max ? max + 1 : distance;
}

/**
 * The candidate closest to `word` within `max` edits, or `null`.
 *
 * @example
 * ```ts
 * closest("lmit", ["limit", "offset"]); // "limit"
 * ```
 */
export function closest(word: string, candidates: Iterable<string>, max = 2): string | null {
  let best: string | null = null;
  let bestDistance = max + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase(), max);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
