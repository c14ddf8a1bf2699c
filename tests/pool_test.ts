/**
 * The search worker pool: byte-identical answers, load shedding with 503 +
 * `Retry-After` when the queue is full, and true abandonment at the
 * deadline (the worker is terminated and replaced), plus the engine's own
 * deadline checks for in-process use.
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import { assertProblem, ownProcFile, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SearchPool, type SearchPoolOptions } from "../lib/search/pool.ts";
import { renderSearchBody, type SearchJob } from "../lib/search/response.ts";
import type { SearchPage } from "../lib/search/engine.ts";
import { renderBody } from "../lib/service/render.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";
import { searchQuery } from "../lib/search/query.ts";
import { clock, DeadlineError } from "../lib/deadline.ts";
import { readPartNames } from "../lib/store/parts.ts";
import { loadConfig } from "../lib/config.ts";

const dir = await Deno.makeTempDir();
const path = await searchFixtureDatabase(dir);

/** An app whose searches go through a fresh pool on the fixture database. */
async function poolApp(
  options: Partial<SearchPoolOptions> = {},
  config: { requestTimeoutMs?: number } = {},
  renderHere = false,
) {
  const store = openSearchableStore(path, { lazyIndex: true });
  const render = renderHere
    ? (job: SearchJob, page: SearchPage) => renderSearchBody(store, job, page)
    : undefined;
  const pool = await SearchPool.start({ path, workers: 1, queue: 64, render, ...options });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  return { app: testApp({ deps: { dataset }, config }), pool, dataset };
}

const withoutTook = (body: string) => body.replace(/,"took_ms":[0-9.e-]+\}$/, "}");

for (const renderHere of [false, true]) {
  const where = renderHere ? "rendered on the serving thread" : "rendered by the worker";
  Deno.test(`[pool] answers are byte-identical to in-process answers, ${where}`, async () => {
    const store = openSearchableStore(path);
    const local = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
    const { app, dataset } = await poolApp({}, {}, renderHere);
    try {
      const queries = [
        "",
        "q=smith",
        "q=smtih&limit=3",
        "q=kathleen%20o",
        "q=heart%20doctor&facets=state,taxonomy,sex,city,entity_type",
        "near=10001&radius=50&sort=distance",
        "state=NY,CA&facets=city",
        "last_name=smi*&limit=2",
        "include_deactivated=true&limit=100",
        "q=smith&limit=1",
      ];
      for (const query of queries) {
        const expected = await (await local.request(`/v1/providers/search?${query}`)).text();
        for (const round of ["first", "cached"]) {
          const response = await app.request(`/v1/providers/search?${query}`);
          assertEquals(response.status, 200, query);
          assertEquals(
            withoutTook(await response.text()),
            withoutTook(expected),
            `${query} (${round})`,
          );
        }
        // Paging with the cursor a pooled answer gave works the same.
        const next = JSON.parse(expected).next_cursor;
        if (next) {
          const url = `/v1/providers/search?${query}${query ? "&" : ""}cursor=${next}`;
          assertEquals(
            withoutTook(await (await app.request(url)).text()),
            withoutTook(await (await local.request(url)).text()),
          );
        }
      }
      // Invalid parameters are still 400s from the serving thread.
      await assertProblem(await app.request("/v1/providers/search?limit=0"), 400);
    } finally {
      await dataset.close();
      store.close();
    }
  });
}

Deno.test("[pool] an NPI Registry API answer asked again comes from the body cache, whole", async () => {
  const store = openSearchableStore(path, { lazyIndex: true });
  const pool = await SearchPool.start({
    path,
    workers: 1,
    queue: 8,
    render: (job, page) => renderBody(store, job, page),
  });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  const app = testApp({ deps: { dataset } });
  try {
    const url = "/api/?version=2.1&last_name=smith&limit=5";
    const first = await app.request(url);
    const firstBody = await first.text();
    const hits = pool.cacheCounters().bodies!.hits;
    const again = await app.request(url);
    assertEquals(await again.text(), firstBody);
    assertEquals(again.headers.get("X-Total-Count"), first.headers.get("X-Total-Count"));
    assert(Number(first.headers.get("X-Total-Count")) > 0);
    assertEquals(pool.cacheCounters().bodies!.hits, hits + 1);
  } finally {
    await dataset.close();
  }
});

