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
 * Rebuilds the vocabulary tables from the index's terms and how many
 * providers carry each: each term once, in term order (ids follow it).
 */
export function buildVocabulary(
  db: DatabaseSync,
  frequencies: Iterable<readonly [string, number]>,
): void {
  db.exec("DELETE FROM term; DELETE FROM typo_bucket;");
  const addTerms = db.prepare(
    "INSERT INTO term (id, term, docs) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)",
  );
  // (hash, term id) pairs, flat.
  const pairs = new GrowableList(1 << 16);
  let id = 0;
  let batch: [number, string, number][] = [];
  db.exec("BEGIN");
  for (const [term, docs] of frequencies) {
    id++;
    batch.push([id, term, docs]);
    if (batch.length === 1000) {
      addTerms.run(JSON.stringify(batch));
      batch = [];
    }
    termKeyHashes(term, (hash) => {
      pairs.push(hash);
      pairs.push(id);
    });
  }
  if (batch.length > 0) addTerms.run(JSON.stringify(batch));
  // Counting sort of the pairs into their buckets.
  const counts = new Uint32Array(TYPO_BUCKETS + 1);
  const data = pairs.data;
  for (let k = 0; k < pairs.length; k += 2) counts[(data[k]! & (TYPO_BUCKETS - 1)) + 1]! += 2;
  for (let b = 1; b <= TYPO_BUCKETS; b++) counts[b]! += counts[b - 1]!;
  const sorted = new Uint32Array(pairs.length);
  const at = counts.slice(0, TYPO_BUCKETS);
  for (let k = 0; k < pairs.length; k += 2) {
    const b = data[k]! & (TYPO_BUCKETS - 1);
    sorted[at[b]!++] = data[k]!;
    sorted[at[b]!++] = data[k + 1]!;
  }
  const addBucket = db.prepare("INSERT INTO typo_bucket (bucket, pairs) VALUES (?, ?)");
  for (let b = 0; b < TYPO_BUCKETS; b++) {
    if (counts[b + 1] === counts[b]) continue;
    const slice = sorted.subarray(counts[b]!, counts[b + 1]!);
    addBucket.run(b, bytesOf(slice));
  }
  db.exec("COMMIT");
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
      for (let k = 0; k < pairs.length; k += 2) {
        if (hashes.has(pairs[k]!)) ids.add(pairs[k + 1]!);
      }
    }
    if (ids.size === 0) return [];
    return this.#terms.all(JSON.stringify([...ids])) as { term: string; docs: number }[];
  }
}
