/**
 * Web Worker that reads the main NPPES file: parses the CSV, maps each row
 * to a provider record and prepares it for the database build
 * ({@linkcode prepareProvider}), indexes it and writes its rank key, so the
 * importing thread only writes the records. The two run side by side on two
 * cores.
 *
 * Message in: a {@linkcode NpidataRequest}, then `{ type: "ack" }` for each
 * batch handled (at most {@linkcode BATCHES_IN_FLIGHT} batches wait
 * unacknowledged, so memory stays flat). Messages out: {@linkcode NpidataMessage}.
 *
 * @module
 */
import { readCsvBatches } from "../nppes/csv.ts";
import { checkHeader, LAYOUTS } from "../nppes/columns.ts";
import { providerFromRow, RowError } from "../nppes/record.ts";
import { deactivate, prepareProvider } from "../store/prepare.ts";
import { IndexBuilder, type IndexPart } from "../index/builder.ts";
import { DatabaseSync } from "node:sqlite";
import { byteRange } from "./byte_range.ts";
import { packedBuffers, type PackedRecords, RecordPacker } from "./packed_records.ts";
import { BATCHES_IN_FLIGHT, Credits, type SkippedRow } from "./batches.ts";
import { type RankKeyCounts, RankKeyWriter, zip9Of } from "../store/rank_keys.ts";

/**
 * What the worker is asked to read: the bytes `start` to `end` of the file
 * (the whole file when absent). A part that starts at 0 begins with the
 * header line; another must start at the beginning of a record.
 */
export interface NpidataRequest {
  type: "read";
  path: string;
  start?: number;
  end?: number;
  /**
   * Where the worker builds the index of its records (a scratch database);
   * the part is handed over in the `done` message.
   */
  scratchPath: string;
  /** Where the worker writes the rank keys of its records (a new file). */
  rankPath: string;
  /** Index ids the worker holds in memory before writing a segment. */
  segmentEntries?: number;
  /** The deactivation report (NPI to date or null), applied to each record as it is read. */
  deactivations?: Map<number, string | null>;
}

/** What the worker reports. */
export type NpidataMessage =
  | { type: "header"; problems: string[]; malformed: string | null }
  | { type: "batch"; records: PackedRecords; skipped: SkippedRow[]; bytes: number }
  | {
    type: "done";
    sawHeader: boolean;
    nextLine: number;
    index: IndexPart;
    rankCounts: RankKeyCounts;
  }
  | { type: "error"; message: string };

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<NpidataRequest | { type: "ack" }>) => void) | null;
  postMessage(message: NpidataMessage, options?: { transfer: ArrayBuffer[] }): void;
  close(): void;
};

/** An index builder over a new scratch database at `path`. */
function scratchIndex(path: string, segmentEntries?: number): IndexBuilder {
  const scratch = new DatabaseSync(path);
  scratch.exec(
    "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;",
  );
  return new IndexBuilder({ scratch, segmentEntries, specialtyWords: () => [] });
}

const credits = new Credits(BATCHES_IN_FLIGHT);

async function read(request: NpidataRequest): Promise<void> {
  const columns = LAYOUTS.npidata.length;
  using file = await Deno.open(request.path);
  const start = request.start ?? 0;
  const end = request.end ?? (await file.stat()).size;
  let bytes = 0, nextLine = 1, header = start === 0;
  const source = byteRange(file, start, end);
  // The worker indexes its records itself: seq i is its i-th record.
  const index = scratchIndex(request.scratchPath, request.segmentEntries);
  const records = new RecordPacker();
  using rankFile = await Deno.open(request.rankPath, { write: true, create: true, truncate: true });
  const rankKeys = new RankKeyWriter(rankFile);
  let seq = 0;
  const deactivations = request.deactivations ?? new Map<number, string | null>();
  const options = { onBytes: (n: number) => (bytes = n), onEnd: (n: number) => (nextLine = n) };
  for await (const batch of readCsvBatches(source, options)) {
    const skipped: SkippedRow[] = [];
    for (let i = 0; i < batch.size; i++) {
      const error = batch.error(i);
      if (header) {
        header = false;
        const problems = error ? [] : checkHeader("npidata", batch.fields(i));
        scope.postMessage({ type: "header", problems, malformed: error });
        if (error || problems.length > 0) return;
        continue;
      }
      if (error) {
        skipped.push({ line: batch.line(i), reason: error });
        continue;
      }
      try {
        let provider = providerFromRow(batch.record(i), columns);
        const npi = Number(provider.npi);
        const deactivated = deactivations.get(npi); // A date, or null for the report's own.
        if (deactivated !== undefined) provider = deactivate(provider, deactivated);
        const prepared = prepareProvider(provider);
        index.add(++seq, prepared.entry);
        rankKeys.add(prepared.npi, prepared.active, prepared.sortKey, zip9Of(prepared.postal));
        records.add(prepared);
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        skipped.push({ line: batch.line(i), reason: error.message });
      }
    }
    if (records.size === 0 && skipped.length === 0) continue;
    await credits.take();
    const packed = records.take();
    scope.postMessage({ type: "batch", records: packed, skipped, bytes }, {
      transfer: packedBuffers(packed),
    });
  }
  rankKeys.finish();
  const part = index.exportPart(request.scratchPath);
  const transfer = [
    part.flags,
    part.state,
    part.city,
    part.zip,
    part.lat,
    part.lon,
    part.taxStart,
    part.taxCount,
    part.updated,
  ]
    .concat([part.taxCodes] as never[])
    .map((a) => a.buffer as ArrayBuffer);
  scope.postMessage({
    type: "done",
    sawHeader: start > 0 || !header,
    nextLine,
    index: part,
    rankCounts: rankKeys.counts,
  }, { transfer });
}

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "ack") {
    credits.give();
    return;
  }
  read(message).catch((error) => {
    scope.postMessage({
      type: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  });
};
