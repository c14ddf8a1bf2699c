/**
 * The overload benchmark: many more clients than the search workers can
 * serve (c=256 by default) sending slow, distinct searches (everyone within
 * a random radius of a city, with every facet, so no cache answers them),
 * against a server started with `SEARCH_MAX_WAIT_MS`. It checks what
 * admission by waiting time promises: the admitted searches wait for a
 * worker no longer than the budget (p99 of the server's
 * `search_queue_wait_seconds`: the share of waits in the histogram's
 * buckets up to the budget, so exact when the budget is a bucket bound, as
 * the default 1000 ms is), the others get `503` with `Retry-After` at once,
 * and no connection fails. Beside it are reported the admitted searches'
 * whole time in the server (wait + service + the serving thread's own
 * queueing and rendering) and the probes' end-to-end latencies.
 *
 * The server is first loaded for `--warmup` seconds, unmeasured (a fresh
 * worker's first searches are slow: compiling, reading the index); the
 * figures are the differences of the server's metrics over the measured
 * seconds. With `--compare`, a second run with the wait budget off (only the
 * 64-deep queue sheds) follows, and both are printed side by side with
 * their ratios.
 *
 * `wrk` drives the load (its connections send their next request as soon
 * as the last is answered, ignoring `Retry-After`: the worst case) and
 * counts connection errors and non-2xx answers; a few probe clients in this
 * process send the same kind of searches meanwhile and time each one by
 * status, which `wrk` cannot do: their latencies are what an admitted or a
 * refused search sees under that load.
 *
 *     deno run -A bench/overload.ts --db data/small.db --seconds 5
 *
 * Prints one JSON line of results and exits 1 when a check fails.
 *
 * @module
 */
import { parseArgs } from "@std/cli/parse-args";
import { freePort, SERVE_PERMISSIONS, SERVE_V8_FLAGS } from "../scripts/processes.ts";
import { ensureWrk, runLoad } from "./load.ts";

const USAGE = `Usage: deno run -A bench/overload.ts [--db FILE] [--connections N] [--seconds S]
                    [--warmup S] [--max-wait-ms MS] [--workers N] [--timeout-ms MS] [--compare]
  --db FILE          database to serve (default data/small.db; opened read-only)
  --connections N    concurrent clients (default 256)
  --seconds S        measured seconds (default 10)
  --warmup S         unmeasured seconds of the same load first (default 3)
  --compare          then run again with the wait budget off (queue only), side by side
  --max-wait-ms MS   SEARCH_MAX_WAIT_MS of the server (default 1000)
  --workers N        SEARCH_WORKERS of the server (default 1)
  --timeout-ms MS    REQUEST_TIMEOUT_MS of the server (default 10000)
  --probes N         probe clients timing searches by status (default 4)`;

/** ZIPs the slow searches are centred on: ten large cities. */
const ZIPS = [
  "10001",
  "60601",
  "90012",
  "77002",
  "85004",
  "19103",
  "78205",
  "92101",
  "75201",
  "95113",
];

/**
 * wrk's requests: everyone within a random radius (100–500 mi, to 0.1 mi) of a
 * city with every facet, so neither the body cache nor the result-set cache
 * answers them (about 45 ms each on the 200,000-record demo).
 */
const WRK_LUA = `
local zips = {${ZIPS.map((z) => `"${z}"`).join(",")}}
init = function(args)
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000) + tonumber(tostring({}):sub(8), 16) % 100000)
end
request = function()
  local path = string.format(
    "/v1/providers/search?near=%s&radius=%.1f&facets=state,city,taxonomy,sex,entity_type&limit=100",
    zips[math.random(1, 10)], 100 + math.random(0, 3999) / 10)
  return wrk.format("GET", path)
end
`;

/** Latency percentiles of a list of milliseconds. */
function percentiles(ms: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (n: number) => Math.round(n * 10) / 10;
  return { p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted.at(-1) ?? 0) };
}

/** The `i`-th probe search: like wrk's, at radii wrk does not use (two decimals). */
function slowSearch(i: number): string {
  const zip = ZIPS[i % ZIPS.length];
  const radius = (100 + ((i * 7919) % 40000) / 100 + 0.005).toFixed(3);
  return `/v1/providers/search?near=${zip}&radius=${radius}` +
    `&facets=state,city,taxonomy,sex,entity_type&limit=100`;
}

