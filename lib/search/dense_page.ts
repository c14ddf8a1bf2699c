/**
 * The first page of a search whose words are all common (`health care`,
 * `mental health`: dense word sets of millions of providers each), counted
 * and ranked without listing its results.
 *
 * Listing such a search's matches (a million ids with their levels) and
 * then choosing a page among them costs some 15 ns a match — 20 ms and more
 * — while the page needs only the total and its first entries in
 * level-then-id order. Here:
 *
 * - the total is the population count of the sets' member bits and the
 *   flag test's bits, ANDed 32 ids at a time (Roaring's cardinality of an
 *   intersection, without materializing it);
 * - the best levels (the names: `lowLevel` and better) come from the ids
 *   that can match there — one word's name lists, a small part of its set
 *   — each looked up in the sets' four-bit marks: the best buckets first
 *   (as Meilisearch's ranking rules), and most pages are filled from them;
 * - only when those are fewer than the page are the marks read from the
 *   lowest id on for the next levels, stopping once the page is full.
 *
 * Bit `i & 31` of word `i >> 5` is id `i`'s, and so is bit `i & 7` of byte
 * `i >> 3` of the same memory on the little-endian machines Deno runs on.
 *
 * @module
 */
import { countShared } from "../index/bits.ts";
import type { Leveled } from "../index/sorted.ts";

/** A dense word set as ranked here (see `word_sets.ts`). */
export interface DenseMarks {
  /** Four bits an id: its level plus 1, or 0 (id `i` in the low half of byte `i >> 1` when even). */
  nibbles: Uint8Array;
  /** One bit an id it holds. */
  bits: Uint32Array;
}

/** Four-bit lanes of a 32-bit word, as bytes: the even ids' marks (or, shifted, the odd ones'). */
const LANES = 0x0f0f0f0f;
/** Bit 0 of each four-bit lane. */
const LANE_BITS = 0x11111111;
/** Bit 6 of each byte: a guard no lane (at most 15) reaches, so no sum carries into the next. */
const GUARDS = 0x40404040;
/** Checks the deadline every this many steps plus one. */
const WATCH_EVERY = 0xffff;

/** Bit 0 of each four-bit lane that is not zero. */
function present(x: number): number {
  return (x | (x >>> 1) | (x >>> 2) | (x >>> 3)) & LANE_BITS;
}

/** The larger of each byte lane of `x` and `y` (each lane 0…15). */
function maxBytes(x: number, y: number): number {
  // A lane's guard survives the subtraction when x ≥ y; the lanes stay below 2^31 throughout.
  const pick = ((((x | GUARDS) - y) & GUARDS) >>> 6) * 15;
  return (x & pick) | (y & ~pick);
}

/** The larger of each four-bit lane of `x` and `y`. */
function maxLanes(x: number, y: number): number {
  return maxBytes(x & LANES, y & LANES) | (maxBytes((x >>> 4) & LANES, (y >>> 4) & LANES) << 4);
}

/** For each byte of flag bits, the same bits at bit 0 of the eight lanes of a word. */
const SPREAD: Int32Array = (() => {
  const out = new Int32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let lanes = 0;
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) lanes |= 1 << (bit << 2);
    out[byte] = lanes;
  }
  return out;
})();

/** Bits of the ids whose flags pass a test, by flags array and test (see {@linkcode flagPassBits}). */
const passBits = new WeakMap<Uint8Array, Map<number, Uint32Array>>();

/**
 * One bit per provider id, set when `(flags[id] & mask) === value` (bit
 * `id & 31` of word `id >> 5`): made on first use for a flags array and
 * test, and kept (1.2 MB at 9.7 million; a server uses a handful of tests).
 *
 * @example
 * ```ts
 * flagPassBits(Uint8Array.of(0, 1, 1, 0), 1, 1); // Uint32Array [0b0110]
 * ```
 */
