/**
 * The typo-tolerance vocabulary: every term of the index's text fields and
 * specialty words with its provider count, and its delete-neighbourhood
 * keys. A term of 5+ letters is stored under each string one deletion away,
 * one of 9+ letters also two deletions away, so a query word finds the terms
 * within its edit budget by looking up its own deletions (the
 * symmetric-delete method).
 *
 * Keys are not stored as strings: each is hashed to 32 bits, and the
 * (hash, term id) pairs are kept in {@linkcode TYPO_BUCKETS} buckets by the
 * hash's low bits, one blob per bucket. A lookup reads the buckets of its
 * keys and compares hashes; a rare collision only adds a candidate, which
 * the caller's edit-distance check drops. The hashes of a term's deletions
 * are computed without building the strings, so the vocabulary of millions
 * of terms builds in about a second.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { bytesOf, GrowableList, uint32Of } from "./typed.ts";
import { hashString } from "./term_table.ts";

/** Shortest term stored under its deletions. */
export const MIN_TYPO_TERM = 5;
/** Shortest term stored under its two-deletion strings. */
export const MIN_TWO_EDIT_TERM = 9;
/** Bits of the bucket number; there are `2 ** TYPO_BUCKET_BITS` buckets. */
export const TYPO_BUCKET_BITS = 16;
/** Number of buckets. */
export const TYPO_BUCKETS = 1 << TYPO_BUCKET_BITS;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * The 32-bit FNV-1a hash of `word` with the characters at `skipA` and
 * `skipB` left out (-1: none), as if the deleted string were hashed.
 */
function hashSkipping(word: string, skipA: number, skipB: number): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) {
    if (i === skipA || i === skipB) continue;
    h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  }
  return h >>> 0;
}

/**
 * The key hash of a string.
 *
 * @example
 * ```ts
 * keyHash("smith") === keyHash("smith"); // true
 * ```
 */
export function keyHash(key: string): number {
  return hashString(key);
}

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
 * The key hashes a term is stored under: itself (from 4 letters, so a
 * 5-letter word with one letter too many finds it) and its deletions
 * within its budget. Repeats are harmless.
 */
function termKeyHashes(term: string, out: (hash: number) => void): void {
  const n = term.length;
  if (n < MIN_TYPO_TERM - 1) return;
  out(keyHash(term));
  if (n < MIN_TYPO_TERM) return;
  for (let i = 0; i < n; i++) out(hashSkipping(term, i, -1));
  if (n < MIN_TWO_EDIT_TERM) return;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out(hashSkipping(term, i, j));
}

/**
 * A typo vocabulary ready to be written: each term once, in term order (its
 * id is its position plus one), with how many providers carry it; and the
 * (key hash, term id) pairs, grouped by bucket.
 */
export interface Vocabulary {
  terms: string[];
  docs: Uint32Array<ArrayBuffer>;
  /** Where bucket `b`'s pairs are in `pairs`: from `starts[b]` to `starts[b + 1]` (two numbers a pair). */
  starts: Uint32Array<ArrayBuffer>;
  pairs: Uint32Array<ArrayBuffer>;
}

/**
 * Computes the vocabulary of the index's terms and how many providers carry
 * each (each term once, in term order). Two passes over the terms' key
 * hashes, one to count each bucket's pairs and one to place them, so that
 * the pairs (tens of millions for the national file) take one array of
 * their exact size.
 */
export function computeVocabulary(frequencies: Iterable<readonly [string, number]>): Vocabulary {
  const terms: string[] = [];
  const docs = new GrowableList(1 << 16);
  const starts = new Uint32Array(TYPO_BUCKETS + 1);
  const mask = TYPO_BUCKETS - 1;
  for (const [term, count] of frequencies) {
    terms.push(term);
    docs.push(count);
    termKeyHashes(term, (hash) => (starts[(hash & mask) + 1]! += 2));
  }
  for (let b = 1; b <= TYPO_BUCKETS; b++) starts[b]! += starts[b - 1]!;
  const pairs = new Uint32Array(starts[TYPO_BUCKETS]!);
  const at = starts.slice(0, TYPO_BUCKETS);
  for (let i = 0; i < terms.length; i++) {
    const id = i + 1;
    termKeyHashes(terms[i]!, (hash) => {
      const b = hash & mask;
      pairs[at[b]!++] = hash;
      pairs[at[b]!++] = id;
    });
  }
  return { terms, docs: docs.view().slice(), starts, pairs };
}

