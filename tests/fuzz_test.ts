/**
 * Fuzz test: thousands of random and hostile requests (query strings,
 * paths, methods, headers) at the in-process handler, from a fixed seed.
 * No answer may be a 5xx; every 4xx is a problem document, and a 400 names
 * the parameters it rejects; the service keeps answering.
 */
import { assert, assertEquals } from "@std/assert";
import { seededRandom, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { NPIS, searchFixtureDatabase } from "./_search_fixtures.ts";

const NAMES = [
  "q",
  "npi",
  "first_name",
  "last_name",
  "organization_name",
  "entity_type",
  "taxonomy",
  "specialty",
  "city",
  "state",
  "postal_code",
  "near",
  "radius",
  "unit",
  "sex",
  "include_deactivated",
  "sort",
  "limit",
  "offset",
  "cursor",
  "facets",
  "Q",
  "lmit",
  "q[]",
  "__proto__",
  "constructor",
  "",
  " ",
  "q ",
  "%",
  "😀",
];
const VALUES = [
  "smith",
  "",
  " ",
  "*",
  "**",
  "a*",
  "sm*th",
  "'",
  '"',
  "\\",
  "%",
  "%00",
  "%ZZ",
  "%E0%A4%A",
  "\u0000",
  "\uFFFF",
  "\uD800",
  "😀",
  "Ω≈ç√",
  "-1",
  "0",
  "1e9",
  "NaN",
  "Infinity",
  "1.5",
  "101",
  "10001",
  "99999",
  "00000",
  "40.7,-74",
  "91,0",
  "0,181",
  "1,2,3",
  ",",
  ",,",
  "true",
  "TRUE",
  "yes",
  "null",
  "undefined",
  "[]",
  "{}",
  "<script>",
  "' OR 1=1 --",
  "NEAR(a b)",
  "a AND b",
  "{surname}: x",
  "SELECT * FROM provider",
  "../../etc/passwd",
  "207RC0000X",
  "207rc0000x",
  "207RC0000",
  "1234567893",
  "1234567890",
  NPIS.obrien!,
  "ZZ",
  "XX",
  "mi",
  "km",
  "relevance",
  "distance",
  "name",
  "state,taxonomy",
  "M",
  "F",
  "individual",
  "NPI-2",
  "x".repeat(300),
  "cardiologist",
  "heart doctor",
  "ob-gyn",
  "cardiolgy",
];
const PATHS = [
  "/",
  "/health",
  "/v1/health",
  "/openapi.json",
  "/v1/providers/search",
  "/v1/providers/1234567893",
  "/v1/providers/",
  "/v1/providers/%ZZ",
  "/v1/providers/../../etc/passwd",
  "/v1/providers/search/extra",
  "/v1/dataset",
  "/v1/specialties",
  "/v1",
  "/docs",
  "/static/../deno.json",
  "/static/%2e%2e/deno.json",
  "//health",
  "/health/",
  "/HEALTH",
  "/v1/providers/123456789%00",
  "/%F0%9F%98%80",
  `/${"a".repeat(9000)}`,
];
const METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "get", "TRACE", "FOO"];

/** Percent-encodes text; a lone surrogate (which cannot be UTF-8) becomes raw %ED%A0%80-style bytes. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[\uD800-\uDFFF]/g, "%ED%A0%80").split("%ED%A0%80").map(encodeURIComponent)
      .join("%ED%A0%80");
  }
}

Deno.test("[fuzz] hostile requests never cause a 5xx and always get a problem document", async () => {
  const dir = await Deno.makeTempDir();
  const store = openSearchableStore(await searchFixtureDatabase(dir));
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  const next = seededRandom(7_19_2026);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const randomText = () => {
    const n = Math.floor(next() * 12);
    let s = "";
    for (let i = 0; i < n; i++) s += String.fromCharCode(Math.floor(next() * 0x3000));
    return s;
  };
  const counts: Record<number, number> = {};
  try {
    for (let i = 0; i < 3000; i++) {
      const path = next() < 0.7 ? "/v1/providers/search" : pick(PATHS);
      const params: [string, string][] = [];
      const n = Math.floor(next() * 5);
      for (let k = 0; k < n; k++) {
        params.push([
          next() < 0.9 ? pick(NAMES) : randomText(),
          next() < 0.85 ? pick(VALUES) : randomText(),
        ]);
      }
      let query = params.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&");
      if (next() < 0.05) query += `&${pick(VALUES)}`; // raw, unencoded garbage
      const method = next() < 0.85 ? "GET" : pick(METHODS);
      const headers: Record<string, string> = {};
      if (next() < 0.3) {
        headers["X-Request-ID"] = next() < 0.5
          ? pick(VALUES).split("").filter((c) => c >= " ").join("")
          : "ok-id";
      }
      let response: Response;
      try {
        response = await app.request(`${path}${query ? `?${query}` : ""}`, { method, headers });
      } catch (error) {
        // A URL or header the Request constructor itself refuses never reaches the server.
        if (error instanceof TypeError) continue;
        throw error;
      }
      const context = `${method} ${path}?${query.slice(0, 200)}`;
      counts[response.status] = (counts[response.status] ?? 0) + 1;
      assert(
        response.status < 500,
        `${response.status} for ${context}: ${await response.clone().text()}`,
      );
      assert(response.headers.get("x-request-id"), `X-Request-ID on ${context}`);
      assertEquals(response.headers.get("x-content-type-options"), "nosniff");
      if (response.status >= 400) {
        assertEquals(
          response.headers.get("content-type"),
          "application/problem+json; charset=utf-8",
          context,
        );
        const body = await response.json();
        assertEquals(body.status, response.status);
        assertEquals(body.request_id, response.headers.get("x-request-id"));
        assert(
          !/\bat .*\.ts:\d|\/work\/|node:sqlite|SQLITE_/.test(JSON.stringify(body)),
          `no internals: ${context}`,
        );
        if (response.status === 400 && body.type === "/problems/invalid-parameters") {
          assert(
            Array.isArray(body.errors) && body.errors.length > 0,
            `400 names parameters: ${context}`,
          );
          for (const e of body.errors) {
            assert(typeof e.parameter === "string" && typeof e.message === "string");
          }
        }
      } else {
        await response.body?.cancel();
      }
    }
    assert((counts[200] ?? 0) > 300, `some requests succeed: ${JSON.stringify(counts)}`);
    assert((counts[400] ?? 0) > 300, `many are rejected: ${JSON.stringify(counts)}`);
    const health = await app.request("/health");
    assertEquals(await health.text(), '{"status":"ok"}');
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
