/**
 * Web Worker that reads the main NPPES file: parses the CSV, maps each row
 * to a provider record and prepares it for the database build
 * ({@linkcode prepareProvider}), so the importing thread only writes. The
 * two run side by side on two cores.
 *
 * Message in: a {@linkcode NpidataRequest}, then `{ type: "ack" }` for each
 * batch handled (at most {@linkcode BATCHES_IN_FLIGHT} batches wait
 * unacknowledged, so memory stays flat). Messages out: {@linkcode NpidataMessage}.
 *
 * @module
 */
import { readCsv } from "../nppes/csv.ts";
import { checkHeader, LAYOUTS } from "../nppes/columns.ts";
import { providerFromRow, RowError } from "../nppes/record.ts";
import { type PreparedProvider, prepareProvider } from "../store/prepare.ts";

/** Batches posted and not yet acknowledged, at most. */
export const BATCHES_IN_FLIGHT = 4;

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
}

/** A row that could not be imported. */
export interface SkippedRow {
  line: number;
  reason: string;
}

/** What the worker reports. */
export type NpidataMessage =
  | { type: "header"; problems: string[]; malformed: string | null }
  | { type: "batch"; providers: PreparedProvider[]; skipped: SkippedRow[]; bytes: number }
  | { type: "done"; sawHeader: boolean; nextLine: number }
  | { type: "error"; message: string };

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<NpidataRequest | { type: "ack" }>) => void) | null;
  postMessage(message: NpidataMessage): void;
  close(): void;
};

let credits = BATCHES_IN_FLIGHT;
let wake: (() => void) | null = null;

/** The bytes `start` to `end` of a file, in chunks of 1 MB. */
function byteRange(file: Deno.FsFile, start: number, end: number): ReadableStream<Uint8Array> {
  let at = start;
  return new ReadableStream({
    async start() {
      await file.seek(start, Deno.SeekMode.Start);
    },
    async pull(controller) {
      if (at >= end) {
        controller.close();
        return;
      }
      const buffer = new Uint8Array(Math.min(1 << 20, end - at));
      const n = await file.read(buffer);
      if (n === null || n === 0) {
        controller.close();
        return;
      }
      at += n;
      controller.enqueue(n === buffer.length ? buffer : buffer.subarray(0, n));
    },
  });
}

async function read(request: NpidataRequest): Promise<void> {
  const columns = LAYOUTS.npidata.length;
  using file = await Deno.open(request.path);
  const start = request.start ?? 0;
  const end = request.end ?? (await file.stat()).size;
  let bytes = 0, nextLine = 1, header = start === 0;
  const source = byteRange(file, start, end);
  const options = { onBytes: (n: number) => (bytes = n), onEnd: (n: number) => (nextLine = n) };
  for await (const batch of readCsv(source, options)) {
    const providers: PreparedProvider[] = [];
    const skipped: SkippedRow[] = [];
    for (const item of batch) {
      if (header) {
        header = false;
        const malformed = "error" in item ? item.error : null;
        const problems = "error" in item ? [] : checkHeader("npidata", item.fields);
        scope.postMessage({ type: "header", problems, malformed });
        if (malformed || problems.length > 0) return;
        continue;
      }
      if ("error" in item) {
        skipped.push({ line: item.line, reason: item.error });
        continue;
      }
      try {
        providers.push(prepareProvider(providerFromRow(item.fields, columns)));
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        skipped.push({ line: item.line, reason: error.message });
      }
    }
    if (providers.length === 0 && skipped.length === 0) continue;
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
    credits--;
    scope.postMessage({ type: "batch", providers, skipped, bytes });
  }
  scope.postMessage({ type: "done", sawHeader: start > 0 || !header, nextLine });
}

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "ack") {
    credits++;
    wake?.();
    wake = null;
    return;
  }
  read(message).catch((error) => {
    scope.postMessage({
      type: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  });
};
