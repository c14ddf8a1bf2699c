/**
 * Where cold search time goes, in one thread without HTTP: the cold classes'
 * paths (`cold.ts`), built from providers read out of the database itself,
 * run through the engine (`search`) and the body renderer in this process,
 * each path once. Prints per class the engine's and the renderer's time
 * (mean, p50, p99, max) and the slowest paths, so a change can be judged
 * on CPU time before a full `deno task bench`. Run it under
 * `deno run --cpu-prof` for a profile. With `--dump FILE` it also writes
 * every answer (total, hits with scores and distances, facets) as NDJSON,
 * so that two versions of the engine can be compared answer for answer.
 *
 *     deno run -A bench/profile.ts --db FILE [--classes surname,org_words] [--paths 2000] [--mix]
 *
 * @module
 */
import { parseCli, runCli } from "../lib/cli.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { renderSearchBody } from "../lib/search/response.ts";
import { clock } from "../lib/deadline.ts";
import { allZips } from "../lib/geo/zip.ts";
import { Rng } from "../lib/demo/prng.ts";
import { specialtyIndex } from "../routes/specialties.ts";
import {
  COLD_TEXT_CLASSES,
  type ColdClass,
  coldPaths,
  harvested,
  type HarvestedProvider,
  type ResultRecord,
  shuffle,
} from "./cold.ts";
import { memorySplit } from "./proc.ts";

const USAGE =
  "Usage: deno run -A bench/profile.ts --db FILE [--classes A,B] [--paths N] [--pages N] [--seed S] [--mix] [--dump FILE]";

/** The classes this profiler can run: those of `/v1/providers/search`. */
const SEARCH_CLASSES: readonly ColdClass[] = [
  ...COLD_TEXT_CLASSES,
  "specialty_near",
  "specialty_state_facets",
  "name_near_sorted",
  "last_name_wildcard_state",
  "city_browse",
];

/** Timings of one path. */
interface Timed {
  path: string;
  engineMs: number;
  renderMs: number;
  total: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const f = (v: number) => v.toFixed(2).padStart(7);
  return `mean ${f(mean)}  p50 ${f(quantile(sorted, 0.5))}  p99 ${f(quantile(sorted, 0.99))}  max ${
    f(sorted.at(-1) ?? 0)
  }`;
}

/** Prints this process's anonymous and mapped memory and V8's heap, in MB. */
async function printMemory(when: string): Promise<void> {
  const split = await memorySplit(Deno.pid);
  const { heapUsed, external } = Deno.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1048576);
  console.log(
    `memory ${when}: ${split?.anonymous_mb ?? "?"} MB anonymous, ${
      split?.file_mb ?? "?"
    } MB mapped; ` +
      `V8 heap ${mb(heapUsed)} MB, external ${mb(external)} MB`,
  );
}

if (import.meta.main) {
  await runCli(async () => {
    const args = parseCli(Deno.args, {
      string: ["db", "classes", "paths", "pages", "seed", "slowest", "dump"],
      boolean: ["mix"],
    });
    const store = openSearchableStore(args.db ?? "data/providers.db");
    while (store.warm());
    await printMemory("after opening and warming");
    const specialties = specialtyIndex(store);
    const pathsPer = Number(args.paths ?? 2000);
    const seed = Number(args.seed ?? 11);
    const slowest = Number(args.slowest ?? 5);

    // Providers from random ZIP pages, read in this process.
    const started = clock();
    const zips = shuffle(allZips().map((z) => z.zip), new Rng(seed));
    const providers: HarvestedProvider[] = [];
    let pages = 0;
    for (const zip of zips) {
      if (pages >= Number(args.pages ?? 1000)) break;
      const url = new URLSearchParams(`postal_code=${zip}&limit=100`);
      const cursorScope = { query: "", release: "" };
      const query = toSearchQuery(SEARCH_PARAMS.parse(url), { specialties, cursorScope, url });
      const page = store.search(query);
      if (page.hits.length === 0) continue;
      pages++;
      for (const text of store.providerJsonById(page.hits.map((h) => h.id))) {
        providers.push(harvested(JSON.parse(text) as ResultRecord));
      }
    }
    console.log(
      `harvest: ${providers.length} providers from ${pages} ZIP pages in ${
        ((clock() - started) / 1000).toFixed(1)
      } s`,
    );

    const classes = (args.classes?.split(",") ?? SEARCH_CLASSES) as ColdClass[];
    const answers: string[] = [];
    const run = (path: string): Timed => {
      const url = new URL(path, "http://x").searchParams;
      const cursorScope = { query: path, release: "" };
      const query = toSearchQuery(SEARCH_PARAMS.parse(url), { specialties, cursorScope, url });
      const t0 = clock();
      const page = store.search(query);
      const t1 = clock();
      renderSearchBody(store, { query, cursorScope, startedAt: t0 }, page);
      if (args.dump) answers.push(JSON.stringify({ path, ...page }));
      return { path, engineMs: t1 - t0, renderMs: clock() - t1, total: page.total };
    };
    const report = (name: string, timed: Timed[]) => {
      console.log(`\n${name} (${timed.length} paths)`);
      console.log(`  engine ${summary(timed.map((t) => t.engineMs))}`);
      console.log(`  render ${summary(timed.map((t) => t.renderMs))}`);
      for (const t of [...timed].sort((a, b) => b.engineMs - a.engineMs).slice(0, slowest)) {
        console.log(`    ${t.engineMs.toFixed(1).padStart(6)} ms  ${t.total}  ${t.path}`);
      }
    };
    const byClass = new Map(
      classes.map((c, i) => [c, coldPaths(c, providers, pathsPer, seed + i)]),
    );
    if (args.mix) {
      const mixed = shuffle([...byClass.values()].flat(), new Rng(seed));
      const t0 = clock();
      const timed = mixed.map(run);
      report(`mix of ${classes.join(", ")}`, timed);
      console.log(`  ${(timed.length / ((clock() - t0) / 1000)).toFixed(0)} searches/s`);
      console.log("caches", JSON.stringify(store.cacheCounters()));
      await printMemory("after the mix");
      if (args.dump) await Deno.writeTextFile(args.dump, answers.join("\n") + "\n");
      return await Promise.resolve();
    }
    for (const [cls, paths] of byClass) {
      const t0 = clock();
      const timed = paths.map(run);
      report(cls, timed);
      console.log(`  ${(timed.length / ((clock() - t0) / 1000)).toFixed(0)} searches/s`);
    }
    if (args.dump) await Deno.writeTextFile(args.dump, answers.join("\n") + "\n");
    console.log("caches", JSON.stringify(store.cacheCounters()));
  }, USAGE);
}
