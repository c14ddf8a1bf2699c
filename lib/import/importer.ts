/**
 * Imports the NPPES files into a new database and swaps it in atomically.
 * Streaming and batched: memory stays flat whatever the file size.
 *
 * @module
 */
import { readCsvBatches } from "../nppes/csv.ts";
import { byteRange } from "./byte_range.ts";
import { nppesDate, RowError, type RowFields } from "../nppes/record.ts";
import { excelSerialToIsoDate, readXlsxRows } from "../nppes/xlsx.ts";
import { isValidNpi } from "../npi.ts";
import { type BuildStats, DatabaseBuilder, type FileRecord } from "../store/builder.ts";
import {
  BUILTIN_TAXONOMY_SOURCE,
  builtinTaxonomy,
  parseNuccCsv,
  type TaxonomyEntry,
} from "../taxonomy/nucc.ts";
import type { Progress } from "./progress.ts";
import { basename } from "../paths.ts";
import { releaseMemory } from "../memory.ts";
import { GrowableList } from "../index/typed.ts";
import type { NpidataMessage, NpidataRequest } from "./npidata_worker.ts";
import { unpackRecord } from "./packed_records.ts";
import type { SkippedRow } from "./batches.ts";
import type { ReferenceMessage, ReferenceRequest } from "./reference_worker.ts";
import { REFERENCE_TABLES, type ReferenceKind } from "./reference_rows.ts";
import type { IndexPart } from "../index/builder.ts";
import type { RankKeyCounts } from "../store/rank_keys.ts";
import { describeLeftovers, type Leftover, removeLeftovers } from "../store/build_leftovers.ts";
import type { ReleaseManifest } from "../release/manifest.ts";
import { writeReleaseManifest } from "../release/write.ts";

/** What to import. */
export interface ImportOptions {
  /** The database to build or update. */
  db: string;
  /** The main file (npidata_pfile). Required unless updating. */
  npi?: string;
  othername?: string;
  pl?: string;
  endpoint?: string;
  /** The official NUCC CSV; the built-in code set when absent. */
  taxonomy?: string;
  /** Apply the files as upserts to the existing database (weekly files). */
  update?: boolean;
  /** The monthly deactivation report (.xlsx or CSV of NPI and date). */
  deactivated?: string;
  progress: Progress;
  /** Stop after this many bad rows are printed; the rest are only counted. */
  maxReported?: number;
  /**
   * The main file is read by two workers, one per half, from this size on.
   * Default 32 MB.
   */
  splitMinBytes?: number;
  /** Index ids held in memory before a segment is written (see {@linkcode BuildOptions}). */
  segmentEntries?: number;
  /** Bytes a records part grows to before the next starts (see {@linkcode BuildOptions}). */
  recordPartBytes?: number;
  /**
   * Writes the files derived from the built database beside it, given its
   * path, before it replaces the served one (the search layer's kept
   * unions: `deno task import` passes them; an import without it has none).
   */
  derive?: (db: string) => void;
}

/** The outcome of an import. */
export interface ImportSummary {
  files: FileRecord[];
  stats: BuildStats;
  seconds: number;
  /** The release manifest written beside the database (`<db>.release.json`). */
  release: ReleaseManifest;
  /** Files of earlier, killed imports that were removed first. */
  leftovers: Leftover[];
}

/** A problem that stops the import; its message says what to do. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportError";
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    const stat = await Deno.stat(path);
    if (!stat.isFile) throw new ImportError(`'${path}' is not a file`);
    return stat.size;
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(
      `Cannot read '${path}': ${error instanceof Error ? error.message : error}`,
    );
  }
}

/** The error for a header line that is malformed or not the one of `kind`; null when it is right. */
function headerError(
  path: string,
  kind: string,
  malformed: string | null,
  problems: readonly string[],
): ImportError | null {
  if (malformed) {
    return new ImportError(`Cannot import '${path}': its header line is malformed: ${malformed}`);
  }
  if (problems.length === 0) return null;
  return new ImportError(
    `Cannot import '${path}' as a ${kind} file: wrong header: ${problems.join("; ")}. ` +
      `Check that the file is the right one for --${kind === "npidata" ? "npi" : kind}`,
  );
}

/** The error for a file without even a header line. */
function emptyFileError(path: string): ImportError {
  return new ImportError(`Cannot import '${path}': the file is empty (no header line)`);
}

/** The closing line of a file's progress. */
function rowsSummary(rows: number, skipped: number): string {
  return `${rows.toLocaleString("en-US")} rows${
    skipped ? `, ${skipped.toLocaleString("en-US")} malformed rows skipped` : ""
  }`;
}

