/**
 * Statements that answer rows as arrays: no object (and no property
 * names) per row, half the cost of a range read of thousands of rows.
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";

/**
 * Makes `statement` answer each row as an array of its columns, in order
 * (node:sqlite has `setReturnArrays`; its type declarations not yet).
 *
 * @example
 * ```ts
 * const rows = arrayRows(db.prepare("SELECT id, doc FROM record")).all() as [number, string][];
 * ```
 */
export function arrayRows(statement: StatementSync): StatementSync {
  (statement as StatementSync & { setReturnArrays(on: boolean): void }).setReturnArrays(true);
  return statement;
}