async function waitReady(base: string, child: Deno.ChildProcess): Promise<void> {
  const until = Date.now() + 120_000;
  let exited = false;
  child.status.then(() => exited = true);
  while (Date.now() < until && !exited) {
    try {
      const response = await fetch(`${base}/ready`);
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("The server did not become ready within 120 s");
}

/**
 * The value of one sample of the Prometheus text `metrics`: the line named
 * `name` whose labels include `labels` (any order), or 0 when absent.
 */
function sample(metrics: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of metrics.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

/** The upper bounds of a histogram's buckets, read from `metrics`: as written, and in ms. */
function bucketBounds(metrics: string, name: string): { label: string; ms: number }[] {
  const bounds = new Map<string, number>();
  for (const m of metrics.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"`, "gm"))) {
    bounds.set(m[1]!, m[1] === "+Inf" ? Infinity : Math.round(Number(m[1]) * 1e6) / 1000);
  }
  return [...bounds].map(([label, ms]) => ({ label, ms })).sort((a, b) => a.ms - b.ms);
}

/** A histogram over the measured seconds: its count, mean and p99 bucket bound. */
interface Window {
  count: number;
  mean_ms: number;
  /** The upper bound of the bucket holding the 99th percentile (ms). */
  p99_ms_at_most: number;
  /** The share of observations at most `budget` ms (when a budget is given and is a bucket bound). */
  within_budget?: number;
}

/** The difference of histogram `name` (with `labels`) between two scrapes. */
function histogramDelta(
  before: string,
  after: string,
  name: string,
  labels: Record<string, string> = {},
  budgetMs = 0,
): Window {
  const delta = (metric: string, extra: Record<string, string> = {}) =>
    sample(after, metric, { ...labels, ...extra }) -
    sample(before, metric, { ...labels, ...extra });
  const count = delta(`${name}_count`);
  const sum = delta(`${name}_sum`);
  const buckets = bucketBounds(after, name).map(({ label, ms }) => ({
    le: ms,
    count: delta(`${name}_bucket`, { le: label }),
  }));
  const p99 = buckets.find((b) => b.count >= 0.99 * count)?.le ?? 0;
  const window: Window = {
    count,
    mean_ms: count ? Math.round((sum / count) * 10_000) / 10 : 0,
    p99_ms_at_most: count ? p99 : 0,
  };
  const atBudget = buckets.find((b) => b.le === budgetMs);
  if (budgetMs > 0 && atBudget && count) {
    window.within_budget = Math.round((atBudget.count / count) * 10_000) / 10_000;
  }
  return window;
}

/** How one run is made. */
interface RunOptions {
  db: string;
  connections: number;
  seconds: number;
  warmup: number;
  maxWaitMs: number;
  workers: number;
  timeoutMs: number;
  probes: number;
}

/** Runs one server under the overload and measures it; see the module doc. */
async function runOnce(o: RunOptions) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVE_PERMISSIONS, SERVE_V8_FLAGS, "main.ts"],
    cwd: new URL("..", import.meta.url).pathname,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      PROVIDERS_DB: o.db,
      SEARCH_WORKERS: String(o.workers),
      SEARCH_MAX_WAIT_MS: String(o.maxWaitMs),
      REQUEST_TIMEOUT_MS: String(o.timeoutMs),
      RATE_LIMIT_PER_MINUTE: "0",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitReady(base, server);
    const url = `${base}/v1/providers/search`;
    if (o.warmup > 0) {
      await runLoad(url, { connections: o.connections, seconds: o.warmup, lua: WRK_LUA });
    }
    const ok: number[] = [];
    const refused: number[] = [];
    const other = new Map<number, number>();
    let missingRetryAfter = 0;
    let connectionErrors = 0;
    let next = 0;
    const before = await (await fetch(`${base}/metrics`)).text();
    const load = runLoad(url, { connections: o.connections, seconds: o.seconds, lua: WRK_LUA });
    // Let wrk open its connections first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const end = performance.now() + (o.seconds - 1) * 1000;
    const client = async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const response = await fetch(`${base}${slowSearch(next++)}`);
          await response.arrayBuffer();
          const ms = performance.now() - t0;
          if (response.status === 200) ok.push(ms);
          else if (response.status === 503) {
            refused.push(ms);
            if (!response.headers.get("retry-after")) missingRetryAfter++;
          } else other.set(response.status, (other.get(response.status) ?? 0) + 1);
        } catch {
          connectionErrors++;
        }
      }
    };
    await Promise.all(Array.from({ length: o.probes }, client));
    const wrk = await load;
    const after = await (await fetch(`${base}/metrics`)).text();
    const counter = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    const search = { route: "/v1/providers/search" };
    const queueWait = histogramDelta(
      before,
      after,
      "search_queue_wait_seconds",
      {},
      o.maxWaitMs,
    );
    const service = histogramDelta(before, after, "search_service_seconds");
    const admitted = histogramDelta(before, after, "http_request_duration_seconds", {
      ...search,
      status: "200",
    });
    const refusedServer = histogramDelta(before, after, "http_request_duration_seconds", {
      ...search,
      status: "503",
    });
    const checks = {
      queue_wait_p99_within_budget: o.maxWaitMs === 0 ||
        (queueWait.count > 0 && queueWait.p99_ms_at_most <= o.maxWaitMs),
      refusals_carry_retry_after: missingRetryAfter === 0,
      no_connection_errors: connectionErrors === 0 && wrk.errors === 0,
      no_other_statuses: other.size === 0,
      some_admitted: admitted.count > 0,
    };
    return {
      db: o.db,
      connections: o.connections,
      seconds: o.seconds,
      warmup_seconds: o.warmup,
      search_workers: o.workers,
      max_wait_ms: o.maxWaitMs,
      wrk: {
        requests: wrk.requests,
        rps: wrk.rps,
        non2xx: wrk.non2xx,
        connection_errors: wrk.errors,
        p50_ms: wrk.p50_ms,
        p99_ms: wrk.p99_ms,
      },
      probes: o.probes,
      probe_admitted: ok.length,
      probe_admitted_ms: percentiles(ok),
      probe_refused: refused.length,
      probe_refused_ms: percentiles(refused),
      probe_other_statuses: Object.fromEntries(other),
      probe_connection_errors: connectionErrors,
      searches_served: service.count,
      service,
      queue_wait: queueWait,
      server_admitted: admitted,
      server_refused: refusedServer,
      shed_wait_budget: counter("search_shed_total", { reason: "wait_budget" }),
      shed_queue_full: counter("search_shed_total", { reason: "queue_full" }),
      shed_overdue: counter("search_shed_total", { reason: "overdue" }),
      timeouts: counter("search_timeouts_total", { where: "queued" }) +
        counter("search_timeouts_total", { where: "running" }),
      checks,
    };
  } finally {
    try {
      server.kill("SIGTERM");
    } catch { /* already gone */ }
    await server.status;
  }
}

