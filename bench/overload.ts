/**
 * The overload benchmark: many more clients than the search workers can
 * serve (c=256 by default) sending slow, distinct searches (everyone within
 * a random radius of a city, with every facet, so no cache answers them),
 * against a server started with `SEARCH_MAX_WAIT_MS`. It checks what
 * admission by waiting time promises: the admitted searches are answered
 * within the wait budget plus their own service time (p99), the others get
 * `503` with `Retry-After` at once, and no connection fails. The check is
 * on the wait for a worker (p99 from the server's
 * `search_queue_wait_seconds`, within the budget's histogram bucket); the
 * probes' end-to-end latencies are reported beside it, since they also hold
 * the serving thread's own queueing (the refused answers' latency shows
 * that floor).
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
import { freePort } from "../scripts/processes.ts";
import { ensureWrk, runLoad } from "./load.ts";

const USAGE = `Usage: deno run -A bench/overload.ts [--db FILE] [--connections N] [--seconds S]
                    [--max-wait-ms MS] [--workers N] [--timeout-ms MS]
  --db FILE          database to serve (default data/small.db; opened read-only)
  --connections N    concurrent clients (default 256)
  --seconds S        measured seconds (default 10)
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

async function main(): Promise<number> {
  const args = parseArgs(Deno.args, {
    string: ["db", "connections", "seconds", "max-wait-ms", "workers", "timeout-ms", "probes"],
    boolean: ["help"],
  });
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const db = args.db ?? "data/small.db";
  const connections = Number(args.connections ?? 256);
  const seconds = Number(args.seconds ?? 10);
  const maxWaitMs = Number(args["max-wait-ms"] ?? 1000);
  const workers = Number(args.workers ?? 1);
  const timeoutMs = Number(args["timeout-ms"] ?? 10_000);
  const probes = Number(args.probes ?? 4);
  await ensureWrk(console.error);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "main.ts",
    ],
    cwd: new URL("..", import.meta.url).pathname,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      PROVIDERS_DB: db,
      SEARCH_WORKERS: String(workers),
      SEARCH_MAX_WAIT_MS: String(maxWaitMs),
      REQUEST_TIMEOUT_MS: String(timeoutMs),
      RATE_LIMIT_PER_MINUTE: "0",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitReady(base, server);
    const ok: number[] = [];
    const refused: number[] = [];
    const other = new Map<number, number>();
    let missingRetryAfter = 0;
    let connectionErrors = 0;
    let next = 0;
    const load = runLoad(`${base}/v1/providers/search`, {
      connections,
      seconds,
      lua: WRK_LUA,
    });
    // Let wrk open its connections first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = performance.now();
    const end = started + (seconds - 1) * 1000;
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
    await Promise.all(Array.from({ length: probes }, client));
    const wrk = await load;
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const metric = (name: string) =>
      Number(new RegExp(`^${name} (\\S+)$`, "m").exec(metrics)?.[1] ?? NaN);
    const serviceMeanMs = 1000 * metric("search_service_seconds_sum") /
      metric("search_service_seconds_count");
    // p99s from the server's histograms: the upper bound of the bucket the 99th percentile is in.
    const p99 = (bucketName: string, labels: string): { count: number; p99_ms_at_most: number } => {
      // prom-client writes `le` first: name{le="0.5",route="...",status="200"}.
      const pattern = new RegExp(`^${bucketName}\\{le="([^"]+)"${labels}\\} (\\S+)$`, "gm");
      const buckets = [...metrics.matchAll(pattern)].map((m) => ({
        le: m[1] === "+Inf" ? Infinity : Number(m[1]) * 1000,
        count: Number(m[2]),
      }));
      const count = buckets.at(-1)?.count ?? 0;
      return { count, p99_ms_at_most: buckets.find((b) => b.count >= 0.99 * count)?.le ?? 0 };
    };
    const queueWait = p99("search_queue_wait_seconds_bucket", "");
    const search = ',route="/v1/providers/search"';
    const served = p99("http_request_duration_seconds_bucket", `${search},status="200"`);
    const shedServed = p99("http_request_duration_seconds_bucket", `${search},status="503"`);
    const waitP99Ms = queueWait.p99_ms_at_most;
    const admitted = percentiles(ok);
    const shed = percentiles(refused);
    const budgetMs = maxWaitMs + 2 * serviceMeanMs;
    const checks = {
      queue_wait_p99_within_budget: waitP99Ms <= maxWaitMs * 1.5,
      refusals_carry_retry_after: missingRetryAfter === 0,
      no_connection_errors: connectionErrors === 0 && wrk.errors === 0,
      no_other_statuses: other.size === 0,
      some_admitted: served.count > 0,
    };
    console.log(JSON.stringify({
      db,
      connections,
      seconds,
      search_workers: workers,
      max_wait_ms: maxWaitMs,
      wrk: {
        requests: wrk.requests,
        rps: wrk.rps,
        non2xx: wrk.non2xx,
        connection_errors: wrk.errors,
        p50_ms: wrk.p50_ms,
        p99_ms: wrk.p99_ms,
      },
      probes,
      probe_admitted: ok.length,
      probe_admitted_ms: admitted,
      probe_refused: refused.length,
      probe_refused_ms: shed,
      probe_other_statuses: Object.fromEntries(other),
      probe_connection_errors: connectionErrors,
      service_mean_ms: Math.round(serviceMeanMs * 10) / 10,
      queue_wait: queueWait,
      server_admitted: served,
      server_refused: shedServed,
      admitted_within_wait_budget_plus_service: served.p99_ms_at_most <= budgetMs,
      shed_wait_budget: metric('search_shed_total\\{reason="wait_budget"\\}'),
      shed_queue_full: metric('search_shed_total\\{reason="queue_full"\\}'),
      timeouts: metric('search_timeouts_total\\{where="queued"\\}') +
        metric('search_timeouts_total\\{where="running"\\}'),
      checks,
    }));
    return Object.values(checks).every(Boolean) ? 0 : 1;
  } finally {
    try {
      server.kill("SIGTERM");
    } catch { /* already gone */ }
    await server.status;
  }
}

if (import.meta.main) Deno.exit(await main());
