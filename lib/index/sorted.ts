/**
 * Set operations on sorted, duplicate-free `Uint32Array`s of provider ids:
 * the posting lists of the search index.
 *
 * @module
 */

/** An empty posting list. */
export const EMPTY: Uint32Array = new Uint32Array(0);

/** First index in `list[from..]` whose value is ≥ `target` (galloping, then binary search). */
export function seek(list: Uint32Array, target: number, from = 0): number {
  let step = 1, lo = from, hi = from;
  while (hi < list.length && list[hi]! < target) {
    lo = hi + 1;
    hi += step;
    step <<= 1;
  }
  if (hi > list.length) hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Intersection of two lists; steps through the longer one when it is
 * within 8 times the shorter, else gallops, so the cost follows the
 * shorter.
 *
 * @example
 * ```ts
 * intersect(Uint32Array.of(1, 3, 5), Uint32Array.of(3, 4, 5)); // Uint32Array [3, 5]
 * ```
 */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (a.length > b.length) [a, b] = [b, a];
  const out = new Uint32Array(a.length);
  let n = 0, j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const v = a[i]!;
    if (b[j]! < v) j = b.length >= 8 * a.length ? seek(b, v, j) : advance(b, v, j);
    if (j < b.length && b[j] === v) out[n++] = v;
  }
  return out.subarray(0, n);
}

function advance(list: Uint32Array, target: number, j: number): number {
  while (j < list.length && list[j]! < target) j++;
  return j;
}

/**
 * The ids of `a` not in `b`; gallops through `b` when it is much longer.
 *
 * @example
 * ```ts
 * subtract(Uint32Array.of(1, 3, 5), Uint32Array.of(3, 4)); // Uint32Array [1, 5]
 * ```
 */
export function subtract(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (a.length === 0 || b.length === 0) return a;
  const out = new Uint32Array(a.length);
  const gallop = b.length - a.length > 64;
  let n = 0, j = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (j < b.length && b[j]! < v) j = gallop ? seek(b, v, j) : advance(b, v, j);
    if (j >= b.length || b[j] !== v) out[n++] = v;
  }
  return out.subarray(0, n);
}

/** Intersection of many lists, shortest first. */
export function intersectAll(lists: readonly Uint32Array[]): Uint32Array {
  if (lists.length === 0) throw new RangeError("Cannot intersect no lists");
  const sorted = [...lists].sort((a, b) => a.length - b.length);
  let out = sorted[0]!;
  for (let i = 1; i < sorted.length && out.length > 0; i++) out = intersect(out, sorted[i]!);
  return out;
}

/**
 * Sorts `list` in place and drops repeats; returns the sorted, distinct
 * prefix (a view of `list`).
 *
 * @example
 * ```ts
 * sortUnique(Uint32Array.of(4, 1, 4)); // Uint32Array [1, 4]
 * ```
 */
export function sortUnique(list: Uint32Array): Uint32Array {
  list.sort();
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    if (i === 0 || list[i] !== list[i - 1]) list[n++] = list[i]!;
  }
  return list.subarray(0, n);
}

/** Lists at least this long are sorted through a bitmap (see {@linkcode sortUniqueBelow}). */
const BITMAP_MIN_LENGTH = 4096;
/** The bitmap, kept between calls: all zero between them. */
let bitmap = new Uint32Array(0);

/**
 * {@linkcode sortUnique} for ids known to be below `universe`: a long list
 * sets bits of a bitmap and reads them back in order (linear, instead of a
 * comparison sort); a short one is sorted. May reuse `list`.
 *
 * @example
 * ```ts
 * sortUniqueBelow(Uint32Array.of(9, 2, 9, 5), 10); // Uint32Array [2, 5, 9]
 * ```
 */
export function sortUniqueBelow(list: Uint32Array, universe: number): Uint32Array {
  if (list.length < BITMAP_MIN_LENGTH) return sortUnique(list);
  const words = (universe >>> 5) + 1;
  if (bitmap.length < words) bitmap = new Uint32Array(words);
  const bits = bitmap;
  let low = words, high = 0;
  for (let i = 0; i < list.length; i++) {
    const id = list[i]!;
    const w = id >>> 5;
    if (id >= universe) {
      bits.fill(0);
      throw new RangeError(`Id ${id} is not below ${universe}`);
    }
    bits[w]! |= 1 << (id & 31);
    if (w < low) low = w;
    if (w > high) high = w;
  }
  return list.subarray(0, readBits(bits, low, high, list));
}

