/**
 * `deno task bench:pair --base DIR [--db FILE] [--base-db FILE] [--classes a,b] [--count N]`:
 * this tree's search engine against another checkout's (`DIR`, made with
 * `git worktree add DIR <revision>`), side by side in one process. Each
 * opens its own store on the same database; the cold classes' URLs (built
 * from providers read out of the database, as `deno task bench` builds
 * them) are searched by both, in alternating order, URL after URL, so that
 * the drift of a shared host's speed (a third from hour to hour here)
 * falls on both alike where two full runs an hour apart cannot tell 10%
 * apart. Prints each class's engine time a search for both and their
 * ratio, and how many answers differ (total, page, facets): a change meant
 * to be faster is checked for the same answers in the same run. With
 * `--base-db`, the base side opens another file of the same data (a
 * change to what is derived beside a database: `--base .` then compares
 * the two files under this tree's code).
 *
 * The other checkout's modules are loaded through this tree's import map:
 * a revision with other dependencies may not load.
 *
 * @module
 */
import { parseCli, runCli, UsageError } from "../lib/cli.ts";
import { COLD_TEXT_CLASSES, type ColdClass, coldPaths, harvestPages } from "./cold.ts";
import type { ResultRecord } from "./cold.ts";

const USAGE =
  `Usage: deno task bench:pair --base DIR [--db FILE] [--base-db FILE] [--classes a,b] [--count N]

  --base DIR     another checkout of this repository (git worktree add DIR <revision>)
  --db FILE      the database (default: $PROVIDERS_DB or data/providers.db)
  --base-db FILE the database the base opens (default: --db), built from the same data
  --classes a,b  cold classes of /v1/providers/search (default: the six text classes)
  --count N      URLs measured per class (default 1500), after 300 others warm both up`;

/** URLs of each class that warm both engines up before any is timed. */
const WARM = 300;

/** One tree's engine over a database: a search of a path, timed, and its answer as text. */
export interface Engine {
  search(path: string): { ms: number; answer: string };
  /** The first 100 records of a ZIP, as the search route lists them. */
  zipPage(zip: string): ResultRecord[];
  close(): void;
}

/**
 * Loads the search engine of the tree at `root` (a folder's URL: this
 * one's, or another checkout's) and opens `db` with it, without a result
 * cache.
 */
export async function engineAt(root: URL, db: string): Promise<Engine> {
  const at = (path: string) => new URL(path, root).href;
  const { openSearchableStore } = await import(at("lib/search/searcher.ts"));
  const { SEARCH_PARAMS, toSearchQuery } = await import(at("lib/search/params.ts"));
  const { specialtyIndex } = await import(at("routes/specialties.ts"));
  const store = openSearchableStore(db, { resultCacheBytes: 0 });
  while (store.warm());
  const specialties = specialtyIndex(store);
  const run = (path: string) => {
    const url = new URL(path, "http://bench").searchParams;
    const cursorScope = { query: path, release: "" };
    const query = toSearchQuery(SEARCH_PARAMS.parse(url), { specialties, cursorScope, url });
    const started = performance.now();
    const page = store.search(query);
    return { ms: performance.now() - started, page };
  };
  return {
    search(path) {
      const { ms, page } = run(path);
      const { total, hits, next, facets } = page;
      return { ms, answer: JSON.stringify({ total, hits, next, facets }) };
    },
    zipPage(zip) {
      const { page } = run(`/v1/providers/search?postal_code=${zip}&limit=100`);
      const ids = page.hits.map((h: { id: number }) => h.id);
      return store.providerJsonById(ids).map((json: string) => JSON.parse(json));
    },
    close: () => store.close(),
  };
}

/** Each class's mean engine time a search on both sides, and the answers that differ. */
export interface PairResult {
  cls: string;
  urls: number;
  ms: number;
  baseMs: number;
  differ: number;
}

/**
 * Times `paths` on `engine` and `base`, each path on both, the first of
 * the two alternating; `warm` paths of each class are searched by both
 * untimed first.
 */
