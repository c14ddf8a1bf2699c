/**
 * `GET /ready`: 200 only when the dataset is loaded and searchable; 503
 * with `Retry-After` while loading, after a failure, or with no search
 * worker up; never cached, never rate limited. `/health` stays liveness.
 */
import { assertEquals, assertMatch } from "@std/assert";
import { assertJson, assertProblem, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SearchPool } from "../lib/search/pool.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";

const dir = await Deno.makeTempDir();
const path = await searchFixtureDatabase(dir);

async function assertNotReady(response: Response, type: string): Promise<void> {
  assertEquals(response.headers.get("cache-control"), "no-store");
  assertMatch(response.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  const body = await assertProblem(response, 503);
  assertEquals(body.type, `/problems/${type}`);
}

Deno.test("[ready] 503 while loading or failed; /health answers 200 meanwhile", async () => {
  const dataset = new Dataset();
  const app = testApp({ deps: { dataset } });
  dataset.loading("opening the database", 0.5);
  await assertNotReady(await app.request("/ready"), "loading");
  assertEquals((await app.request("/health")).status, 200);
  const failed = new Dataset({ kind: "failed", message: "the file is corrupt" });
  await assertNotReady(
    await testApp({ deps: { dataset: failed } }).request("/ready"),
    "no-dataset",
  );
});

Deno.test("[ready] 200 with the dataset version once searchable", async () => {
  const store = openSearchableStore(path);
  const dataset = new Dataset({ kind: "ready", store });
  try {
    const response = await testApp({ deps: { dataset } }).request("/ready");
    assertEquals(response.headers.get("cache-control"), "no-store");
    assertEquals(await assertJson(response), { status: "ready", version: dataset.version() });
  } finally {
    store.close();
  }
});

Deno.test("[ready] with search workers: ready while one is up, 503 when none is", async () => {
  const store = openSearchableStore(path, { lazyIndex: true });
  const pool = await SearchPool.start({ path, workers: 1, queue: 4 });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  const app = testApp({ deps: { dataset } });
  assertEquals((await assertJson(await app.request("/ready"))).status, "ready");
  await pool.close();
  await assertNotReady(await app.request("/ready"), "loading");
  store.close();
});

Deno.test("[ready] never rate limited", async () => {
  const store = openSearchableStore(path);
  const app = testApp({
    deps: { dataset: new Dataset({ kind: "ready", store }) },
    config: { rateLimitPerMinute: 1 },
  });
  try {
    // The data routes are limited: the second request in the minute is a 429.
    await assertJson(await app.request("/v1/dataset"));
    await assertProblem(await app.request("/v1/dataset"), 429);
    for (let i = 0; i < 3; i++) {
      await assertJson(await app.request("/ready"));
      const metrics = await app.request("/metrics");
      assertEquals(metrics.status, 200);
      await metrics.body?.cancel();
    }
  } finally {
    store.close();
  }
});

Deno.test("[ready] cleanup", async () => {
  await Deno.remove(dir, { recursive: true });
});
