/**
 * The typo-tolerance vocabulary: every term of the index's text fields and
 * specialty words with its provider count, and delete-neighbourhood keys. A term of 5+ letters is
 * stored under each string one deletion away, one of 9+ letters also two
 * deletions away, so a query word finds the terms within its edit budget by
 * looking up its own deletions (the symmetric-delete method).
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

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

/**
 * Rebuilds the vocabulary tables from the index's terms and how many
 * providers carry each.
 */
export function buildVocabulary(db: DatabaseSync, frequencies: ReadonlyMap<string, number>): void {
  db.exec("DELETE FROM term; DELETE FROM typo_key;");
  // Keys are appended to a scratch table and sorted by SQLite on the way into the keyed table, so
  // memory stays flat however large the vocabulary (millions of terms at national scale).
  db.exec("CREATE TEMP TABLE typo_scratch (key TEXT NOT NULL, term TEXT NOT NULL)");
  const addTerm = db.prepare("INSERT INTO term (term, docs) VALUES (?, ?)");
  const addKey = db.prepare("INSERT INTO temp.typo_scratch (key, term) VALUES (?, ?)");
  db.exec("BEGIN");
  for (const [term, docs] of frequencies) {
    addTerm.run(term, docs);
    if (term.length >= MIN_TYPO_TERM - 1) addKey.run(term, term);
    if (term.length >= MIN_TYPO_TERM) {
      for (const key of deletions(term, term.length >= MIN_TWO_EDIT_TERM ? 2 : 1)) {
        addKey.run(key, term);
      }
    }
  }
  db.exec(
    "INSERT OR IGNORE INTO typo_key (key, term) SELECT key, term FROM temp.typo_scratch ORDER BY key, term",
  );
  db.exec("COMMIT");
  db.exec("DROP TABLE temp.typo_scratch");
}
