/**
 * HTTP caching: every data answer carries a weak `ETag` naming the dataset
 * version and the normalized request, `Cache-Control` from the config and
 * `Vary`; a matching `If-None-Match` is a 304 without running the route; a
 * new dataset changes every `ETag`; errors are `no-store`.
 */
import { assert, assertEquals, assertMatch, assertNotEquals, assertThrows } from "@std/assert";
import { assertProblem, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore, type SearchableStore } from "../lib/search/searcher.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";
import { cacheControl, etagMatches, normalizedRequest } from "../lib/http/cache.ts";
import { loadConfig } from "../lib/config.ts";
import { NPIS } from "./_search_fixtures.ts";

const dir = await Deno.makeTempDir();
const path = await searchFixtureDatabase(dir);
const store = openSearchableStore(path);

/** The same records presented as another import (a weekly update): only `built_at` differs. */
function nextRelease(base: SearchableStore): SearchableStore {
  return { ...base, dataset: () => ({ ...base.dataset(), built_at: "2099-01-01T00:00:00.000Z" }) };
}

const anyNpi = Object.values(NPIS)[0]!;
const DATA_PATHS = [
  "/v1/providers/search?q=smith&limit=2",
  `/v1/providers/${anyNpi}`,
  "/v1/dataset",
  "/v1/specialties?q=cardio",
];

function app(dataset = new Dataset({ kind: "ready", store })) {
  return testApp({
    deps: { dataset },
    config: { cacheMaxAgeSeconds: 120, cacheStaleSeconds: 600 },
  });
}

Deno.test("[cache] data answers carry ETag, Cache-Control and Vary; If-None-Match is a 304", async (t) => {
  const service = app();
  const version = new Dataset({ kind: "ready", store }).version()!;
  for (const path of DATA_PATHS) {
    await t.step(path, async () => {
      const response = await service.request(path);
      assertEquals(response.status, 200);
      await response.body?.cancel();
      const etag = response.headers.get("etag")!;
      assertMatch(etag, /^W\/"[A-Za-z0-9_-]+-[a-z0-9]{1,11}"$/);
      assert(etag.includes(version), "the ETag names the dataset version");
      assertEquals(
        response.headers.get("cache-control"),
        "public, max-age=120, stale-while-revalidate=600",
      );
      assertMatch(response.headers.get("vary") ?? "", /Accept-Encoding/);

      for (const header of [etag, etag.slice(2), `"other", ${etag}`, "*"]) {
        const again = await service.request(path, { headers: { "If-None-Match": header } });
        assertEquals(again.status, 304, header);
        assertEquals(await again.text(), "");
        assertEquals(again.headers.get("etag"), etag);
        assertEquals(again.headers.get("cache-control"), response.headers.get("cache-control"));
        assertMatch(again.headers.get("vary") ?? "", /Accept-Encoding/);
        assertEquals(again.headers.get("access-control-allow-origin"), "*");
      }
      const head = await service.request(path, {
        method: "HEAD",
        headers: { "If-None-Match": etag },
      });
      assertEquals(head.status, 304);
      await head.body?.cancel();
      const stale = await service.request(path, { headers: { "If-None-Match": 'W/"old"' } });
      assertEquals(stale.status, 200);
      await stale.body?.cancel();
    });
  }
});

Deno.test("[cache] a 304 is answered without running the search", async () => {
  const service = app();
  const first = await service.request("/v1/providers/search?q=smith");
  await first.body?.cancel();
  const etag = first.headers.get("etag")!;
  // The same request against a store whose search would fail: the 304 never reaches it.
  const failing: SearchableStore = {
    ...store,
    search: () => {
      throw new Error("searched");
    },
  };
  const guarded = testApp({ deps: { dataset: new Dataset({ kind: "ready", store: failing }) } });
  const response = await guarded.request("/v1/providers/search?q=smith", {
    headers: { "If-None-Match": etag },
  });
  assertEquals(response.status, 304);
  await response.body?.cancel();
});

