/**
 * The taxonomy codes one query word stands for (`ph` of physician,
 * pharmacist, physical therapist...: a hundred codes), each at the level a
 * provider matches it at as their primary taxonomy and as another.
 *
 * A word's code matches are a union of two posting lists per code, often
 * millions of ids in all, while the candidates left by the query's other
 * words are few. Looked up candidate by candidate in the index's code
 * columns (a provider holds one to a few codes), they cost a few steps per
 * candidate and no list is read; when the word's whole union is needed (it
 * drives the query), the lists are read as before.
 *
 * @module
 */
import { FIELD } from "../index/fields.ts";
import type { SearchIndex } from "../index/reader.ts";
import type { LeveledPart } from "../index/sorted.ts";

/** What a {@linkcode CodeMatch} reads of the search index. */
export type CodeColumns = Pick<
  SearchIndex,
  "codes" | "codeNumber" | "codeListLength" | "taxOffsets" | "taxCodes" | "taxPrimary" | "list"
>;

/** The level of a code the word does not match. */
const NONE = 255;

/** The taxonomy codes of one query word, with their levels. */
export class CodeMatch {
  readonly #index: CodeColumns;
  /** Level by code number as a primary taxonomy, and as another ({@linkcode NONE}: not matched). */
  readonly #primary: Uint8Array;
  readonly #other: Uint8Array;
  readonly #numbers: number[] = [];
  #size = 0;
  #best = NONE;

  constructor(index: CodeColumns) {
    this.#index = index;
    this.#primary = new Uint8Array(index.codes.length).fill(NONE);
    this.#other = new Uint8Array(index.codes.length).fill(NONE);
  }

  /**
   * Adds a code, matched at `primary` as a primary taxonomy and at `other`
   * as another (a code added again keeps its best levels).
   */
  add(code: string, primary: number, other: number): void {
    const n = this.#index.codeNumber(code);
    if (n === 0) return;
    if (this.#primary[n] === NONE) {
      this.#numbers.push(n);
      this.#size += this.#index.codeListLength(n, true) + this.#index.codeListLength(n, false);
    }
    this.#primary[n] = Math.min(this.#primary[n]!, primary);
    this.#other[n] = Math.min(this.#other[n]!, other);
    this.#best = Math.min(this.#best, primary, other);
  }

  /** The best level any provider can match the codes at (255 with no code). */
  get bestLevel(): number {
    return this.#best;
  }

  /** The length of the codes' posting lists in all (at least the providers they match). */
  get size(): number {
    return this.#size;
  }

  /** The codes' posting lists, each at its level, for a union; read from the index. */
  parts(): LeveledPart[] {
    const parts: LeveledPart[] = [];
    for (const n of this.#numbers) {
      const code = this.#index.codes[n]!;
      parts.push({ list: this.#index.list(FIELD.primaryCode, code), level: this.#primary[n]! });
      parts.push({ list: this.#index.list(FIELD.secondaryCode, code), level: this.#other[n]! });
    }
    return parts.filter((p) => p.list.length > 0);
  }

  /**
   * A function giving the best level at which provider `id` matches the
   * codes, or 255 when it holds none of them.
   */
  prober(): (id: number) => number {
    const offsets = this.#index.taxOffsets, codes = this.#index.taxCodes;
    const primaryOf = this.#index.taxPrimary;
    const primary = this.#primary, other = this.#other;
    return (id) => {
      let best = NONE;
      for (let k = offsets[id]!, end = offsets[id + 1]!; k < end; k++) {
        const code = codes[k]!;
        const level = primaryOf[k] ? primary[code]! : other[code]!;
        if (level < best) best = level;
      }
      return best;
    };
  }
}
