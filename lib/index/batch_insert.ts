/**
 * Inserts rows many at a time: one statement binds `rowsPerStatement` rows
 * (`VALUES (?, ?), (?, ?), ...`), which costs a fraction of a statement per
 * row when millions of rows are written.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

type Value = string | number | Uint8Array | null;

/** Buffers rows for one table and writes them in multi-row statements. */
export class BatchInsert {
  readonly #many: StatementSync;
  readonly #one: StatementSync;
  readonly #width: number;
  readonly #rows: number;
  readonly #values: Value[] = [];

  /**
   * @example
   * ```ts
   * const insert = new BatchInsert(db, "INSERT INTO record (seq, npi, doc)", 3);
   * insert.add(1, 1003000126, "[...]");
   * insert.flush();
   * ```
   */
  constructor(db: DatabaseSync, head: string, width: number, rowsPerStatement = 64) {
    const row = `(${Array.from({ length: width }, () => "?").join(", ")})`;
    this.#many = db.prepare(`${head} VALUES ${Array(rowsPerStatement).fill(row).join(", ")}`);
    this.#one = db.prepare(`${head} VALUES ${row}`);
    this.#width = width;
    this.#rows = rowsPerStatement;
  }

  /** Adds one row (its values in column order). */
  add(...values: Value[]): void {
    if (values.length !== this.#width) {
      throw new RangeError(`Expected ${this.#width} values, got ${values.length}`);
    }
    this.#values.push(...values);
    if (this.#values.length === this.#width * this.#rows) {
      this.#many.run(...this.#values);
      this.#values.length = 0;
    }
  }

  /** Writes the rows still buffered; call before committing or reading the table. */
  flush(): void {
    for (let i = 0; i < this.#values.length; i += this.#width) {
      this.#one.run(...this.#values.slice(i, i + this.#width));
    }
    this.#values.length = 0;
  }
}
