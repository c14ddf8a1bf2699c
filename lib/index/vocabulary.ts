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
 * The typo buckets as the index map holds them (`index_map.ts`), read in
 * place: bucket `b`'s pairs are pairs `starts[b]` to `starts[b + 1]` of
 * `pairs` (two numbers each: key hash, term id), in order of hash, so that
 * a key is found by a binary search in its bucket instead of a read of the
 * bucket's row and a scan of all its pairs.
 */
export interface TypoBuckets {
  starts: Uint32Array;
  pairs: Uint32Array;
}

/**
 * The typo buckets of `db` for the index map, written bucket by bucket:
 * `starts` (`TYPO_BUCKETS + 1` numbers, counted in pairs), and
 * `writePairs`, which hands `write` each bucket's pairs sorted by hash,
 * in bucket order.
 */
export function typoBucketsForMap(db: DatabaseSync): {
  starts: Uint32Array<ArrayBuffer>;
  writePairs: (write: (bytes: Uint8Array) => void) => void;
} {
  const starts = new Uint32Array(TYPO_BUCKETS + 1);
  const lengths = db.prepare("SELECT bucket, length(pairs) AS bytes FROM typo_bucket").all() as {
    bucket: number;
    bytes: number;
  }[];
  for (const { bucket, bytes } of lengths) {
    if (!Number.isInteger(bucket) || bucket < 0 || bucket >= TYPO_BUCKETS || bytes % 8 !== 0) {
      throw new Error(`Typo bucket ${bucket} is not one this version writes: import again`);
    }
    starts[bucket + 1] = bytes / 8;
  }
  for (let b = 1; b <= TYPO_BUCKETS; b++) starts[b]! += starts[b - 1]!;
  const writePairs = (write: (bytes: Uint8Array) => void) => {
    const rows = db.prepare("SELECT bucket, pairs FROM typo_bucket ORDER BY bucket")
      .iterate() as Iterable<{ bucket: number; pairs: Uint8Array }>;
    for (const { bucket, pairs } of rows) {
      if (pairs.length !== (starts[bucket + 1]! - starts[bucket]!) * 8) {
        throw new Error("The typo buckets changed while the index map was written");
      }
      write(bytesOf(pairsByHash(uint32Of(pairs))));
    }
  };
  return { starts, writePairs };
}

/** A bucket's (hash, id) pairs in order of hash, then id, as a new array. */
function pairsByHash(pairs: Uint32Array): Uint32Array {
  const n = pairs.length >>> 1;
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  order.sort((a, b) => pairs[2 * a]! - pairs[2 * b]! || pairs[2 * a + 1]! - pairs[2 * b + 1]!);
  const out = new Uint32Array(pairs.length);
  for (let k = 0; k < n; k++) {
    out[2 * k] = pairs[2 * order[k]!]!;
    out[2 * k + 1] = pairs[2 * order[k]! + 1]!;
  }
  return out;
}

/** Where the vocabulary's lookups read from besides the database. */
export interface VocabularySources {
  /** The buckets in the index map, when it has them (else each is read from its row). */
  buckets?: TypoBuckets | null;
  /** Terms by id in memory (else read from the `term` table). */
  terms?: () => TermById | null;
}

/** Finds a term and its provider count by id, or undefined when it cannot say. */
export interface TermById {
  byId(id: number): { term: string; docs: number } | undefined;
}

/**
 * Finds the terms stored under any of a set of keys: in the index map's
 * buckets when given, else in the database's; the terms by id in memory
 * when given, else in the `term` table.
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
  readonly #sources: VocabularySources;

  constructor(db: DatabaseSync, sources: VocabularySources = {}) {
    this.#bucket = db.prepare("SELECT pairs FROM typo_bucket WHERE bucket = ?");
    this.#terms = db.prepare(
      "SELECT term, docs FROM term WHERE id IN (SELECT value FROM json_each(?))",
    );
    this.#sources = sources;
  }

  /** Terms stored under any of `keys` (plus rare hash collisions), with their provider counts. */
  find(keys: readonly string[]): { term: string; docs: number }[] {
    const buckets = this.#sources.buckets;
    const ids = buckets ? idsInMap(keys, buckets) : this.#idsInRows(keys);
    if (ids.size === 0) return [];
    const terms = this.#sources.terms?.();
    if (terms) {
      const out: { term: string; docs: number }[] = [];
      for (const id of ids) {
        const found = terms.byId(id);
        if (!found) return this.#terms.all(JSON.stringify([...ids])) as typeof out;
        out.push(found);
      }
      return out;
    }
    return this.#terms.all(JSON.stringify([...ids])) as { term: string; docs: number }[];
  }

  /** The term ids under `keys`, from the buckets' rows. */
  #idsInRows(keys: readonly string[]): Set<number> {
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
    return ids;
  }
}

/** The term ids under `keys`, each found by a binary search in its bucket of the map. */
function idsInMap(keys: readonly string[], { starts, pairs }: TypoBuckets): Set<number> {
  const ids = new Set<number>();
  for (const key of keys) {
    const hash = keyHash(key);
    const bucket = hash & (TYPO_BUCKETS - 1);
    let lo = starts[bucket]!, hi = starts[bucket + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pairs[2 * mid]! < hash) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < starts[bucket + 1]! && pairs[2 * k] === hash; k++) {
      ids.add(pairs[2 * k + 1]!);
    }
  }
  return ids;
}
