/**
 * `deno task bench`: the performance benchmark. Builds (or reuses) a
 * synthetic NPPES-format dataset, times its import through the real
 * importer, serves it, drives the fixed query mix with wrk at 1 and 8
 * connections, compares /health with a bare Deno.serve, runs the same mix
 * against a PostgreSQL peer loaded from the same CSV, and writes
 * bench/results/<date>-<records>.{json,md,svg}. The last line printed is
 * one JSON summary.
 *
 * @module
 */
import { parseCli, runCli, UsageError } from "../lib/cli.ts";
import { writeDemoCsv } from "../lib/demo/csv.ts";
import { DEMO_GENERATOR_VERSION } from "../lib/demo/generate.ts";
import { ensureWrk, type LoadResult, runLoad } from "./load.ts";
import { exists, memoryOf, memorySplit, watchPeak } from "./proc.ts";
import { harvestProviders } from "./cold.ts";
import { COLD_SIZES, coldPlan, runCold } from "./cold_mix.ts";
import { coldMarkdown, type ColdRun, IDLE_SECONDS } from "./cold_report.ts";
import { probeMachine } from "./machine_probe.ts";
import {
  freePort,
  importCommand,
  ROOT,
  serverCommand,
  waitForStatus,
} from "../scripts/processes.ts";
import { CLASSES, type MixSamples, mixUrls, type QueryClass } from "./mix.ts";
import {
  type BenchResults,
  geometricMean,
  markdownReport,
  svgChart,
  TEXT_CLASSES,
} from "./report.ts";

const FULL_RECORDS = 9_726_865;
const QUICK_RECORDS = 200_000;

const USAGE = `Usage: deno task bench [--quick] [--records N] [--seconds S] [--no-peer] [--keep-db]
                        [--db FILE --cold-only]

  --quick        200,000 records (default: ${
  FULL_RECORDS.toLocaleString("en-US")
}, the 2026-08 NPPES size)
  --records N    dataset size
  --seconds S    measured seconds per class and concurrency (default 10; 2 s warm-up before each)
  --no-peer      skip the PostgreSQL peer
  --db FILE      with --cold-only: measure this database (no dataset, no import)
  --cold-only    only the cold classes (distinct URLs from the served data), no peer
  --classes A,B  with --cold-only: only these cold classes (and no text mix)
The dataset CSV is cached in bench/.cache/ by size and generator version.`;

function log(line: string): void {
  console.error(`[bench] ${line}`);
}

/** Writes (or reuses) the NPPES-format CSV of `records` synthetic providers. */
async function dataset(records: number): Promise<{ dir: string; files: Record<string, string> }> {
  const dir = `${ROOT}bench/.cache/${records}-g${DEMO_GENERATOR_VERSION}`;
  const marker = `${dir}/files.json`;
  if (await exists(marker)) {
    log(`reusing the cached dataset in ${dir}`);
    return { dir, files: JSON.parse(await Deno.readTextFile(marker)) };
  }
  log(`writing ${records.toLocaleString("en-US")} synthetic providers as NPPES CSV into ${dir}`);
  await Deno.mkdir(dir, { recursive: true });
  const started = performance.now();
  const { files } = await writeDemoCsv(dir, { records });
  const byKind = Object.fromEntries(files.map((f) => [f.kind, f.path]));
  await Deno.writeTextFile(marker, JSON.stringify(byKind));
  log(`dataset written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { dir, files: byKind };
}

/** Imports the CSV through the real importer in a subprocess, measuring time and peak RSS. */
async function timedImport(files: Record<string, string>, db: string, rows: number) {
  for (const suffix of ["", "-wal", "-shm"]) await Deno.remove(db + suffix).catch(() => {});
  const command = importCommand(
    db,
    { npidata: files.npidata!, othername: files.othername, pl: files.pl, endpoint: files.endpoint },
    { stdout: "piped", stderr: "inherit" },
  );
  log(`importing ${files.npidata} and its reference files into ${db}`);
  const started = performance.now();
  const child = command.spawn();
  const status = child.status;
  const [peak, result, output] = await Promise.all([
    watchPeak(child.pid, status),
    status,
    new Response(child.stdout).text(),
  ]);
  const seconds = (performance.now() - started) / 1000;
  if (!result.success) {
    throw new Error(`The import failed (exit ${result.code}): ${output.slice(-500)}`);
  }
  log(output.trim().split("\n").slice(0, 2).join(" | "));
  return { seconds, rows, rows_per_s: Math.round(rows / seconds), peak_rss_mb: peak };
}

/** Starts a server process; resolves when `readyPath` answers 200. */
async function startServer(script: string, env: Record<string, string>, readyPath: string) {
  const port = freePort();
  const started = performance.now();
  const child = serverCommand({ ...env, PORT: String(port) }, { script, stderr: "inherit" })
    .spawn();
  const base = `http://127.0.0.1:${port}`;
  await waitForStatus(`${base}${readyPath}`, { timeoutMs: 120_000 });
  return { child, base, readyMs: performance.now() - started };
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch { /* gone */ }
  await child.status;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  }
  return await response.json() as T;
}

