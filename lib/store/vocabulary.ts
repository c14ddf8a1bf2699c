/**
 * The typo-tolerance vocabulary: every term of the full-text index with its
 * document count, and delete-neighbourhood keys. A term of 5+ letters is
 * stored under each string one deletion away, one of 9+ letters also two
 * deletions away, so a query word finds the terms within its edit budget by
 * looking up its own deletions (the symmetric-delete method).
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { VOCABULARY_SCHEMA } from "./schema.ts";

/** Shortest term stored under its deletions. */
export const MIN_TYPO_TERM = 5;
/** Shortest term stored under its two-deletion strings. */
export const MIN_TWO_EDIT_TERM = 9;

/**
 * The strings `word` gives when `edits` letters (1 or 2) are deleted, itself
 * excluded.
 *
 * @example
 * ```ts
 * deletions("smith", 1); // ["mith", "sith", "smth", "smih", "smit"]
 * ```
 */
export function deletions(word: string, edits: 1 | 2): string[] {
  const one = new Set<string>();
  for (let i = 0; i < word.length; i++) one.add(word.slice(0, i) + word.slice(i + 1));
  if (edits === 1) return [...one];
  const two = new Set(one);
  for (const w of one) for (let i = 0; i < w.length; i++) two.add(w.slice(0, i) + w.slice(i + 1));
  return [...two];
}

/** Rebuilds the vocabulary tables from the full-text index. */
export function buildVocabulary(db: DatabaseSync): void {
  db.exec(VOCABULARY_SCHEMA);
  db.exec("DELETE FROM term; DELETE FROM typo_key;");
  db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, provider_fts, 'row')");
  const addTerm = db.prepare("INSERT INTO term (term, docs) VALUES (?, ?)");
  const addKey = db.prepare("INSERT OR IGNORE INTO typo_key (key, term) VALUES (?, ?)");
  db.exec("BEGIN");
  let n = 0;
  for (const row of db.prepare("SELECT term, doc FROM temp.vocab").iterate()) {
    const { term, doc } = row as { term: string; doc: number };
    addTerm.run(term, doc);
    if (term.length >= MIN_TYPO_TERM - 1) addKey.run(term, term);
    if (term.length >= MIN_TYPO_TERM) {
      for (const key of deletions(term, term.length >= MIN_TWO_EDIT_TERM ? 2 : 1)) {
        addKey.run(key, term);
      }
    }
    if (++n % 50_000 === 0) {
      db.exec("COMMIT");
      db.exec("BEGIN");
    }
  }
  db.exec("COMMIT");
  db.exec("DROP TABLE temp.vocab");
}
