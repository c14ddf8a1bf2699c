/**
 * Pages of a relevance-ranked result set without sorting the whole set.
 *
 * A free-text search's candidates come out of the engine in id (name
 * rank) order, each with its rank key; results are listed by key, then
 * id. Common words match hundreds of thousands of providers (`health care`:
 * a million), and ordering all of them by key cost a tenth of such a
 * search, while almost every search looks at its first page only. A first
 * page needs only its own entries: one pass counts the entries of each key
 * and finds the key the page ends in, a second collects the positions of
 * the page's entries, which within a key are already in id order. The
 * order is exactly the full sort's. Deeper pages (a cursor, a large offset)
 * sort the set once ({@linkcode sortByLevel}), and the engine keeps it
 * sorted in its result cache for the next page.
 *
 * @module
 */
import { RANK_KEYS } from "./scores.ts";

/** A result set in id order, with a rank key per entry (lower ranks first). */
export interface LeveledSet {
  ids: Uint32Array;
  levels: Uint8Array;
}

/**
 * The positions in `levels` (the keys of a set in id order) of entries
 * `offset` to `offset + limit` in key-then-id order: two passes over the
 * keys, nothing sorted.
 *
 * @example
 * ```ts
 * levelPositions(Uint8Array.of(3, 1, 3, 0), 0, 3); // Uint32Array [3, 1, 0]
 * ```
 */
export function levelPositions(levels: Uint8Array, offset: number, limit: number): Uint32Array {
  const n = levels.length;
  const end = Math.min(n, offset + limit);
  if (offset >= end) return new Uint32Array(0);
  const counts = new Uint32Array(RANK_KEYS + 1);
  for (let i = 0; i < n; i++) counts[levels[i]!]!++;
  // Where each key's entries start among the first `end`, and the last key the page reaches.
  const next = new Uint32Array(RANK_KEYS + 1);
  let before = 0, last = 0;
  for (let key = 0; key <= RANK_KEYS && before < end; key++) {
    next[key] = before;
    before += counts[key]!;
    last = key;
  }
  const out = new Uint32Array(end);
  for (let i = 0, filled = 0; i < n && filled < end; i++) {
    const key = levels[i]!;
    if (key > last) continue;
    const at = next[key]!;
    // A key's slots end where the next key's begin (the last key's at the page's end).
    const stop = key === last ? end : next[key + 1]!;
    if (at >= stop) continue;
    out[at] = i;
    next[key] = at + 1;
    filled++;
  }
  return out.subarray(offset);
}

/**
 * The set in key-then-id order, as new arrays: a counting sort by key,
 * which keeps id order within each key.
 *
 * @example
 * ```ts
 * sortByLevel({ ids: Uint32Array.of(1, 2, 3), levels: Uint8Array.of(2, 0, 2) });
 * // { ids: [2, 1, 3], levels: [0, 2, 2] }
 * ```
 */
export function sortByLevel(set: LeveledSet): LeveledSet {
  const n = set.ids.length;
  const counts = new Uint32Array(RANK_KEYS + 2);
  const inIds = set.ids, inLevels = set.levels;
  for (let i = 0; i < n; i++) counts[inLevels[i]! + 1]!++;
  for (let l = 1; l < counts.length; l++) counts[l]! += counts[l - 1]!;
  const ids = new Uint32Array(n), levels = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const level = inLevels[i]!;
    const at = counts[level]!++;
    ids[at] = inIds[i]!;
    levels[at] = level;
  }
  return { ids, levels };
}
