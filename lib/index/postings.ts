/**
 * Posting terms held in memory while an index is built: each added term is
 * one (term number, seq) pair appended to a flat array, so adding touches
 * one map and the end of one array, whatever the number of lists. The lists
 * are formed only when the buffer is drained, by a counting sort of the
 * pairs on the term number.
 *
 * @module
 */
import { TermTable } from "./term_table.ts";
import { GrowableList } from "./typed.ts";

/** One term's seqs: in the order they were added, possibly repeated. */
export type HeldList = [term: string, seqs: Uint32Array];

/**
 * Posting terms by field, added as (field, term, seq) in any order of seqs.
 *
 * @example
 * ```ts
 * const buffer = new PostingBuffer([1, 2]);
 * buffer.add(1, "SMITH", 7);
 * buffer.add(1, "JONES", 3);
 * buffer.add(1, "SMITH", 9);
 * const [[field, lists]] = [...buffer.drain()];
 * // field 1; lists: ["JONES", [3]], ["SMITH", [7, 9]]
 * ```
 */
export class PostingBuffer {
  /** Per field number, its terms and (term number, seq) pairs. */
  readonly #held: ({ table: TermTable; pairs: GrowableList } | undefined)[] = [];
  readonly #fields: number[];
  #size = 0;

  /** A buffer for terms of `fields` (small non-negative integers). */
  constructor(fields: readonly number[]) {
    this.#fields = [...fields];
    for (const field of fields) {
      this.#held[field] = { table: new TermTable(), pairs: new GrowableList(1024) };
    }
  }

  /** The number of (term, seq) pairs held. */
  get size(): number {
    return this.#size;
  }

  /** Adds `term` of `field` to `seq`; throws a RangeError for a field the buffer does not hold. */
  add(field: number, term: string, seq: number): void {
    const held = this.#held[field];
    if (held === undefined) throw new RangeError(`Field ${field} has no posting lists`);
    held.pairs.push(held.table.number(term));
    held.pairs.push(seq);
    this.#size++;
  }

  /**
   * Each field's terms in term order (UTF-16 code unit order), each with
   * its seqs in the order they were added; each field is emptied as it is
   * drained. A field with no terms is skipped.
   */
  *drain(): Generator<[field: number, lists: HeldList[]]> {
    for (const field of this.#fields) {
      const held = this.#held[field]!;
      const terms = held.table.terms;
      const pairs = held.pairs.view();
      held.table.clear();
      held.pairs = new GrowableList(1024);
      this.#size -= pairs.length / 2;
      if (terms.length === 0) continue;
      // A counting sort of the pairs by term number.
      const offsets = new Uint32Array(terms.length + 1);
      for (let i = 0; i < pairs.length; i += 2) offsets[pairs[i]! + 1]!++;
      for (let t = 1; t <= terms.length; t++) offsets[t]! += offsets[t - 1]!;
      const seqs = new Uint32Array(pairs.length / 2);
      const next = offsets.slice(0, terms.length);
      for (let i = 0; i < pairs.length; i += 2) seqs[next[pairs[i]!]!++] = pairs[i + 1]!;
      const order = terms.map((_, t) => t).sort((a, b) => {
        const x = terms[a]!, y = terms[b]!;
        return x < y ? -1 : x > y ? 1 : 0;
      });
      yield [field, order.map((t) => [terms[t]!, seqs.subarray(offsets[t]!, offsets[t + 1]!)])];
    }
  }
}
