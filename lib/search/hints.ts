/**
 * Hint words at search time (see `hint_words.ts`): which words of a query
 * must match and which only rank, the posting lists a hint is looked up
 * in, and the rank keys of the results once every hint is looked up.
 *
 * A hint is looked up for the candidates the other words found, never to
 * find them: a bitmap read or a galloping step per candidate and list
 * (the lists are the credential, state, ZIP and initial posting lists, and
 * the word's own name lists) — no record is read.
 *
 * @module
 */
import type { Leveled, LeveledPart } from "../index/sorted.ts";
import { FIELD, FLAG } from "../index/fields.ts";
import type { SearchIndex } from "../index/reader.ts";
import { HINT, hintKinds, stateOf } from "./hint_words.ts";
import { bestLevels, NO_LEVEL } from "./word_sets.ts";
import { DOCTOR_CREDENTIALS } from "../text/credentials.ts";
import { levelKeys, rankKey, SUB, TIER } from "./scores.ts";

/** A hint word of a query and its kinds ({@linkcode HINT} bits). */
export interface HintWord {
  word: string;
  kinds: number;
  /**
   * The query's last word, two letters being typed (`jill co` on the way
   * to `jill cooper`): it also fits as the start of a name — of the whole
   * name typed (`names`: Jill Cooper) as a name, of any other name as an
   * initial does.
   */
  typed?: boolean;
  /** Of a typed hint, the results whose whole legal name the query types (set by the engine). */
  names?: Uint32Array;
  /** Of a typed hint, the results with a name starting with it (set by the engine). */
  starts?: Uint32Array;
}

/** A query's words: those that must match, and the hints. */
export interface SplitWords {
  /** Words every result matches. */
  required: string[];
  /** Words that only rank. */
  hints: HintWord[];
  /** Whether the required words are hints themselves (the query holds nothing else). */
  hintsRequired: boolean;
}

/**
 * Splits a query's words into required words and hints. A query of hints
 * only (`md`, `21239`, `do`) requires them all: each then also matches
 * its codes.
 *
 * @example
 * ```ts
 * splitWords(["dr", "smith", "md"]); // required ["smith"], hints dr and md
 * ```
 */
export function splitWords(words: readonly string[]): SplitWords {
  const required: string[] = [], hints: HintWord[] = [];
  words.forEach((word, i) => {
    const kinds = hintKinds(word);
    if (!kinds) required.push(word);
    else if (i === words.length - 1 && /^[a-z]{2}$/.test(word)) {
      hints.push({ word, kinds, typed: true });
    } else hints.push({ word, kinds });
  });
  if (required.length === 0) return { required: [...words], hints: [], hintsRequired: true };
  return { required, hints, hintsRequired: false };
}

/** The level a hint's initial part is marked with (after its name parts, before its codes). */
const INITIAL_LEVEL = 14;
/** The level a hint's title and credential parts are marked with (above every word level). */
const CREDENTIAL_LEVEL = 15;
/** The level a hint's state, ZIP and NPI parts are marked with. */
const PLACE_LEVEL = 16;

/** Finds the ids of providers by NPI (a lookup in `provider_npi`). */
export type NpiIds = (npi: string) => Uint32Array;

/**
 * The parts of a hint word. As a hint: its own name lists (a surname or
 * first name `Do`, `Al`, `B`) at level 0, a first or middle initial at
 * level 1, its codes (credential, state, ZIP, NPI) marked `CODE_LEVEL`. As
 * a required word (`required`, whose name lists the word's own parts
 * hold): an initial at level 2, an NPI at 0, other codes at 4 (as a city).
 * Without `stateList` or `initialList`, a state's or an initial's list is
 * left out: {@linkcode applyHints} reads the state column and the initial
 * bitmaps instead.
 */
export function hintParts(
  hint: HintWord,
  index: SearchIndex,
  npiIds: NpiIds,
  required = false,
  stateList = true,
  initialList = true,
): LeveledPart[] {
  const { word, kinds } = hint;
  const parts: LeveledPart[] = [];
  const credential = required ? 4 : CREDENTIAL_LEVEL, place = required ? 4 : PLACE_LEVEL;
  if (!required && kinds & (HINT.title | HINT.credential | HINT.state | HINT.initial)) {
    parts.push({ list: index.list(FIELD.surname, word), level: 0 });
    parts.push({ list: index.list(FIELD.given, word), level: 0 });
  }
  if (!required && hint.names) parts.push({ list: hint.names, level: 0 });
  if (!required && hint.starts) parts.push({ list: hint.starts, level: INITIAL_LEVEL });
  if (initialList && kinds & HINT.initial) {
    parts.push({ list: index.list(FIELD.initial, word), level: required ? 2 : INITIAL_LEVEL });
  }
  if (kinds & (HINT.title | HINT.credential)) {
    parts.push({ list: index.list(FIELD.credential, word), level: credential });
  }
  if (word === "dr") {
    for (const c of DOCTOR_CREDENTIALS) {
      parts.push({ list: index.list(FIELD.credential, c), level: credential });
    }
  }
  const state = stateList && kinds & HINT.state ? stateOf(word) : null;
  if (state) parts.push({ list: index.list(FIELD.state, state), level: place });
  if (kinds & HINT.zip) parts.push({ list: index.list(FIELD.zip5, word), level: place });
  if (kinds & HINT.npi) parts.push({ list: npiIds(word), level: required ? 0 : place });
  return parts.filter((p) => p.list.length > 0);
}

