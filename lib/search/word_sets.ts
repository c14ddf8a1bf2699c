/**
 * The matches of one query word, as the engine intersects them: the word's
 * parts (a posting list per field, term and code, each at a level), their
 * union built once, and a byte-bounded cache of the unions of common words.
 *
 * A union is kept in one of two forms: sparse (sorted ids and their
 * levels, 5 bytes an id) or dense (four bits per provider id: the level
 * plus 1, or 0). A word whose parts hold more than an eighth of all
 * providers (`health`, `care`, the prefix `ca`) is dense: building it costs
 * no sort, and looking a candidate up in it is one read.
 *
 * @module
 */
import {
  bitsOf,
  intersectLeveled,
  keepFlagged,
  type Leveled,
  type LeveledPart,
  seek,
  unionAll,
  unionLeveledBelow,
} from "../index/sorted.ts";
import { ByteLru } from "../lru.ts";
import { countBits } from "../index/bits.ts";
import type { CodeMatch } from "./code_match.ts";

/**
 * A word's union: sparse, or dense over ids `0..universe-1` — four bits an
 * id (the level plus 1, or 0), two ids a byte: id `i` in the low half of
 * byte `i >> 1` when even, the high half when odd; and one bit an id of
 * the ids it holds (bit `i & 31` of `bits[i >> 5]`), counted 32 at a time.
 */
export type WordSet =
  | { kind: "sparse"; set: Leveled; size: number; bytes: number }
  | { kind: "dense"; nibbles: Uint8Array; bits: Uint32Array; size: number; bytes: number };

/** The level plus 1 of id `id` in a dense set (0: not in it). */
function nibbleAt(nibbles: Uint8Array, id: number): number {
  return (nibbles[id >>> 1]! >>> ((id & 1) << 2)) & 15;
}

/** A union is built dense when its parts hold at least `universe / DENSE_FRACTION` ids. */
export const DENSE_FRACTION = 8;

/** A sparse union is cached from this many ids; a dense one always. */
export const WORD_SET_MIN_IDS = 50_000;
/** A recurring word's sparse union is cached from this many ids. */
export const RECURRING_WORD_MIN_IDS = 1_000;

/**
 * Builds the union of a word's parts in the form that suits its size.
 *
 * @example
 * ```ts
 * const set = buildWordSet([{ list: Uint32Array.of(3, 4), level: 1 }], 10);
 * set.kind; // "sparse"
 * ```
 */
export function buildWordSet(
  parts: readonly LeveledPart[],
  universe: number,
  stock: DenseStock | null = null,
): WordSet {
  let total = 0;
  for (const p of parts) total += p.list.length;
  if (total * DENSE_FRACTION < universe) {
    const set = unionLeveledBelow(parts, universe);
    return {
      kind: "sparse",
      set,
      size: set.ids.length,
      bytes: set.ids.byteLength + set.levels.byteLength,
    };
  }
  const { nibbles, bits } = stock?.take(universe) ?? denseArrays(universe);
  // Worst level first, each part's mark written over what is there: the best part writes last, and
  // no id is read before it is written (which branch would be taken is as random as the ids).
  for (const { list, level } of [...parts].sort((a, b) => b.level - a.level)) {
    if (level > 14) throw new RangeError(`Level ${level} does not fit a dense word set`);
    const mark = level + 1;
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      if (id >= universe) throw new RangeError(`Id ${id} is not below ${universe}`);
      const at = id >>> 1, shift = (id & 1) << 2;
      nibbles[at] = (nibbles[at]! & ~(15 << shift)) | (mark << shift);
      bits[id >>> 5]! |= 1 << (id & 31);
    }
  }
  const size = countBits(bits);
  return { kind: "dense", nibbles, bits, size, bytes: nibbles.byteLength + bits.byteLength };
}

/** A dense set's arrays (see {@linkcode WordSet}). */
export interface DenseArrays {
  nibbles: Uint8Array;
  bits: Uint32Array;
}

/** New arrays for a dense set over `universe` ids (all 0). */
function denseArrays(universe: number): DenseArrays {
  return {
    nibbles: new Uint8Array((universe + 1) >>> 1),
    bits: new Uint32Array((universe + 31) >>> 5),
  };
}

/** Dense sets' arrays a {@linkcode DenseStock} keeps for reuse, at most. */
export const DENSE_STOCK = 2;