/** Replaces the vocabulary tables with `vocabulary`, in one transaction. */
export function writeVocabulary(db: DatabaseSync, vocabulary: Vocabulary): void {
  const { terms, docs, starts, pairs } = vocabulary;
  db.exec("BEGIN; DELETE FROM term; DELETE FROM typo_bucket;");
  const addTerms = db.prepare(
    "INSERT INTO term (id, term, docs) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)",
  );
  for (let from = 0; from < terms.length; from += 1000) {
    const batch: [number, string, number][] = [];
    for (let i = from; i < Math.min(terms.length, from + 1000); i++) {
      batch.push([i + 1, terms[i]!, docs[i]!]);
    }
    addTerms.run(JSON.stringify(batch));
  }
  const addBucket = db.prepare("INSERT INTO typo_bucket (bucket, pairs) VALUES (?, ?)");
  for (let b = 0; b < TYPO_BUCKETS; b++) {
    if (starts[b + 1] === starts[b]) continue;
    addBucket.run(b, bytesOf(pairs.subarray(starts[b]!, starts[b + 1]!)));
  }
  db.exec("COMMIT");
}

/**
 * Rebuilds the vocabulary tables from the index's terms and how many
 * providers carry each: each term once, in term order (ids follow it).
 */
export function buildVocabulary(
  db: DatabaseSync,
  frequencies: Iterable<readonly [string, number]>,
): void {
  writeVocabulary(db, computeVocabulary(frequencies));
}

/**
 * Finds the terms stored under any of a set of keys.
 *
 * @example
 * ```ts
 * const lookup = new VocabularyLookup(db);
 * lookup.find(["smth", "smith"]); // [{ term: "smith", docs: 87338 }, ...]
 * ```
 */
export class VocabularyLookup {
  readonly #bucket: StatementSync;
  readonly #terms: StatementSync;

  constructor(db: DatabaseSync) {
    this.#bucket = db.prepare("SELECT pairs FROM typo_bucket WHERE bucket = ?");
    this.#terms = db.prepare(
      "SELECT term, docs FROM term WHERE id IN (SELECT value FROM json_each(?))",
    );
  }

  /** Terms stored under any of `keys` (plus rare hash collisions), with their provider counts. */
  find(keys: readonly string[]): { term: string; docs: number }[] {
    const wanted = new Map<number, Set<number>>();
    for (const key of keys) {
      const hash = keyHash(key);
      const bucket = hash & (TYPO_BUCKETS - 1);
      let hashes = wanted.get(bucket);
      if (!hashes) wanted.set(bucket, hashes = new Set());
      hashes.add(hash);
    }
    const ids = new Set<number>();
    for (const [bucket, hashes] of wanted) {
      const row = this.#bucket.get(bucket) as { pairs: Uint8Array } | undefined;
      if (!row) continue;
      const pairs = uint32Of(row.pairs);
      if (hashes.size === 1) {
        // Most buckets are asked for one key: a comparison a pair, not a set lookup.
        const [hash] = hashes;
        for (let k = 0; k < pairs.length; k += 2) if (pairs[k] === hash) ids.add(pairs[k + 1]!);
        continue;
      }
      for (let k = 0; k < pairs.length; k += 2) {
        if (hashes.has(pairs[k]!)) ids.add(pairs[k + 1]!);
      }
    }
    if (ids.size === 0) return [];
    return this.#terms.all(JSON.stringify([...ids])) as { term: string; docs: number }[];
  }
}