/**
 * Writes the ids whose bits are set in `bits` between words `low` and
 * `high` to `out` in order, clears those words, and returns how many.
 */
function readBits(bits: Uint32Array, low: number, high: number, out: Uint32Array): number {
  let n = 0;
  for (let w = low; w <= high; w++) {
    let word = bits[w]!;
    if (word === 0) continue;
    bits[w] = 0;
    const base = w << 5;
    while (word !== 0) {
      const lowest = word & -word;
      out[n++] = base + 31 - Math.clz32(lowest);
      word ^= lowest;
    }
  }
  return n;
}

/**
 * The ids of `within` (sorted, distinct, below `universe`) that are in at
 * least one of `lists`, without their union: `within` is marked in the
 * kept bitmap, each list read once against it (an id found is unmarked, so
 * it is listed once), and the few found sorted. The cost is the lists'
 * length, where building their union first (a ZIP prefix's hundred ZIPs,
 * 150,000 ids) costs a merge of them all.
 *
 * @example
 * ```ts
 * intersectUnion(Uint32Array.of(2, 5, 7), [Uint32Array.of(7, 9), Uint32Array.of(1, 2, 7)], 10);
 * // Uint32Array [2, 7]
 * ```
 */
export function intersectUnion(
  within: Uint32Array,
  lists: readonly Uint32Array[],
  universe: number,
): Uint32Array {
  if (within.length === 0) return EMPTY;
  const words = (universe >>> 5) + 1;
  if (bitmap.length < words) bitmap = new Uint32Array(words);
  const bits = bitmap;
  if (within[within.length - 1]! >= universe) {
    throw new RangeError(`Id ${within[within.length - 1]} is not below ${universe}`);
  }
  for (let i = 0; i < within.length; i++) {
    const id = within[i]!;
    bits[id >>> 5]! |= 1 << (id & 31);
  }
  const out = new Uint32Array(within.length);
  let n = 0;
  for (const list of lists) {
    for (let i = 0; i < list.length && n < within.length; i++) {
      const id = list[i]!;
      const w = id >>> 5, bit = 1 << (id & 31);
      // An id past the bitmap is in no `within`: `bits[w]` is then undefined, `& bit` 0.
      if ((bits[w]! & bit) !== 0) {
        bits[w]! ^= bit;
        out[n++] = id;
      }
    }
  }
  // The bitmap is all zero again between calls.
  for (let i = 0; i < within.length; i++) bits[within[i]! >>> 5] = 0;
  return out.subarray(0, n).sort();
}

/**
 * Union of many lists; given `universe` (every id is below it), long
 * unions go through a bitmap.
 *
 * @example
 * ```ts
 * unionAll([Uint32Array.of(1, 4), Uint32Array.of(2, 4)]); // Uint32Array [1, 2, 4]
 * ```
 */
export function unionAll(lists: readonly Uint32Array[], universe?: number): Uint32Array {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length === 0) return EMPTY;
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  let total = 0;
  for (const l of nonEmpty) total += l.length;
  const sparse = universe !== undefined && total * 64 < universe;
  // Many lists, dense or of unknown range, or so many that merging them two at a time costs more
  // than sorting (the 21,473 organization names starting `family`, 42,100 ids): concatenate and
  // sort, then drop duplicates.
  const many = nonEmpty.length > 8 && (!sparse || nonEmpty.length * nonEmpty.length > total);
  if (many) {
    const all = new Uint32Array(total);
    let at = 0;
    for (const l of nonEmpty) {
      all.set(l, at);
      at += l.length;
    }
    return universe === undefined || sparse ? sortUnique(all) : sortUniqueBelow(all, universe);
  }
  return mergeTree(nonEmpty, union2, (list) => list.length);
}

/**
 * Merges a non-empty list of items two at a time, always the two shortest
 * (as Huffman coding joins the rarest symbols): a long list among short
 * ones is merged once, at the end, instead of at every level of a
 * balanced tree; for equal lengths it is the balanced tree's
 * `total·log(lists)` steps.
 */
