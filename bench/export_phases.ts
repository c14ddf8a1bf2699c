/**
 * `deno run -A bench/export_phases.ts --db FILE [--query Q]`: where an
 * export's time goes, per record, in one thread: finding the pages, reading
 * rows (one statement per record, as the record object path does, and in
 * batches), decoding and joining into record objects, `JSON.stringify` and
 * CSV lines, the text renderer (`lib/store/record_text.ts`), UTF-8 encoding,
 * gzip (a stream at level 6, and pieces deflated at levels 1 and 6 as the
 * export does), a piece as the export sends it, and the
 * old and new paths end to end. Each phase runs twice; the second is timed,
 * in CPU time (this process is one thread but for the CompressionStream).
 *
 * @module
 */
import { constants as zlib, crc32, deflateRawSync } from "node:zlib";
import { parseCli, runCli } from "../lib/cli.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import type { SearchQuery } from "../lib/search/query.ts";
import { specialtyIndex } from "../routes/specialties.ts";
import { decodeProvider } from "../lib/store/codec.ts";
import { providerCsvLine } from "../lib/store/flat_records.ts";
import { recordBatchReader } from "../lib/store/record_batch.ts";
import { RecordText } from "../lib/store/record_text.ts";
import { GZIP_LEVEL } from "../lib/http/compression.ts";
import process from "node:process";
import { textChunk } from "../lib/http/gzip_chunks.ts";
import { EXPORT_GZIP_LEVEL } from "../lib/export/stream.ts";

/** CPU time of this process so far, ms: unlike wall time, it holds when other processes share the cores. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const USAGE = `Usage: deno run -A bench/export_phases.ts --db FILE [--query Q]

  --db FILE   database (read-only; default: $PROVIDERS_DB or data/providers.db)
  --query Q   export query string (default: state=CA)`;

async function main(): Promise<void> {
  const args = parseCli(Deno.args, { string: ["db", "query"], boolean: [] });
  if ((args as { help?: boolean }).help) return console.log(USAGE);
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const store = openSearchableStore(db);
  const url = new URLSearchParams(args.query ?? "state=CA");
  let query: SearchQuery = toSearchQuery(
    { ...SEARCH_PARAMS.parse(url), limit: 500 },
    { specialties: specialtyIndex(store), cursorScope: { query: "phases", release: "" }, url },
  );
  const ids: number[] = [];
  const started = cpuMs();
  for (;;) {
    const page = store.search(query);
    for (const hit of page.hits) ids.push(hit.id);
    if (!page.next) break;
    query = { ...query, cursor: page.next };
  }
  const found = cpuMs() - started;
  const perRecord = (count: number, ms: number) => Math.round(ms * 1000 / count * 100) / 100;
  const n = ids.length;
  const sums = new Map<string, number>();
  const timed = <T>(label: string, run: () => T): T => {
    const started = cpuMs();
    const out = run();
    sums.set(label, (sums.get(label) ?? 0) + cpuMs() - started);
    return out;
  };
  const seqOf = store.db.prepare("SELECT record FROM provider WHERE id = ?");
  const one = (id: number) => ({
    doc: store.records.doc((seqOf.get(id) as { record: number }).record) ?? "",
  });
  const read = recordBatchReader(store.db, store.records, () => null);
  const text = new RecordText(store.describe);
  const encoder = new TextEncoder();
  let ndjsonBytes = 0;
  let sample: Uint8Array<ArrayBuffer>[] = [];
  for (let pass = 0; pass < 2; pass++) {
    sums.clear();
    sample = [];
    for (let at = 0; at < n; at += 500) {
      const page = ids.slice(at, at + 500);
      const docs = timed(
        "rows, one statement each",
        () => page.map(one),
      );
      timed(
        "decode (JSON.parse, objects)",
        () => docs.map((r) => decodeProvider(r.doc, store.describe)),
      );
      const providers = timed(
        "records as objects (statements, joins, decode)",
        () => store.getProvidersById(page).map((r) => r.provider),
      );
      const ndjson = timed(
        "JSON.stringify",
        () => providers.map((p) => `${JSON.stringify(p)}\n`).join(""),
      );
      timed("CSV lines from objects", () => providers.map(providerCsvLine).join(""));
      const rows = timed("rows and joins in batches", () => read(page));
      timed("text renderer, JSON", () => rows.map((r) => `${text.json(r)}\n`).join(""));
      timed("text renderer, CSV", () => rows.map((r) => text.csv(r)).join(""));
      const bytes = timed("UTF-8 encoding (NDJSON)", () => encoder.encode(ndjson));
      ndjsonBytes += pass === 1 ? bytes.byteLength : 0;
      if (at < 20_000) sample.push(bytes);
      for (const level of [EXPORT_GZIP_LEVEL, GZIP_LEVEL]) {
        timed(`piece deflate level ${level} + crc32 (NDJSON)`, () => {
          crc32(bytes);
          return deflateRawSync(bytes, { level, finishFlush: zlib.Z_SYNC_FLUSH });
        });
      }
      timed(
        "old path end to end (NDJSON text)",
        () => store.getProvidersById(page).map((r) => `${JSON.stringify(r.provider)}\n`).join(""),
      );
      timed(
        "new path end to end (NDJSON text)",
        () => read(page).map((r) => `${text.json(r)}\n`).join(""),
      );
      timed("new path end to end (CSV text)", () => read(page).map((r) => text.csv(r)).join(""));
      timed(
        "export piece as sent: rows, text, UTF-8, gzip level 1 (NDJSON)",
        () => textChunk(store.exportText(page, "ndjson"), EXPORT_GZIP_LEVEL),
      );
      timed(
        "export piece as sent: rows, text, UTF-8, gzip level 1 (CSV)",
        () => textChunk(store.exportText(page, "csv"), EXPORT_GZIP_LEVEL),
      );
    }
  }
  const results: Record<string, number> = { "find pages": perRecord(n, found) };
  for (const [label, ms] of sums) results[label] = Math.round(ms * 1000 / n * 100) / 100;
  const sampled = sample.reduce((a, b) => a + b.byteLength, 0);
  const stream = new Blob(sample).stream().pipeThrough(new CompressionStream("gzip"));
  const zipped = cpuMs();
  let gzipped = 0;
  for await (const chunk of stream) gzipped += chunk.byteLength;
  results["gzip CompressionStream (NDJSON)"] = Math.round(
    (cpuMs() - zipped) * 1000 / Math.min(n, 20_000) * 100,
  ) / 100;
  const bytes = { byteLength: ndjsonBytes };
  console.log(JSON.stringify(
    {
      db,
      query: url.toString(),
      records: n,
      ndjson_bytes_per_record: Math.round(bytes.byteLength / n),
      gzip_ratio: Math.round(gzipped / sampled * 1000) / 1000,
      slow_path_records: text.slowPath,
      microseconds_per_record: results,
    },
    null,
    2,
  ));
  store.close();
}

if (import.meta.main) await runCli(main, USAGE);
