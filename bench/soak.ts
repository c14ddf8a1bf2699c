/**
 * `deno task soak`: saturating load against a running service for a set
 * time, in windows. Each window reports latency percentiles, throughput,
 * errors and the server's RSS. It fails (exit 1) on any error or non-2xx,
 * or when RSS grows more than 10% after the warm-up window.
 *
 * @module
 */
import { parseCli, runCli, UsageError } from "../lib/cli.ts";
import { ensureWrk } from "./load.ts";
import { memoryOf } from "./proc.ts";
import { freePort, ROOT, serverCommand, waitForStatus } from "../scripts/processes.ts";

const USAGE = `Usage: deno task soak [--db FILE] [--minutes M] [--window S] [--connections C]

  --db FILE        database to serve (default data/providers.db; built with the demo when missing)
  --minutes M      total duration (default 10)
  --window S       seconds per window (default 30)
  --connections C  concurrent connections (default 16)`;

/** The rotating request mix: many distinct queries, so caches do not hide the work. */
function paths(): string[] {
  const words = [
    "smith",
    "johnson",
    "garcia",
    "nguyen",
    "patel",
    "jo",
    "mar",
    "memorial",
    "family",
    "dental",
    "nurse",
    "cardiology",
    "smtih",
    "jonson",
    "pediatric",
    "pharmacy",
    "clinic",
    "therapy",
    "lee",
    "kim",
  ];
  const zips = [
    "10001",
    "60601",
    "90012",
    "77002",
    "33101",
    "98101",
    "02108",
    "30303",
    "85004",
    "19103",
  ];
  const states = ["CA", "TX", "NY", "FL", "IL", "PA", "OH", "GA", "NC", "MI"];
  const out: string[] = ["/health"];
  for (const [i, w] of words.entries()) {
    out.push(`/v1/providers/search?q=${w}`);
    out.push(`/v1/providers/search?q=${w}&state=${states[i % states.length]}&facets=city,taxonomy`);
    out.push(`/v1/providers/search?q=${w}&near=${zips[i % zips.length]}&radius=${5 + i * 3}`);
    out.push(`/v1/providers/search?q=${w}&offset=${i * 7}&limit=${5 + i}`);
  }
  for (const [i, z] of zips.entries()) {
    out.push(`/v1/providers/search?specialty=family%20medicine&near=${z}&radius=${10 + i}`);
    out.push(`/v1/providers/search?specialty=dentist&state=${states[i]}&facets=city,sex`);
    out.push(`/v1/providers/search?last_name=${words[i]!.slice(0, 3)}*&state=${states[i]}`);
    out.push(`/v1/providers/search?offset=${i * 900}&limit=20`);
  }
  out.push(
    "/v1/dataset",
    "/v1/specialties?q=cardio",
    "/v1/providers/search?q=",
    "/v1/providers/search?limit=0",
  );
  return out;
}

function luaScript(list: readonly string[]): string {
  const entries = list.map((p) => `"${p.replaceAll('"', '\\"')}"`).join(",\n  ");
  return `
local paths = {
  ${entries}
}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('@@{"requests":%d,"duration_us":%d,"errors":%d,"non2xx":%d,"p50":%d,"p99":%d,"max":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, {
    string: ["db", "minutes", "window", "connections"],
    boolean: [],
  });
  if ((args as { help?: boolean }).help) return console.log(USAGE);
  const minutes = Number(args.minutes ?? 10), window = Number(args.window ?? 30);
  const connections = Number(args.connections ?? 16);
  if (!(minutes > 0) || !(window >= 5) || !(connections >= 1)) {
    throw new UsageError("minutes > 0, window ≥ 5, connections ≥ 1");
  }
  await ensureWrk(console.error);
  const port = freePort();
  const server = serverCommand(
    { PORT: String(port), PROVIDERS_DB: args.db ?? `${ROOT}data/providers.db` },
    { stderr: "inherit" },
  ).spawn();
  const base = `http://127.0.0.1:${port}`;
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  const list = paths();
  await Deno.writeTextFile(script, luaScript(list));
  let failed = false;
  try {
    await waitForStatus(`${base}/v1/dataset`, { timeoutMs: 180_000 });
    const windows = Math.max(2, Math.round((minutes * 60) / window));
    console.log(
      `soak: ${windows} windows of ${window} s, ${connections} connections, ${list.length} distinct requests`,
    );
    console.log("window  requests     rps   p50 ms   p99 ms   max ms  errors  rss MB");
    const rss: number[] = [];
    let errors = 0;
    for (let w = 1; w <= windows; w++) {
      const { stdout } = await new Deno.Command("wrk", {
        args: [`-t2`, `-c${connections}`, `-d${window}s`, "--timeout", "10s", "-s", script, base],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const line = new TextDecoder().decode(stdout).split("\n").find((l) => l.startsWith("@@"));
      if (!line) throw new Error("wrk printed no summary");
      const r = JSON.parse(line.slice(2)) as Record<string, number>;
      const m = await memoryOf(server.pid);
      rss.push(m?.rss_mb ?? 0);
      // Deliberate 400s in the mix (q= and limit=0) are expected; wrk counts them as non-2xx.
      const expected400 = Math.round(r.requests! * (2 / list.length));
      const bad = r.errors! + Math.max(0, r.non2xx! - expected400 * 1.2);
      errors += r.errors!;
      console.log(
        [
          String(w).padStart(6),
          String(r.requests).padStart(9),
          (r.requests! / (r.duration_us! / 1e6)).toFixed(0).padStart(7),
          (r.p50! / 1000).toFixed(2).padStart(8),
          (r.p99! / 1000).toFixed(2).padStart(8),
          (r.max! / 1000).toFixed(1).padStart(8),
          String(Math.round(bad)).padStart(7),
          String(m?.rss_mb ?? "?").padStart(7),
        ].join(" "),
      );
      if (bad > 0) failed = true;
    }
    const warm = rss[1] ?? rss[0]!;
    const last = rss.at(-1)!;
    const growth = (last - warm) / warm;
    console.log(
      `errors: ${errors}; RSS after warm-up ${warm} MB, at the end ${last} MB (${
        (growth * 100).toFixed(1)
      }%)`,
    );
    if (growth > 0.1) {
      console.log("FAIL: RSS grew more than 10% after warm-up");
      failed = true;
    }
    console.log(failed ? "soak: FAILED" : "soak: passed");
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await Deno.remove(script);
  }
  if (failed) Deno.exit(1);
}

if (import.meta.main) await runCli(main, USAGE);
