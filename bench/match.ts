/**
 * `deno task bench:match`: roster matching throughput and precision. Builds
 * a damaged roster with known answers from a database's own records
 * (`lib/match/synthetic_roster.ts`), matches it in-process (what `deno task
 * match` does) and through a served `POST /v1/match` (in requests of
 * `--batch` rows), and reports rows/s, precision and recall, and the
 * server's memory.
 *
 * @module
 */
import { parseCli, runCli } from "../lib/cli.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { buildSpecialtyIndex, resolveSpecialty } from "../lib/taxonomy/resolve.ts";
import { type MatchResult, matchRows, RosterMatcher } from "../lib/match/matcher.ts";
import { damagedRoster, type LabelledRow, scoreRoster } from "../lib/match/synthetic_roster.ts";
import { csvLine } from "../lib/store/flat_records.ts";
import { ROSTER_FIELDS } from "../lib/match/roster_parse.ts";
import { freePort, ROOT, serverCommand, waitForStatus } from "../scripts/processes.ts";
import { memorySplit } from "./proc.ts";

const USAGE =
  `Usage: deno task bench:match [--db FILE] [--rows N] [--batch N] [--seed N] [--no-http]

  --db FILE   database to match against (default: $PROVIDERS_DB or data/providers.db)
  --rows N    roster rows (default 100000)
  --batch N   rows per POST /v1/match request (default 10000)
  --seed N    damage seed (default 1)
  --no-http   only the in-process run`;

function rosterCsv(rows: readonly LabelledRow[]): string {
  const fields = ROSTER_FIELDS;
  let text = csvLine([...fields]);
  for (const { row } of rows) {
    text += csvLine(fields.map((f) => f === "id" ? row.id : row.values[f] ?? ""));
  }
  return text;
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, {
    string: ["db", "rows", "batch", "seed"],
    boolean: ["no-http"],
  });
  if ((args as { help?: boolean }).help) return console.log(USAGE);
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const count = Number(args.rows ?? 100_000);
  const batch = Number(args.batch ?? 10_000);
  const seed = Number(args.seed ?? 1);

  const store = openSearchableStore(db);
  while (store.warm());
  const records = store.dataset().records;
  const step = Math.max(1, Math.floor(records / count));
  const ids = Array.from({ length: Math.min(count, records) }, (_, i) => 1 + i * step);
  const providers = [];
  for (let i = 0; i < ids.length; i += 1000) {
    for (const { provider } of store.getProvidersById(ids.slice(i, i + 1000))) {
      if (provider.status === "active") providers.push(provider);
    }
  }
  const roster = damagedRoster(providers, seed);
  console.error(`roster: ${roster.length} rows from ${records.toLocaleString("en-US")} records`);

  const specialties = buildSpecialtyIndex(store.taxonomy());
  const matcher = new RosterMatcher({
    find: (q) => store.search(q),
    records: (list) => store.getProvidersById(list),
    resolveSpecialty: (words) => {
      const r = resolveSpecialty(specialties, words);
      return r.ok ? r.codes : null;
    },
  });
  const started = performance.now();
  const results: MatchResult[] = [];
  for await (const r of matchRows(roster.map((x) => x.row), matcher)) results.push(r);
  const seconds = (performance.now() - started) / 1000;
  const score = scoreRoster(roster, results);
  const inProcess = {
    rows: results.length,
    seconds: Math.round(seconds * 100) / 100,
    rows_per_s: Math.round(results.length / seconds),
    precision: score.precision,
    recall: Math.round(score.recall * 1000) / 1000,
    wrong: score.wrong.length,
    counts: matcher.counts,
    by_damage: score.byDamage,
  };
  store.close();
  console.error(`in-process: ${JSON.stringify(inProcess)}`);

  let http: Record<string, unknown> | null = null;
  if (!args["no-http"]) {
    const port = freePort();
    const child = serverCommand({
      PROVIDERS_DB: db,
      PORT: String(port),
      MATCH_MAX_ROWS: String(batch),
      MATCH_MAX_BYTES: String(256 * 1024 * 1024),
    }, { script: `${ROOT}main.ts`, stderr: "null", stdout: "null" }).spawn();
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitForStatus(`${base}/v1/dataset`, { timeoutMs: 600_000 });
      const before = await memorySplit(child.pid);
      const answers: MatchResult[] = [];
      let peakRss = 0;
      const t0 = performance.now();
      for (let i = 0; i < roster.length; i += batch) {
        const response = await fetch(`${base}/v1/match`, {
          method: "POST",
          headers: { "Content-Type": "text/csv" },
          body: rosterCsv(roster.slice(i, i + batch)),
        });
        if (!response.ok) {
          throw new Error(`POST /v1/match: ${response.status} ${await response.text()}`);
        }
        const lines = (await response.text()).trimEnd().split("\n");
        const summary = JSON.parse(lines.pop()!);
        if (!summary.complete) throw new Error(`incomplete answer: ${summary.error}`);
        answers.push(...lines.map((l) => JSON.parse(l) as MatchResult));
        const m = await memorySplit(child.pid);
        if (m) peakRss = Math.max(peakRss, m.rss_mb);
      }
      const httpSeconds = (performance.now() - t0) / 1000;
      const httpScore = scoreRoster(roster, answers);
      http = {
        rows: answers.length,
        batch,
        seconds: Math.round(httpSeconds * 100) / 100,
        rows_per_s: Math.round(answers.length / httpSeconds),
        precision: httpScore.precision,
        recall: Math.round(httpScore.recall * 1000) / 1000,
        wrong: httpScore.wrong.length,
        memory_before: before,
        memory_after: await memorySplit(child.pid),
        peak_rss_mb: peakRss,
      };
      console.error(`http: ${JSON.stringify(http)}`);
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
  }
  const result = { date: new Date().toISOString(), db, records, in_process: inProcess, http };
  const out = `${ROOT}bench/results/${result.date.slice(0, 10)}-${records}-match.json`;
  await Deno.writeTextFile(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
  console.error(`written to ${out}`);
}

if (import.meta.main) await runCli(main, USAGE);
