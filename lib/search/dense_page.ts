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
import { popcount } from "../index/bits.ts";

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

/** Entries with their levels. */
interface Leveled {
  ids: Uint32Array;
  levels: Uint8Array;
}

/** The top of a dense search: its total, and its first `min(end, total)` entries in level-then-id order. */
export interface DensePage extends Leveled {
  total: number;
}

/** The ids every set holds whose flag bit is set, counted 32 at a time. */
function countShared(sets: readonly DenseMarks[], pass: Uint32Array, watch?: () => void): number {
  const words = [pass, ...sets.map((s) => s.bits)].map((b) =>
    new Int32Array(b.buffer, b.byteOffset, b.length)
  );
  const length = Math.min(...words.map((w) => w.length));
  const f = words[0]!, a = words[1]!, b = words[2], rest = words.slice(3);
  let total = 0;
  for (let w = 0; w < length; w++) {
    if ((w & WATCH_EVERY) === 0) watch?.();
    let x = f[w]! & a[w]!;
    if (b) x &= b[w]!;
    for (let s = 0; s < rest.length && x !== 0; s++) x &= rest[s]![w]!;
    if (x !== 0) total += popcount(x);
  }
  return total;
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

/** Entries in id order with their levels, ranked: the first `n` by level, then id. */
function firstByLevel(ids: Uint32Array, levels: Uint8Array, n: number): Leveled {
  const starts = new Uint32Array(17);
  for (let i = 0; i < levels.length; i++) starts[levels[i]! + 1]!++;
  for (let l = 1; l < starts.length; l++) starts[l]! += starts[l - 1]!;
  const outIds = new Uint32Array(n), outLevels = new Uint8Array(n);
  for (let i = 0; i < ids.length; i++) {
    const level = levels[i]!;
    const at = starts[level]!++;
    if (at >= n) continue;
    outIds[at] = ids[i]!;
    outLevels[at] = level;
  }
  return { ids: outIds, levels: outLevels };
}

/**
 * The matches above `lowLevel`, the first `need` by level then id, read
 * from the lowest id eight at a time: each level keeps its first `need`
 * ids, and the reading stops once the level right above `lowLevel` has
 * them all (no later id can come before them).
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
  const passBytes = new Uint8Array(pass.buffer, pass.byteOffset, pass.byteLength);
  const first = words[0]!, rest = words.slice(1), whole = first.length;
  const buckets: number[][] = Array.from({ length: 16 }, () => []);
  const next = buckets[lowLevel + 1]!;
  const keep = (id: number, mark: number) => {
    const bucket = buckets[mark - 1]!;
    if (mark - 1 > lowLevel && bucket.length < need) bucket.push(id);
  };
  for (let w = 0; w < whole && next.length < need; w++) {
    if ((w & WATCH_EVERY) === 0) watch?.();
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
  // The ids after the last whole word (a byte length not a multiple of 4), one at a time.
  for (let id = whole << 3; id < bytes << 1 && next.length < need; id++) {
    const mark = markOf(sets, id);
    if (mark !== 0 && ((pass[id >>> 5]! >>> (id & 31)) & 1) === 1) keep(id, mark);
  }
  const ids: number[] = [], levels: number[] = [];
  for (let level = lowLevel + 1; level < 16 && ids.length < need; level++) {
    for (const id of buckets[level]!.slice(0, need - ids.length)) {
      ids.push(id);
      levels.push(level);
    }
  }
  return { ids: Uint32Array.from(ids), levels: Uint8Array.from(levels) };
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
  if (sets.length === 0) throw new RangeError("A dense page needs at least one set");
  const bytes = sets[0]!.nibbles.byteLength;
  if (sets.some((s) => s.nibbles.byteLength !== bytes || s.bits.length * 32 < bytes * 2)) {
    throw new RangeError("Dense sets of different universes cannot be ranked together");
  }
  if (pass.length * 32 < bytes * 2) {
    throw new RangeError("The flag bits do not cover the sets' ids");
  }
  if (upTo > lowLevel || lowLevel > 14) {
    throw new RangeError(`Levels out of range: promotions to ${upTo}, low levels to ${lowLevel}`);
  }
  const total = countShared(sets, pass, watch);
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
  const best = firstByLevel(found.ids, lowLevels, Math.min(n, want));
  if (n >= want) return { total, ...best };
  const rest = firstAbove(sets, pass, lowLevel, want - n, watch);
  const ids = new Uint32Array(n + rest.ids.length), levels = new Uint8Array(ids.length);
  ids.set(best.ids);
  ids.set(rest.ids, n);
  levels.set(best.levels);
  levels.set(rest.levels, n);
  return { total, ids, levels };
}