export function comparePaths(
  engine: Engine,
  base: Engine,
  paths: Record<string, { warm: string[]; timed: string[] }>,
): PairResult[] {
  for (const { warm } of Object.values(paths)) {
    for (const path of warm) {
      engine.search(path);
      base.search(path);
    }
  }
  // Classes interleaved, as the text mix asks them.
  const order = Object.entries(paths).flatMap(([cls, { timed }]) =>
    timed.map((path, i) => ({ cls, path, i }))
  ).sort((a, b) => a.i - b.i);
  const sums = new Map<string, PairResult>();
  // Which engine goes first alternates within each class (the second meets what the first left in
  // the processor's caches).
  order.forEach(({ cls, path, i }) => {
    const first = i % 2 === 0;
    const a = first ? engine.search(path) : undefined;
    const b = base.search(path);
    const c = a ?? engine.search(path);
    const sum = sums.get(cls) ?? { cls, urls: 0, ms: 0, baseMs: 0, differ: 0 };
    sum.urls++;
    sum.ms += c.ms;
    sum.baseMs += b.ms;
    if (c.answer !== b.answer) sum.differ++;
    sums.set(cls, sum);
  });
  return [...sums.values()].map((s) => ({ ...s, ms: s.ms / s.urls, baseMs: s.baseMs / s.urls }));
}

/** The markdown table of a comparison, with every class together last. */
export function pairMarkdown(results: readonly PairResult[], base: string): string {
  const urls = results.reduce((n, r) => n + r.urls, 0);
  const all: PairResult = {
    cls: "all",
    urls,
    ms: results.reduce((t, r) => t + r.ms * r.urls, 0) / urls,
    baseMs: results.reduce((t, r) => t + r.baseMs * r.urls, 0) / urls,
    differ: results.reduce((n, r) => n + r.differ, 0),
  };
  const lines = [
    `| class | URLs | this tree | ${base} | ratio | answers that differ |`,
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const r of [...results, all]) {
    lines.push(
      `| ${r.cls} | ${r.urls} | ${r.ms.toFixed(3)} ms | ${r.baseMs.toFixed(3)} ms | ${
        (r.ms / r.baseMs).toFixed(3)
      } | ${r.differ} |`,
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, {
    string: ["base", "db", "base-db", "classes", "count"],
    boolean: [],
  });
  if ((args as { help?: boolean }).help) {
    console.log(USAGE);
    return;
  }
  if (!args.base) throw new UsageError("Name the other checkout: --base DIR");
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const count = Number(args.count ?? 1500);
  if (!Number.isInteger(count) || count < 1) throw new UsageError("--count takes a whole number");
  const classes = (args.classes?.split(",") ?? [...COLD_TEXT_CLASSES]) as ColdClass[];
  let baseRoot: URL;
  try {
    baseRoot = new URL(`${Deno.realPathSync(args.base)}/`, "file:///");
  } catch {
    throw new UsageError(`No checkout at '${args.base}': git worktree add ${args.base} <revision>`);
  }
  const engine = await engineAt(new URL("..", import.meta.url), db);
  const base = await engineAt(baseRoot, args["base-db"] ?? db);
  try {
    const { providers } = await harvestPages((zip) => Promise.resolve(engine.zipPage(zip)), {
      pages: 2000,
      seed: 1,
    });
    const paths: Record<string, { warm: string[]; timed: string[] }> = {};
    for (const cls of classes) {
      const all = coldPaths(cls, providers, WARM + count, 7);
      if (!all[0]?.startsWith("/v1/providers/search?")) {
        throw new UsageError(`'${cls}' is not a cold class of /v1/providers/search`);
      }
      paths[cls] = { warm: all.slice(0, WARM), timed: all.slice(WARM) };
    }
    console.log(pairMarkdown(comparePaths(engine, base, paths), args.base));
  } finally {
    engine.close();
    base.close();
  }
}

if (import.meta.main) await runCli(main, USAGE);
