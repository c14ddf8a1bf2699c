/**
 * Provider records in part files (see `parts.ts`): each part holds the
 * records of a range of arrival numbers (`seq`), in a `record` table of
 * its own, and is at most {@linkcode RECORD_PART_BYTES} (give or take a
 * batch) so that SQLite maps it whole. {@linkcode RecordParts} reads them
 * for serving; {@linkcode RecordPartsWriter} writes them during a build,
 * starting the next part when one is full.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { BatchInsert } from "../index/batch_insert.ts";
import { arrayRows } from "../sqlite_rows.ts";
import { openPart, partName, partPath, RECORD_PART_BYTES, type RecordPartName } from "./parts.ts";
import { bySize, padded, RECORD_BATCH } from "./record_batch_sizes.ts";
import { removeIfExists } from "./build_files.ts";

/** The table of a records part. */
export const RECORD_PART_SCHEMA =
  "CREATE TABLE IF NOT EXISTS record (seq INTEGER PRIMARY KEY, npi INTEGER NOT NULL, doc TEXT NOT NULL);";

/** The index of the part holding `seq` among parts by ascending first seq (0 for any seq below). */
function partIndex(firsts: readonly number[], seq: number): number {
  let lo = 0, hi = firsts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (firsts[mid]! <= seq) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** One records part opened for reading. */
interface ReadPart {
  db: DatabaseSync;
  one: StatementSync;
  many: (count: number) => StatementSync;
  /** Counts the records of a range of arrival numbers, reading each of their pages. */
  range: StatementSync;
}

/**
 * Records counted at a time by {@linkcode RecordParts.hold}: under 1 MB of
 * pages, some 0.4 ms of the thread's time (at 9.7 million records, 2.5 s a
 * connection in all).
 */
const HOLD_CHUNK = 2048;

/** The records parts of a served database, read-only. */
export class RecordParts {
  readonly #firsts: number[];
  readonly #parts: ReadPart[];
  #closed = false;

  private constructor(firsts: number[], parts: ReadPart[]) {
    this.#firsts = firsts;
    this.#parts = parts;
  }

  /**
   * Opens the records parts `names` of the database at `main` (each mapped
   * whole by SQLite: see `openPart`); throws when one is missing or
   * unreadable (the parts opened so far are closed).
   *
   * @example
   * ```ts
   * const records = RecordParts.open("data/providers.db", names.records);
   * records.doc(1);
   * ```
   */
  static open(main: string, names: readonly RecordPartName[]): RecordParts {
    const parts: ReadPart[] = [];
    try {
      for (const { file } of names) {
        const db = openPart(partPath(main, file));
        parts.push({
          db,
          one: db.prepare("SELECT doc FROM record WHERE seq = ?"),
          many: bySize((marks) =>
            arrayRows(db.prepare(`SELECT seq, doc FROM record WHERE seq IN (${marks})`))
          ),
          range: db.prepare("SELECT count(*) AS n FROM record WHERE seq >= ? AND seq < ?"),
        });
      }
    } catch (error) {
      for (const part of parts) part.db.close();
      throw error;
    }
    return new RecordParts(names.map((n) => n.first), parts);
  }

  /** The stored record of arrival number `seq`, or undefined. */
  doc(seq: number): string | undefined {
    const part = this.#parts[partIndex(this.#firsts, seq)]!;
    return (part.one.get(seq) as { doc: string } | undefined)?.doc;
  }

  /**
   * The stored records of the arrival numbers `seqs`, by seq (those not
   * found are left out): one statement per part and batch.
   */
  docs(seqs: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    const byPart = new Map<number, number[]>();
    for (const seq of seqs) {
      const k = partIndex(this.#firsts, seq);
      const list = byPart.get(k);
      if (list) list.push(seq);
      else byPart.set(k, [seq]);
    }
    for (const [k, list] of byPart) {
      const part = this.#parts[k]!;
      for (let at = 0; at < list.length; at += RECORD_BATCH) {
        const chunk = list.slice(at, at + RECORD_BATCH);
        const rows = part.many(chunk.length).all(...padded(chunk, -1)) as unknown as [
          number,
          string,
        ][];
        for (const [seq, doc] of rows) out.set(seq, doc);
      }
    }
    return out;
  }

  /**
   * Maps every page of the parts into this connection's mappings of them,
   * by reading each record's page through them ({@linkcode HOLD_CHUNK}
   * records at a time, `pause()` between: the thread goes on answering,
   * an answer waiting a fraction of a millisecond at most). A record's
   * first read then costs no page fault, and a host that pages out the
   * file pages no process maps leaves them. Stops when the parts are
   * closed. Resolves with the records read.
   *
   * @example
   * ```ts
   * await records.hold(() => new Promise((resolve) => setTimeout(resolve, 0)));
   * ```
   */
  async hold(pause: () => Promise<void>): Promise<number> {
    let records = 0;
    for (const [k, part] of this.#parts.entries()) {
      if (this.#closed) break;
      const { last } = part.db.prepare("SELECT max(seq) AS last FROM record").get() as {
        last: number | null;
      };
      for (let at = this.#firsts[k]!; last !== null && at <= last; at += HOLD_CHUNK) {
        if (this.#closed) break;
        records += (part.range.get(at, at + HOLD_CHUNK) as { n: number }).n;
        await pause();
      }
    }
    return records;
  }

  /** Closes every part (and stops a {@linkcode hold} under way). */
  close(): void {
    this.#closed = true;
    for (const part of this.#parts) {
      try {
        part.db.close();
      } catch { /* closed */ }
    }
  }
}

/** One records part being written. */
interface WritePart {
  name: string;
  first: number;
  db: DatabaseSync;
  batch: BatchInsert;
  insert: StatementSync;
  update: StatementSync;
  remove: StatementSync;
  get: StatementSync;
}

/** How a {@linkcode RecordPartsWriter} names and sizes its parts. */
export interface RecordPartsOptions {
  /** The database the build will replace: parts are named after it and written beside it. */
  target: string;
  /** The build's stamp (see `BuildFiles`). */
  stamp: string;
  /** Pragmas of a part being written (the build's). */
  pragmas: string;
  /** Bytes a part grows to before the next record starts a new one; default {@linkcode RECORD_PART_BYTES}. */
  partBytes?: number;
}

/** Bytes of records between two checks of the current part's size (at most). */
const SIZE_CHECK_BYTES = 8 * 1024 * 1024;

/**
 * Writes the records parts of a build. Records are added in ascending
 * arrival number; a record added once the current part has reached its
 * size starts the next one. Transactions span every part
 * ({@linkcode begin}, {@linkcode commit}).
 */
export class RecordPartsWriter {
  readonly #options: RecordPartsOptions;
  readonly #parts: WritePart[] = [];
  #inTransaction = false;
  /** Parts with an open transaction (a full part is committed when the next starts). */
  readonly #inFlight = new Set<WritePart>();
  #sinceCheck = 0;
  #lastSeq = 0;

  private constructor(options: RecordPartsOptions) {
    this.#options = options;
  }

  /**
   * Starts the records parts of a new build (one empty part).
   *
   * @example
   * ```ts
   * const records = RecordPartsWriter.create({ target: "data/providers.db", stamp: "1-a", pragmas: BUILD_PRAGMAS });
   * ```
   */
  static create(options: RecordPartsOptions): RecordPartsWriter {
    const writer = new RecordPartsWriter(options);
    writer.#start(1, true);
    return writer;
  }

  /**
   * The records parts of an update: copies of the parts `names` of the
   * database at `main`, under this build's names, to be changed in place.
   */
  static copyOf(
    main: string,
    names: readonly RecordPartName[],
    options: RecordPartsOptions,
  ): RecordPartsWriter {
    const writer = new RecordPartsWriter(options);
    try {
      for (const { file, first } of names) {
        const name = writer.#nameOf(writer.#parts.length);
        Deno.copyFileSync(partPath(main, file), partPath(options.target, name));
        writer.#start(first, false);
      }
      const last = writer.#parts.at(-1);
      writer.#lastSeq = last
        ? (last.db.prepare("SELECT coalesce(max(seq), 0) AS n FROM record").get() as { n: number })
          .n
        : 0;
    } catch (error) {
      writer.discard();
      throw error;
    }
    return writer;
  }

  #nameOf(k: number): string {
    return partName(this.#options.target, this.#options.stamp, `records-${k}`);
  }

  /** Opens part number `parts.length`, holding seqs from `first` (created when `fresh`). */
  #start(first: number, fresh: boolean): WritePart {
    const name = this.#nameOf(this.#parts.length);
    const path = partPath(this.#options.target, name);
    if (fresh) removeIfExists(path);
    const db = new DatabaseSync(path);
    db.exec(this.#options.pragmas);
    db.exec(RECORD_PART_SCHEMA);
    const part: WritePart = {
      name,
      first,
      db,
      batch: new BatchInsert(db, "INSERT INTO record (seq, npi, doc)", 3),
      insert: db.prepare("INSERT INTO record (seq, npi, doc) VALUES (?, ?, ?)"),
      update: db.prepare("UPDATE record SET doc = ? WHERE seq = ?"),
      remove: db.prepare("DELETE FROM record WHERE seq = ?"),
      get: db.prepare("SELECT doc FROM record WHERE seq = ?"),
    };
    this.#parts.push(part);
    if (this.#inTransaction) {
      db.exec("BEGIN");
      this.#inFlight.add(part);
    }
    return part;
  }

  #partOf(seq: number): WritePart {
    return this.#parts[partIndex(this.#parts.map((p) => p.first), seq)]!;
  }

  /**
   * The current (last) part for a record of `bytes` bytes, or a new one
   * when the current one is full and `seq` may start it.
   */
  #current(seq: number, bytes: number): WritePart {
    let part = this.#parts.at(-1)!;
    const limit = this.#options.partBytes ?? RECORD_PART_BYTES;
    this.#sinceCheck += bytes;
    if (this.#sinceCheck >= Math.min(SIZE_CHECK_BYTES, limit / 8)) {
      this.#sinceCheck = 0;
      part.batch.flush();
      const { pages, size } = part.db.prepare(
        "SELECT page_count AS pages, page_size AS size FROM pragma_page_count, pragma_page_size",
      ).get() as { pages: number; size: number };
      if (pages * size >= limit && seq > part.first) {
        if (this.#inFlight.delete(part)) part.db.exec("COMMIT");
        part = this.#start(seq, true);
      }
    }
    return part;
  }

  #checkOrder(seq: number): void {
    if (seq <= this.#lastSeq) {
      throw new RangeError(`Records are added in ascending seq: ${seq} after ${this.#lastSeq}`);
    }
    this.#lastSeq = seq;
  }

  /** Adds a record (buffered: written by the next {@linkcode flush} or read). */
  add(seq: number, npi: number, doc: string): void {
    this.#checkOrder(seq);
    this.#current(seq, doc.length).batch.add(seq, npi, doc);
  }

  /** Adds a record at once. */
  insert(seq: number, npi: number, doc: string): void {
    this.#checkOrder(seq);
    const part = this.#current(seq, doc.length);
    part.batch.flush();
    part.insert.run(seq, npi, doc);
  }

  /** Replaces the stored record of `seq`. */
  update(seq: number, doc: string): void {
    this.flush();
    this.#partOf(seq).update.run(doc, seq);
  }

  /** Removes the record of `seq`. */
  remove(seq: number): void {
    this.flush();
    this.#partOf(seq).remove.run(seq);
  }

  /** The stored record of `seq`, or undefined. */
  doc(seq: number): string | undefined {
    this.flush();
    return (this.#partOf(seq).get.get(seq) as { doc: string } | undefined)?.doc;
  }

  /** Every record in ascending seq. */
  *rows(): Generator<{ seq: number; npi: number; doc: string }> {
    this.flush();
    for (const part of this.#parts) {
      for (
        const row of part.db.prepare("SELECT seq, npi, doc FROM record ORDER BY seq").iterate()
      ) {
        yield row as { seq: number; npi: number; doc: string };
      }
    }
  }

  /** How many records the parts hold. */
  count(): number {
    this.flush();
    let n = 0;
    for (const part of this.#parts) {
      n += (part.db.prepare("SELECT count(*) AS n FROM record").get() as { n: number }).n;
    }
    return n;
  }

  /** The highest seq added (or copied). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Writes the buffered records. */
  flush(): void {
    for (const part of this.#parts) part.batch.flush();
  }

  /** Opens a transaction on every part. */
  begin(): void {
    if (this.#inTransaction) return;
    for (const part of this.#parts) {
      part.db.exec("BEGIN");
      this.#inFlight.add(part);
    }
    this.#inTransaction = true;
  }

  /** Writes the buffered records and commits every part. */
  commit(): void {
    this.flush();
    for (const part of this.#inFlight) part.db.exec("COMMIT");
    this.#inFlight.clear();
    this.#inTransaction = false;
  }

  /** The parts' names and first seqs, for the main file's `meta`. */
  names(): RecordPartName[] {
    return this.#parts.map(({ name, first }) => ({ file: name, first }));
  }

  /** Closes every part (committing what is pending). */
  close(): void {
    for (const part of this.#parts) {
      try {
        part.batch.flush();
        if (this.#inFlight.has(part)) part.db.exec("COMMIT");
        part.db.close();
      } catch { /* closed already */ }
    }
    this.#inFlight.clear();
    this.#inTransaction = false;
  }

  /**
   * Closes every part without committing (an abandoned build; the builder
   * removes its files with the rest of the build's).
   */
  discard(): void {
    for (const part of this.#parts) {
      try {
        part.db.close();
      } catch { /* closed already */ }
    }
    this.#inFlight.clear();
  }
}
