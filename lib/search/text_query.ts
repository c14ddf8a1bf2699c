/**
 * Free text to FTS5: each word of `q` becomes a group of terms (the word,
 * the last word as a prefix, words within the typo budget), and the groups
 * are combined into relevance tiers, each a stricter MATCH expression than
 * the next. User input reaches FTS5 only as quoted `[a-z0-9]` terms.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { deletions, MIN_TWO_EDIT_TERM, MIN_TYPO_TERM } from "../store/vocabulary.ts";

/** Most words of `q` taken into account. */
export const MAX_QUERY_WORDS = 12;
/** Most typo variants kept per word (the most frequent). */
export const MAX_TYPO_VARIANTS = 12;

/** The terms one query word stands for. */
export interface WordTerms {
  word: string;
  /** Whether the word is also matched as a prefix (the last word). */
  prefix: boolean;
  /** Terms within the word's typo budget, most frequent first. */
  typos: string[];
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
  #db: DatabaseSync;
  #statements = new Map<number, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #lookup(count: number): StatementSync {
    let statement = this.#statements.get(count);
    if (!statement) {
      const slots = Array.from({ length: count }, () => "?").join(",");
      statement = this.#db.prepare(
        `SELECT DISTINCT t.term AS term, t.docs AS docs FROM typo_key k JOIN term t ON t.term = k.term WHERE k.key IN (${slots})`,
      );
      this.#statements.set(count, statement);
    }
    return statement;
  }

  /** Terms within `word`'s typo budget, the word itself excluded, most frequent first. */
  variants(word: string): string[] {
    const budget = typoBudget(word);
    if (budget === 0 || word.length < MIN_TYPO_TERM) return [];
    const keys = [word, ...deletions(word, word.length >= MIN_TWO_EDIT_TERM ? budget : 1)];
    const rows = this.#lookup(keys.length).all(...keys) as { term: string; docs: number }[];
    return rows
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
export function planWords(words: readonly string[], finder: TypoFinder): WordTerms[] {
  const kept = words.slice(0, MAX_QUERY_WORDS);
  return kept.map((word, i) => ({
    word,
    prefix: i === kept.length - 1,
    typos: finder.variants(word),
  }));
}

type Column = "surname" | "given" | "other" | "specialty" | "specialty2" | "place";

/** One relevance tier: a full-text expression, or exact name keys. */
export interface Tier {
  /** Relevance score reported for results of this tier. */
  score: number;
  /** The FTS5 MATCH expression, for full-text tiers. */
  match?: string;
  /**
   * For the exact-name tier: alternatives, each a list of `[kind, key]`
   * name keys that must all hold (kind 1 last, 2 first, 3 organization).
   */
  names?: [number, string][][];
}

function quote(term: string): string {
  // Terms are folded to [a-z0-9]; quoting makes them plain strings to FTS5 in any case.
  return `"${term.replaceAll('"', '""')}"`;
}

function group(w: WordTerms, withPrefix: boolean, withTypos: boolean): string {
  const terms = [quote(w.word)];
  if (withPrefix && w.prefix) terms.push(`${quote(w.word)}*`);
  if (withTypos) { for (const t of w.typos) terms.push(quote(t)); }
  return terms.length === 1 ? terms[0]! : `(${terms.join(" OR ")})`;
}

function expression(
  plan: readonly WordTerms[],
  columns: Column[],
  withPrefix: boolean,
  withTypos: boolean,
): string {
  const filter = `{${columns.join(" ")}}`;
  return plan.map((w) => `${filter}: ${group(w, withPrefix, withTypos)}`).join(" AND ");
}

const NAME: Column[] = ["surname", "given"];
const NAME_OTHER: Column[] = ["surname", "given", "other"];
const ALL: Column[] = ["surname", "given", "other", "specialty", "specialty2", "place"];

/** The exact-name alternatives of a query's words (see {@linkcode tiers}). */
function exactNames(words: readonly string[]): [number, string][][] {
  const joined = words.join("");
  const out: [number, string][][] = [[[1, joined]], [[3, joined]]];
  if (words.length >= 2) {
    out.push([[2, words[0]!], [1, words.slice(1).join("")]]);
    out.push([[1, words[0]!], [2, words.slice(1).join("")]]);
  }
  return out;
}

/**
 * The relevance tiers of a query, best first. A document's tier is the
 * first it matches; every tier requires every word.
 *
 * - 120: the words are the whole name: the surname or organization name
 *   (O'BRIEN, "o brien", obrien alike), or first name plus surname;
 * - 100: every word exactly in the name (one word: in the surname or
 *   organization name; 95 in the given names);
 * - 90: … in the name or other names (DBA, former names);
 * - 80: … or in the primary specialty (names and synonyms) or the city;
 * - 70: … or in another specialty;
 * - 67, 65, 62, 60: the last word as a prefix, in the surname (one-word
 *   queries), the name, the names, anywhere;
 * - 58, 57, 55, 52, 50: words within the typo budget, likewise (58: a
 *   typo variant is the whole surname or organization name).
 */
export function tiers(plan: readonly WordTerms[]): Tier[] {
  if (plan.length === 0) return [];
  const out: Tier[] = [{ score: 120, names: exactNames(plan.map((w) => w.word)) }];
  if (plan.length === 1) {
    out.push({ score: 100, match: expression(plan, ["surname"], false, false) });
    out.push({ score: 95, match: expression(plan, NAME, false, false) });
  } else {
    out.push({ score: 100, match: expression(plan, NAME, false, false) });
  }
  out.push(
    { score: 90, match: expression(plan, NAME_OTHER, false, false) },
    {
      score: 80,
      match: expression(plan, ["surname", "given", "other", "specialty", "place"], false, false),
    },
    { score: 70, match: expression(plan, ALL, false, false) },
  );
  const one = plan.length === 1;
  if (plan.some((w) => w.prefix)) {
    if (one) out.push({ score: 67, match: expression(plan, ["surname"], true, false) });
    out.push(
      { score: 65, match: expression(plan, NAME, true, false) },
      { score: 62, match: expression(plan, NAME_OTHER, true, false) },
      { score: 60, match: expression(plan, ALL, true, false) },
    );
  }
  if (plan.some((w) => w.typos.length > 0)) {
    if (one) {
      const names = plan[0]!.typos.flatMap((t) => exactNames([t]));
      out.push({ score: 58, names }, {
        score: 57,
        match: expression(plan, ["surname"], true, true),
      });
    }
    out.push(
      { score: 55, match: expression(plan, NAME, true, true) },
      { score: 52, match: expression(plan, NAME_OTHER, true, true) },
      { score: 50, match: expression(plan, ALL, true, true) },
    );
  }
  return out;
}