type RowSink = (fields: RowFields) => void;

/** Streams a deactivation report in CSV through `sink`, checking its header; returns the file's record. */
async function importDeactivationCsv(
  path: string,
  sink: RowSink,
  options: { progress: Progress; maxReported: number },
): Promise<FileRecord> {
  const kind = "deactivated";
  const size = await fileSize(path);
  const { progress } = options;
  progress.start(kind, size);
  using file = await Deno.open(path);
  let bytes = 0, rows = 0, skipped = 0, header = true;
  const skip = (line: number, reason: string) => {
    skipped++;
    if (skipped <= options.maxReported) {
      progress.note(`${basename(path)}:${line}: skipped: ${reason}`);
    }
  };
  const source = byteRange(file, 0, size);
  for await (const batch of readCsvBatches(source, { onBytes: (n) => (bytes = n) })) {
    for (let i = 0; i < batch.size; i++) {
      const error = batch.error(i);
      if (header) {
        header = false;
        const problems = error === null ? deactivationHeader(batch.fields(i)) : [];
        const fatal = headerError(path, kind, error, problems);
        if (fatal) throw fatal;
        continue;
      }
      if (error !== null) {
        skip(batch.line(i), error);
        continue;
      }
      try {
        sink(batch.record(i));
        rows++;
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        skip(batch.line(i), error.message);
      }
    }
    progress.update(bytes, rows);
  }
  if (header) throw emptyFileError(path);
  progress.finish(rowsSummary(rows, skipped));
  return { kind, name: basename(path), rows, skipped };
}

/** Index ids each reading worker holds in memory before writing a segment (by default). */
const WORKER_SEGMENT_ENTRIES = 16_000_000;

/** The main file is read by two workers when it is at least this large (by default). */
const SPLIT_MIN_BYTES = 32 * 1024 * 1024;

/**
 * Where a second worker can start reading a large main file: the first
 * record that starts after its middle (a line break, then `"` and a
 * 10-digit NPI and `","`); null when the file is small or none is found.
 */
async function splitPoint(path: string, size: number, minBytes: number): Promise<number | null> {
  if (size < minBytes) return null;
  using file = await Deno.open(path);
  const from = Math.floor(size / 2);
  await file.seek(from, Deno.SeekMode.Start);
  const probe = new Uint8Array(4 << 20);
  let n = 0;
  while (n < probe.length) {
    const read = await file.read(probe.subarray(n));
    if (read === null || read === 0) break;
    n += read;
  }
  const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
  for (let i = 0; i + 15 < n; i++) {
    if (probe[i] !== 0x0a || probe[i + 1] !== 0x22) continue;
    let digits = 0;
    while (digits < 10 && isDigit(probe[i + 2 + digits])) digits++;
    const j = i + 12;
    if (digits === 10 && probe[j] === 0x22 && probe[j + 1] === 0x2c && probe[j + 2] === 0x22) {
      return from + i + 1;
    }
  }
  return null;
}

/** One worker reading part of the main file. */
interface Part {
  worker: Worker;
  bytes: number;
  done: boolean;
  /** Physical line after the part (known once done). */
  nextLine: number;
  /** The build's seq of each of the worker's records (index 0 unused). */
  seqs: GrowableList | null;
  /** The index the worker built, until attached. */
  index: IndexPart | null;
  /** What the worker wrote of its records' rank keys. */
  rankCounts: RankKeyCounts | null;
}

/**
 * Reads the main file in workers ({@linkcode NpidataMessage}): two, each on
 * one half, when the file is large. Records are written in the order they
 * arrive; the builder is told which half a record came from, so that a
 * later row for the same NPI still replaces an earlier one. Header problems
 * and skipped rows (with their line numbers) are reported as for the other
 * files.
 */