export function flagPassBits(flags: Uint8Array, mask: number, value: number): Uint32Array {
  let byTest = passBits.get(flags);
  if (!byTest) passBits.set(flags, byTest = new Map());
  const test = (mask << 8) | value;
  let bits = byTest.get(test);
  if (!bits) {
    bits = new Uint32Array((flags.length + 31) >>> 5);
    for (let id = 0; id < flags.length; id++) {
      if ((flags[id]! & mask) === value) bits[id >>> 5]! |= 1 << (id & 31);
    }
    byTest.set(test, bits);
  }
  return bits;
}

/** What {@linkcode densePage} ranks. */
export interface DensePageRequest {
  /** The words' dense sets over the same ids: an id matches when every set holds it, at the worst of its levels. */
  sets: readonly DenseMarks[];
  /** Flag bits of the ids that may be listed (see {@linkcode flagPassBits}). */
  pass: Uint32Array;
  /** Ids (ascending) among which are all that match at `lowLevel` or better (more may be). */
  low: Uint32Array;
  lowLevel: number;
  /** Ids (ascending) promoted to level 0 when they match at level 1 to `upTo` (≤ `lowLevel`). */
  promoted: Uint32Array;
  upTo: number;
  /** How many entries to rank from the top. */
  end: number;
  /** Called now and then: throws to stop the work (a deadline). */
  watch?: () => void;
}

/** The top of a dense search: its total, and its first `min(end, total)` entries in level-then-id order. */
export interface DensePage extends Leveled {
  total: number;
}

/** The ids every set holds whose flag bit is set. */
function countMatches(sets: readonly DenseMarks[], pass: Uint32Array, watch?: () => void): number {
  return countShared([pass, ...sets.map((s) => s.bits)], watch);
}

/**
 * The ids of `low` whose flag bit is set and that every set holds at a
 * mark of `most` or better, with their worst marks, in id order.
 */
function lowMatches(
  sets: readonly DenseMarks[],
  pass: Uint32Array,
  low: Uint32Array,
  most: number,
  watch?: () => void,
): { ids: Uint32Array; marks: Uint8Array } {
  const nibbles = sets.map((s) => s.nibbles);
  const a = nibbles[0]!, b = nibbles[1], rest = nibbles.slice(2);
  const ids = new Uint32Array(low.length), marks = new Uint8Array(low.length);
  let n = 0;
  for (let i = 0; i < low.length; i++) {
    if ((i & WATCH_EVERY) === 0) watch?.();
    const id = low[i]!;
    if (((pass[id >>> 5]! >>> (id & 31)) & 1) === 0) continue;
    const at = id >>> 1, shift = (id & 1) << 2;
    let mark = (a[at]! >>> shift) & 15;
    if (mark === 0 || mark > most) continue;
    if (b) {
      const m = (b[at]! >>> shift) & 15;
      if (m === 0 || m > most) continue;
      if (m > mark) mark = m;
    }
    let held = true;
    for (let s = 0; s < rest.length && held; s++) {
      const m = (rest[s]![at]! >>> shift) & 15;
      if (m === 0 || m > most) held = false;
      else if (m > mark) mark = m;
    }
    if (!held) continue;
    ids[n] = id;
    marks[n++] = mark;
  }
  return { ids: ids.subarray(0, n), marks: marks.subarray(0, n) };
}

/**
 * The ids the sets cover (two a byte of marks), checked: at least one set,
 * all over the same ids, with member and flag bits for each.
 */
function universeOf(sets: readonly DenseMarks[], pass: Uint32Array): number {
  if (sets.length === 0) throw new RangeError("A dense page needs at least one set");
  const universe = sets[0]!.nibbles.byteLength * 2;
  if (sets.some((s) => s.nibbles.byteLength * 2 !== universe || s.bits.length * 32 < universe)) {
    throw new RangeError("Dense sets of different universes cannot be ranked together");
  }
  if (pass.length * 32 < universe) throw new RangeError("The flag bits do not cover the sets' ids");
  return universe;
}

