/**
 * Writes the demo data as a set of NPPES dissemination files, named and
 * formatted like a real monthly release: `npidata_pfile_20050523-20260810.csv`,
 * `othername_pfile_...`, `pl_pfile_...`, `endpoint_pfile_...` (each with its
 * header row, every value quoted, CRLF line ends), plus the deactivation
 * report `deactivated_npi_report_20260810.csv` (`NPI,NPPES Deactivation Date`,
 * the NPIs that are deactivated and not reactivated).
 *
 * Rows are formatted as `formatNppesRow` formats them and streamed through
 * fixed-size buffers, so any number of records takes constant memory.
 *
 * @module
 */

import { LAYOUTS, NPI_COL, type NppesFileKind } from "../nppes/columns.ts";
import { formatNppesRow, NPPES_EOL } from "../nppes/csv_write.ts";
import { type DemoOptions, generateDemo } from "./generate.ts";

/** The kinds of file {@link writeDemoCsv} writes. */
export type DemoFileKind = NppesFileKind | "deactivated";

/** One written file. */
export interface DemoFile {
  kind: DemoFileKind;
  path: string;
  /** Data rows, header excluded. */
  rows: number;
}

/** The date range in the demo file names (first NPPES day to the release). */
export const DEMO_FILE_PERIOD = "20050523-20260810";
/** The release date in the deactivation report's name. */
export const DEMO_REPORT_DATE = "20260810";

/** The header of the deactivation report. */
export const DEACTIVATED_HEADER = "NPI,NPPES Deactivation Date";

const BUFFER_BYTES = 1 << 21;

/** `SEPARATORS[k]` is `k` field separators in a row. */
const SEPARATORS: readonly string[] = Array.from({ length: 400 }, (_, k) => '","'.repeat(k));

/**
 * Formats a row exactly as `formatNppesRow` does, faster for the common case
 * of a row of mostly empty fields without double quotes (runs of empty fields
 * become one precomputed string); a row with a double quote goes through
 * `formatNppesRow` itself, which applies the CMS quote rule.
 *
 * @example
 * ```ts
 * formatDemoRow(["1003000126", "", "A"]); // "\"1003000126\",\"\",\"A\"\r\n"
 * ```
 */
export function formatDemoRow(fields: readonly string[]): string {
  if (fields.length === 0 || fields.length >= SEPARATORS.length) return formatNppesRow(fields);
  let line = '"';
  let pending = 0;
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) pending++;
    const value = fields[i]!;
    if (value.length === 0) continue;
    if (value.includes('"')) return formatNppesRow(fields);
    line += SEPARATORS[pending]! + value;
    pending = 0;
  }
  return line + SEPARATORS[pending]! + '"' + NPPES_EOL;
}

/**
 * Appends text to a file through two fixed buffers: while one is being
 * written, the other fills, so formatting and disk writes overlap.
 */
class BufferedFileWriter {
  readonly #file: Deno.FsFile;
  readonly #buffers = [new Uint8Array(BUFFER_BYTES), new Uint8Array(BUFFER_BYTES)];
  readonly #encoder = new TextEncoder();
  #current = 0;
  #used = 0;
  #pending: Promise<void> | null = null;
  #error: unknown = null;

  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Buffers `text`; returns a promise only when it had to switch buffers. */
  write(text: string): Promise<void> | undefined {
    // A UTF-16 code unit encodes to at most 3 UTF-8 bytes.
    if (this.#used + text.length * 3 <= BUFFER_BYTES) {
      const target = this.#buffers[this.#current]!.subarray(this.#used);
      this.#used += this.#encoder.encodeInto(text, target).written;
      return undefined;
    }
    return this.#rotateThenWrite(text);
  }

  async #rotateThenWrite(text: string): Promise<void> {
    await this.#rotate();
    if (text.length * 3 > BUFFER_BYTES) {
      await this.#drain();
      await writeAll(this.#file, this.#encoder.encode(text));
      return;
    }
    this.#used = this.#encoder.encodeInto(text, this.#buffers[this.#current]!).written;
  }