async function importNpidata(
  path: string,
  builder: DatabaseBuilder,
  options: {
    progress: Progress;
    maxReported: number;
    splitMinBytes: number;
    segmentEntries?: number;
    deactivations?: Map<number, string | null>;
  },
): Promise<FileRecord> {
  const size = await fileSize(path);
  const { progress } = options;
  progress.start("npidata", size);
  const split = await splitPoint(path, size, options.splitMinBytes);
  const ranges = split === null ? [{ start: 0, end: size }] : [
    { start: 0, end: split },
    { start: split, end: size },
  ];
  const parts: Part[] = ranges.map(() => {
    const seqs = new GrowableList(1 << 16);
    seqs.push(0); // The workers' seqs start at 1.
    const worker = new Worker(new URL("./npidata_worker.ts", import.meta.url).href, {
      type: "module",
    });
    return { worker, bytes: 0, done: false, nextLine: 1, seqs, index: null, rankCounts: null };
  });
  let rows = 0, skipped = 0, sawHeader = false;
  // Rows skipped in the second half wait for the first half's line count.
  const laterSkips: SkippedRow[] = [];
  const report = (line: number, reason: string) => {
    if (++skipped <= options.maxReported) {
      progress.note(`${basename(path)}:${line}: skipped: ${reason}`);
    }
  };
  try {
    await new Promise<void>((resolve, reject) => {
      parts.forEach((part, k) => {
        part.worker.onerror = (event) => {
          event.preventDefault();
          reject(new ImportError(`Cannot import '${path}': ${event.message}`));
        };
        part.worker.onmessage = (event: MessageEvent<NpidataMessage>) => {
          try {
            handle(part, k, event.data);
          } catch (error) {
            reject(error);
          }
          if (parts.every((p) => p.done)) resolve();
        };
        part.worker.postMessage(
          {
            type: "read",
            path,
            ...ranges[k]!,
            scratchPath: builder.partScratchPath(k),
            rankPath: builder.partRankPath(k),
            segmentEntries: options.segmentEntries,
            deactivations: options.deactivations,
          } satisfies NpidataRequest,
        );
      });
    });
  } finally {
    for (const part of parts) part.worker.terminate();
  }
  // Once every record is in, so that the index is sized once.
  parts.forEach((part, k) => {
    const rank = { path: builder.partRankPath(k), counts: part.rankCounts! };
    if (part.index) builder.attachPart({ index: part.index, rank }, part.seqs!.view().slice());
    part.index = null;
    part.seqs = null;
  });
  // The parts' columns, copied into the build's, are hundreds of megabytes to let go.
  releaseMemory();
  if (!sawHeader) throw emptyFileError(path);
  progress.finish(rowsSummary(rows, skipped));
  return { kind: "npidata", name: basename(path), rows, skipped };

  function handle(part: Part, k: number, message: NpidataMessage): void {
    switch (message.type) {
      case "header": {
        const fatal = headerError(path, "npidata", message.malformed, message.problems);
        if (fatal) throw fatal;
        sawHeader = true;
        return;
      }
      case "batch": {
        // Each worker indexes its own records; only the records come here.
        const { records } = message;
        for (let i = 0; i < records.size; i++) {
          const seq = builder.addRecord(unpackRecord(records, i), k);
          if (seq !== null) part.seqs!.push(seq);
        }
        rows += records.size;
        const offset = k === 0 ? 0 : parts[0]!.done ? parts[0]!.nextLine - 1 : null;
        for (const row of message.skipped) {
          if (offset !== null) report(row.line + offset, row.reason);
          else if (laterSkips.length < options.maxReported) laterSkips.push(row);
          else skipped++;
        }
        part.worker.postMessage({ type: "ack" });
        part.bytes = message.bytes;
        progress.update(parts.reduce((n, p) => n + p.bytes, 0), rows);
        return;
      }
      case "done":
        part.done = true;
        part.nextLine = message.nextLine;
        part.index = message.index;
        part.rankCounts = message.rankCounts;
        if (k === 0) {
          sawHeader ||= message.sawHeader;
          for (const row of laterSkips.splice(0)) report(row.line + part.nextLine - 1, row.reason);
        }
        return;
      case "error":
        throw new ImportError(`Cannot import '${path}': ${message.message}`);
    }
  }
}

/**
 * Reads the reference files in a worker ({@linkcode ReferenceMessage}), one
 * after another, while this thread writes their rows and joins them to the
 * records. Header problems and skipped rows are reported as for the other
 * files; returns the files' records in the order given.
 */