/**
 * The arrays of dense word sets the cache has let go of, kept for the next
 * dense unions to build in. On this machine the first touch of a fresh page
 * of memory costs 11–16 µs: a dense union over 9.7 million providers (6 MB
 * of new arrays) spent three quarters of its time faulting its pages in;
 * in arrays reused, it only zeroes them first.
 *
 * A set let go of during a search may still be read by that search (a
 * word taken from the cache, then evicted by a later word's union): its
 * arrays are held back until the search ends ({@linkcode settle}), and
 * only then given out. A set in shared memory, which another worker may
 * be reading, is never taken.
 *
 * @example
 * ```ts
 * const stock = new DenseStock();
 * const set = buildWordSet([{ list: Uint32Array.of(1, 2, 3), level: 1 }], 8, stock);
 * stock.retire(set); // the cache let go of it during a search
 * stock.settle(); // the search is over: the next dense union builds in its arrays
 * ```
 */
export class DenseStock {
  #held: DenseArrays[] = [];
  #free: DenseArrays[] = [];

  constructor(readonly keep: number = DENSE_STOCK) {}

  /** Takes a dense set's arrays back, to be given out once the current search ends. */
  retire(set: WordSet): void {
    if (set.kind !== "dense" || set.nibbles.buffer instanceof SharedArrayBuffer) return;
    if (this.#held.length + this.#free.length < this.keep) {
      this.#held.push({ nibbles: set.nibbles, bits: set.bits });
    }
  }