  /** Starts writing the filled buffer and switches to the other one. */
  async #rotate(): Promise<void> {
    await this.#drain();
    if (this.#used > 0) {
      const full = this.#buffers[this.#current]!.subarray(0, this.#used);
      this.#pending = writeAll(this.#file, full).catch((error) => {
        this.#error = error;
      });
      this.#current ^= 1;
      this.#used = 0;
    }
  }

  /** Waits for the write in flight; rethrows its error. */
  async #drain(): Promise<void> {
    if (this.#pending) {
      await this.#pending;
      this.#pending = null;
    }
    if (this.#error !== null) throw this.#error;
  }

  /** Writes out everything buffered. */
  async flush(): Promise<void> {
    await this.#rotate();
    await this.#drain();
  }

  /** Flushes and closes the file (closes it even when the flush fails). */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.#file.close();
    }
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
}

/** Closes every writer; returns the first error, or `null`. */
async function closeAll(writers: Iterable<BufferedFileWriter>): Promise<unknown> {
  const closed = await Promise.allSettled([...writers].map((w) => w.close()));
  const failed = closed.find((r): r is PromiseRejectedResult => r.status === "rejected");
  return failed ? failed.reason : null;
}

function fileName(kind: DemoFileKind): string {
  return kind === "deactivated"
    ? `deactivated_npi_report_${DEMO_REPORT_DATE}.csv`
    : `${kind}_pfile_${DEMO_FILE_PERIOD}.csv`;
}

/**
 * Generates `options.records` demo NPIs and writes them into `dir` (created
 * if missing) as NPPES-format CSV files. Returns each file's path and its
 * number of data rows.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * const { files } = await writeDemoCsv(dir, { records: 1000 });
 * files.find((f) => f.kind === "npidata")!.rows; // 1000
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeDemoCsv(
  dir: string,
  options: DemoOptions,
): Promise<{ files: DemoFile[] }> {
  await Deno.mkdir(dir, { recursive: true });
  const base = dir.replace(/[\\/]+$/, "") || "/";
  const kinds: DemoFileKind[] = ["npidata", "othername", "pl", "endpoint", "deactivated"];
  const files = new Map<DemoFileKind, DemoFile>();
  const writers = new Map<DemoFileKind, BufferedFileWriter>();
  try {
    for (const kind of kinds) {
      const path = `${base}/${fileName(kind)}`;
      const file = await Deno.open(path, { write: true, create: true, truncate: true });
      const writer = new BufferedFileWriter(file);
      writers.set(kind, writer);
      files.set(kind, { kind, path, rows: 0 });
      const header = kind === "deactivated"
        ? DEACTIVATED_HEADER + NPPES_EOL
        : formatNppesRow(LAYOUTS[kind]);
      await writer.write(header);
    }
    const main = writers.get("npidata")!;
    const other = writers.get("othername")!;
    const pl = writers.get("pl")!;
    const endpoint = writers.get("endpoint")!;
    const deactivated = writers.get("deactivated")!;
    let mainRows = 0;
    let otherRows = 0;
    let plRows = 0;
    let endpointRows = 0;
    let deactivatedRows = 0;
    for (const bundle of generateDemo(options)) {
      const row = bundle.main;
      let pending = main.write(formatDemoRow(row));
      if (pending) await pending;
      mainRows++;
      if (row[NPI_COL.entityType] === "") {
        pending = deactivated.write(
          `${row[NPI_COL.npi]},${row[NPI_COL.deactivationDate]}${NPPES_EOL}`,
        );
        if (pending) await pending;
        deactivatedRows++;
      }
      for (const r of bundle.otherNames) {
        pending = other.write(formatDemoRow(r));
        if (pending) await pending;
        otherRows++;
      }
      for (const r of bundle.locations) {
        pending = pl.write(formatDemoRow(r));
        if (pending) await pending;
        plRows++;
      }
      for (const r of bundle.endpoints) {
        pending = endpoint.write(formatDemoRow(r));
        if (pending) await pending;
        endpointRows++;
      }
    }
    files.get("npidata")!.rows = mainRows;
    files.get("othername")!.rows = otherRows;
    files.get("pl")!.rows = plRows;
    files.get("endpoint")!.rows = endpointRows;
    files.get("deactivated")!.rows = deactivatedRows;
  } catch (error) {
    await closeAll(writers.values());
    throw error;
  }
  const failure = await closeAll(writers.values());
  if (failure !== null) throw failure;
  return { files: kinds.map((k) => files.get(k)!) };
}