Deno.test("[pool] a word union one worker builds serves the other", async () => {
  const pool = await SearchPool.start({ path, workers: 2, queue: 64 });
  const job = (words: string[], states?: string[]): SearchJob => ({
    query: searchQuery({ words, states, limit: 5 }),
    cursorScope: { query: "q", release: "r" },
    startedAt: clock(),
  });
  try {
    // A two-letter prefix stands for many providers: its union is built once and kept.
    await pool.page(job(["ma"]));
    const deadline = clock() + 20_000;
    while (pool.stats.sharedWordSets < 1 && clock() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert(pool.stats.sharedWordSets >= 1, "the union was handed over");
    const before = pool.cacheCounters().word_sets ?? { hits: 0, misses: 0 };
    // Two searches at once, one a worker, each narrowing the same word differently (no result
    // cache answers): both find the union kept, the worker that did not build it too.
    const pages = await Promise.all([
      pool.page(job(["ma"], ["NY"])),
      pool.page(job(["ma"], ["CA"])),
    ]);
    const after = pool.cacheCounters().word_sets!;
    assertEquals(after.hits - before.hits, 2, "both workers had the union");
    assertEquals(after.misses - before.misses, 0);
    const local = openSearchableStore(path);
    try {
      assertEquals(pages[0], local.search(job(["ma"], ["NY"]).query));
      assertEquals(pages[1], local.search(job(["ma"], ["CA"]).query));
    } finally {
      local.close();
    }
  } finally {
    await pool.close();
  }
});

Deno.test("[pool] workers share the index columns one of them read", async () => {
  // Read from SQLite (no index map: each worker would map the file itself).
  const local = openSearchableStore(path, { indexMap: false });
  const pool = await SearchPool.start({
    path,
    workers: 2,
    queue: 64,
    storeOptions: { indexMap: false },
  });
  try {
    // The first worker warms between searches and hands each column it reads to the other.
    const deadline = clock() + 20_000;
    while (pool.stats.sharedColumns < 6 && clock() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(
      pool.stats.sharedColumns,
      6,
      "city, lat, lon, tax_offsets, tax_codes, tax_primary",
    );
    // Only one worker reads them; the other waits for them (it would hold copies otherwise).
    await new Promise((resolve) => setTimeout(resolve, 300));
    assertEquals(pool.stats.columnReads, 6, "each column read once");
    // Another index of the file (the serving thread's) takes them instead of reading copies.
    const serving = openSearchableStore(path, {
      lazyIndex: true,
      sharedColumns: () => pool.columns,
      indexMap: false,
    });
    try {
      const lat = pool.columns.lat!;
      assert(lat.buffer instanceof SharedArrayBuffer);
      assert(serving.index.columnBytes().lat === lat, "adopted, not read again");
      assertEquals([...serving.index.lat.subarray(0, 50)], [...local.index.lat.subarray(0, 50)]);
    } finally {
      serving.close();
    }
    // Searches that read every shared column answer as in-process ones, from both workers.
    const queries = [
      searchQuery({ words: ["smith"], facets: ["city", "taxonomy"], limit: 5 }),
      searchQuery({ near: { lat: 40.75, lon: -73.99, radius: 80, unit: "km" }, limit: 5 }),
      searchQuery({ words: ["heart"], facets: ["taxonomy", "state"], limit: 5 }),
    ];
    for (const query of queries) {
      const want = local.search(query);
      const pages = await Promise.all(
        [1, 2].map(() =>
          pool.page({ query, cursorScope: { query: "q", release: "r" }, startedAt: clock() })
        ),
      );
      for (const page of pages) assertEquals(page, want);
    }
  } finally {
    await pool.close();
    local.close();
  }
});

Deno.test("[pool] every search is answered when answers overtake each other (mailbox and messages)", async () => {
  // Eight searches in flight, one running and one handed ahead: answers come through the mailbox
  // (read whenever a search is submitted) and, when it is full, as messages. An answer to the
  // search handed ahead read from the mailbox before the running one's message arrives must be
  // kept, not dropped (a dropped answer leaves its search, and every one queued behind, unanswered).
  const pool = await SearchPool.start({ path, workers: 1, queue: 64 });
  try {
    const words = ["smith", "jones", "lee", "garcia", "kim", "brown", "davis", "miller"];
    let next = 0, answered = 0;
    const one = async (): Promise<void> => {
      const k = next++;
      const query = searchQuery({ words: [words[k % words.length]!], limit: 1 + (k % 5) });
      await pool.page({ query, cursorScope: { query: `q${k}`, release: "r" }, startedAt: clock() });
      answered++;
    };
    const loop = async () => {
      while (next < 1_500) await one();
    };
    const all = Promise.all(Array.from({ length: 8 }, loop));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`stuck after ${answered} answers`)), 20_000);
    });
    try {
      await Promise.race([all, stuck]);
    } finally {
      clearTimeout(timer);
    }
    assertEquals(answered, 1_500, "every search was answered");
    assertEquals(pool.stats.queued, 0);
    assertEquals(pool.stats.busy, 0);
  } finally {
    // A pool with a search that will never be answered never drains: do not wait for it forever.
    await Promise.race([pool.close(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }
});

Deno.test("[pool] a worker refuses, unrun, a search it comes to after the time it had to start by", async () => {
  const worker = new Worker(new URL("../lib/search/search_worker.ts", import.meta.url).href, {
    type: "module",
  });
  const answers: { type: string; id?: number; startedAt?: number; ms?: number }[] = [];
  worker.onmessage = (event) => answers.push(event.data);
  try {
    worker.postMessage({
      type: "open",
      path,
      storeOptions: {},
      delayMs: 0,
      pages: true,
      columns: {},
      warmColumns: false,
    });
    const until = async (count: number) => {
      const end = clock() + 20_000;
      while (answers.length < count && clock() < end) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await until(1);
    assertEquals(answers[0]!.type, "ready");
    const job = {
      query: searchQuery({ words: ["smith"] }),
      cursorScope: { query: "q", release: "r" },
      startedAt: clock(),
    };
    const sent = clock();
    worker.postMessage({ type: "search", id: 1, job, deadline: sent + 10_000, startBy: sent - 1 });
    worker.postMessage({
      type: "search",
      id: 2,
      job,
      deadline: sent + 10_000,
      startBy: sent + 60_000,
    });
    await until(3);
    const [late, inTime] = answers.slice(1);
    assertEquals([late!.type, late!.id], ["overdue", 1]);
    assertEquals([inTime!.type, inTime!.id], ["page", 2]);
    // Answers say when the worker started each search, and how long it ran.
    assert(inTime!.startedAt! >= sent && inTime!.startedAt! <= clock(), "a start on the clock");
    assert(inTime!.ms! >= 0);
  } finally {
    worker.terminate();
  }
});

Deno.test("[pool] a worker told not to warm the columns reads none, nor any once given them", async () => {
  const messages = (warmColumns: boolean) => {
    const worker = new Worker(new URL("../lib/search/search_worker.ts", import.meta.url).href, {
      type: "module",
    });
    const seen: string[] = [];
    worker.onmessage = (event) => seen.push(event.data.type);
    worker.postMessage({
      type: "open",
      path,
      storeOptions: { shareColumns: true, indexMap: false },
      delayMs: 0,
      pages: true,
      columns: {},
      warmColumns,
    });
    return { worker, seen };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 400));
  const leader = messages(true), follower = messages(false);
  try {
    const end = clock() + 20_000;
    while (!(leader.seen.includes("ready") && follower.seen.includes("ready")) && clock() < end) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await settle();
    assertEquals(leader.seen.filter((t) => t === "columns").length > 0, true, "the leader reads");
    assertEquals(follower.seen, ["ready"], "the follower reads no column");
    // Given every column, it has none left to read (it would share what it read).
    const local = openSearchableStore(path, { shareColumns: true, indexMap: false });
    try {
      while (local.warm());
      follower.worker.postMessage({ type: "columns", columns: local.index.columnBytes() });
      await settle();
      assertEquals(follower.seen, ["ready"]);
    } finally {
      local.close();
    }
  } finally {
    leader.worker.terminate();
    follower.worker.terminate();
  }
});

Deno.test("[pool] a full queue sheds load with 503 overloaded and Retry-After", async () => {
  const { app, pool, dataset } = await poolApp({ queue: 1, workerDelayMs: 300 });
  try {
    const started = performance.now();
    const responses = await Promise.all(
      ["q=smith", "q=jones", "q=lee"].map((q) => app.request(`/v1/providers/search?${q}`)),
    );
    const statuses = responses.map((r) => r.status);
    assertEquals(statuses, [200, 200, 503], "one runs, one waits, one is refused");
    const refused = responses[2]!;
    assertEquals(refused.headers.get("retry-after"), "1");
    const problem = await assertProblem(refused, 503);
    assertEquals(problem.type, "/problems/overloaded");
    assert(/busy.*retry/.test(String(problem.detail)), String(problem.detail));
    for (const r of responses.slice(0, 2)) await r.body?.cancel();
    assert(performance.now() - started >= 550, "the queued search waited for the running one");
    assertEquals(pool.stats.queued, 0);
  } finally {
    await dataset.close();
  }
});

for (const stops of [true, false]) {
  const what = stops
    ? "its worker stops and takes the next search"
    : "a worker that does not stop is terminated and replaced";
  Deno.test(`[pool] a search past the timeout is abandoned: ${what}`, async () => {
    await abandonedAtDeadline(stops);
  });
}

async function abandonedAtDeadline(stops: boolean): Promise<void> {
  const { app: impatient, pool, dataset } = await poolApp(
    { workerDelayMs: 400, workerDelayStops: stops, stopGraceMs: 100 },
    { requestTimeoutMs: 150 },
  );
  const patient = testApp({ deps: { dataset }, config: { requestTimeoutMs: 5_000 } });
  try {
    const started = performance.now();
    const [running, queued] = await Promise.all([
      impatient.request("/v1/providers/search?q=smith"),
      impatient.request("/v1/providers/search?q=jones"),
    ]);
    const elapsed = performance.now() - started;
    for (const response of [running, queued]) {
      assertEquals(response.headers.get("retry-after"), "1");
      assertEquals((await assertProblem(response, 503)).type, "/problems/timeout");
    }
    assert(elapsed < 380, `answered at the deadline, not after the work (${elapsed} ms)`);
    // The queued search was dropped unrun; the running one's worker stopped (or, not stopping,
    // was replaced after the grace period).
    assertEquals(pool.stats.queued, 0);
    const replaced = stops ? 0 : 1;
    if (stops) {
      // Free before its 400 ms of work would have ended: it stopped when told.
      await until(() => pool.stats.busy === 0, "the worker to stop");
      const freed = performance.now() - started;
      assert(freed < 380, `the worker stopped when told, not after its work (${freed} ms)`);
    } else await until(() => pool.stats.replaced === 1, "the replacement");
    // The replacement answers the next request.
    const next = await patient.request("/v1/providers/search?q=smith");
    assertEquals(next.status, 200);
    assertEquals((await next.json()).results.length > 0, true);
    const {
      serviceMs: _s,
      serviceDeviationMs: _d,
      expectedWaitMs: _w,
      waitCalibration: _c,
      sharedColumns: _shared,
      columnReads: _reads,
      sharedWordSets: _sets,
      ...counts
    } = pool.stats;
    assertEquals(counts, { workers: 1, ready: 1, busy: 0, queued: 0, replaced });
  } finally {
    await dataset.close();
  }
}

async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("[pool] a database the workers cannot serve fails the start with a clear error", async () => {
  const bad = `${dir}/missing.db`;
  let error: unknown;
  try {
    await SearchPool.start({ path: bad, workers: 1, queue: 1 });
  } catch (e) {
    error = e;
  }
  assert(error instanceof Error && /does not exist/.test(error.message), String(error));
});

Deno.test("[pool] in-process searches stop at their deadline", () => {
  const store = openSearchableStore(path);
  try {
    const query = searchQuery({
      words: ["smith"],
      includeDeactivated: false,
      sort: "relevance",
      limit: 10,
    });
    assertThrows(() => store.search(query, { deadline: clock() - 1 }), DeadlineError);
    assert(store.search(query, { deadline: clock() + 10_000 }).total > 0);
  } finally {
    store.close();
  }
});

Deno.test("[pool] SEARCH_WORKERS and SEARCH_QUEUE are validated", () => {
  assertEquals(loadConfig({ SEARCH_WORKERS: "0", SEARCH_QUEUE: "5" }).searchWorkers, 0);
  assertEquals(loadConfig({ SEARCH_QUEUE: "5" }).searchQueue, 5);
  assert(loadConfig({}).searchWorkers >= 1);
  const error = assertThrows(
    () => loadConfig({ SEARCH_WORKERS: "many", SEARCH_QUEUE: "-1" }),
    TypeError,
  );
  assert(/SEARCH_WORKERS must be an integer from 0 to 64, got 'many'/.test(error.message));
  assert(/SEARCH_QUEUE must be an integer from 0 to 100000, got '-1'/.test(error.message));
});

globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch { /* already gone */ }
});

Deno.test({
  name: "[pool] workers read the index map in place and let go of it when the pool closes",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // A database of its own: no other test's store maps it.
    const own = await Deno.makeTempDir();
    try {
      const db = await searchFixtureDatabase(own);
      const map = readPartNames(db)!.map!;
      // This process's mappings of the map.
      const mappings = async () => {
        const lines = (await ownProcFile("maps")).split("\n");
        assert(lines.length > 10, "the process's mappings are read");
        return lines.filter((l) => l.endsWith(`/${map}`)).length;
      };
      assertEquals(await mappings(), 0);
      const pool = await SearchPool.start({ path: db, workers: 2, queue: 8 });
      try {
        assertEquals(await mappings(), 2, "each worker maps the file once");
      } finally {
        await pool.close();
      }
      const end = clock() + 5_000;
      while (await mappings() > 0 && clock() < end) await new Promise((r) => setTimeout(r, 20));
      assertEquals(await mappings(), 0, "closed workers unmap it (their collections never come)");
    } finally {
      await Deno.remove(own, { recursive: true });
    }
  },
});