  /** Ends a search: the arrays held back during it may be given out. */
  settle(): void {
    for (const arrays of this.#held) this.#free.push(arrays);
    this.#held = [];
  }

  /** Arrays for a dense set over `universe` ids, all 0: kept ones when they fit, else new. */
  take(universe: number): DenseArrays {
    const bytes = (universe + 1) >>> 1, words = (universe + 31) >>> 5;
    for (let kept = this.#free.pop(); kept; kept = this.#free.pop()) {
      if (kept.nibbles.length !== bytes || kept.bits.length !== words) continue;
      // New views of the same memory: nothing kept by view (`dense_page.ts`' block summaries)
      // carries over to the new set.
      return {
        nibbles: new Uint8Array(kept.nibbles.buffer, kept.nibbles.byteOffset, bytes).fill(0),
        bits: new Uint32Array(kept.bits.buffer, kept.bits.byteOffset, words).fill(0),
      };
    }
    return denseArrays(universe);
  }

  /** Arrays kept for reuse now (free, or held back until the search ends). */
  get size(): number {
    return this.#held.length + this.#free.length;
  }
}

/**
 * The ids of a word set in order, with their levels, whose byte in `flags`
 * passes `(flags[id] & mask) === value` (not read when `mask` is 0) and
 * that are below `end`, as new arrays (a dense set is read end to end, or
 * to `end`; see `keepFlagged`).
 */
export function wordSetIds(
  word: WordSet,
  flags: Uint8Array,
  mask: number,
  value: number,
  end = Infinity,
): Leveled {
  if (word.kind === "sparse") return keepFlagged(word.set, flags, mask, value, false, end);
  const ids = new Uint32Array(word.size);
  const levels = new Uint8Array(word.size);
  const nibbles = word.nibbles;
  // Ids `2·at` and `2·at + 1` are below `end` while `at` is below `stop` (the last byte, half).
  const stop = Math.min(nibbles.length, Math.ceil(end / 2));
  const tested = mask !== 0;
  let n = 0;
  for (let at = 0; at < stop; at++) {
    const byte = nibbles[at]!;
    if (byte === 0) continue;
    const even = at << 1;
    if ((byte & 15) !== 0 && (!tested || (flags[even]! & mask) === value)) {
      ids[n] = even;
      levels[n++] = (byte & 15) - 1;
    }
    if (byte >>> 4 !== 0 && even + 1 < end && (!tested || (flags[even + 1]! & mask) === value)) {
      ids[n] = even + 1;
      levels[n++] = (byte >>> 4) - 1;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/** Bit 0 of each nibble of `x` that is not zero (an id present in a dense set). */
function present(x: number): number {
  return (x | (x >>> 1) | (x >>> 2) | (x >>> 3)) & 0x11111111;
}

/**
 * The ids in every one of the dense sets (over the same universe) below
 * `end` whose byte in `flags` passes `(flags[id] & mask) === value` (not
 * read when `mask` is 0; see `keepFlagged` for `end`), each at the worst
 * of its levels, as new arrays sized by the smallest set: one pass over the
 * sets eight ids at a time, skipping the words where they share no id,
 * instead of listing the first set's ids and looking each up in the others.
 *
 * @example
 * ```ts
 * const a = buildWordSet([{ list: Uint32Array.of(2, 5), level: 1 }], 8);
 * const b = buildWordSet([{ list: Uint32Array.of(5, 6), level: 3 }], 8);
 * if (a.kind === "dense" && b.kind === "dense") {
 *   intersectDense([a, b], new Uint8Array(8), 0, 0); // { ids: [5], levels: [3] }
 * }
 * ```
 */
export function intersectDense(
  dense: readonly Extract<WordSet, { kind: "dense" }>[],
  flags: Uint8Array,
  mask: number,
  value: number,
  end = Infinity,
): Leveled {
  if (dense.length === 0) throw new RangeError("Cannot intersect no dense sets");
  const sets = dense.map((d) => d.nibbles);
  const bytes = sets[0]!.byteLength;
  if (sets.some((s) => s.byteLength !== bytes)) {
    throw new RangeError("Dense sets of different universes cannot be intersected");
  }
  const words = sets.map((s) => new Uint32Array(s.buffer, s.byteOffset, bytes >>> 2));
  // No more ids than the smallest set holds (a set's size counts its ids, whatever their flags).
  const capacity = Math.min(...dense.map((d) => d.size));
  const ids = new Uint32Array(capacity);
  const levels = new Uint8Array(capacity);
  let n = 0;
  const first = words[0]!, second = words[1] ?? first, rest = words.slice(2);
  const whole = first.length;
  // Words of ids all below `end` (those of the word `end` falls in are checked one by one).
  const stop = Math.min(whole, Math.ceil(end / 8));
  const tested = mask !== 0;
  for (let w = 0; w < stop; w++) {
    const a = first[w]!;
    if (a === 0) continue;
    const b = second[w]!;
    let shared = present(a) & present(b);
    for (let s = 0; s < rest.length && shared !== 0; s++) shared &= present(rest[s]![w]!);
    while (shared !== 0) {
      // The lowest id left: its nibble's bit 0.
      const low = shared & -shared;
      shared ^= low;
      const shift = 31 - Math.clz32(low);
      const id = (w << 3) + (shift >>> 2);
      if (id >= end || (tested && (flags[id]! & mask) !== value)) continue;
      let worst = (a >>> shift) & 15;
      const mb = (b >>> shift) & 15;
      if (mb > worst) worst = mb;
      for (let s = 0; s < rest.length; s++) {
        const mark = (rest[s]![w]! >>> shift) & 15;
        if (mark > worst) worst = mark;
      }
      ids[n] = id;
      levels[n++] = worst - 1;
    }
  }
  // The bytes after the last whole word (when the byte length is not a multiple of 4).
  for (let id = whole << 3; id < Math.min(bytes << 1, end); id++) {
    let worst = 0;
    for (const s of sets) {
      const mark = nibbleAt(s, id);
      if (mark === 0) {
        worst = 0;
        break;
      }
      if (mark > worst) worst = mark;
    }
    if (worst !== 0 && (flags[id]! & mask) === value) {
      ids[n] = id;
      levels[n++] = worst - 1;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/**
 * Candidates also in the word set, each at the worse of its level and the
 * word's.
 */
export function intersectWordSet(candidates: Leveled, word: WordSet): Leveled {
  if (word.kind === "sparse") return intersectLeveled(candidates, word.set);
  const nibbles = word.nibbles;
  const { ids: inIds, levels: inLevels } = candidates;
  const ids = new Uint32Array(inIds.length);
  const levels = new Uint8Array(inIds.length);
  let n = 0;
  for (let i = 0; i < inIds.length; i++) {
    const id = inIds[i]!;
    const m = nibbleAt(nibbles, id);
    if (m !== 0) {
      ids[n] = id;
      const level = m - 1, own = inLevels[i]!;
      levels[n++] = own > level ? own : level;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/** A part as probed: a list walked by a galloping cursor, or a bitmap read per candidate. */
interface ProbePart {
  list: Uint32Array;
  bits: Uint32Array | null;
  level: number;
}

/** Bitmaps of long posting lists, made when first probed, kept while the list is. */
const bitmaps = new WeakMap<Uint32Array, Uint32Array>();

/**
 * A list this many times longer than the candidates, or more, is probed through a bitmap (made
 * then: a step an id, more than galloping over it costs this once; a bitmap made already is
 * always used).
 */
const BITMAP_RATIO = 64;
/** ...and only when it holds this share of the universe (the bitmap costs `universe / 8` bytes). */
const BITMAP_DENSITY = 64;

/** Whether a part of `len` ids is probed for `candidates` through a bitmap. */
function bitmapWorthy(len: number, candidates: number, universe: number): boolean {
  return len >= candidates * BITMAP_RATIO && len * BITMAP_DENSITY >= universe;
}

/** Whether `list` is probed through its bitmap: it has one already, or is worth one. */
function byBitmap(list: Uint32Array, candidates: number, universe: number): boolean {
  return bitmaps.has(list) || bitmapWorthy(list.length, candidates, universe);
}

function bitmapOf(list: Uint32Array, universe: number): Uint32Array {
  let bits = bitmaps.get(list);
  if (!bits) {
    bits = bitsOf([list], universe);
    bitmaps.set(list, bits);
  }
  return bits;
}

/**
 * Whether `probe` holds `v`: a bit of its bitmap, or a step of its list's
 * cursor `at[p]` (the ids asked come in ascending order, so it only moves on).
 */
function probeHolds(probe: ProbePart, at: Uint32Array, p: number, v: number): boolean {
  if (probe.bits) return (probe.bits[v >>> 5]! & (1 << (v & 31))) !== 0;
  const list = probe.list;
  let j = at[p]!;
  if (j >= list.length) return false;
  if (list[j]! < v) at[p] = j = seek(list, v, j);
  return j < list.length && list[j] === v;
}

/**
 * The parts as probed: per level, the parts shorter than the candidates
 * are merged into one list (one cursor instead of many), and a part much
 * longer than the candidates and dense enough is read through its bitmap.
 */
function probeParts(
  parts: readonly LeveledPart[],
  candidates: number,
  universe: number,
): ProbePart[] {
  const byLevel = new Map<number, LeveledPart[]>();
  for (const p of parts) {
    if (p.list.length === 0) continue;
    const same = byLevel.get(p.level);
    if (same) same.push(p);
    else byLevel.set(p.level, [p]);
  }
  const out: ProbePart[] = [];
  for (const level of [...byLevel.keys()].sort((a, b) => a - b)) {
    const small: Uint32Array[] = [];
    for (const { list } of byLevel.get(level)!) {
      if (list.length < candidates) small.push(list);
      else if (byBitmap(list, candidates, universe)) {
        out.push({ list, bits: bitmapOf(list, universe), level });
      } else out.push({ list, bits: null, level });
    }
    if (small.length > 0) out.push({ list: unionAll(small, universe), bits: null, level });
  }
  return out.sort((a, b) => a.level - b.level);
}

/**
 * Candidates also in the union of the parts (and of the codes, when given),
 * each at the worse of its level and the best level of the parts holding
 * it, found by looking each candidate up (see {@linkcode probeParts}): the
 * cost follows the candidates, not the parts.
 */
export function probeWord(
  candidates: Leveled,
  parts: readonly LeveledPart[],
  universe: number,
  codes: CodeMatch | null = null,
): Leveled {
  const probes = probeParts(parts, candidates.ids.length, universe);
  const codeLevel = codes?.prober() ?? null;
  const at = new Uint32Array(probes.length);
  const { ids: inIds, levels: inLevels } = candidates;
  const ids = new Uint32Array(inIds.length);
  const levels = new Uint8Array(inIds.length);
  let n = 0;
  // Parts better than every code are probed first: a candidate found there needs no code lookup.
  const codeBest = codeLevel ? codes!.bestLevel : NO_LEVEL;
  for (let i = 0; i < inIds.length; i++) {
    const v = inIds[i]!;
    let best = NO_LEVEL;
    let p = 0;
    for (; p < probes.length && probes[p]!.level < codeBest; p++) {
      if (probeHolds(probes[p]!, at, p, v)) {
        best = probes[p]!.level;
        break;
      }
    }
    if (best === NO_LEVEL && codeLevel) {
      best = codeLevel(v);
      for (; p < probes.length; p++) {
        const probe = probes[p]!;
        if (probe.level >= best) break;
        if (probeHolds(probe, at, p, v)) {
          best = probe.level;
          break;
        }
      }
    }
    if (best !== NO_LEVEL) {
      ids[n] = v;
      const own = inLevels[i]!;
      levels[n++] = own > best ? own : best;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/** {@linkcode bestLevels}' mark of an id no part holds. */
export const NO_LEVEL = 255;

/**
 * A byte per provider id, all 0 between uses: {@linkcode streamWord} marks
 * its candidates there, and clears them again. One per universe size,
 * made on first use (10 MB at 9.7 million) and kept, so that no search
 * allocates or zeroes one.
 */
let marks: Uint8Array | null = null;

/** The marks array for `universe`, all 0. */
function marksFor(universe: number): Uint8Array {
  if (!marks || marks.length < universe) marks = new Uint8Array(universe);
  return marks;
}

/**
 * Marks the best level of the parts holding each of `ids` in the marks
 * array (see {@linkcode streamWord}): 0 for an id not asked, 255 for one no
 * part holds, else the level plus 1. The caller reads and clears the
 * marks of `ids`.
 */
function markBest(ids: Uint32Array, parts: readonly LeveledPart[], universe: number): Uint8Array {
  const mark = marksFor(universe);
  for (let i = 0; i < ids.length; i++) mark[ids[i]!] = 255;
  for (const { list, level } of parts) {
    const m = level + 1;
    for (let k = 0; k < list.length; k++) {
      const id = list[k]!;
      if (mark[id]! > m) mark[id] = m;
    }
  }
  return mark;
}

/**
 * {@linkcode probeWord}'s answer found the other way round: the candidates
 * are marked in a byte array by id, and each part's list is read once,
 * start to end, lowering the mark of the candidates it holds to its level;
 * the candidates' codes are looked up last, for those no part holds at a
 * level better than the codes'. The cost is the candidates twice plus the
 * parts' lengths, with no search in any list: what pays when many
 * candidates meet many long parts (`jennifer st`: a quarter of a million
 * Jennifers against the lists of every word starting with `st`), where
 * each candidate would be sought in each part.
 *
 * @example
 * ```ts
 * const c = { ids: Uint32Array.of(2, 5), levels: Uint8Array.of(0, 0) };
 * streamWord(c, [{ list: Uint32Array.of(5, 9), level: 3 }], 10); // { ids: [5], levels: [3] }
 * ```
 */
export function streamWord(
  candidates: Leveled,
  parts: readonly LeveledPart[],
  universe: number,
  codes: CodeMatch | null = null,
): Leveled {
  const { ids: inIds, levels: inLevels } = candidates;
  const mark = markBest(inIds, parts, universe);
  const codeLevel = codes?.prober() ?? null;
  const codeBest = codeLevel ? codes!.bestLevel : NO_LEVEL;
  const ids = new Uint32Array(inIds.length);
  const levels = new Uint8Array(inIds.length);
  let n = 0;
  for (let i = 0; i < inIds.length; i++) {
    const v = inIds[i]!;
    let best = mark[v]! - 1;
    mark[v] = 0;
    if (codeLevel && best > codeBest) {
      const code = codeLevel(v);
      if (code < best) best = code;
    }
    if (best !== NO_LEVEL - 1 && best !== NO_LEVEL) {
      ids[n] = v;
      const own = inLevels[i]!;
      levels[n++] = own > best ? own : best;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/**
 * The best level of the parts holding each id of `ids` (sorted), or
 * {@linkcode NO_LEVEL}: the same lookups as {@linkcode probeWord}, without
 * dropping anything.
 *
 * @example
 * ```ts
 * bestLevels(Uint32Array.of(2, 5), [{ list: Uint32Array.of(5), level: 1 }], 10); // [255, 1]
 * ```
 */
export function bestLevels(
  ids: Uint32Array,
  parts: readonly LeveledPart[],
  universe: number,
): Uint8Array {
  if (locateIsCheaper(ids.length, parts, universe)) return locateBest(ids, parts);
  if (streamIsCheaper(ids.length, parts, universe)) {
    // The parts read through (see `streamWord`): a mark of 255 is NO_LEVEL + 1, 0 no id asked.
    const mark = markBest(ids, parts, universe);
    const out = new Uint8Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const v = mark[id]!;
      out[i] = v === 255 ? NO_LEVEL : v - 1;
      mark[id] = 0;
    }
    return out;
  }
  const out = new Uint8Array(ids.length).fill(NO_LEVEL);
  const probes = probeParts(parts, ids.length, universe);
  const at = new Uint32Array(probes.length);
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i]!;
    for (let p = 0; p < probes.length; p++) {
      const probe = probes[p]!;
      if (probeHolds(probe, at, p, v)) {
        out[i] = probe.level;
        break;
      }
    }
  }
  return out;
}

/**
 * {@linkcode bestLevels} the other way round, for parts much shorter than
 * the ids asked (the hints of `michael ca` among 173,370 Michaels: the few
 * hundred named or starting with `ca`): each part's ids are found among
 * them by galloping, and every id no part holds stays {@linkcode NO_LEVEL},
 * so the cost follows the parts, not the ids.
 */
function locateBest(ids: Uint32Array, parts: readonly LeveledPart[]): Uint8Array {
  const out = new Uint8Array(ids.length).fill(NO_LEVEL);
  for (const { list, level } of parts) {
    let j = 0;
    for (let k = 0; k < list.length && j < ids.length; k++) {
      const v = list[k]!;
      if (ids[j]! < v) j = seek(ids, v, j);
      if (j < ids.length && ids[j] === v && out[j]! > level) out[j] = level;
    }
  }
  return out;
}

/**
 * Whether {@linkcode locateBest} costs less than reading the parts through
 * and looking the ids up in them: a galloping search an id of the parts
 * (about `1 + log2(1 + ids / part)` steps) and a byte an id to clear,
 * against the cheaper of the other two (see {@linkcode streamIsCheaper}).
 */
export function locateIsCheaper(
  ids: number,
  parts: readonly LeveledPart[],
  universe: number,
): boolean {
  const c = Math.max(1, ids);
  let locate = c / 8, stream = 2 * c;
  for (const { list } of parts) {
    const len = list.length;
    if (len === 0) continue;
    locate += len * (2 + Math.log2(1 + c / len));
    stream += len;
  }
  return locate < stream && locate < seekingCost(c, parts, universe);
}

/**
 * Whether looking `candidates` up in the parts costs less than building
 * the parts' union (some three steps an id). Looking up costs the merging
 * of the parts shorter than the candidates, a step per candidate and
 * remaining part, and each remaining part's cursor moves about
 * `c·log(len/c)` steps — none for a part read through its bitmap, whose
 * making costs a step an id, once (see {@linkcode probeParts}).
 */
export function probeIsCheaper(
  candidates: number,
  parts: readonly LeveledPart[],
  universe: number,
  codes: CodeMatch | null = null,
): boolean {
  const c = Math.max(1, candidates);
  // Codes are looked up in the code columns (a few steps a candidate), or their lists united.
  let union = codes ? 3 * codes.size : 0;
  for (const { list } of parts) union += 3 * list.length;
  return (codes ? 2 * c : 0) + seekingCost(c, parts, universe) < union;
}

/**
 * What seeking `c` candidates in the parts costs (see
 * {@linkcode probeIsCheaper}): the parts shorter than the candidates
 * merged, then a step a candidate and level of them, and for each longer
 * part its bitmap's making and a step a candidate, or its cursor's moves.
 */
function seekingCost(c: number, parts: readonly LeveledPart[], universe: number): number {
  let cost = 0;
  const levels = new Set<number>();
  for (const { list, level } of parts) {
    const len = list.length;
    if (len < c) {
      cost += 3 * len;
      levels.add(level);
    } else if (byBitmap(list, c, universe)) {
      cost += c + (bitmaps.has(list) ? 0 : len);
    } else cost += c + 2 * Math.min(len, c * (1 + Math.log2(1 + len / c)));
  }
  return cost + c * levels.size;
}

/**
 * Whether reading the parts through (see {@linkcode streamWord}: two steps
 * a candidate and one an id of the parts) costs less than looking each
 * candidate up in them (the same reckoning as {@linkcode probeIsCheaper}).
 */
export function streamIsCheaper(
  candidates: number,
  parts: readonly LeveledPart[],
  universe: number,
): boolean {
  const c = Math.max(1, candidates);
  let stream = 2 * c;
  for (const { list } of parts) stream += list.length;
  return stream < seekingCost(c, parts, universe);
}

/**
 * Looks candidates up in a word's parts (and codes): each in the parts, or
 * the parts read through, whichever costs less; or in its union when that
 * costs less than both.
 */
export function intersectWord(
  candidates: Leveled,
  parts: readonly LeveledPart[],
  universe: number,
  union: () => WordSet,
  codes: CodeMatch | null = null,
): Leveled {
  const c = candidates.ids.length;
  if (streamIsCheaper(c, parts, universe)) return streamWord(candidates, parts, universe, codes);
  return probeIsCheaper(c, parts, universe, codes)
    ? probeWord(candidates, parts, universe, codes)
    : intersectWordSet(candidates, union());
}

/** A cached word union as handed from one search worker to another: its cache key and the set. */
export type SharedWordSet = [key: string, set: WordSet];

/**
 * A byte-bounded LRU cache of the unions of common query words (`family`,
 * `health`, `john`...). Such words recur across searches that are
 * otherwise all different, and their union is what costs: kept, a later
 * search intersects it instead of building it again.
 *
 * With sharing on, each set kept is copied into shared memory and listed
 * for {@linkcode takeFresh}: a pool of workers hands it to the others,
 * which {@linkcode adopt} it, so a union is built once per pool and held
 * once in memory, whichever worker needs it.
 */
export class WordSetCache extends ByteLru<WordSet> {
  /** The arrays of dense sets let go of, for the next dense unions (see {@linkcode DenseStock}). */
  readonly stock = new DenseStock();
  readonly #seen = new Map<string, number>();
  readonly #sharing: boolean;
  #fresh: SharedWordSet[] = [];

  constructor(budget: number, options: { share?: boolean } = {}) {
    super(budget);
    this.#sharing = options.share ?? false;
  }

  override set(key: string, value: WordSet): void {
    if (!this.#sharing || value.bytes > this.budget / 4) {
      super.set(key, value);
      return;
    }
    const shared = inSharedMemory(value);
    super.set(key, shared);
    this.#fresh.push([key, shared]);
  }

  protected override dropped(set: WordSet): void {
    this.stock.retire(set);
  }

  /** The sets kept since the last call, in shared memory, for the other workers. */
  takeFresh(): SharedWordSet[] {
    const fresh = this.#fresh;
    this.#fresh = [];
    return fresh;
  }

  /** Keeps sets another worker built, for keys not kept here; they are not listed as fresh. */
  adopt(sets: readonly SharedWordSet[]): void {
    for (const [key, set] of sets) if (!this.has(key)) super.set(key, set);
  }

  /**
   * Counts a sighting of a word and tells whether it was seen before (since
   * the count last started over): a recurring word's union is worth
   * building and keeping even when probing would be cheaper this once.
   */
  recurring(key: string): boolean {
    const n = this.#seen.get(key) ?? 0;
    if (this.#seen.size >= MAX_COUNTED_WORDS) this.#seen.clear();
    this.#seen.set(key, n + 1);
    return n > 0;
  }
}

/** A word set's arrays copied into one shared buffer (ids, then levels), or the nibbles. */
function inSharedMemory(word: WordSet): WordSet {
  if (word.kind === "dense") {
    const nibbles = new Uint8Array(new SharedArrayBuffer(word.nibbles.byteLength));
    nibbles.set(word.nibbles);
    const bits = new Uint32Array(new SharedArrayBuffer(word.bits.byteLength));
    bits.set(word.bits);
    return { ...word, nibbles, bits };
  }
  const n = word.set.ids.length;
  const buffer = new SharedArrayBuffer(n * 5);
  const ids = new Uint32Array(buffer, 0, n);
  const levels = new Uint8Array(buffer, n * 4, n);
  ids.set(word.set.ids);
  levels.set(word.set.levels);
  return { ...word, set: { ids, levels } };
}

/**
 * Which ids a word matches, one bit an id (`universe / 8` bytes), without
 * their levels: the union of its parts, made for a word too common to keep
 * whole (a two-letter prefix: millions of ids) that recurs.
 */
export function memberBits(parts: readonly LeveledPart[], universe: number): Uint32Array {
  return bitsOf(parts.map((p) => p.list), universe);
}

/** A byte-bounded cache of recurring common words' {@linkcode memberBits}. */
export class MemberBitsCache extends ByteLru<Uint32Array> {
  constructor(budget: number) {
    super(budget, (bits) => bits.byteLength);
  }
}

/** Words a {@linkcode WordSetCache} counts sightings of (then it starts over). */
const MAX_COUNTED_WORDS = 100_000;
