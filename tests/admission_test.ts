/**
 * Admission by waiting time: a search is refused (503 `overloaded` with
 * `Retry-After`) when its expected wait — the work ahead of it (queued
 * searches × their shape's recent service time, plus what the running ones
 * have left) ÷ workers — is over `SEARCH_MAX_WAIT_MS`, not only
 * when the queue is full, so the admitted ones are answered in bounded
 * time; the refusals, waits and timeouts reach the pool's observer.
 */
import {
  assert,
  assertAlmostEquals,
  assertEquals,
  assertGreater,
  assertMatch,
  assertThrows,
} from "@std/assert";
import { assertProblem, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { type PoolObserver, SearchPool, type SearchPoolOptions } from "../lib/search/pool.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { loadConfig } from "../lib/config.ts";
import { searchShape, ServiceTimes, WaitCalibration } from "../lib/search/service_times.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";

const dir = await Deno.makeTempDir();
const path = await searchFixtureDatabase(dir);

/** Counts of what the pool told its observer. */
function countingObserver() {
  const counts = {
    shed_queue_full: 0,
    shed_wait_budget: 0,
    shed_overdue: 0,
    timedOut: 0,
    abandoned: 0,
  };
  const waits: number[] = [];
  const observer: PoolObserver = {
    waited: (ms) => waits.push(ms),
    shed: (reason) => counts[`shed_${reason}`]++,
    timedOut: () => counts.timedOut++,
    abandoned: () => counts.abandoned++,
  };
  return { counts, waits, observer };
}

async function poolApp(options: Partial<SearchPoolOptions>, requestTimeoutMs = 10_000) {
  const store = openSearchableStore(path, { lazyIndex: true });
  const pool = await SearchPool.start({ path, workers: 1, queue: 64, ...options });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  return { app: testApp({ deps: { dataset }, config: { requestTimeoutMs } }), pool, dataset };
}

/** Distinct searches (the body cache must not answer them). */
const QUERIES = ["smith", "jones", "lee", "garcia", "brown", "kim", "patel", "nguyen", "o", "a"];

Deno.test("[admission] searches over the wait budget are refused; the admitted ones finish in time", async () => {
  const { counts, waits, observer } = countingObserver();
  const { app, pool, dataset } = await poolApp({ workerDelayMs: 100, maxWaitMs: 250, observer });
  try {
    // Searches teach the pool its service time (at least the 100 ms delay; a new worker's first
    // search can take longer on a busy machine, which shortens the queue the budget admits).
    for (const q of ["warmup", "warmer", "warmest"]) {
      await (await app.request(`/v1/providers/search?q=${q}`)).body?.cancel();
    }
    assertGreater(pool.stats.serviceMs, 90);

    const started = performance.now();
    const timed = await Promise.all(QUERIES.map(async (q) => {
      const response = await app.request(`/v1/providers/search?q=${q}`);
      return { response, ms: performance.now() - started };
    }));
    const admitted = timed.filter((t) => t.response.status === 200);
    const refused = timed.filter((t) => t.response.status === 503);
    assertEquals(admitted.length + refused.length, QUERIES.length);
    // One runs at once; at most two more fit the 250 ms budget at 100 ms or more each (how many
    // depends on the learnt time and its deviation); the rest are refused.
    const learnt = `service ${pool.stats.serviceMs} ± ${pool.stats.serviceDeviationMs} ms`;
    assert(admitted.length >= 1 && admitted.length <= 3, `admitted ${admitted.length}, ${learnt}`);
    for (const { response, ms } of refused) {
      // Before any search could have finished: refused at once, not after waiting.
      assert(ms < 100, `refused after ${ms} ms, ${learnt}`);
      assertMatch(response.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
      const problem = await assertProblem(response, 503);
      assertEquals(problem.type, "/problems/overloaded");
      assertMatch(String(problem.detail), /wait about \d+ ms .* over the 250 ms budget/);
    }
    for (const { response, ms } of admitted) {
      await response.body?.cancel();
      // Budget plus the search's own service time, with slack for a shared machine.
      assert(ms < 250 + 100 + 200, `an admitted search took ${ms} ms`);
    }
    assertEquals(counts.shed_wait_budget, refused.length);
    assertEquals(counts.shed_queue_full, 0);
    for (const wait of waits) assert(wait < 400, `waited ${wait} ms`);
    assertEquals(pool.stats.queued, 0);
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] with the budget off, only the queue length sheds", async () => {
  const { counts, observer } = countingObserver();
  const { app, dataset } = await poolApp({ workerDelayMs: 30, maxWaitMs: 0, queue: 5, observer });
  try {
    await (await app.request("/v1/providers/search?q=warmup")).body?.cancel();
    const responses = await Promise.all(
      QUERIES.map((q) => app.request(`/v1/providers/search?q=${q}`)),
    );
    const statuses = responses.map((r) => r.status);
    // One runs, five wait, four are refused for the full queue.
    assertEquals(statuses.filter((s) => s === 200).length, 6);
    assertEquals(statuses.filter((s) => s === 503).length, 4);
    for (const r of responses) await r.body?.cancel();
    assertEquals(counts.shed_queue_full, 4);
    assertEquals(counts.shed_wait_budget, 0);
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] the expected wait follows the queue and the service time", async () => {
  const { pool, dataset, app } = await poolApp({ workerDelayMs: 80, maxWaitMs: 10_000 });
  try {
    assertEquals(pool.stats.expectedWaitMs, 0, "a free worker: no wait");
    await (await app.request("/v1/providers/search?q=warmup")).body?.cancel();
    const { serviceMs, serviceDeviationMs } = pool.stats;
    assertEquals(serviceDeviationMs, serviceMs / 2, "the deviation starts at half the first");
    const started = performance.now();
    const pending = QUERIES.slice(0, 4).map((q) => app.request(`/v1/providers/search?q=${q}`));
    // One running, three queued (all of the warm-up's shape): a fourth waits for what the running
    // one has left of the mean (at least the deviation) and three whole ones, plus twice the
    // deviation of that sum (four deviations, added as squares). No search has waited yet, so the
    // calibration is 1.
    assertEquals(pool.stats.queued, 3);
    assertEquals(pool.stats.waitCalibration, 1);
    const expected = pool.stats.expectedWaitMs;
    const elapsed = performance.now() - started;
    const spread = 2 * Math.sqrt(4 * serviceDeviationMs ** 2);
    const most = 3 * serviceMs + Math.max(serviceMs, serviceDeviationMs) + spread;
    const least = 3 * serviceMs + Math.max(serviceMs - elapsed, serviceDeviationMs) + spread;
    assert(
      expected <= most + 1e-9 && expected >= least - 1e-9,
      `expected ${expected} ms: service ${serviceMs} ms, ${elapsed} ms into the running one`,
    );
    for (const r of await Promise.all(pending)) await r.body?.cancel();
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] service times are estimated per query shape", () => {
  const times = new ServiceTimes();
  assertEquals(times.estimate("near:512|facets:5", 250), { ms: 250, deviationMs: 0 });
  times.add("near:512|facets:5", 100);
  times.add("q1", 2);
  // Each shape has its own; an unseen shape takes the overall average.
  assertEquals(times.estimate("near:512|facets:5"), { ms: 100, deviationMs: 50 });
  assertEquals(times.estimate("q1"), { ms: 2, deviationMs: 1 });
  const overall = times.overall!;
  assertEquals(times.estimate("states"), overall);
  assert(overall.ms > 2 && overall.ms < 100);
  for (let i = 0; i < 40; i++) times.add("q1", 4);
  assertAlmostEquals(times.estimate("q1").ms, 4, 0.01);
  assertAlmostEquals(times.estimate("near:512|facets:5").ms, 100, 1e-9);

  const url = (text: string) => new URLSearchParams(text);
  const shapeOf = (text: string) => {
    const params = SEARCH_PARAMS.parse(url(text));
    return searchShape(
      toSearchQuery(params, {
        specialties: { resolve: () => null } as never,
        cursorScope: { query: text, release: "test" },
        url: url(text),
      }),
    );
  };
  assertEquals(shapeOf("near=10001&radius=300&facets=state,city"), "near:512|facets:2");
  assertEquals(shapeOf("near=10001&radius=12&unit=km"), "near:8");
  assertEquals(shapeOf("q=john+smith&state=NY&limit=100"), "q2|states");
  // Paging and sorting do not change the shape; the work that finds the set does.
  assertEquals(shapeOf("q=smith&offset=20&sort=name"), shapeOf("q=smith"));
  assertEquals(shapeOf(""), "browse");
});

Deno.test("[admission] estimated waits are calibrated by the waits seen", () => {
  const calibration = new WaitCalibration();
  calibration.observe(0, 500); // A search that did not queue tells nothing.
  for (let i = 0; i < 7; i++) calibration.observe(100, 300);
  assertEquals(calibration.factor, 1, "not before eight waits");
  calibration.observe(100, 300);
  assertEquals(calibration.factor, 3);
  // The 99th percentile of the last 64: estimates that ran long 1 time in 10 set the factor.
  for (let i = 0; i < 64; i++) calibration.observe(100, i % 10 === 0 ? 180 : 50);
  assertEquals(calibration.factor, 1.8);
  for (let i = 0; i < 64; i++) calibration.observe(100, 10);
  assertEquals(calibration.factor, 0.5, "never below half");
  for (let i = 0; i < 64; i++) calibration.observe(100, 300);
  assertEquals(calibration.factor, 3, "three times the estimate");
  for (let i = 0; i < 64; i++) calibration.observe(100, 1000);
  assertEquals(calibration.factor, 4, "never above four");
});

Deno.test("[admission] timeouts while queued are reported as such", async () => {
  const { counts, observer } = countingObserver();
  const { app, dataset } = await poolApp({ workerDelayMs: 300, observer }, 150);
  try {
    const responses = await Promise.all(
      ["q=smith", "q=jones"].map((q) => app.request(`/v1/providers/search?${q}`)),
    );
    for (const r of responses) {
      assertEquals((await assertProblem(r, 503)).type, "/problems/timeout");
    }
    assertEquals(counts.timedOut, 2);
    assertEquals(counts.abandoned, 0);
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] a client that goes away abandons its search, queued or running", async () => {
  const { counts, observer } = countingObserver();
  const { app, pool, dataset } = await poolApp({ workerDelayMs: 300, observer });
  try {
    const running = new AbortController();
    const queued = new AbortController();
    const responses = [
      app.request("/v1/providers/search?q=smith", { signal: running.signal }),
      app.request("/v1/providers/search?q=jones", { signal: queued.signal }),
    ];
    assertEquals(pool.stats.queued, 1);
    queued.abort(new Error("client closed the connection"));
    running.abort(new Error("client closed the connection"));
    for (const response of await Promise.all(responses)) await response.body?.cancel();
    assertEquals(counts.abandoned, 2);
    assertEquals(counts.timedOut, 0);
    // The running search's worker was told to stop, and did, without being replaced.
    const end = performance.now() + 2_000;
    while (pool.stats.busy > 0 && performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(pool.stats.busy, 0);
    assertEquals(pool.stats.replaced, 0);
  } finally {
    await dataset.close();
  }
});

/** Blocks the serving thread for `ms`, as a flood of connections or a long collection would. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) Math.sqrt(ms);
}

/**
 * A pool whose searches take 200 ms, with a budget of 700 ms and one search
 * handed ahead: after three warm-up searches, one search runs, one is
 * handed to the worker ahead and one queues (the fourth is over the budget
 * and refused on arrival). Returns the three admitted requests and when
 * they were sent.
 */
async function twoQueued(observer: PoolObserver) {
  // One search handed to the worker ahead: the other waits in the pool's queue, where the pool
  // itself refuses it when it can no longer start in time.
  const { app, pool, dataset } = await poolApp({
    workerDelayMs: 200,
    maxWaitMs: 700,
    observer,
    ahead: 1,
  });
  for (const q of ["warm1", "warm2", "warm3"]) {
    await (await app.request(`/v1/providers/search?q=${q}`)).body?.cancel();
  }
  const sent = performance.now();
  const timed = (q: string) =>
    app.request(`/v1/providers/search?q=${q}`).then((response) => ({
      response,
      ms: performance.now() - sent,
    }));
  const requests = ["smith", "jones", "lee", "garcia"].map(timed);
  assertEquals(pool.stats.busy, 1);
  assertEquals(pool.stats.queued, 2, "one runs, two wait, the fourth is over the budget");
  return { requests, pool, dataset };
}

Deno.test("[admission] an admitted search that can no longer start within the budget is refused unrun", async () => {
  const { counts, waits, observer } = countingObserver();
  const { requests, pool, dataset } = await twoQueued(observer);
  try {
    // The serving thread stalls past the budget. The search handed to the worker ahead starts as
    // soon as the running one ends, whatever this thread does; the one still queued here has
    // waited longer than 700 ms by the time the pool looks again, and is refused unrun.
    stall(800);
    const [running, ahead, queued, fourth] = await Promise.all(requests);
    for (const { response } of [running!, ahead!]) {
      assertEquals(response.status, 200);
      await response.body?.cancel();
    }
    assertEquals(fourth!.response.status, 503);
    await fourth!.response.body?.cancel();
    assertMatch(queued!.response.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    const problem = await assertProblem(queued!.response, 503);
    assertEquals(problem.type, "/problems/overloaded");
    assertMatch(String(problem.detail), /waited \d+ ms and could not start within the 700 ms/);
    assertEquals(counts.shed_overdue, 1);
    assertEquals(counts.shed_wait_budget, 1);
    // Every search a worker ran started within the budget of its arrival (by the worker's clock):
    // the three warm-ups, the running search and the one handed ahead.
    assertEquals(waits.length, 5);
    for (const wait of waits) assert(wait <= 700, `a search ran after waiting ${wait} ms`);
    assertEquals(pool.stats.queued, 0);
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] a search handed ahead that its worker comes to after its budget is refused, unrun", async () => {
  const { counts, waits, observer } = countingObserver();
  // No search has finished yet, so each is reckoned at a quarter of the 500 ms budget: the second
  // is admitted and handed to the worker ahead. The first really takes 600 ms, so the worker comes
  // to the second past its budget, and refuses it rather than run it late.
  const { app, pool, dataset } = await poolApp({ workerDelayMs: 600, maxWaitMs: 500, observer });
  try {
    const first = app.request("/v1/providers/search?q=smith");
    const second = app.request("/v1/providers/search?q=jones");
    assertEquals(pool.stats.queued, 1, "handed ahead");
    const [a, b] = await Promise.all([first, second]);
    assertEquals(a.status, 200);
    await a.body?.cancel();
    const problem = await assertProblem(b, 503);
    assertEquals(problem.type, "/problems/overloaded");
    assertMatch(String(problem.detail), /could not start within the 500 ms/);
    assertEquals(counts.shed_overdue, 1);
    assertEquals(waits.length, 1, "only the first ran");
    assertEquals(pool.stats.queued, 0);
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] a queued search is refused as soon as the work ahead makes it late", async () => {
  const { counts, waits, observer } = countingObserver();
  const { requests, dataset } = await twoQueued(observer);
  try {
    // A stall of 560 ms: the first queued search still starts within 700 ms, but the second would
    // start 200 ms later, past the budget, so it is refused then, without waiting for 700 ms.
    stall(560);
    const [running, first, second] = await Promise.all(requests.slice(0, 3));
    for (const { response } of [running!, first!]) {
      assertEquals(response.status, 200);
      await response.body?.cancel();
    }
    const problem = await assertProblem(second!.response, 503);
    assertEquals(problem.type, "/problems/overloaded");
    assert(second!.ms < 700, `refused after ${second!.ms} ms, before its budget ran out`);
    assertEquals(counts.shed_overdue, 1);
    for (const wait of waits) assert(wait <= 700, `a search ran after waiting ${wait} ms`);
    await (await requests[3]!).response.body?.cancel();
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] SEARCH_MAX_WAIT_MS is validated", () => {
  assertEquals(loadConfig({}).searchMaxWaitMs, 1000);
  assertEquals(loadConfig({ SEARCH_MAX_WAIT_MS: "0" }).searchMaxWaitMs, 0);
  const error = assertThrows(() => loadConfig({ SEARCH_MAX_WAIT_MS: "1s" }), TypeError);
  assertMatch(error.message, /SEARCH_MAX_WAIT_MS must be an integer from 0 to 600000, got '1s'/);
});

Deno.test("[admission] a roster or an export under way is not cut off by the wait budget", async () => {
  const { counts, observer } = countingObserver();
  // Every search takes 40 ms and the budget is 50 ms: more than one queued search is over it. A
  // demo of 3,000 providers: an export of several pages.
  const demo = `${dir}/demo.db`;
  buildDemoDatabase({ path: demo, records: 3_000, seed: 3 });
  const store = openSearchableStore(demo, { lazyIndex: true });
  const pool = await SearchPool.start({
    path: demo,
    workers: 1,
    queue: 64,
    workerDelayMs: 40,
    maxWaitMs: 50,
    observer,
  });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  const app = testApp({ deps: { dataset }, config: { requestTimeoutMs: 30_000 } });
  try {
    // A roster of 12 rows, matched four at a time: its searches queue behind each other.
    const roster = "id,last_name,first_name,state\n" +
      Array.from({ length: 12 }, (_, i) => `r${i},${QUERIES[i % QUERIES.length]},,NY`).join("\n") +
      "\n";
    const response = await app.request("/v1/match", {
      method: "POST",
      headers: { "Content-Type": "text/csv" },
      body: roster,
    });
    assertEquals(response.status, 200);
    const lines = (await response.text()).trim().split("\n").map((l) => JSON.parse(l));
    const summary = lines.at(-1)!;
    assertEquals(lines.length, 13, "a line per row and the summary");
    assert(summary.complete !== false, `the roster was answered whole: ${JSON.stringify(summary)}`);
    assertEquals(
      lines.slice(0, -1).map((l) => l.id),
      roster.trim().split("\n").slice(1).map((r) => r.split(",")[0]),
    );
    const total = (await (await app.request("/v1/providers/search?limit=1")).json()).total;
    assert(total > 1000, "the export has several pages");
    // An export of several pages, admitted on a free queue, then searches keep the queue busy.
    const exported = await app.request("/v1/providers/export?format=ndjson");
    assertEquals(exported.status, 200);
    const busy = QUERIES.map((q) => app.request(`/v1/providers/search?q=${q}&limit=3`));
    const records = (await exported.text()).trim().split("\n");
    assertEquals(records.length, total);
    for (const r of await Promise.all(busy)) await r.body?.cancel();
    // The concurrent single searches were still subject to the budget.
    assert(counts.shed_wait_budget > 0, "plain searches over the budget were refused");
  } finally {
    await dataset.close();
  }
});

Deno.test("[admission] cleanup", async () => {
  await Deno.remove(dir, { recursive: true });
});