type Run = Awaited<ReturnType<typeof runOnce>>;

/** The two runs side by side, as a Markdown table (budget, queue only, ratio). */
function sideBySide(budget: Run, queueOnly: Run): string {
  const rows: [string, number, number][] = [
    ["wrk requests", budget.wrk.requests, queueOnly.wrk.requests],
    ["wrk connection errors", budget.wrk.connection_errors, queueOnly.wrk.connection_errors],
    ["searches run by the workers", budget.service.count, queueOnly.service.count],
    ["service time, mean ms", budget.service.mean_ms, queueOnly.service.mean_ms],
    ["admitted (200)", budget.server_admitted.count, queueOnly.server_admitted.count],
    ["refused (503)", budget.server_refused.count, queueOnly.server_refused.count],
    ["of which overdue (refused while queued)", budget.shed_overdue, queueOnly.shed_overdue],
    [
      "wait for a worker, p99 ms ≤",
      budget.queue_wait.p99_ms_at_most,
      queueOnly.queue_wait.p99_ms_at_most,
    ],
    ["wait for a worker, mean ms", budget.queue_wait.mean_ms, queueOnly.queue_wait.mean_ms],
    [
      "admitted in the server, p99 ms ≤",
      budget.server_admitted.p99_ms_at_most,
      queueOnly.server_admitted.p99_ms_at_most,
    ],
    [
      "admitted in the server, mean ms",
      budget.server_admitted.mean_ms,
      queueOnly.server_admitted.mean_ms,
    ],
    [
      "refused in the server, p99 ms ≤",
      budget.server_refused.p99_ms_at_most,
      queueOnly.server_refused.p99_ms_at_most,
    ],
    ["all answers p99 ms (wrk)", budget.wrk.p99_ms, queueOnly.wrk.p99_ms],
    ["probe admitted, p99 ms", budget.probe_admitted_ms.p99, queueOnly.probe_admitted_ms.p99],
    ["probe refused, p99 ms", budget.probe_refused_ms.p99, queueOnly.probe_refused_ms.p99],
  ];
  const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : "–");
  const lines = [
    `| | SEARCH_MAX_WAIT_MS=${budget.max_wait_ms} | 0 (queue only) | ratio |`,
    "| --- | --- | --- | --- |",
    ...rows.map(([name, a, b]) => `| ${name} | ${a} | ${b} | ${ratio(a, b)} |`),
  ];
  return lines.join("\n");
}

async function main(): Promise<number> {
  const args = parseArgs(Deno.args, {
    string: [
      "db",
      "connections",
      "seconds",
      "warmup",
      "max-wait-ms",
      "workers",
      "timeout-ms",
      "probes",
    ],
    boolean: ["help", "compare"],
  });
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const options: RunOptions = {
    db: args.db ?? "data/small.db",
    connections: Number(args.connections ?? 256),
    seconds: Number(args.seconds ?? 10),
    warmup: Number(args.warmup ?? 3),
    maxWaitMs: Number(args["max-wait-ms"] ?? 1000),
    workers: Number(args.workers ?? 1),
    timeoutMs: Number(args["timeout-ms"] ?? 10_000),
    probes: Number(args.probes ?? 4),
  };
  await ensureWrk(console.error);
  const budget = await runOnce(options);
  if (!args.compare) {
    console.log(JSON.stringify(budget));
  } else {
    const queueOnly = await runOnce({ ...options, maxWaitMs: 0 });
    console.error(sideBySide(budget, queueOnly));
    console.log(JSON.stringify({ budget, queue_only: queueOnly }));
  }
  return Object.values(budget.checks).every(Boolean) ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main());