Deno.test("[cache] the ETag follows the normalized request", async () => {
  const service = app();
  const etag = async (path: string) => {
    const response = await service.request(path);
    await response.body?.cancel();
    return response.headers.get("etag");
  };
  assertEquals(
    await etag("/v1/providers/search?state=NY&q=smith"),
    await etag("/v1/providers/search?q=smith&state=NY"),
  );
  assertNotEquals(
    await etag("/v1/providers/search?q=smith"),
    await etag("/v1/providers/search?q=smith&limit=3"),
  );
  assertNotEquals(await etag("/v1/specialties?q=a"), await etag("/v1/specialties?q=b"));
  assertEquals(
    normalizedRequest(new URL("http://x/p?b=2&a=1&b=1")),
    "/p?a=1&b=2&b=1",
  );
});

Deno.test("[cache] a new dataset release changes every ETag", async () => {
  const before = app();
  const after = app(new Dataset({ kind: "ready", store: nextRelease(store) }));
  for (const path of DATA_PATHS) {
    const old = await before.request(path);
    await old.body?.cancel();
    const etag = old.headers.get("etag")!;
    const fresh = await after.request(path, { headers: { "If-None-Match": etag } });
    assertEquals(fresh.status, 200, path);
    await fresh.body?.cancel();
    assertNotEquals(fresh.headers.get("etag"), etag, path);
  }
});

Deno.test("[cache] errors and 503s are not cacheable", async () => {
  const service = app();
  for (const [path, status] of [["/v1/providers/search?limit=0", 400], ["/nope", 404]] as const) {
    const response = await service.request(path);
    assertEquals(response.headers.get("cache-control"), "no-store");
    assertEquals(response.headers.get("etag"), null);
    await assertProblem(response, status);
  }
  const loading = testApp({ deps: { dataset: new Dataset() } });
  for (const path of DATA_PATHS) {
    const response = await loading.request(path);
    assertEquals(response.headers.get("cache-control"), "no-store");
    assertEquals(response.headers.get("etag"), null);
    assert(response.headers.get("retry-after"));
    await assertProblem(response, 503);
  }
});

Deno.test("[cache] the OpenAPI document and static files are revalidated by ETag", async () => {
  const service = app();
  for (const path of ["/openapi.json", "/static/app.js", "/"]) {
    const response = await service.request(path);
    assertEquals(response.status, 200, path);
    await response.body?.cancel();
    const etag = response.headers.get("etag")!;
    assert(etag, path);
    assert(response.headers.get("cache-control"), path);
    const again = await service.request(path, { headers: { "If-None-Match": etag } });
    assertEquals(again.status, 304, path);
    await again.body?.cancel();
  }
  const doc = await service.request("/openapi.json");
  await doc.body?.cancel();
  assertEquals(doc.headers.get("cache-control"), "public, max-age=120, stale-while-revalidate=600");
});

Deno.test("[cache] policy and comparison helpers", () => {
  assertEquals(cacheControl({ maxAgeSeconds: 0, staleSeconds: 0 }), "public, no-cache");
  assertEquals(
    cacheControl({ maxAgeSeconds: 60, staleSeconds: 0 }),
    "public, max-age=60, stale-while-revalidate=0",
  );
  assert(etagMatches('W/"a", "b"', '"b"'));
  assert(etagMatches('"a"', 'W/"a"'));
  assert(!etagMatches('"ab"', '"a"'));
  assert(!etagMatches(null, '"a"'));
});

Deno.test("[cache] configuration is validated", () => {
  const config = loadConfig({ CACHE_MAX_AGE_SECONDS: "60", CACHE_STALE_SECONDS: "0" });
  assertEquals([config.cacheMaxAgeSeconds, config.cacheStaleSeconds], [60, 0]);
  const defaults = loadConfig({});
  assertEquals([defaults.cacheMaxAgeSeconds, defaults.cacheStaleSeconds], [300, 3600]);
  const error = assertThrows(
    () => loadConfig({ CACHE_MAX_AGE_SECONDS: "-1", CACHE_STALE_SECONDS: "soon" }),
    TypeError,
  );
  assertMatch(error.message, /CACHE_MAX_AGE_SECONDS must be an integer/);
  assertMatch(error.message, /CACHE_STALE_SECONDS must be an integer/);
});

Deno.test("[cache] cleanup", async () => {
  store.close();
  await Deno.remove(dir, { recursive: true });
});