interface SearchBody {
  total: number;
  next_cursor: string | null;
  results: { npi: string; individual: { last_name: string | null } | null }[];
}

/**
 * A surname of six letters or more held by one to three providers, with its
 * middle letter changed (within the typo budget): the first found under the
 * two-letter prefixes in a fixed order, rare initial letters first (the
 * start of the name order is all common surnames at full scale).
 */
async function rareSurnameWithTypo(search: string): Promise<string | null> {
  const letters = "zqxyvjkuoiwe" + "ptnlhgfdcbarsm";
  const seen = new Set<string>();
  for (const first of letters) {
    for (const second of letters) {
      const page = await getJson<SearchBody>(
        `${search}?last_name=${first}${second}*&entity_type=individual&limit=20`,
      );
      for (const r of page.results) {
        const last = r.individual?.last_name?.toLowerCase() ?? "";
        if (!/^[a-z]{6,}$/.test(last) || seen.has(last)) continue;
        seen.add(last);
        const count = (await getJson<SearchBody>(`${search}?last_name=${last}&limit=1`)).total;
        if (count >= 1 && count <= 3) {
          const i = Math.floor(last.length / 2);
          return last.slice(0, i) + (last[i] === "e" ? "a" : "e") + last.slice(i + 1);
        }
      }
    }
  }
  return null;
}