/** The worst mark of `id` over the sets (0 when one lacks it). */
function markOf(sets: readonly DenseMarks[], id: number): number {
  let worst = 0;
  for (const { nibbles } of sets) {
    const mark = (nibbles[id >>> 1]! >>> ((id & 1) << 2)) & 15;
    if (mark === 0) return 0;
    if (mark > worst) worst = mark;
  }
  return worst;
}

/**
 * Entries in id order with their ranks (levels or rank keys, bytes): the
 * first `n` by rank, then id.
 *
 * @example
 * ```ts
 * firstByRank(Uint32Array.of(4, 7, 9), Uint8Array.of(2, 1, 2), 2); // { ids: [7, 4], levels: [1, 2] }
 * ```
 */
export function firstByRank(ids: Uint32Array, ranks: Uint8Array, n: number): Leveled {
  const starts = new Uint32Array(257);
  for (let i = 0; i < ranks.length; i++) starts[ranks[i]! + 1]!++;
  for (let r = 1; r < starts.length; r++) starts[r]! += starts[r - 1]!;
  const outIds = new Uint32Array(n), outRanks = new Uint8Array(n);
  for (let i = 0; i < ids.length; i++) {
    const rank = ranks[i]!;
    const slot = starts[rank]!++;
    if (slot >= n) continue;
    outIds[slot] = ids[i]!;
    outRanks[slot] = rank;
  }
  return { ids: outIds, levels: outRanks };
}

/** Ids a block of marks covers in {@linkcode markBlocks}: 2,048 bytes of marks. */
export const MARK_BLOCK_IDS = 4096;

/** For each byte of marks (two ids), the bits of the marks it holds (bit 0, no mark, left out). */
const BYTE_MARKS: Uint16Array = (() => {
  const out = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    out[byte] = ((1 << (byte & 15)) | (1 << (byte >>> 4))) & ~1;
  }
  return out;
})();

/** Block summaries by marks array (see {@linkcode markBlocks}). */
const blockSummaries = new WeakMap<Uint8Array, Uint16Array>();

/**
 * For each block of {@linkcode MARK_BLOCK_IDS} ids of a dense set, which
 * marks (levels plus 1) its ids hold: bit `m` when some id of the block is
 * at mark `m`. Made on first use for a marks array and kept beside it (two
 * bytes a block: 4.7 KB at 9.7 million); the marks of a dense set never
 * change once built.
 *
 * @example
 * ```ts
 * // Id 1 at mark 1, id 2 at mark 3, id 3 at mark 6: one block.
 * markBlocks(Uint8Array.of(0x10, 0x63)); // Uint16Array [0b1001010]
 * ```
 */
export function markBlocks(nibbles: Uint8Array): Uint16Array {
  let blocks = blockSummaries.get(nibbles);
  if (blocks) return blocks;
  const perBlock = MARK_BLOCK_IDS >>> 1;
  blocks = new Uint16Array(Math.ceil(nibbles.length / perBlock));
  for (let b = 0; b < blocks.length; b++) {
    let marks = 0;
    for (let i = b * perBlock, end = Math.min(i + perBlock, nibbles.length); i < end; i++) {
      marks |= BYTE_MARKS[nibbles[i]!]!;
    }
    blocks[b] = marks;
  }
  blockSummaries.set(nibbles, blocks);
  return blocks;
}

/**
 * The marks (bit `m` for mark `m`) an id of block `b` can hold in all of
 * the sets at once: at least every set's lowest mark there, and one that
 * some set holds there (0 when a set holds no id of the block).
 */
function sharedBlockMarks(blocks: readonly Uint16Array[], b: number): number {
  let some = 0, floor = 0;
  for (let s = 0; s < blocks.length; s++) {
    const marks = blocks[s]![b]!;
    if (marks === 0) return 0;
    some |= marks;
    const lowest = marks & -marks;
    if (lowest > floor) floor = lowest;
  }
  return some & -floor;
}

/**
 * The marks whose next matches can still enter the first `need` entries
 * above `lowLevel`: levels whose first `need` ids are not all found, and no
 * worse than the best level by which the buckets already hold `need`
 * entries (a later match at a worse level comes after all of those).
 */