/**
 * The flags that say whether a provider can be told by a hint (0: any
 * provider can): a title needs a prefix on record (`dr` a prefix or a
 * credential), a credential a credential; a provider with neither is not
 * counted against (neutral).
 */
function neutralMask(hint: HintWord): number {
  if (hint.word === "dr") return FLAG.titled | FLAG.credentialed;
  let mask = 0;
  if (hint.kinds & HINT.title) mask |= FLAG.titled;
  if (hint.kinds & HINT.credential) mask |= FLAG.credentialed;
  return mask;
}

/**
 * The results with rank keys for levels: each hint is looked up for every
 * result; found as a whole name it fits best, as an initial or a title or
 * credential less, as a place (state, ZIP, NPI) less again; not found
 * it counts a miss and ranks last in its tier — except a title or
 * credential for a provider who holds none (neutral), and a title (weak
 * evidence: it ranks lower, never a tier lower).
 * The tier is `fallback` when given, else from the misses. `set` is the
 * caller's own: its levels are replaced.
 */
export function applyHints(
  set: Leveled,
  hints: readonly HintWord[],
  index: SearchIndex,
  npiIds: NpiIds,
  fallback: boolean,
): Leveled {
  const { ids, levels } = set;
  const n = ids.length;
  if (hints.length === 0) {
    // One tier, no hint fit: each level's key read from a table (millions of results at times).
    const keys = levelKeys(fallback ? TIER.fallback : TIER.full, 0);
    for (let i = 0; i < n; i++) levels[i] = keys[levels[i]!]!;
    return set;
  }
  // What each hint's pass leaves for the next: none after a single hint's (results by the hundred
  // thousand at times, two arrays of them).
  const misses = hints.length > 1 ? new Uint8Array(n) : null;
  const subs = hints.length > 1 ? new Uint8Array(n) : null;
  const flags = index.flags;
  const column = index.state;
  for (let h = 0; h < hints.length; h++) {
    const hint = hints[h]!;
    // A state is read from the state column (a byte a provider), an initial from its bitmap, not
    // from their long lists.
    const parts = hintParts(hint, index, npiIds, false, false, false);
    const best = bestLevels(ids, parts, index.size + 1);
    const state = hint.kinds & HINT.state ? index.states.indexOf(stateOf(hint.word) ?? "") : -1;
    const initial = hint.kinds & HINT.initial ? index.initialBits(hint.word) : null;
    const tells = neutralMask(hint);
    // A title is weak evidence (people call many clinicians Dr.): not fitting, it only ranks lower.
    const weak = hint.kinds === HINT.title;
    // The last hint's pass writes the rank keys (one pass less over what may be millions).
    const last = h === hints.length - 1;
    for (let i = 0; i < n; i++) {
      let b = best[i]!;
      if (initial && b > INITIAL_LEVEL && (initial[ids[i]! >>> 5]! & (1 << (ids[i]! & 31))) !== 0) {
        b = INITIAL_LEVEL;
      }
      if (b === NO_LEVEL && state > 0 && column[ids[i]!] === state) b = PLACE_LEVEL;
      let miss = misses ? misses[i]! : 0, sub = subs ? subs[i]! : 0;
      if (b === NO_LEVEL) {
        // Neutral, or a miss (which also ranks last within its tier: the fallback has no misses).
        sub = SUB.neutral;
        if (!weak && (tells === 0 || (flags[ids[i]!]! & tells) !== 0)) miss++;
      } else if (b !== 0) {
        // An initial or a credential fits less than a whole name, a place less again.
        const fit = b === PLACE_LEVEL ? SUB.place : SUB.credential;
        if (sub < fit) sub = fit;
      }
      if (last) {
        const tier = fallback
          ? TIER.fallback
          : miss === 0
          ? TIER.full
          : miss === 1
          ? TIER.oneMiss
          : TIER.misses;
        levels[i] = rankKey(tier, levels[i]!, sub);
      } else {
        misses![i] = miss;
        subs![i] = sub;
      }
    }
  }
  return set;
}