function mergeTree<T>(items: readonly T[], merge: (a: T, b: T) => T, size: (item: T) => number): T {
  // Longest first, so the two shortest are popped off the end.
  const queue = [...items].sort((a, b) => size(b) - size(a));
  while (queue.length > 1) {
    const merged = merge(queue.pop()!, queue.pop()!);
    const n = size(merged);
    let at = queue.length;
    while (at > 0 && size(queue[at - 1]!) < n) at--;
    queue.splice(at, 0, merged);
  }
  return queue[0]!;
}

function union2(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0, j = 0, n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!, y = b[j]!;
    if (x < y) {
      out[n++] = x;
      i++;
    } else if (y < x) {
      out[n++] = y;
      j++;
    } else {
      out[n++] = x;
      i++;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}

/** Ids with a level (lower is better): a posting list annotated per id. */
export interface Leveled {
  ids: Uint32Array;
  levels: Uint8Array;
}

/**
 * Union of lists tagged with levels: each id keeps the lowest level of the
 * lists it is in.
 *
 * @example
 * ```ts
 * unionLeveled([{ list: Uint32Array.of(1, 2), level: 3 }, { list: Uint32Array.of(2), level: 1 }]);
 * // { ids: [1, 2], levels: [3, 1] }
 * ```
 */
export function unionLeveled(parts: readonly { list: Uint32Array; level: number }[]): Leveled {
  const nonEmpty = parts.filter((p) => p.list.length > 0);
  return nonEmpty.length === 0
    ? { ids: EMPTY, levels: new Uint8Array(0) }
    : mergeLeveledTree(nonEmpty);
}

/** Intersection of leveled lists; an id's level becomes the highest (worst) of its lists. */
export function intersectLeveled(a: Leveled, b: Leveled): Leveled {
  if (a.ids.length > b.ids.length) [a, b] = [b, a];
  const ids = new Uint32Array(a.ids.length);
  const levels = new Uint8Array(a.ids.length);
  let n = 0, j = 0;
  // Lists of a size are stepped through (a step is a read), a much longer one galloped through.
  const near = b.ids.length < 8 * a.ids.length;
  const bi = b.ids, ai = a.ids;
  for (let i = 0; i < ai.length && j < bi.length; i++) {
    const v = ai[i]!;
    if (bi[j]! < v) {
      if (near) {
        do j++; while (j < bi.length && bi[j]! < v);
      } else j = seek(bi, v, j);
    }
    if (j < bi.length && bi[j] === v) {
      ids[n] = v;
      levels[n++] = Math.max(a.levels[i]!, b.levels[j]!);
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/** Keeps the ids of a leveled list that are also in `filter`. */
export function filterLeveled(a: Leveled, filter: Uint32Array): Leveled {
  const ids = new Uint32Array(Math.min(a.ids.length, filter.length));
  const levels = new Uint8Array(ids.length);
  let n = 0;
  if (a.ids.length <= filter.length) {
    let j = 0;
    for (let i = 0; i < a.ids.length && j < filter.length; i++) {
      const v = a.ids[i]!;
      if (filter[j]! < v) j = seek(filter, v, j);
      if (j < filter.length && filter[j] === v) {
        ids[n] = v;
        levels[n++] = a.levels[i]!;
      }
    }
  } else {
    let i = 0;
    for (let j = 0; j < filter.length && i < a.ids.length; j++) {
      const v = filter[j]!;
      if (a.ids[i]! < v) i = seek(a.ids, v, i);
      if (i < a.ids.length && a.ids[i] === v) {
        ids[n] = v;
        levels[n++] = a.levels[i]!;
      }
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/** A posting list with the level its ids match at (lower is better). */
export interface LeveledPart {
  list: Uint32Array;
  level: number;
}

/** An empty leveled list. */
export const EMPTY_LEVELED: Leveled = { ids: EMPTY, levels: new Uint8Array(0) };

/**
 * One byte per id: the level plus 1 an id was first seen at by
 * {@linkcode unionLeveledBelow}, written when its bit is set and read only
 * in the same call (so never cleared).
 */
let seenAt = new Uint8Array(0);
/** One bit per id, all zero between calls: the ids {@linkcode unionLeveledBelow} has seen. */
let seenBits = new Uint32Array(0);

/** Parts this long in all, or more, are united through {@linkcode seenAt} instead of merging... */
const MARK_MIN_LENGTH = 4096;
/** ...when they hold at least this share of the universe (the bitmap is read back whole). */
const MARK_DENSITY = 64;

/** A leveled list whose levels may be one for every id (a part not merged yet). */
interface Merging {
  ids: Uint32Array;
  levels: Uint8Array | number;
}

/** The levels of a merging list, one per id (a part's one level spread over its ids). */
function levelsOf(list: Merging): Uint8Array {
  return typeof list.levels === "number"
    ? new Uint8Array(list.ids.length).fill(list.levels)
    : list.levels;
}

/**
 * The union of two leveled lists; an id in both keeps the lower level. A
 * list's levels may be one number for all its ids (a part as read): it is
 * spread into an array first, so that the loop reads one shape of list
 * (measured in isolation: 30% less time than choosing between the two at
 * every id), and what is left of either list once the other ends is
 * copied whole.
 */
function mergeLeveled(a: Merging, b: Merging): Leveled {
  const ai = a.ids, bi = b.ids, na = ai.length, nb = bi.length;
  const al = levelsOf(a), bl = levelsOf(b);
  const ids = new Uint32Array(na + nb);
  const levels = new Uint8Array(na + nb);
  let i = 0, j = 0, n = 0;
  while (i < na && j < nb) {
    const x = ai[i]!, y = bi[j]!;
    if (x < y) {
      ids[n] = x;
      levels[n++] = al[i++]!;
    } else if (y < x) {
      ids[n] = y;
      levels[n++] = bl[j++]!;
    } else {
      const u = al[i++]!, v = bl[j++]!;
      ids[n] = x;
      levels[n++] = u < v ? u : v;
    }
  }
  if (i < na) {
    ids.set(ai.subarray(i), n);
    levels.set(al.subarray(i), n);
    n += na - i;
  }
  if (j < nb) {
    ids.set(bi.subarray(j), n);
    levels.set(bl.subarray(j), n);
    n += nb - j;
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/** The union of leveled parts merged two at a time, the shortest first (see `mergeTree`). */
function mergeLeveledTree(parts: readonly LeveledPart[]): Leveled {
  if (parts.length === 1) {
    const { list, level } = parts[0]!;
    return { ids: list, levels: new Uint8Array(list.length).fill(level) };
  }
  const merging: Merging[] = parts.map((p) => ({ ids: p.list, levels: p.level }));
  return mergeTree(merging, mergeLeveled, (part) => part.ids.length) as Leveled;
}

/**
 * {@linkcode unionLeveled} for ids known to be below `universe`, in time
 * linear in the parts' total length whatever their number: parts are taken
 * best level first, each id is kept at the first level it is seen at (one
 * byte per id of scratch), and the ids are put in order through a bitmap.
 * Short inputs are merged. The answer's arrays are its own.
 *
 * @example
 * ```ts
 * unionLeveledBelow([{ list: Uint32Array.of(1, 2), level: 3 }, { list: Uint32Array.of(2), level: 1 }], 10);
 * // { ids: [1, 2], levels: [3, 1] }
 * ```
 */
export function unionLeveledBelow(parts: readonly LeveledPart[], universe: number): Leveled {
  const nonEmpty = parts.filter((p) => p.list.length > 0).sort((a, b) => a.level - b.level);
  if (nonEmpty.length === 0) return EMPTY_LEVELED;
  let total = 0;
  for (const p of nonEmpty) total += p.list.length;
  // Few or short parts, or sparse ids (reading the bitmap back would cost more): merged.
  if (nonEmpty.length <= 2 || total < MARK_MIN_LENGTH || total * MARK_DENSITY < universe) {
    return mergeLeveledTree(nonEmpty);
  }
  return markedUnion(nonEmpty, universe);
}

/**
 * {@linkcode unionLeveledBelow} of parts sorted best level first, through
 * the scratch: an id's bit is tested and set in a bitmap (a bit a provider,
 * a read in a few hundred kilobytes where a byte a provider would be ten
 * megabytes), its level kept in a byte the first time it is seen, and the
 * bitmap read back in order gives the ids and, from their bytes, their
 * levels. About 15% less time than marking the bytes first and putting
 * the ids found in order afterwards.
 */
function markedUnion(parts: readonly LeveledPart[], universe: number): Leveled {
  if (seenAt.length < universe) seenAt = new Uint8Array(universe);
  const words = (universe >>> 5) + 1;
  if (seenBits.length < words) seenBits = new Uint32Array(words);
  const seen = seenAt, bits = seenBits;
  let low = words, high = 0, n = 0;
  for (const { list, level } of parts) {
    const mark = level + 1;
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      if (id >= universe) {
        bits.fill(0, low, high + 1);
        throw new RangeError(`Id ${id} is not below ${universe}`);
      }
      const w = id >>> 5, bit = 1 << (id & 31);
      if ((bits[w]! & bit) === 0) {
        bits[w]! |= bit;
        seen[id] = mark;
        if (w < low) low = w;
        if (w > high) high = w;
        n++;
      }
    }
  }
  // The bitmap read back in order, then each id's level from its byte.
  const ids = new Uint32Array(n);
  readBits(bits, low, high, ids);
  const levels = new Uint8Array(n);
  for (let k = 0; k < n; k++) levels[k] = seen[ids[k]!]! - 1;
  return { ids, levels };
}

/**
 * A bitmap of the ids in `lists` (bit `id & 31` of word `id >>> 5`), every
 * id below `universe`: a membership test in one read.
 *
 * @example
 * ```ts
 * bitsOf([Uint32Array.of(1, 33)], 64); // Uint32Array [2, 2, 0]
 * ```
 */
export function bitsOf(lists: readonly Uint32Array[], universe: number): Uint32Array {
  const bits = new Uint32Array((universe >>> 5) + 1);
  for (const list of lists) {
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      bits[id >>> 5]! |= 1 << (id & 31);
    }
  }
  return bits;
}

/**
 * The ids of a leveled list (with their levels) whose bit is set in `bits`
 * (bit `id & 31` of word `id >>> 5`), as new arrays; the ids are sorted, so
 * the reads go forward.
 *
 * @example
 * ```ts
 * keepInBits({ ids: Uint32Array.of(1, 2), levels: Uint8Array.of(0, 3) }, Uint32Array.of(0b100));
 * // { ids: [2], levels: [3] }
 * ```
 */
export function keepInBits(set: Leveled, bits: Uint32Array): Leveled {
  const { ids: inIds, levels: inLevels } = set;
  const ids = new Uint32Array(inIds.length);
  const levels = new Uint8Array(inIds.length);
  let n = 0;
  for (let i = 0; i < inIds.length; i++) {
    const id = inIds[i]!;
    if ((bits[id >>> 5]! & (1 << (id & 31))) !== 0) {
      ids[n] = id;
      levels[n++] = inLevels[i]!;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/**
 * The ids of a leveled list (with their levels) whose byte in `flags`
 * passes `(flags[id] & mask) === value` and that are below `end`, as new
 * arrays: the input, which may be cached, is not touched — unless
 * `inPlace` says it is the caller's own, whose arrays then hold the
 * answer. The ids from `end` on are cut off by one search, their flags not
 * read (a caller that knows they all fail the test: the deactivated
 * providers, whose ids follow the active ones').
 *
 * @example
 * ```ts
 * keepFlagged({ ids: Uint32Array.of(1, 2), levels: Uint8Array.of(0, 3) }, Uint8Array.of(0, 1, 0), 1, 1);
 * // { ids: [1], levels: [0] }
 * ```
 */
export function keepFlagged(
  set: Leveled,
  flags: Uint8Array,
  mask: number,
  value: number,
  inPlace = false,
  end = Infinity,
): Leveled {
  const cut = end === Infinity ? set.ids.length : seek(set.ids, end);
  const ids = set.ids.subarray(0, cut), levels = set.levels.subarray(0, cut);
  if (mask === 0) return inPlace ? { ids, levels } : { ids: ids.slice(), levels: levels.slice() };
  // In place (the caller's own arrays): kept entries move down, never past one not yet read.
  const outIds = inPlace ? ids : new Uint32Array(ids.length);
  const outLevels = inPlace ? levels : new Uint8Array(ids.length);
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if ((flags[id]! & mask) === value) {
      outIds[n] = id;
      outLevels[n++] = levels[i]!;
    }
  }
  return { ids: outIds.subarray(0, n), levels: outLevels.subarray(0, n) };
}
