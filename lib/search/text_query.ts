/**
 * Free text to terms: each word of `q` stands for itself, for a prefix when
 * it is the last word (search as you type), and for the indexed terms within
 * its typo budget (1 edit from 5 letters, 2 from 9), found through the
 * vocabulary's delete-neighbourhood keys. A word the vocabulary holds as
 * typed (or, last, as the start of a longer word) is first searched as typed; its neighbours join only when the query
 * finds fewer than {@linkcode TYPO_TOKENS_THRESHOLD} providers, and never
 * for a word {@linkcode TYPED_WORD_MIN_DOCS} providers or more hold. Words are folded to `[a-z0-9]`
 * before they reach any lookup, and only as bound parameters.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  deletions,
  MIN_TWO_EDIT_TERM,
  MIN_TYPO_TERM,
  type TypoBuckets,
  VocabularyLookup,
} from "../index/vocabulary.ts";
import { TermCounts } from "../index/term_counts.ts";

/** Most words of `q` taken into account. */
export const MAX_QUERY_WORDS = 12;
/** Most typo variants kept per word (the most frequent). */
export const MAX_TYPO_VARIANTS = 12;

/**
 * A word held by this many providers (in names, other names or cities) is
 * searched as typed, without typo variants.
 */
export const TYPED_WORD_MIN_DOCS = 50;

/** Words whose variants a {@linkcode TypoFinder} remembers (then it starts over). */
const MAX_REMEMBERED_WORDS = 50_000;

/** The terms one query word stands for. */
export interface WordTerms {
  word: string;
  /** Whether the word is also matched as a prefix (the last word). */
  prefix: boolean;
  /** Terms within the word's typo budget, most frequent first. */
  typos: string[];
  /** `HINT` bits (see `hint_words.ts`) of a hint word required as a word: its codes match too. */
  kinds?: number;
}

/**
 * How many edits a word of this length may have: 1 from 5 letters, 2 from 9.
 *
 * @example
 * ```ts
 * typoBudget("smith"); // 1
 * ```
 */
export function typoBudget(word: string): 0 | 1 | 2 {
  return word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0;
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent swaps).
 *
 * @example
 * ```ts
 * osaDistance("smtih", "smith"); // 1
 * ```
 */
export function osaDistance(a: string, b: string): number {
  const rows = a.length + 1, cols = b.length + 1;
  const d: number[] = new Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(
        d[(i - 1) * cols + j]! + 1,
        d[i * cols + j - 1]! + 1,
        d[(i - 1) * cols + j - 1]! + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1);
      }
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1]!;
}

/** Looks up typo variants of words in a database's vocabulary. */
export class TypoFinder {
  readonly #db: DatabaseSync;
  readonly #lookup: VocabularyLookup;
  #counts: TermCounts | null = null;
  /** Variants found so far, by word: rare words recur in searches that differ otherwise. */
  readonly #found = new Map<string, string[]>();

  /**
   * Finds variants in `db`'s vocabulary: its buckets read in place from the
   * index map when `buckets` are given, and its terms by id from the term
   * counts this finder reads anyway.
   */
  constructor(db: DatabaseSync, buckets: TypoBuckets | null = null) {
    this.#db = db;
    this.#lookup = new VocabularyLookup(db, {
      buckets,
      terms: () => {
        this.warm();
        return this.#counts!.hasIds ? this.#counts : null;
      },
    });
  }

  /**
   * Reads the vocabulary's term counts if not read yet (a server calls it
   * while idle, so no search pays for it); returns whether anything is left.
   */
  warm(): boolean {
    this.#counts ??= TermCounts.read(this.#db);
    return false;
  }

  /** How many providers hold `word` as typed (in names, other names, cities, specialty words). */
  docs(word: string): number {
    this.warm();
    return this.#counts!.docs(word);
  }

  /**
   * Terms within `word`'s typo budget, the word itself excluded, most
   * frequent first; none for a word {@linkcode TYPED_WORD_MIN_DOCS} or more
   * providers hold as typed (whose delete-neighbourhood is then not read).
   */
  variants(word: string): string[] {
    if (typoBudget(word) === 0 || word.length < MIN_TYPO_TERM) return [];
    if (this.docs(word) >= TYPED_WORD_MIN_DOCS) return [];
    const known = this.#found.get(word);
    if (known) return known;
    const found = this.#lookUp(word);
    if (this.#found.size >= MAX_REMEMBERED_WORDS) this.#found.clear();
    this.#found.set(word, found);
    return found;
  }

  /**
   * Whether the word as typed is in the vocabulary (a name, city or
   * specialty word some provider holds). Words too short for typos (under
   * {@linkcode MIN_TYPO_TERM} letters) are not looked up and count as unknown.
   */
  known(word: string): boolean {
    return typoBudget(word) > 0 && word.length >= MIN_TYPO_TERM && this.docs(word) > 0;
  }

  /**
   * Whether the vocabulary holds longer words starting with `word`: a last
   * word typed so far (`carte` of `carter`) is being completed, not misspelt.
   */
  extended(word: string): boolean {
    this.warm();
    return word.length >= MIN_TYPO_TERM && this.#counts!.extended(word);
  }

  #lookUp(word: string): string[] {
    const budget = typoBudget(word);
    if (budget === 0) return [];
    const keys = [word, ...deletions(word, word.length >= MIN_TWO_EDIT_TERM ? budget : 1)];
    return this.#lookup.find(keys)
      .filter((r) => r.term !== word && osaDistance(word, r.term) <= budget)
      .sort((a, b) => b.docs - a.docs || (a.term < b.term ? -1 : 1))
      .slice(0, MAX_TYPO_VARIANTS)
      .map((r) => r.term);
  }
}

/**
 * The term groups of a query's words; the last word is also a prefix.
 *
 * @example
 * ```ts
 * planWords(["john", "smtih"], finder); // [{ word: "john", ... }, { word: "smtih", prefix: true, typos: ["smith"] }]
 * ```
 */
export function planWords(
  words: readonly string[],
  finder: TypoFinder,
  stage: TypoStage = "all",
): WordTerms[] {
  const kept = words.slice(0, MAX_QUERY_WORDS);
  return kept.map((word, i) => {
    const prefix = i === kept.length - 1;
    const asTyped = stage === "unknown" &&
      (finder.known(word) || (prefix && finder.extended(word)));
    return { word, prefix, typos: asTyped ? [] : finder.variants(word) };
  });
}

/**
 * Which words get typo variants: `unknown` — only words the vocabulary
 * does not hold as typed, nor as the start of a longer word when last (the first try); `all` — every word within its
 * budget, but for those {@linkcode TYPED_WORD_MIN_DOCS} providers hold
 * (when the first try found too few to fill a page).
 */
export type TypoStage = "unknown" | "all";

/**
 * A query whose words, taken as typed, match fewer providers than this is
 * tried again with typo variants of its known words too (Typesense's
 * `typo_tokens_threshold`): a page's worth (the default `limit`).
 */
export const TYPO_TOKENS_THRESHOLD = 10;
