/**
 * Rank keys and scores of free-text results. A result's rank key orders it
 * (lower first) and is one byte: the tier (0 every word and hint fits, 1 one
 * hint does not, 2 two or more do not, 3 a fallback match that left words
 * out), then the level of its words (0 the whole name … 14 a typo of another
 * name), then how its hints fit ({@linkcode SUB}: as names, as a title or
 * credential, as a place or number, or only because the provider holds no
 * title or credential to compare).
 *
 * @module
 */

/** Relevance score of each level (lower levels are better matches). */
export const LEVEL_SCORES: readonly number[] = [
  120,
  100,
  95,
  90,
  80,
  70,
  67,
  65,
  62,
  60,
  58,
  57,
  55,
  52,
  50,
];

/**
 * How hints fit, within a level: as whole names; as an initial, a title or
 * a credential; as a place or number (state, ZIP, NPI); or by default (the
 * provider holds no title or credential to compare) or not at all.
 */
export const SUB = { name: 0, credential: 1, place: 2, neutral: 3 } as const;

/** Values of the hint fit. */
const SUBS = 4;
/** Rank keys of one tier. */
const TIER_KEYS = LEVEL_SCORES.length * SUBS;

/** Tiers: all fits; one hint missed; two or more missed; a fallback match. */
export const TIER = { full: 0, oneMiss: 1, misses: 2, fallback: 3 } as const;

/** The number of rank keys (every key is below it). */
export const RANK_KEYS = TIER_KEYS * 4;

/** Each tier's scores are its level scores times this (rounded): the bands never overlap. */
const TIER_FACTORS = [1, 0.4, 0.15, 0.05];

/**
 * The rank key of a tier, level and hint fit.
 *
 * @example
 * ```ts
 * rankKey(0, 0, 0); // 0: the best
 * ```
 */
export function rankKey(tier: number, level: number, sub: number): number {
  return tier * TIER_KEYS + level * SUBS + sub;
}

/** Tables of {@linkcode levelKeys}, by tier and hint fit. */
const LEVEL_KEYS = new Map<number, Uint8Array>();

/**
 * The rank key of each level for one tier and hint fit, as a table indexed
 * by level: a result set's levels become keys by one read each.
 *
 * @example
 * ```ts
 * levelKeys(TIER.full, SUB.name)[2]; // rankKey(0, 2, 0)
 * ```
 */
export function levelKeys(tier: number, sub: number): Uint8Array {
  const at = tier * SUBS + sub;
  let keys = LEVEL_KEYS.get(at);
  if (!keys) {
    keys = Uint8Array.from(LEVEL_SCORES, (_, level) => rankKey(tier, level, sub));
    LEVEL_KEYS.set(at, keys);
  }
  return keys;
}

/** The level of a rank key. */
export function levelOfKey(key: number): number {
  return Math.floor((key % TIER_KEYS) / SUBS);
}

/** The hint fit ({@linkcode SUB}) of a rank key. */
export function subOfKey(key: number): number {
  return key % SUBS;
}

/** The tier of a rank key. */
export function tierOfKey(key: number): number {
  return Math.floor(key / TIER_KEYS);
}

const SCORES: readonly number[] = Array.from({ length: RANK_KEYS }, (_, key) => {
  const factor = TIER_FACTORS[tierOfKey(key)]!;
  return Math.round(LEVEL_SCORES[levelOfKey(key)]! * factor);
});

/**
 * The score a rank key reports: 120 … 50 for full matches, 48 … 20 when one
 * hint does not fit, 18 … 8 when more do not, 6 … 3 for fallback matches.
 *
 * @example
 * ```ts
 * scoreOfKey(rankKey(0, 0, 1)); // 120
 * scoreOfKey(rankKey(1, 0, 0)); // 48
 * ```
 */
export function scoreOfKey(key: number): number {
  return SCORES[key]!;
}