async function importReferences(
  files: { kind: ReferenceKind; path: string }[],
  builder: DatabaseBuilder,
  options: { progress: Progress; maxReported: number },
): Promise<FileRecord[]> {
  if (files.length === 0) return [];
  const sizes = new Map<ReferenceKind, number>();
  for (const { kind, path } of files) sizes.set(kind, await fileSize(path));
  const paths = new Map(files.map(({ kind, path }) => [kind, path]));
  const { progress } = options;
  const done: FileRecord[] = [];
  let rows = 0, skipped = 0;
  const worker = new Worker(new URL("./reference_worker.ts", import.meta.url).href, {
    type: "module",
  });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new ImportError(`Cannot import the reference files: ${event.message}`));
      };
      worker.onmessage = (event: MessageEvent<ReferenceMessage>) => {
        try {
          if (handle(event.data)) resolve();
        } catch (error) {
          reject(error);
        }
      };
      worker.postMessage({ type: "read", files } satisfies ReferenceRequest);
    });
  } finally {
    worker.terminate();
  }
  return done;

  /** Handles one message; true once the last file is done. */
  function handle(message: ReferenceMessage): boolean {
    const { kind } = message;
    const path = paths.get(kind)!;
    switch (message.type) {
      case "header": {
        progress.start(kind, sizes.get(kind)!);
        rows = skipped = 0;
        const fatal = headerError(path, kind, message.malformed, message.problems);
        if (fatal) throw fatal;
        return false;
      }
      case "rows": {
        const table = REFERENCE_TABLES[kind];
        const { npis, docs, names, terms, zipsNotFound } = message;
        for (let i = 0; i < docs.length; i++) {
          builder.addReference({
            table,
            npi: npis[i]!,
            doc: docs[i]!,
            name: kind === "othername" ? names[i]! : null,
            terms: kind === "pl" ? terms[i]! : null,
            zipsNotFound: zipsNotFound[i]!,
          });
        }
        rows += docs.length;
        for (const row of message.skipped) {
          if (++skipped <= options.maxReported) {
            progress.note(`${basename(path)}:${row.line}: skipped: ${row.reason}`);
          }
        }
        worker.postMessage({ type: "ack" });
        progress.update(message.bytes, rows);
        return false;
      }
      case "end": {
        if (!message.sawHeader) throw emptyFileError(path);
        progress.finish(rowsSummary(rows, skipped));
        const file = { kind, name: basename(path), rows, skipped };
        done.push(file);
        builder.addFile(file);
        return done.length === files.length;
      }
      case "error":
        throw new ImportError(`Cannot import '${path}': ${message.message}`);
    }
  }
}

/** Parses one row of a deactivation report: NPI and date (text or Excel serial). */
function deactivationRow(fields: RowFields): { npi: string; date: string | null } {
  const npi = (fields.at(0) ?? "").trim();
  if (!isValidNpi(npi)) throw new RowError(`'${npi.slice(0, 20)}' is not a valid NPI`);
  const raw = (fields.at(1) ?? "").trim();
  const date = /^\d+(\.\d+)?$/.test(raw) ? excelSerialToIsoDate(Number(raw)) : nppesDate(raw);
  if (raw && !date) throw new RowError(`'${raw.slice(0, 20)}' is not a date (MM/DD/YYYY)`);
  return { npi, date };
}

function deactivationHeader(header: string[]): string[] {
  return header[0]?.replace(/^\uFEFF/, "").trim().toUpperCase() === "NPI"
    ? []
    : [`expected the first column to be 'NPI', found '${header[0] ?? ""}'`];
}

async function importDeactivations(
  path: string,
  builder: DatabaseBuilder,
  options: { progress: Progress; maxReported: number },
): Promise<FileRecord> {
  const sink: RowSink = (fields) => {
    const { npi, date } = deactivationRow(fields);
    builder.addDeactivation(npi, date);
  };
  if (!/\.xlsx$/i.test(path)) {
    return await importDeactivationCsv(path, sink, options);
  }
  await fileSize(path);
  let rows: string[][];
  try {
    rows = await readXlsxRows(await Deno.readFile(path));
  } catch (error) {
    throw new ImportError(
      `Cannot import '${path}': ${error instanceof Error ? error.message : error}`,
    );
  }
  const headerAt = rows.findIndex((r) => r[0]?.trim().toUpperCase() === "NPI");
  if (headerAt < 0) {
    throw new ImportError(
      `Cannot import '${path}': no header row starting with 'NPI' (expected 'NPI | NPPES Deactivation Date')`,
    );
  }
  options.progress.start("deactivated", rows.length);
  let count = 0, skipped = 0;
  for (let i = headerAt + 1; i < rows.length; i++) {
    const row = rows[i]!;
    if (row.every((c) => !c.trim())) continue;
    try {
      sink(row);
      count++;
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      if (++skipped <= options.maxReported) {
        options.progress.note(`${basename(path)}: row ${i + 1}: skipped: ${error.message}`);
      }
    }
  }
  options.progress.finish(
    `${count.toLocaleString("en-US")} deactivated NPIs${
      skipped ? `, ${skipped} malformed rows skipped` : ""
    }`,
  );
  return { kind: "deactivated", name: basename(path), rows: count, skipped };
}

