/**
 * `deno task bench:export`: export throughput and serving memory. Serves a
 * database, streams `GET /v1/providers/export` for a query (NDJSON and
 * CSV), reading the body as it comes without keeping it, and reports
 * records/s, MB/s, the CPU time the server and this client spent a record
 * (which, unlike records/s, holds when other processes share the cores),
 * and the server's memory (anonymous and file-mapped, sampled during the
 * export) before, at peak and after. The client asks for gzip, as `fetch`
 * does (`--encoding identity` for a plain body, as `curl` without
 * `--compressed` gets).
 *
 * @module
 */
import { parseCli, runCli } from "../lib/cli.ts";
import { freePort, ROOT, serverCommand, waitForStatus } from "../scripts/processes.ts";
import { cpuSeconds, type MemorySplit, memorySplit } from "./proc.ts";

const USAGE =
  `Usage: deno task bench:export [--db FILE] [--query Q] [--formats ndjson,csv] [--encoding gzip]

  --db FILE        database to serve (default: $PROVIDERS_DB or data/providers.db)
  --query Q        export query string (default: state=CA, about 1 million records at 9.7 million)
  --formats L      formats to measure (default: ndjson,csv)
  --encoding E     Accept-Encoding of the client: gzip (default, as fetch asks), br or identity`;

interface ExportRun {
  format: string;
  records: number;
  total_header: number;
  bytes: number;
  seconds: number;
  records_per_s: number;
  encoding: string;
  /** CPU time of the server (all its threads) a record, µs. */
  server_cpu_us_per_record: number | null;
  /** CPU time of this client (reading, decompressing, counting lines) a record, µs. */
  client_cpu_us_per_record: number | null;
  mb_per_s: number;
  memory_peak: MemorySplit | null;
}

async function measure(
  base: string,
  pid: number,
  query: string,
  format: string,
  encoding: string,
): Promise<ExportRun> {
  const serverBefore = await cpuSeconds(pid);
  const clientBefore = await cpuSeconds("self");
  const started = performance.now();
  const response = await fetch(`${base}/v1/providers/export?${query}&format=${format}`, {
    headers: { "Accept-Encoding": encoding },
  });
  if (!response.ok) throw new Error(`export: ${response.status} ${await response.text()}`);
  const total = Number(response.headers.get("x-total-count"));
  let bytes = 0, newlines = 0;
  let peak: MemorySplit | null = null;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const m = await memorySplit(pid);
      if (m && (!peak || m.rss_mb > peak.rss_mb)) peak = m;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  for await (const chunk of response.body!) {
    bytes += chunk.byteLength;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) newlines++;
  }
  sampling = false;
  await sampler;
  const seconds = (performance.now() - started) / 1000;
  const records = format === "csv" ? newlines - 1 : newlines;
  const serverAfter = await cpuSeconds(pid);
  const clientAfter = await cpuSeconds("self");
  const perRecord = (before: number | null, after: number | null) =>
    before === null || after === null || records === 0
      ? null
      : Math.round((after - before) * 1e6 / records * 10) / 10;
  return {
    format,
    records,
    total_header: total,
    bytes,
    seconds: Math.round(seconds * 100) / 100,
    records_per_s: Math.round(records / seconds),
    encoding: response.headers.get("content-encoding") ?? "identity",
    server_cpu_us_per_record: perRecord(serverBefore, serverAfter),
    client_cpu_us_per_record: perRecord(clientBefore, clientAfter),
    mb_per_s: Math.round(bytes / 1048576 / seconds * 10) / 10,
    memory_peak: peak,
  };
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, {
    string: ["db", "query", "formats", "encoding"],
    boolean: [],
  });
  if ((args as { help?: boolean }).help) return console.log(USAGE);
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const query = args.query ?? "state=CA";
  const formats = (args.formats ?? "ndjson,csv").split(",");
  const encoding = args.encoding ?? "gzip";
  const port = freePort();
  const child = serverCommand({ PROVIDERS_DB: db, PORT: String(port) }, {
    script: `${ROOT}main.ts`,
    stderr: "null",
    stdout: "null",
  }).spawn();
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForStatus(`${base}/v1/dataset`, { timeoutMs: 600_000 });
    const dataset = await (await fetch(`${base}/v1/dataset`)).json();
    const before = await memorySplit(child.pid);
    const runs: ExportRun[] = [];
    for (const format of formats) {
      const run = await measure(base, child.pid, query, format, encoding);
      if (run.records !== run.total_header) {
        throw new Error(
          `${format}: ${run.records} records streamed, X-Total-Count ${run.total_header}`,
        );
      }
      console.error(`${format}: ${JSON.stringify(run)}`);
      runs.push(run);
    }
    const result = {
      date: new Date().toISOString(),
      db,
      records: dataset.records,
      query,
      memory_before: before,
      runs,
      memory_after: await memorySplit(child.pid),
    };
    const out = `${ROOT}bench/results/${result.date.slice(0, 10)}-${dataset.records}-export.json`;
    await Deno.writeTextFile(out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
    console.error(`written to ${out}`);
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

if (import.meta.main) await runCli(main, USAGE);