function wantedMarks(buckets: readonly number[][], lowLevel: number, need: number): number {
  let wanted = 0, found = 0;
  for (let level = lowLevel + 1; level < 15 && found < need; level++) {
    const size = buckets[level]!.length;
    if (size < need) wanted |= 1 << (level + 1);
    found += size;
  }
  return wanted;
}

/**
 * The matches above `lowLevel`, the first `need` by level then id, read
 * from the lowest id eight at a time: each level keeps its first `need`
 * ids. A block of ids is skipped when its marks in the sets
 * ({@linkcode markBlocks}) cannot give a match at a level still wanted —
 * one whose first ids are not all found, and no worse than those that
 * already fill the page — and the reading stops once no level is wanted.
 * Most such pages are one word's prefix (`be`, `menta`), filled from the
 * names that start with it at the first ids, above a level or two that
 * only a few ids anywhere hold (a city or a specialty named exactly so):
 * only the blocks holding those are read to the end.
 */
function firstAbove(
  sets: readonly DenseMarks[],
  pass: Uint32Array,
  lowLevel: number,
  need: number,
  watch?: () => void,
): Leveled {
  const bytes = sets[0]!.nibbles.byteLength;
  const words = sets.map((s) =>
    new Int32Array(s.nibbles.buffer, s.nibbles.byteOffset, bytes >>> 2)
  );
  const blocks = sets.map((s) => markBlocks(s.nibbles));
  const passBytes = new Uint8Array(pass.buffer, pass.byteOffset, pass.byteLength);
  const first = words[0]!, rest = words.slice(1), whole = first.length, idEnd = bytes << 1;
  const buckets: number[][] = Array.from({ length: 16 }, () => []);
  const keep = (id: number, mark: number) => {
    const bucket = buckets[mark - 1]!;
    if (mark - 1 > lowLevel && bucket.length < need) bucket.push(id);
  };
  const blockWords = MARK_BLOCK_IDS >>> 3;
  let wanted = wantedMarks(buckets, lowLevel, need);
  for (let b = 0; b < blocks[0]!.length && wanted !== 0; b++) {
    if ((sharedBlockMarks(blocks, b) & wanted) === 0) continue;
    watch?.();
    for (let w = b * blockWords, end = Math.min(w + blockWords, whole); w < end; w++) {
      let marks = first[w]!;
      let shared = SPREAD[passBytes[w]!]! & present(marks);
      for (let s = 0; s < rest.length && shared !== 0; s++) {
        const x = rest[s]![w]!;
        shared &= present(x);
        marks = maxLanes(marks, x);
      }
      for (let lane = 0; shared !== 0; lane++, shared >>>= 4) {
        if (shared & 1) keep((w << 3) + lane, (marks >>> (lane << 2)) & 15);
      }
    }
    // The block's ids after the last whole word (a byte length not a multiple of 4), one at a time.
    for (
      let id = Math.max(whole << 3, b * MARK_BLOCK_IDS),
        end = Math.min(idEnd, (b + 1) * MARK_BLOCK_IDS);
      id < end;
      id++
    ) {
      const mark = markOf(sets, id);
      if (mark !== 0 && ((pass[id >>> 5]! >>> (id & 31)) & 1) === 1) keep(id, mark);
    }
    wanted = wantedMarks(buckets, lowLevel, need);
  }
  const out: number[] = [], levels: number[] = [];
  for (let level = lowLevel + 1; level < 16 && out.length < need; level++) {
    for (const id of buckets[level]!.slice(0, need - out.length)) {
      out.push(id);
      levels.push(level);
    }
  }
  return { ids: Uint32Array.from(out), levels: Uint8Array.from(levels) };
}

