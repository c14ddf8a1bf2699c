/**
 * The matches of one query word, as the engine intersects them: the word's
 * parts (a posting list per field, term and code, each at a level), their
 * union built once, and a byte-bounded cache of the unions of common words.
 *
 * A union is kept in one of two forms, whichever is smaller: sparse (sorted
 * ids and their levels, 5 bytes an id) or dense (a byte per provider id:
 * the level plus 1, or 0). A word matching more than an eighth of all
 * providers (`health`, `care`, the prefix `ca`) is dense: building it costs
 * no sort, and looking a candidate up in it is one read.
 *
 * @module
 */
import {
  intersectLeveled,
  intersectParts,
  type Leveled,
  type LeveledPart,
  unionLeveledBelow,
} from "../index/sorted.ts";
import { ByteLru } from "./lru.ts";

/** A word's union: sparse, or dense over ids `0..universe-1`. */
export type WordSet =
  | { kind: "sparse"; set: Leveled; size: number; bytes: number }
  | { kind: "dense"; levels: Uint8Array; size: number; bytes: number };

/** A union is built dense when its parts hold at least `universe / DENSE_FRACTION` ids. */
const DENSE_FRACTION = 8;

/** A sparse union is cached from this many ids; a dense one always. */
export const WORD_SET_MIN_IDS = 50_000;

/**
 * Builds the union of a word's parts in the form that suits its size.
 *
 * @example
 * ```ts
 * const set = buildWordSet([{ list: Uint32Array.of(3, 4), level: 1 }], 10);
 * set.kind; // "sparse"
 * ```
 */
export function buildWordSet(parts: readonly LeveledPart[], universe: number): WordSet {
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
  const levels = new Uint8Array(universe);
  let size = 0;
  for (const { list, level } of [...parts].sort((a, b) => a.level - b.level)) {
    const mark = level + 1;
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      if (id >= universe) throw new RangeError(`Id ${id} is not below ${universe}`);
      if (levels[id] === 0) {
        levels[id] = mark;
        size++;
      }
    }
  }
  return { kind: "dense", levels, size, bytes: levels.byteLength };
}

/**
 * The ids of a word set in order, with their levels (a dense set is read
 * end to end).
 */
export function wordSetIds(word: WordSet): Leveled {
  if (word.kind === "sparse") return word.set;
  const ids = new Uint32Array(word.size);
  const levels = new Uint8Array(word.size);
  const map = word.levels;
  let n = 0;
  for (let id = 0; id < map.length; id++) {
    const m = map[id]!;
    if (m !== 0) {
      ids[n] = id;
      levels[n++] = m - 1;
    }
  }
  return { ids, levels };
}

/**
 * Candidates also in the word set, each at the worse of its level and the
 * word's.
 */
export function intersectWordSet(candidates: Leveled, word: WordSet): Leveled {
  if (word.kind === "sparse") return intersectLeveled(candidates, word.set);
  const map = word.levels;
  const { ids: inIds, levels: inLevels } = candidates;
  const ids = new Uint32Array(inIds.length);
  const levels = new Uint8Array(inIds.length);
  let n = 0;
  for (let i = 0; i < inIds.length; i++) {
    const id = inIds[i]!;
    const m = map[id]!;
    if (m !== 0) {
      ids[n] = id;
      const level = m - 1, own = inLevels[i]!;
      levels[n++] = own > level ? own : level;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/**
 * Whether looking `candidates` up in the parts (galloping cursors) costs
 * less than building the parts' union. Each candidate visits every part
 * until one holds it (a step a part), and a part's cursor moves about
 * `c·log(len/c)` steps in all (never more than its length), at some two
 * steps' cost each; the union costs some three steps an id.
 */
export function probeIsCheaper(candidates: number, parts: readonly LeveledPart[]): boolean {
  const c = Math.max(1, candidates);
  let probe = 0, union = 0;
  for (const { list } of parts) {
    const len = list.length;
    union += 3 * len;
    probe += c + 2 * Math.min(len, c * (1 + Math.log2(1 + len / c)));
  }
  return probe < union;
}

/** Looks candidates up in a word's parts, or in its union. */
export function intersectWord(
  candidates: Leveled,
  parts: readonly LeveledPart[],
  union: () => WordSet,
): Leveled {
  return probeIsCheaper(candidates.ids.length, parts)
    ? intersectParts(candidates, parts)
    : intersectWordSet(candidates, union());
}

/**
 * A byte-bounded LRU cache of the unions of common query words (`family`,
 * `health`, `john`...). Such words recur across searches that are
 * otherwise all different, and their union is what costs: kept, a later
 * search intersects it instead of building it again.
 */
export class WordSetCache extends ByteLru<WordSet> {}