async function loadTaxonomy(
  path: string | undefined,
): Promise<{ entries: TaxonomyEntry[]; source: string } | undefined> {
  if (!path) return undefined;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new ImportError(
      `Cannot read '${path}': ${error instanceof Error ? error.message : error}`,
    );
  }
  try {
    return { entries: parseNuccCsv(text), source: `NUCC CSV ${basename(path)}` };
  } catch (error) {
    throw new ImportError(
      `Cannot import '${path}' as the NUCC taxonomy CSV: ${
        error instanceof Error ? error.message : error
      }`,
    );
  }
}

/**
 * Runs an import. Throws {@linkcode ImportError} for a fatal problem (a
 * missing file, a wrong header); the served database is then unchanged.
 */
export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const update = options.update || !options.npi;
  if (!options.npi && !options.update && !options.deactivated) {
    throw new ImportError(
      "Nothing to import: give --npi npidata_pfile.csv (or --update with weekly files)",
    );
  }
  if (update) {
    try {
      await Deno.stat(options.db);
    } catch {
      throw new ImportError(
        `Cannot update '${options.db}': it does not exist; run a full import with --npi first`,
      );
    }
  }
  for (
    const path of [
      options.npi,
      options.othername,
      options.pl,
      options.endpoint,
      options.deactivated,
    ]
  ) {
    if (path) await fileSize(path);
  }
  // Builds killed earlier (SIGKILL, a power cut) could not clean up after themselves.
  const leftovers = removeLeftovers(options.db);
  if (leftovers.length) options.progress.note(describeLeftovers(leftovers));
  const nucc = await loadTaxonomy(options.taxonomy);
  const taxonomy = nucc ??
    (update ? undefined : { entries: builtinTaxonomy(), source: BUILTIN_TAXONOMY_SOURCE });
  const builder = DatabaseBuilder.create({
    target: options.db,
    source: "nppes",
    taxonomy,
    update,
    segmentEntries: options.segmentEntries ?? WORKER_SEGMENT_ENTRIES,
    recordPartBytes: options.recordPartBytes,
  });
  const context = { progress: options.progress, maxReported: options.maxReported ?? 20 };
  const files: FileRecord[] = [];
  const stop = () => {
    builder.abort();
    Deno.exit(130);
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  try {
    // A fresh build reads the deactivation report first, so that each record is written once,
    // already deactivated; the report is still listed last among the files.
    const early = !update && options.npi && options.deactivated
      ? await importDeactivations(options.deactivated, builder, context)
      : null;
    if (options.npi) {
      const f = await importNpidata(options.npi, builder, {
        ...context,
        splitMinBytes: options.splitMinBytes ?? SPLIT_MIN_BYTES,
        segmentEntries: options.segmentEntries ?? WORKER_SEGMENT_ENTRIES,
        deactivations: early ? builder.deactivationsToApply() : undefined,
      });
      files.push(f);
      builder.addFile(f);
      // The reference files that follow are joined to the records as they are read.
      if (!update) {
        builder.recordsDone();
        // Ranked in a worker while the reference files are read.
        builder.rankInBackground();
      }
    }
    const references = (["othername", "pl", "endpoint"] as const)
      .map((kind) => ({ kind, path: options[kind] }))
      .filter((file): file is { kind: ReferenceKind; path: string } => Boolean(file.path));
    files.push(...await importReferences(references, builder, context));
    if (options.deactivated) {
      const f = early ?? await importDeactivations(options.deactivated, builder, context);
      files.push(f);
      builder.addFile(f);
    }
    let phase = "";
    const stats = await builder.finalizeInParallel((done, total, current) => {
      if (current !== phase) {
        phase = current;
        options.progress.start(`finalizing (${current})`, total);
      }
      options.progress.update(done, done);
    });
    options.progress.finish(
      `${stats.providers.toLocaleString("en-US")} providers indexed in ${
        stats.seconds.toFixed(1)
      } s`,
    );
    if (options.derive) {
      options.progress.start("derived files", 1);
      options.derive(builder.tempPath);
      options.progress.finish("derived files written");
    }
    builder.commit();
    options.progress.start("release manifest", 1);
    const release = await writeReleaseManifest(options.db);
    options.progress.finish(`${release.release} (sha256 ${release.database.sha256.slice(0, 12)}…)`);
    return { files, stats, seconds: (performance.now() - started) / 1000, release, leftovers };
  } catch (error) {
    builder.abort();
    throw error;
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, stop);
  }
}