/**
 * Counts and ranks the ids in every set that pass the flag test, each at
 * the worst of its levels (the promoted ones at 0): the total, and the
 * first `end` entries by level, then id — what listing every match and
 * selecting a page from it gives, without the list.
 *
 * @example
 * ```ts
 * // Ids 1, 2 and 3 at levels 0, 2 and 5 in the one set; every id passes.
 * const set = { nibbles: Uint8Array.of(0x10, 0x63, 0, 0), bits: Uint32Array.of(0b1110) };
 * densePage({
 *   sets: [set], pass: Uint32Array.of(-1 >>> 0), low: Uint32Array.of(1, 2), lowLevel: 3,
 *   promoted: new Uint32Array(0), upTo: 2, end: 3,
 * }); // { total: 3, ids: [1, 2, 3], levels: [0, 2, 5] }
 * ```
 */
export function densePage(request: DensePageRequest): DensePage {
  const { sets, pass, low, lowLevel, promoted, upTo, end, watch } = request;
  universeOf(sets, pass);
  if (upTo > lowLevel || lowLevel > 14) {
    throw new RangeError(`Levels out of range: promotions to ${upTo}, low levels to ${lowLevel}`);
  }
  const total = countMatches(sets, pass, watch);
  const want = Math.min(end, total);
  // The matches at the low levels, in id order, promoted where they may be.
  const found = lowMatches(sets, pass, low, lowLevel + 1, watch);
  const n = found.ids.length;
  const lowLevels = found.marks;
  for (let i = 0, p = 0; i < n; i++) {
    const id = found.ids[i]!, level = lowLevels[i]! - 1;
    lowLevels[i] = level;
    if (level < 1 || level > upTo) continue;
    while (p < promoted.length && promoted[p]! < id) p++;
    if (p < promoted.length && promoted[p] === id) lowLevels[i] = 0;
  }
  const best = firstByRank(found.ids, lowLevels, Math.min(n, want));
  if (n >= want) return { total, ...best };
  const rest = firstAbove(sets, pass, lowLevel, want - n, watch);
  const ids = new Uint32Array(n + rest.ids.length), levels = new Uint8Array(ids.length);
  ids.set(best.ids);
  ids.set(rest.ids, n);
  levels.set(best.levels);
  levels.set(rest.levels, n);
  return { total, ids, levels };
}

/** What {@linkcode belowWorst} finds in a dense set. */
export interface BelowWorst {
  /** The ids that pass the flag test, at every level. */
  total: number;
  /** The worst level the set holds (-1 when it holds none). */
  worst: number;
  /** The passing ids at a better level than the worst, in id order, and their levels. */
  ids: Uint32Array;
  levels: Uint8Array;
}

/**
 * The worst level a dense set holds (-1 when it holds none), from its
 * blocks' summaries ({@linkcode markBlocks}, made on first use).
 *
 * @example
 * ```ts
 * worstLevel({ nibbles: Uint8Array.of(0x10, 0x66, 0, 0), bits: Uint32Array.of(0b1110) }); // 5
 * ```
 */
export function worstLevel(set: DenseMarks): number {
  const blocks = markBlocks(set.nibbles);
  let held = 0;
  for (let b = 0; b < blocks.length; b++) held |= blocks[b]!;
  return held === 0 ? -1 : 30 - Math.clz32(held);
}

/**
 * A dense set's matches better than its worst level, among the ids whose
 * flag bit is set, and how many pass at every level: read only in the
 * blocks of ids ({@linkcode markBlocks}) that hold such a level. When the
 * worst level is most of the set (a typo variant that is a specialty
 * word: two million nurses for `burse`), a page ranked among the better
 * levels alone costs their few thousand ids, not the millions.
 *
 * @example
 * ```ts
 * // Id 1 at level 0, ids 2 and 3 at level 5: one block; every id passes.
 * const set = { nibbles: Uint8Array.of(0x10, 0x66, 0, 0), bits: Uint32Array.of(0b1110) };
 * belowWorst(set, Uint32Array.of(-1 >>> 0)); // { total: 3, worst: 5, ids: [1], levels: [0] }
 * ```
 */
