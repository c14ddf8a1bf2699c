/**
 * Web Worker that reads the reference files (other names, secondary
 * practice locations, endpoints), one after another: parses the CSV, maps
 * each row and packs it for the database ({@linkcode prepareReference}), so
 * that the importing thread only writes each row and joins it to its record.
 *
 * Message in: a {@linkcode ReferenceRequest}, then `{ type: "ack" }` for each
 * batch handled (at most {@linkcode BATCHES_IN_FLIGHT} wait unacknowledged).
 * Messages out: {@linkcode ReferenceMessage}, the files in the order asked.
 *
 * @module
 */
import { readCsvBatches } from "../nppes/csv.ts";
import { checkHeader } from "../nppes/columns.ts";
import { RowError } from "../nppes/record.ts";
import { prepareReference, type ReferenceKind } from "./reference_rows.ts";
import { byteRange } from "./byte_range.ts";
import { BATCHES_IN_FLIGHT, Credits, type SkippedRow } from "./batches.ts";

/** The files to read, in order. */
export interface ReferenceRequest {
  type: "read";
  files: { kind: ReferenceKind; path: string }[];
}

/**
 * The rows of one chunk of a file, by column (cheaper to post than an
 * object a row): row `i` is `npis[i]`, `docs[i]`, for other names
 * `names[i]`, and for secondary locations `terms[i]`.
 */
export interface ReferenceRows {
  type: "rows";
  kind: ReferenceKind;
  npis: Float64Array<ArrayBuffer>;
  docs: string[];
  /** Other names' text (empty for the other kinds). */
  names: string[];
  /** Secondary locations' index terms (empty for the other kinds). */
  terms: (number | string)[][];
  /** Per row, US ZIPs not found in the ZIP dataset (0 or 1). */
  zipsNotFound: Uint8Array<ArrayBuffer>;
  skipped: SkippedRow[];
  /** Bytes of the file read so far. */
  bytes: number;
}

/** What the worker reports, for each file in turn. */
export type ReferenceMessage =
  | { type: "header"; kind: ReferenceKind; problems: string[]; malformed: string | null }
  | ReferenceRows
  | { type: "end"; kind: ReferenceKind; sawHeader: boolean }
  | { type: "error"; kind: ReferenceKind; message: string };

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<ReferenceRequest | { type: "ack" }>) => void) | null;
  postMessage(message: ReferenceMessage, options?: { transfer: ArrayBuffer[] }): void;
};

const credits = new Credits(BATCHES_IN_FLIGHT);

/** Reads one file; false when its header is wrong (nothing more is read). */
async function readFile(kind: ReferenceKind, path: string): Promise<boolean> {
  using file = await Deno.open(path);
  const size = (await file.stat()).size;
  let bytes = 0, header = true;
  for await (
    const batch of readCsvBatches(byteRange(file, 0, size), { onBytes: (n) => (bytes = n) })
  ) {
    const npis: number[] = [], docs: string[] = [], names: string[] = [], zips: number[] = [];
    const terms: (number | string)[][] = [];
    const skipped: SkippedRow[] = [];
    for (let i = 0; i < batch.size; i++) {
      const error = batch.error(i);
      if (header) {
        header = false;
        const problems = error ? [] : checkHeader(kind, batch.fields(i));
        scope.postMessage({ type: "header", kind, problems, malformed: error });
        if (error || problems.length > 0) return false;
        continue;
      }
      if (error) {
        skipped.push({ line: batch.line(i), reason: error });
        continue;
      }
      try {
        const row = prepareReference(kind, batch.record(i));
        npis.push(row.npi);
        docs.push(row.doc);
        if (row.name !== null) names.push(row.name);
        if (row.terms !== null) terms.push(row.terms);
        zips.push(row.zipsNotFound);
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        skipped.push({ line: batch.line(i), reason: error.message });
      }
    }
    if (docs.length === 0 && skipped.length === 0) continue;
    await credits.take();
    const rows: ReferenceRows = {
      type: "rows",
      kind,
      npis: Float64Array.from(npis),
      docs,
      names,
      terms,
      zipsNotFound: Uint8Array.from(zips),
      skipped,
      bytes,
    };
    scope.postMessage(rows, { transfer: [rows.npis.buffer, rows.zipsNotFound.buffer] });
  }
  scope.postMessage({ type: "end", kind, sawHeader: !header });
  return true;
}

async function read(request: ReferenceRequest): Promise<void> {
  for (const { kind, path } of request.files) {
    try {
      if (!await readFile(kind, path)) return;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      scope.postMessage({ type: "error", kind, message });
      return;
    }
  }
}

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "ack") credits.give();
  else void read(message);
};
