/**
 * Writing the posting lists of the text and name fields: their spilled
 * segments (and what is still in memory) merged term by term, renumbered
 * from seqs to ranked ids, with the `jo*`-style prefix lists built as the
 * terms stream by. Used by {@linkcode IndexBuilder.write} in the building
 * thread and by the postings worker beside it.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { PREFIX_LENGTHS, PREFIX_MIN_TERMS, PREFIXED_FIELDS, TEXT_FIELDS } from "./fields.ts";
import { sortUniqueBelow, unionAll } from "./sorted.ts";
import { uint32Of } from "./typed.ts";

/** Where one spilled segment keeps each field's terms: rowids `first..last` of `index_segment`. */
export interface SegmentRange {
  field: number;
  first: number;
  last: number;
}

/** A list of numbers and the array that turns each into an id (0: dropped). */
export interface Numbered {
  numbers: Uint32Array;
  toId: Uint32Array;
}

/** Segments in one scratch database, whose numbers `toId` turns into ids. */
export interface SegmentSource {
  db: DatabaseSync;
  segments: readonly (readonly SegmentRange[])[];
  toId: Uint32Array;
}

/** Where the merged lists go: a posting row, and a text term's document count. */
export interface PostingSink {
  put(field: number, term: string, ids: Uint32Array): void;
  count(term: string, docs: number): void;
}

/**
 * Every term of `field` with its lists from each segment (and from
 * `memory`, terms in any order), in term order.
 */
export function* mergeTerms(
  field: number,
  sources: readonly SegmentSource[],
  memory: Iterable<[string, Numbered]> = [],
): Generator<[string, Numbered[]]> {
  type Head = { term: string; list: Numbered; next: () => Head | null };
  const fromIterator = (it: Iterator<[string, Numbered]>): Head | null => {
    const r = it.next();
    if (r.done) return null;
    return { term: r.value[0], list: r.value[1], next: () => fromIterator(it) };
  };
  const iterators: Iterator<[string, Numbered]>[] = [];
  for (const { db, segments, toId } of sources) {
    for (const segment of segments) {
      const part = segment.find((r) => r.field === field);
      if (!part || part.last < part.first) continue;
      // One statement per segment: the segments are read side by side.
      const range = db.prepare(
        "SELECT term, ids FROM index_segment WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
      );
      iterators.push(
        (function* () {
          for (const row of range.iterate(part.first, part.last)) {
            const { term, ids } = row as { term: string; ids: Uint8Array };
            yield [term, { numbers: uint32Of(ids), toId }] as [string, Numbered];
          }
        })(),
      );
    }
  }
  const held = [...memory].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  iterators.push(held[Symbol.iterator]());
  let heads = iterators.map(fromIterator).filter((h): h is Head => h !== null);
  while (heads.length > 0) {
    let term = heads[0]!.term;
    for (const h of heads) if (h.term < term) term = h.term;
    const lists: Numbered[] = [];
    const next: Head[] = [];
    for (const h of heads) {
      if (h.term !== term) {
        next.push(h);
        continue;
      }
      lists.push(h.list);
      const after = h.next();
      if (after) next.push(after);
    }
    heads = next;
    yield [term, lists];
  }
}

/**
 * Writes the lists of `field` (as {@linkcode mergeTerms} yields them) to
 * `sink`, renumbered to ids below `universe`, with its prefix lists (prefixed fields only); a text
 * field's terms are counted for the typo vocabulary.
 */
export function writeField(
  field: number,
  merged: Iterable<[string, Numbered[]]>,
  universe: number,
  sink: PostingSink,
): void {
  const text = TEXT_FIELDS.includes(field);
  const prefixes = PREFIXED_FIELDS.includes(field)
    ? PREFIX_LENGTHS.map((length) => new PrefixGroup(length, universe))
    : [];
  const emit = (group: PrefixGroup) => {
    const done = group.take();
    if (done) sink.put(field, `${done.prefix}*`, done.ids);
  };
  for (const [term, lists] of merged) {
    const ids = renumber(lists, universe);
    if (ids.length === 0) continue;
    sink.put(field, term, ids);
    if (text) sink.count(term, ids.length);
    for (const group of prefixes) {
      if (!group.accepts(term)) emit(group);
      group.add(term, ids);
    }
  }
  for (const group of prefixes) emit(group);
}

/** Lists renumbered to ids below `universe`: sorted, without repeats or dropped records. */
function renumber(lists: readonly Numbered[], universe: number): Uint32Array {
  let total = 0;
  for (const l of lists) total += l.numbers.length;
  const out = new Uint32Array(total);
  let at = 0;
  for (const { numbers, toId } of lists) {
    for (let i = 0; i < numbers.length; i++) {
      const id = toId[numbers[i]!] ?? 0;
      if (id !== 0) out[at++] = id;
    }
  }
  return sortUniqueBelow(out.subarray(0, at), universe).slice();
}

/**
 * The `jo*`-style list of one prefix length, built from the terms that
 * share it as they stream by in term order.
 */
class PrefixGroup {
  #prefix: string | null = null;
  #lists: Uint32Array[] = [];
  #terms = 0;
  /** Prefixes of `length`; every id is below `universe`. */
  constructor(readonly length: number, readonly universe: number) {}

  /** Whether `term` belongs to the group being built (or can start it). */
  accepts(term: string): boolean {
    return this.#prefix !== null && term.length >= this.length &&
      term.startsWith(this.#prefix);
  }

  add(term: string, ids: Uint32Array): void {
    if (term.length < this.length) return;
    if (this.#prefix === null) this.#prefix = term.slice(0, this.length);
    this.#lists.push(ids);
    // The term equal to the prefix is merged in but does not count towards the minimum.
    if (term.length > this.length) this.#terms++;
  }

  /** The merged list when enough terms share the prefix; resets the group. */
  take(): { prefix: string; ids: Uint32Array } | null {
    const out = this.#prefix !== null && this.#terms >= PREFIX_MIN_TERMS
      ? { prefix: this.#prefix, ids: unionAll(this.#lists, this.universe) }
      : null;
    this.#prefix = null;
    this.#lists = [];
    this.#terms = 0;
    return out;
  }
}