/** Picks the mix's sample values from the served dataset. */
async function pickSamples(base: string, records: number): Promise<MixSamples> {
  const search = `${base}/v1/providers/search`;
  const npi = (await getJson<SearchBody>(`${search}?limit=1&offset=${Math.min(1000, records - 1)}`))
    .results[0]!.npi;
  const rareSurnameTypo = await rareSurnameWithTypo(search) ?? "smiht";
  if (rareSurnameTypo === "smiht") {
    log("no surname of 6+ letters held by 1-3 providers found: rare_surname_typo uses 'smiht'");
  }
  let cursor: string | null = null;
  for (let page = 1; page < 50; page++) {
    const body: SearchBody = await getJson<SearchBody>(
      `${search}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    cursor = body.next_cursor;
    if (!cursor) break;
  }
  return { npi, rareSurnameTypo, deepCursor: cursor };
}

/**
 * One load run, checked against Little's law: mean latency × throughput must
 * be about the number of connections. A histogram that breaks it (seen once
 * per full run with wrk: a mean of 76 ms at 8,300 requests/s on 8
 * connections) is not a measurement; the run is repeated, twice at most.
 */
async function measure(url: string, connections: number, seconds: number): Promise<LoadResult> {
  let result = await runLoad(url, { connections, seconds });
  for (let attempt = 1; attempt <= 2 && !result.incomplete; attempt++) {
    const inFlight = (result.mean_ms / 1000) * result.rps;
    if (inFlight <= connections * 1.5) break;
    log(
      `inconsistent histogram on ${url} (mean ${result.mean_ms} ms × ${result.rps}/s = ${
        inFlight.toFixed(0)
      } in flight on ${connections} connections): measuring again`,
    );
    result = await runLoad(url, { connections, seconds });
  }
  return result;
}

/** Runs every class of the mix against `base` at 1 and 8 connections. */
async function runMix(
  base: string,
  urls: Record<QueryClass, string>,
  seconds: number,
  who: string,
) {
  const out = {} as Record<QueryClass, { c1: LoadResult; c8: LoadResult; totals: number | null }>;
  for (const c of CLASSES) {
    const url = `${base}${urls[c]}`;
    let totals: number | null = null;
    try {
      const body = await getJson<{ total?: number }>(url);
      totals = typeof body.total === "number" ? body.total : null;
    } catch (error) {
      log(`${who} ${c}: ${error instanceof Error ? error.message : error}`);
    }
    await runLoad(url, { connections: 8, seconds: 2 });
    const c1 = await measure(url, 1, seconds);
    const c8 = await measure(url, 8, seconds);
    log(
      `${who.padEnd(8)} ${c.padEnd(24)} total ${
        String(totals ?? "-").padStart(9)
      }  c1 p50 ${c1.p50_ms} p99 ${c1.p99_ms}  ` +
        `c8 p50 ${c8.p50_ms} p99 ${c8.p99_ms} ms, ${c8.rps} rps${
          c8.errors + c8.non2xx ? `, ${c8.errors + c8.non2xx} errors` : ""
        }`,
    );
    out[c] = { c1, c8, totals };
  }
  return out;
}

/**
 * `/health` against the bare server: three rounds, each measuring both
 * (in alternating order, so that a drift of the machine's speed during the
 * run falls on both sides); the round with the median ratio is reported.
 */
async function compareHealth(oursUrl: string, bareUrl: string, seconds: number) {
  const each = Math.max(4, Math.ceil(seconds / 2));
  await runLoad(oursUrl, { connections: 8, seconds: 2 });
  await runLoad(bareUrl, { connections: 8, seconds: 2 });
  const rounds: { ours: LoadResult; bare: LoadResult; ratio: number }[] = [];
  for (let round = 0; round < 3; round++) {
    const order = round % 2 === 0 ? [oursUrl, bareUrl] : [bareUrl, oursUrl];
    const [first, second] = [
      await runLoad(order[0]!, { connections: 8, seconds: each }),
      await runLoad(order[1]!, { connections: 8, seconds: each }),
    ];
    const [ours, bare] = round % 2 === 0 ? [first, second] : [second, first];
    rounds.push({ ours, bare, ratio: Math.round((ours.rps / bare.rps) * 100) / 100 });
  }
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[1]!;
  return { ...median, round_ratios: rounds.map((r) => r.ratio) };
}

/**
 * The cold classes against a database: a first server harvests values from
 * the served data, a fresh one (so the harvest warmed nothing) is measured.
 */
async function coldRun(
  db: string,
  seconds: number,
  only: readonly string[] | null,
  env: Record<string, string> = {},
): Promise<ColdRun> {
  const harvester = await startServer(`${ROOT}main.ts`, { PROVIDERS_DB: db }, "/v1/dataset");
  const harvest = await harvestProviders(harvester.base, { pages: 2000, seed: 17 });
  const { records } = await getJson<{ records: number }>(`${harvester.base}/v1/dataset`);
  await stop(harvester.child);
  log(`harvested ${harvest.providers.length} providers from ${harvest.pages} ZIP pages`);
  const plan = coldPlan(harvest.providers, COLD_SIZES, 1);
  const before = probeMachine();
  log(`this instance before the run: ${JSON.stringify(before)}`);
  const server = await startServer(`${ROOT}main.ts`, { ...env, PROVIDERS_DB: db }, "/v1/dataset");
  log(`cold server serving in ${server.readyMs.toFixed(0)} ms from start`);
  try {
    const results = await runCold(server.base, plan, { maxSeconds: seconds, log, only });
    const memory = await memorySplit(server.child.pid);
    log(`cold server memory after the cold run: ${JSON.stringify(memory)}`);
    const after = probeMachine();
    log(`this instance after the run: ${JSON.stringify(after)}`);
    // What the process keeps once its collectors have run: transient arrays are garbage until then.
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const memoryIdle = await memorySplit(server.child.pid);
    log(`cold server memory ${IDLE_SECONDS} s later, idle: ${JSON.stringify(memoryIdle)}`);
    return {
      records,
      harvest: { pages: harvest.pages, providers: harvest.providers.length },
      startup_ms: Math.round(server.readyMs),
      results,
      memory,
      memory_idle: memoryIdle,
      settings: env,
      machine: { before, after },
    };
  } finally {
    await stop(server.child);
  }
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, {
    string: ["records", "seconds", "db", "classes"],
    boolean: ["quick", "no-peer", "keep-db", "cold-only"],
  });
  if ((args as { help?: boolean }).help) {
    console.log(USAGE);
    return;
  }
  const records = args.records ? Number(args.records) : args.quick ? QUICK_RECORDS : FULL_RECORDS;
  const seconds = args.seconds ? Number(args.seconds) : 10;
  if (!Number.isInteger(records) || records < 1000) {
    throw new UsageError("--records must be an integer ≥ 1000");
  }
  if (!Number.isFinite(seconds) || seconds < 1) throw new UsageError("--seconds must be ≥ 1");
  await ensureWrk(log);
  if (args["cold-only"]) {
    if (!args.db) throw new UsageError("--cold-only needs --db FILE");
    const only = args.classes ? args.classes.split(",") : null;
    // The threads, memory and pinning settings to serve with, when set here (else the defaults).
    const env: Record<string, string> = {};
    for (
      const name of [
        "SEARCH_WORKERS",
        "SERVE_THREADS",
        "BUSY_TRIM_MS",
        "PIN_DATA_FILES",
        "HOLD_RECORDS",
        "DENO_V8_FLAGS",
      ]
    ) {
      const value = Deno.env.get(name);
      if (value) env[name] = value;
    }
    const cold = await coldRun(args.db, seconds, only, env);
    const { records } = cold;
    const name = `${ROOT}bench/results/${new Date().toISOString().slice(0, 10)}-${records}-cold`;
    await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
    await Deno.writeTextFile(`${name}.json`, JSON.stringify(cold, null, 2) + "\n");
    await Deno.writeTextFile(`${name}.md`, coldMarkdown(cold, records));
    log(`wrote ${name}.json and .md`);
    console.error(coldMarkdown(cold, records));
    console.log(JSON.stringify(cold));
    return;
  }

  const { dir, files } = await dataset(records);
  const db = `${dir}/providers.db`;
  const imported = await timedImport(files, db, records);
  log(
    `import: ${imported.rows_per_s} rows/s, ${
      imported.seconds.toFixed(1)
    } s, peak RSS ${imported.peak_rss_mb} MB`,
  );

  const cold = await coldRun(db, Math.max(seconds, 30), null);
  const ours = await startServer(`${ROOT}main.ts`, { PROVIDERS_DB: db }, "/v1/dataset");
  log(`serving in ${ours.readyMs.toFixed(0)} ms from start`);
  const samples = await pickSamples(ours.base, records);
  log(
    `samples: ${
      JSON.stringify({ ...samples, deepCursor: samples.deepCursor ? "(page 50)" : null })
    }`,
  );
  const oursUrls = mixUrls(samples);
  const classes = await runMix(ours.base, oursUrls, seconds, "ours");

  const bare = await startServer(`${ROOT}bench/bare_server.ts`, {}, "/");
  const health = await compareHealth(`${ours.base}/health`, `${bare.base}/`, seconds);
  const { ours: healthOurs, bare: healthBare } = health;
  await stop(bare.child);
  const memory = await memoryOf(ours.child.pid);
  await stop(ours.child);
  log(
    `/health ${healthOurs.rps} rps vs bare ${healthBare.rps} rps; serving RSS ${memory?.rss_mb} MB (peak ${memory?.peak_mb})`,
  );

  let peer: BenchResults["peer"] = null;
  if (!args["no-peer"]) {
    const { startPostgresPeer } = await import("./peer/postgres.ts");
    const started = await startPostgresPeer({
      csvDir: dir,
      workDir: `${dir}/postgres`,
      pgPort: freePort(),
      httpPort: freePort(),
      log: (line: string) => log(`peer: ${line}`),
    });
    try {
      const peerClasses = await runMix(
        started.url,
        mixUrls({ ...samples, deepCursor: null }),
        seconds,
        started.name,
      );
      const ratios = CLASSES.map((c) => peerClasses[c].c8.p99_ms / classes[c].c8.p99_ms);
      const textRatios = TEXT_CLASSES.map((c) => peerClasses[c].c8.p99_ms / classes[c].c8.p99_ms);
      peer = {
        name: started.name,
        load_seconds: started.loadSeconds,
        load_rows_per_s: started.loadRowsPerSecond,
        classes: peerClasses,
        p99_ratio: Math.round(geometricMean(ratios) * 10) / 10,
        text_p99_ratio: Math.round(Math.min(...textRatios) * 10) / 10,
      };
    } finally {
      await started.stop();
    }
  }

  const results: BenchResults = {
    date: new Date().toISOString().slice(0, 10),
    records,
    machine: {
      cpus: navigator.hardwareConcurrency,
      memory_gb: Math.round(Deno.systemMemoryInfo().total / 2 ** 30),
      deno: Deno.version.deno,
    },
    import: imported,
    startup_ms: Math.round(ours.readyMs),
    serve_rss_mb: memory?.rss_mb ?? 0,
    serve_peak_rss_mb: memory?.peak_mb ?? 0,
    health,
    classes,
    peer,
    cold,
  };
  if (!args["keep-db"] && records === FULL_RECORDS) {
    log(`the imported database stays in ${db} for reuse`);
  }
  const out = `${ROOT}bench/results`;
  await Deno.mkdir(out, { recursive: true });
  const name = `${out}/${results.date}-${records}`;
  await Deno.writeTextFile(`${name}.json`, JSON.stringify(results, null, 2) + "\n");
  await Deno.writeTextFile(`${name}.md`, markdownReport(results));
  await Deno.writeTextFile(`${name}.svg`, svgChart(results));
  log(`wrote ${name}.json, .md and .svg`);
  console.error(markdownReport(results));
  const summary = {
    records,
    classes: Object.fromEntries(
      CLASSES.map((
        c,
      ) => [c, {
        p50_ms: classes[c].c8.p50_ms,
        p99_ms: classes[c].c8.p99_ms,
        rps: classes[c].c8.rps,
      }]),
    ),
    health_vs_bare: results.health.ratio,
    import: { rows_per_s: imported.rows_per_s, peak_rss_mb: imported.peak_rss_mb },
    serve_rss_mb: results.serve_peak_rss_mb,
    startup_ms: results.startup_ms,
    peer: peer
      ? { name: peer.name, p99_ratio: peer.p99_ratio, text_p99_ratio: peer.text_p99_ratio }
      : null,
  };
  console.log(JSON.stringify(summary));
}

if (import.meta.main) await runCli(main, USAGE);
