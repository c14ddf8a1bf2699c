/**
 * `deno task bench:export`: export throughput and serving memory. Serves a
 * database, streams `GET /v1/providers/export` for a query (NDJSON and
 * CSV), reading the body as it comes without keeping it, and reports
 * records/s, MB/s, the CPU time the server and this client spent a record
 * (which, unlike records/s, holds when other processes share the cores),
 * and the server's memory (anonymous and file-mapped, sampled during the
 * export) before, at peak and after. Each format is taken twice: asking
 * for gzip, as browsers, `fetch` and `curl --compressed` do (this client
 * then spends CPU on the machine decompressing), and asking for no coding,
 * as `curl` does by default. The client is `curl` (`--client fetch` for
 * Deno's `fetch`, whose decompression costs four times the CPU on the same
 * two cores); its CPU time is reported apart. One export of the query (CSV, no coding) runs
 * first unmeasured, so that the runs measure a warm server: the worker has
 * read its index columns and the database file's pages are mapped
 * (`--cold` measures from the first export).
 *
 * @module
 */
import { parseCli, runCli, UsageError } from "../lib/cli.ts";
import { freePort, ROOT, serverCommand, waitForStatus } from "../scripts/processes.ts";
import { cpuSeconds, type MemorySplit, memorySplit } from "./proc.ts";

const USAGE =
  `Usage: deno task bench:export [--db FILE] [--query Q] [--formats ndjson,csv] [--encodings gzip,identity]

  --db FILE        database to serve (default: $PROVIDERS_DB or data/providers.db)
  --query Q        export query string (default: state=CA, about 1 million records at 9.7 million)
  --formats L      formats to measure (default: ndjson,csv)
  --encodings L    Accept-Encoding values to measure (default: gzip,identity; br also)
  --cold           measure from the first export (default: one unmeasured export first)
  --client C       curl (default: zlib in C, the client that costs the shared cores least) or
                   fetch (Deno's, whose gzip decoding costs about 9 µs a NDJSON record)`;

interface ExportRun {
  format: string;
  records: number;
  total_header: number;
  bytes: number;
  seconds: number;
  records_per_s: number;
  encoding: string;
  /** The client: curl (default) or fetch. */
  client: string;
  /** CPU time of the server (all its threads) a record, µs. */
  server_cpu_us_per_record: number | null;
  /** CPU time of the client (reading, decompressing, counting lines) a record, µs. */
  client_cpu_us_per_record: number | null;
  mb_per_s: number;
  memory_peak: MemorySplit | null;
}

/** A client's answer: headers, then the body's chunks as they come, then its CPU seconds. */
interface ClientRun {
  headers: Headers;
  body: AsyncIterable<Uint8Array>;
  /** CPU seconds the client spent on this export, once the body is read (null: unknown). */
  cpu(): Promise<number | null>;
}

/** The export through `fetch` (its decompression runs in this process). */
async function fetchClient(url: string, encoding: string): Promise<ClientRun> {
  const before = await cpuSeconds("self");
  const response = await fetch(url, { headers: { "Accept-Encoding": encoding } });
  if (!response.ok) throw new Error(`export: ${response.status} ${await response.text()}`);
  return {
    headers: response.headers,
    body: response.body!,
    cpu: async () => {
      const after = await cpuSeconds("self");
      return before === null || after === null ? null : after - before;
    },
  };
}

/**
 * The export through `curl` (zlib's decompression, in C), its body piped
 * here to be counted: the client that costs the shared cores least.
 */
async function curlClient(url: string, encoding: string): Promise<ClientRun> {
  const dir = await Deno.makeTempDir();
  const args = ["-o", `${dir}/times`, "-f", "%U %S", "curl", "-sS", "-D", `${dir}/headers`];
  if (encoding !== "identity") args.push("--compressed", "-H", `Accept-Encoding: ${encoding}`);
  const before = await cpuSeconds("self");
  const child = new Deno.Command("/usr/bin/time", { args: [...args, url], stdout: "piped" })
    .spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  const text = await Deno.readTextFile(`${dir}/headers`);
  const headers = new Headers();
  for (const line of text.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  if (!text.startsWith("HTTP/1.1 200")) throw new Error(`export: ${text.split("\r\n")[0]}`);
  async function* body(): AsyncIterable<Uint8Array> {
    if (first.value) yield first.value;
    if (first.done) return;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  }
  return {
    headers,
    body: body(),
    cpu: async () => {
      const status = await child.status;
      const after = await cpuSeconds("self");
      const [user, system] = (await Deno.readTextFile(`${dir}/times`)).trim().split(" ");
      await Deno.remove(dir, { recursive: true });
      if (!status.success || before === null || after === null) return null;
      return Number(user) + Number(system) + after - before;
    },
  };
}

async function measure(
  base: string,
  pid: number,
  query: string,
  format: string,
  encoding: string,
  client: "curl" | "fetch",
): Promise<ExportRun> {
  const serverBefore = await cpuSeconds(pid);
  const started = performance.now();
  const url = `${base}/v1/providers/export?${query}&format=${format}`;
  const run = await (client === "curl" ? curlClient : fetchClient)(url, encoding);
  const total = Number(run.headers.get("x-total-count"));
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
  for await (const chunk of run.body) {
    bytes += chunk.byteLength;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) newlines++;
  }
  sampling = false;
  await sampler;
  const seconds = (performance.now() - started) / 1000;
  const records = format === "csv" ? newlines - 1 : newlines;
  const serverAfter = await cpuSeconds(pid);
  const clientCpu = await run.cpu();
  const perRecord = (cpu: number | null) =>
    cpu === null || records === 0 ? null : Math.round(cpu * 1e6 / records * 10) / 10;
  return {
    format,
    records,
    total_header: total,
    bytes,
    seconds: Math.round(seconds * 100) / 100,
    records_per_s: Math.round(records / seconds),
    encoding: run.headers.get("content-encoding") ?? "identity",
    client,
    server_cpu_us_per_record: perRecord(
      serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    ),
    client_cpu_us_per_record: perRecord(clientCpu),
    mb_per_s: Math.round(bytes / 1048576 / seconds * 10) / 10,
    memory_peak: peak,
  };
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, {
    string: ["db", "query", "formats", "encodings", "client"],
    boolean: ["cold"],
  });
  if ((args as { help?: boolean }).help) return console.log(USAGE);
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const query = args.query ?? "state=CA";
  const formats = (args.formats ?? "ndjson,csv").split(",");
  const encodings = (args.encodings ?? "gzip,identity").split(",");
  const client = args.client ?? "curl";
  if (client !== "curl" && client !== "fetch") {
    throw new UsageError(`Unknown client '${client}': use curl or fetch`);
  }
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
    if (!args.cold) await measure(base, child.pid, query, "csv", "identity", client);
    const before = await memorySplit(child.pid);
    const runs: ExportRun[] = [];
    for (const [format, encoding] of encodings.flatMap((e) => formats.map((f) => [f, e]))) {
      const run = await measure(base, child.pid, query, format!, encoding!, client);
      if (run.records !== run.total_header) {
        throw new Error(
          `${format}: ${run.records} records streamed, X-Total-Count ${run.total_header}`,
        );
      }
      console.error(`${format} ${encoding}: ${JSON.stringify(run)}`);
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
