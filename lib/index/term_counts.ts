/**
 * How many providers hold each term of the typo vocabulary, in memory: the
 * `term` table read once into one string of terms and two typed arrays, so
 * that asking whether a query word is known costs a binary search, not a
 * read of its delete-neighbourhood buckets. Some 333,000 terms at national
 * scale take about 7 MB and 0.1 s to read.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** The vocabulary's terms (in the table's order, which is term order) with their provider counts. */
export class TermCounts {
  readonly #text: string;
  /** Where each term starts in `#text`; one more entry marks the end. */
  readonly #starts: Uint32Array;
  readonly #docs: Uint32Array;

  /**
   * Whether the `i`th term has id `i + 1` (the table's ids run from 1 with
   * no gap, as every build writes them): then {@linkcode byId} answers.
   */
  readonly #idsByPosition: boolean;

  private constructor(text: string, docs: string, idsByPosition: boolean) {
    this.#text = text;
    this.#idsByPosition = idsByPosition;
    const count = text.length === 0 ? 0 : countOf(text, 10) + 1;
    this.#starts = new Uint32Array(count + 1);
    this.#docs = new Uint32Array(count);
    let term = 0;
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) this.#starts[++term] = i + 1;
    }
    this.#starts[count] = text.length + 1;
    let n = 0, value = 0;
    for (let i = 0; i <= docs.length; i++) {
      const c = i < docs.length ? docs.charCodeAt(i) : 10;
      if (c === 10) {
        this.#docs[n++] = value;
        value = 0;
      } else value = value * 10 + (c - 48);
    }
  }

  /**
   * Reads the `term` table of a database.
   *
   * @example
   * ```ts
   * const counts = TermCounts.read(db);
   * counts.docs("smith"); // 87338
   * ```
   */
  static read(db: DatabaseSync): TermCounts {
    const row = db.prepare(
      "SELECT group_concat(term, char(10)) AS terms, group_concat(docs, char(10)) AS docs, " +
        "count(*) = coalesce(max(id), 0) AND coalesce(min(id), 1) = 1 AS byPosition " +
        "FROM (SELECT id, term, docs FROM term ORDER BY id)",
    ).get() as { terms: string | null; docs: string | null; byPosition: number };
    return new TermCounts(row.terms ?? "", row.docs ?? "", row.byPosition === 1);
  }

  /** Number of terms. */
  get size(): number {
    return this.#docs.length;
  }

  /**
   * The term of id `id` with how many providers hold it, read from memory;
   * undefined when no term has that id, or when the table's ids do not
   * follow its order (the caller reads the table then).
   *
   * @example
   * ```ts
   * TermCounts.read(db).byId(1); // { term: "aaron", docs: 18690 }
   * ```
   */
  byId(id: number): { term: string; docs: number } | undefined {
    const i = id - 1;
    if (!this.#idsByPosition || !Number.isInteger(i) || i < 0 || i >= this.#docs.length) {
      return undefined;
    }
    const start = this.#starts[i]!;
    return { term: this.#text.slice(start, this.#starts[i + 1]! - 1), docs: this.#docs[i]! };
  }

  /** Whether {@linkcode byId} answers for this table (its ids follow its order from 1). */
  get hasIds(): boolean {
    return this.#idsByPosition;
  }

  /** How many providers hold `term` (0 when the vocabulary lacks it). */
  docs(term: string): number {
    let lo = 0, hi = this.#docs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = this.#compare(term, mid);
      if (order === 0) return this.#docs[mid]!;
      if (order > 0) lo = mid + 1;
      else hi = mid;
    }
    return 0;
  }

  /**
   * Whether some term is longer than `prefix` and starts with it (`carte`:
   * `carter`), found by one binary search: the terms are in order.
   */
  extended(prefix: string): boolean {
    let lo = 0, hi = this.#docs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#compare(prefix, mid) > 0) lo = mid + 1;
      else hi = mid;
    }
    // `lo` is the first term at or after `prefix`: the prefix itself, if held, comes first.
    for (let i = lo; i < lo + 2 && i < this.#docs.length; i++) {
      const start = this.#starts[i]!, length = this.#starts[i + 1]! - 1 - start;
      if (length > prefix.length && this.#text.startsWith(prefix, start)) return true;
    }
    return false;
  }

  /** `term` against the `i`th term, by UTF-16 code units (the table's terms are `[a-z0-9]`). */
  #compare(term: string, i: number): number {
    const text = this.#text;
    const start = this.#starts[i]!, length = this.#starts[i + 1]! - 1 - start;
    const n = Math.min(term.length, length);
    for (let k = 0; k < n; k++) {
      const d = term.charCodeAt(k) - text.charCodeAt(start + k);
      if (d !== 0) return d;
    }
    return term.length - length;
  }
}

function countOf(text: string, code: number): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === code) n++;
  return n;
}