export function belowWorst(
  set: DenseMarks,
  pass: Uint32Array,
  watch?: () => void,
): BelowWorst {
  universeOf([set], pass);
  const total = countMatches([set], pass, watch);
  const blocks = markBlocks(set.nibbles);
  const worstMark = worstLevel(set) + 1;
  // Marks 1 to the worst one's less 1: the better levels.
  const better = worstMark > 1 ? ((1 << worstMark) - 1) & ~1 : 0;
  const ids: number[] = [], levels: number[] = [];
  const nibbles = set.nibbles, perBlock = MARK_BLOCK_IDS >>> 1;
  for (let b = 0; b < blocks.length && better !== 0; b++) {
    if ((blocks[b]! & better) === 0) continue;
    if ((b & 0xff) === 0) watch?.();
    for (let at = b * perBlock, end = Math.min(at + perBlock, nibbles.length); at < end; at++) {
      const byte = nibbles[at]!;
      if ((BYTE_MARKS[byte]! & better) === 0) continue;
      for (let half = 0; half < 2; half++) {
        const mark = (byte >>> (half << 2)) & 15, id = (at << 1) + half;
        if (mark === 0 || mark >= worstMark || ((pass[id >>> 5]! >>> (id & 31)) & 1) === 0) {
          continue;
        }
        ids.push(id);
        levels.push(mark - 1);
      }
    }
  }
  return {
    total,
    worst: worstMark - 1,
    ids: Uint32Array.from(ids),
    levels: Uint8Array.from(levels),
  };
}

/** Ids (ascending) that fit a query's hint, and the fit (`SUB` of `scores.ts`) they rank with. */
export interface HintFit {
  ids: Uint32Array;
  sub: number;
}

/** What {@linkcode fitPage} ranks. */
export interface FitPageRequest {
  /** The words' dense sets over the same ids (as {@linkcode DensePageRequest.sets}). */
  sets: readonly DenseMarks[];
  /** Flag bits of the ids that may be listed (see {@linkcode flagPassBits}). */
  pass: Uint32Array;
  /** The ids that fit the hint, by class; an id in several takes the best (lowest) fit. */
  fits: readonly HintFit[];
  /** Ids (ascending) promoted to level 0 when they match at level 1 to `upTo`. */
  promoted: Uint32Array;
  upTo: number;
  /** The rank key of a match that fits, by level and fit. */
  keyOf: (level: number, sub: number) => number;
  /** Ids (ascending) whose key, when `wholeUpTo` or better, becomes `keyOf(0, fit)`. */
  whole: Uint32Array;
  wholeUpTo: number;
  /** How many entries to rank from the top. */
  end: number;
  /** Called now and then: throws to stop the work (a deadline). */
  watch?: () => void;
}

/** The top of a dense search with a hint: its total, and its first entries by key, then id. */
export interface FitPage {
  total: number;
  ids: Uint32Array;
  /** Rank keys. */
  keys: Uint8Array;
}

/**
 * A dense search with one hint (`washington family`: a state that is also
 * a surname): every match that fits the hint ranks above every one that
 * does not, so a page within the fitting matches is found among the ids
 * that fit (a state's list, a name's) looked up in the sets, without
 * listing the sets' millions of matches. Returns the total and the first
 * `end` entries by rank key, then id; null when fewer than `end` matches
 * fit (the page then reaches the matches that do not: listed instead).
 *
 * @example
 * ```ts
 * const set = { nibbles: Uint8Array.of(0x10, 0x63, 0, 0), bits: Uint32Array.of(0b1110) };
 * fitPage({
 *   sets: [set], pass: Uint32Array.of(-1 >>> 0), fits: [{ ids: Uint32Array.of(2, 3), sub: 2 }],
 *   promoted: new Uint32Array(0), upTo: 2, keyOf: (level, sub) => level * 4 + sub,
 *   whole: new Uint32Array(0), wholeUpTo: 0, end: 2,
 * }); // { total: 3, ids: [2, 3], keys: [10, 22] }
 * ```
 */
