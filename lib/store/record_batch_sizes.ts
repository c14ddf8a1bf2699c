/**
 * Statements that read many rows by key at once (`WHERE key IN (…)`), in a
 * few sizes: a batch binds the smallest that holds it, padded with a key no
 * row has (SQLite sorts the whole `IN` list on every run: a page of ten
 * binding 250 values cost a third more).
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";

/** Keys a statement reads at once; shorter batches are padded. */
export const RECORD_BATCH = 250;

/** The statement sizes. */
const SIZES = [16, RECORD_BATCH] as const;

/** The smallest statement size holding `count` values. */
function sizeFor(count: number): number {
  return SIZES.find((size) => size >= count) ?? RECORD_BATCH;
}

/**
 * `values` padded with `pad` to the statement size that holds them.
 *
 * @example
 * ```ts
 * padded([3, 1], -1).length; // 16
 * ```
 */
export function padded(values: readonly number[], pad: number): number[] {
  const out = values.slice();
  const size = sizeFor(out.length);
  while (out.length < size) out.push(pad);
  return out;
}

/**
 * One prepared statement per size, made on first use by `make` from the
 * size's `?, ?, …` list.
 *
 * @example
 * ```ts
 * const byId = bySize((marks) => db.prepare(`SELECT doc FROM record WHERE seq IN (${marks})`));
 * byId(3).all(...padded([1, 2, 3], -1));
 * ```
 */
export function bySize(make: (marks: string) => StatementSync): (count: number) => StatementSync {
  const made = new Map<number, StatementSync>();
  return (count) => {
    const size = sizeFor(count);
    let statement = made.get(size);
    if (!statement) made.set(size, statement = make(Array(size).fill("?").join(",")));
    return statement;
  };
}
