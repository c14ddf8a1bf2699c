import { assert, assertEquals, assertMatch } from "@std/assert";
import { assertJson, assertProblem, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { fixtureDatabase } from "./_fixtures.ts";
import { NPI, npi } from "./_fixtures.ts";
import type { Provider } from "../lib/provider.ts";

async function withFixtureApp(
  fn: (app: ReturnType<typeof testApp>) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const store = openSearchableStore(await fixtureDatabase(dir));
  try {
    await fn(testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } }));
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("[provider] GET /v1/providers/{npi}", async (t) => {
  await withFixtureApp(async (app) => {
    await t.step("200 with the record", async () => {
      const body = await assertJson<Provider>(await app.request(`/v1/providers/${NPI.memorial}`));
      assertEquals(body.npi, NPI.memorial);
      assertEquals(body.organization?.name, "SPRINGFIELD MEMORIAL HOSPITAL");
      assertEquals(body.taxonomies[0]?.description, "General Acute Care Hospital");
    });
    await t.step("a deactivated NPI is 200 with status deactivated", async () => {
      const body = await assertJson<Provider>(await app.request(`/v1/providers/${NPI.gone}`));
      assertEquals(body.status, "deactivated");
    });
    await t.step("404 for an unknown NPI", async () => {
      const body = await assertProblem(await app.request(`/v1/providers/${npi("199999999")}`), 404);
      assertMatch(String(body.detail), /No provider has NPI/);
    });
    await t.step("400 for malformed NPIs, naming the parameter", async () => {
      for (const bad of ["123", "12345678901", "abcdefghij", "1234567890", "%E2%9C%93"]) {
        const body = await assertProblem(await app.request(`/v1/providers/${bad}`), 400);
        assertEquals(body.errors?.[0]?.parameter, "npi");
      }
    });
    await t.step("400 for unknown query parameters", async () => {
      const body = await assertProblem(
        await app.request(`/v1/providers/${NPI.memorial}?foo=1`),
        400,
      );
      assertEquals(body.errors?.[0]?.parameter, "foo");
    });
    await t.step("HEAD answers without a body", async () => {
      const response = await app.request(`/v1/providers/${NPI.memorial}`, { method: "HEAD" });
      assertEquals(response.status, 200);
      assertEquals(await response.text(), "");
    });
  });
});

Deno.test("[dataset] GET /v1/dataset reports source, counts and files", async () => {
  await withFixtureApp(async (app) => {
    const body = await assertJson<Record<string, unknown>>(await app.request("/v1/dataset"));
    assertEquals(body.source, "nppes");
    assertEquals(body.synthetic, false);
    assertEquals(body.records, 7);
    assertEquals(body.active, 6);
    assert(Array.isArray(body.files) && body.files.length === 4);
    assertEquals(typeof body.built_at, "string");
  });
});

Deno.test("[specialties] GET /v1/specialties ranks names and synonyms", async (t) => {
  await withFixtureApp(async (app) => {
    await t.step("q=cardio", async () => {
      const body = await assertJson<{ code: string; description: string }[]>(
        await app.request("/v1/specialties?q=cardio"),
      );
      assert(body.length > 0);
      assert(body.some((e) => e.code === "207RC0000X"));
      for (const e of body) {
        assertEquals(Object.keys(e).sort(), [
          "classification",
          "code",
          "description",
          "grouping",
          "specialization",
        ]);
      }
    });
    await t.step("a code or code prefix finds codes", async () => {
      const exact = await assertJson<{ code: string }[]>(
        await app.request("/v1/specialties?q=207rc0000x"),
      );
      assertEquals(exact.map((e) => e.code), ["207RC0000X"]);
      const prefix = await assertJson<{ code: string }[]>(
        await app.request("/v1/specialties?q=1223"),
      );
      assert(prefix.length > 5 && prefix.every((e) => e.code.startsWith("1223")));
    });
    await t.step("no q lists everything up to the limit", async () => {
      const body = await assertJson<unknown[]>(await app.request("/v1/specialties?limit=1000"));
      assert(body.length > 800);
    });
    await t.step("invalid limit is a 400", async () => {
      await assertProblem(await app.request("/v1/specialties?limit=0"), 400);
    });
  });
});

Deno.test("[dataset] data routes answer 503 with Retry-After while loading; health answers", async () => {
  const app = testApp({
    deps: { dataset: new Dataset({ kind: "loading", message: "building", progress: 0.5 }) },
  });
  for (const path of ["/v1/dataset", `/v1/providers/${NPI.memorial}`, "/v1/specialties"]) {
    const response = await app.request(path);
    const body = await assertProblem(response, 503);
    assertEquals(response.headers.get("retry-after"), "5");
    assertMatch(String(body.detail), /loading/);
  }
  const health = await app.request("/health");
  assertEquals(await health.text(), '{"status":"ok"}');
});