export function fitPage(request: FitPageRequest): FitPage | null {
  const { sets, pass, fits, promoted, upTo, keyOf, whole, wholeUpTo, end, watch } = request;
  const universe = universeOf(sets, pass);
  // Each class's ids that every set holds and the flags pass (their bits: a read or two an id).
  const held = fits.map(({ ids }) => heldIds(sets, pass, ids, universe, watch));
  // Merged in id order, each id with its best fit.
  let ids: Uint32Array = held[0]!;
  let subs: Uint8Array = new Uint8Array(ids.length).fill(fits[0]!.sub);
  for (let c = 1; c < held.length; c++) [ids, subs] = mergeFits(ids, subs, held[c]!, fits[c]!.sub);
  // Each at its level, promoted, as a rank key (from a table by level and fit).
  const table = new Uint8Array(16 * 16);
  for (let level = 0; level < 16; level++) {
    for (let sub = 0; sub < 16; sub++) table[level * 16 + sub] = keyOf(level, sub);
  }
  const nibbles = sets.map((s) => s.nibbles);
  const keys = new Uint8Array(ids.length);
  const n = ids.length;
  for (let i = 0, p = 0, q = 0; i < n; i++) {
    if ((i & WATCH_EVERY) === 0) watch?.();
    const id = ids[i]!, sub = subs[i]!;
    const at = id >>> 1, shift = (id & 1) << 2;
    let mark = 0;
    for (let s = 0; s < nibbles.length; s++) {
      const m = (nibbles[s]![at]! >>> shift) & 15;
      if (m > mark) mark = m;
    }
    let level = mark - 1;
    if (level >= 1 && level <= upTo) {
      while (p < promoted.length && promoted[p]! < id) p++;
      if (p < promoted.length && promoted[p] === id) level = 0;
    }
    let key = table[level * 16 + sub]!;
    if (key <= wholeUpTo) {
      while (q < whole.length && whole[q]! < id) q++;
      if (q < whole.length && whole[q] === id) key = table[sub]!;
    }
    keys[i] = key;
  }
  if (n < end) return null;
  const first = firstByRank(ids, keys, end);
  return { total: countMatches(sets, pass, watch), ids: first.ids, keys: first.levels };
}

/** Two ascending id lists with their fits merged: an id in both keeps the better (lower) fit. */
function mergeFits(
  a: Uint32Array,
  aSubs: Uint8Array,
  b: Uint32Array,
  bSub: number,
): [Uint32Array, Uint8Array] {
  const ids = new Uint32Array(a.length + b.length), subs = new Uint8Array(ids.length);
  let i = 0, j = 0, n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity, y = j < b.length ? b[j]! : Infinity;
    if (x < y) {
      ids[n] = x;
      subs[n++] = aSubs[i++]!;
    } else if (y < x) {
      ids[n] = y;
      subs[n++] = bSub;
      j++;
    } else {
      ids[n] = x;
      subs[n++] = Math.min(aSubs[i++]!, bSub);
      j++;
    }
  }
  return [ids.subarray(0, n), subs.subarray(0, n)];
}

/** The ids of `ids` (ascending) below `universe` that every set holds and whose flag bit is set. */
function heldIds(
  sets: readonly DenseMarks[],
  pass: Uint32Array,
  ids: Uint32Array,
  universe: number,
  watch?: () => void,
): Uint32Array {
  const bits = sets.map((s) => s.bits);
  const a = bits[0]!, rest = bits.slice(1);
  const out = new Uint32Array(ids.length);
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    if ((i & WATCH_EVERY) === 0) watch?.();
    const id = ids[i]!;
    if (id >= universe) break;
    const word = id >>> 5, bit = 1 << (id & 31);
    if ((pass[word]! & a[word]! & bit) === 0) continue;
    let all = true;
    for (let s = 0; s < rest.length && all; s++) all = (rest[s]![word]! & bit) !== 0;
    if (all) out[n++] = id;
  }
  return out.subarray(0, n);
}
