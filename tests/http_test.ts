import { assert, assertEquals, assertMatch } from "@std/assert";
import { assertProblem, testApp } from "./_utils.ts";
import { endpoint, type Route } from "../lib/http/router.ts";
import { defineQuery, integer } from "../lib/http/params.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function throwingRoutes(): Route[] {
  const operation = { operationId: "x", summary: "x", tags: ["test"], responses: {} };
  return [
    {
      path: "/boom",
      methods: {
        GET: {
          handler: () => {
            throw new Error("SELECT * FROM secret at /work/x.ts:1");
          },
          operation,
        },
      },
    },
    {
      path: "/slow",
      methods: {
        GET: {
          handler: (_req, ctx) =>
            new Promise((resolve) => {
              const timer = setTimeout(() => resolve(new Response("late")), 500);
              ctx.signal.addEventListener("abort", () => {
                clearTimeout(timer);
                resolve(new Response("abandoned"));
              });
            }),
          operation,
        },
      },
    },
    {
      path: "/items/:id",
      methods: {
        GET: endpoint(
          {
            ...operation,
            query: defineQuery({ limit: integer({ description: "n", min: 1, max: 10 }) }),
          },
          (_req, ctx) => Response.json(ctx.params),
        ),
      },
    },
  ];
}

Deno.test("[http] unknown path is a 404 problem", async () => {
  const app = testApp();
  const response = await app.request("/nope");
  const body = await assertProblem(response, 404);
  assertMatch(String(body.detail), /No route for '\/nope'/);
});

Deno.test("[http] wrong method is a 405 with Allow", async (t) => {
  const app = testApp();
  for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
    await t.step(method, async () => {
      const response = await app.request("/health", { method });
      assertEquals(response.status, 405);
      assertEquals(response.headers.get("allow"), "GET, HEAD, OPTIONS");
      await assertProblem(response, 405);
    });
  }
});

Deno.test("[http] HEAD is answered from GET without a body", async () => {
  const app = testApp();
  const response = await app.request("/health", { method: "HEAD" });
  assertEquals(response.status, 200);
  assertEquals(response.headers.get("content-type"), "application/json; charset=utf-8");
  assert(response.headers.get("x-request-id"));
  assertEquals(await response.text(), "");
});

Deno.test("[http] OPTIONS answers Allow and CORS preflight headers", async () => {
  const app = testApp();
  const response = await app.request("/openapi.json", { method: "OPTIONS" });
  assertEquals(response.status, 204);
  assertEquals(response.headers.get("allow"), "GET, HEAD, OPTIONS");
  assertEquals(response.headers.get("access-control-allow-methods"), "GET, HEAD, OPTIONS");
  assertEquals(response.headers.get("access-control-allow-origin"), "*");
  assertMatch(response.headers.get("access-control-allow-headers") ?? "", /X-Request-ID/);
  assertEquals(await response.text(), "");
});

Deno.test("[http] X-Request-ID is echoed when valid and replaced otherwise", async (t) => {
  const app = testApp();
  const valid = ["abc", "A-Z_0.9:+/=", "x".repeat(128), "7c1d8b43-4a2f-4f0e-9a57-2f1b9c3f5e10"];
  for (const id of valid) {
    await t.step(`echoes '${id.slice(0, 20)}'`, async () => {
      const response = await app.request("/health", { headers: { "X-Request-ID": id } });
      await response.body?.cancel();
      assertEquals(response.headers.get("x-request-id"), id);
    });
  }
  const invalid = ["", "x".repeat(129), "a b", "a\tb", "<script>", "ünï", "a,b", "{}"];
  for (const id of invalid) {
    await t.step(`replaces ${JSON.stringify(id.slice(0, 20))}`, async () => {
      const response = await app.request("/health", { headers: { "X-Request-ID": id } });
      await response.body?.cancel();
      assertMatch(response.headers.get("x-request-id") ?? "", UUID_V4);
    });
  }
  await t.step("a fresh UUID v4 when absent, different each time", async () => {
    const a = await app.request("/health");
    const b = await app.request("/health");
    await a.body?.cancel();
    await b.body?.cancel();
    assertMatch(a.headers.get("x-request-id") ?? "", UUID_V4);
    assert(a.headers.get("x-request-id") !== b.headers.get("x-request-id"));
  });
  await t.step("errors carry it in header and body", async () => {
    const response = await app.request("/missing", { headers: { "X-Request-ID": "trace-42" } });
    assertEquals(response.headers.get("x-request-id"), "trace-42");
    assertEquals((await assertProblem(response, 404)).request_id, "trace-42");
  });
});

Deno.test("[http] every response carries CORS and nosniff", async (t) => {
  const app = testApp();
  for (
    const [path, method] of [["/health", "GET"], ["/nope", "GET"], ["/health", "POST"], [
      "/openapi.json",
      "GET",
    ]]
  ) {
    await t.step(`${method} ${path}`, async () => {
      const response = await app.request(path!, { method });
      await response.body?.cancel();
      assertEquals(response.headers.get("x-content-type-options"), "nosniff");
      assertEquals(response.headers.get("access-control-allow-origin"), "*");
      assertMatch(response.headers.get("access-control-expose-headers") ?? "", /X-Request-ID/);
    });
  }
});

Deno.test("[http] one JSON log line per request", async () => {
  const app = testApp();
  const response = await app.request("/health?x=1", { headers: { "X-Request-ID": "log-1" } });
  await response.body?.cancel();
  const lines = app.logs.filter((l) => l.msg === "request");
  assertEquals(lines.length, 1);
  const line = lines[0]!;
  assertEquals(line.request_id, "log-1");
  assertEquals(line.method, "GET");
  assertEquals(line.path, "/health");
  assertEquals(line.status, 200);
  assertEquals(typeof line.duration_ms, "number");
  assert(!Number.isNaN(Date.parse(String(line.time))));
});

Deno.test("[http] a thrown error is a 500 problem without internals", async () => {
  const app = testApp({ routes: throwingRoutes() });
  const response = await app.request("/boom", { headers: { "X-Request-ID": "boom-1" } });
  const body = await assertProblem(response, 500);
  assertEquals(body.request_id, "boom-1");
  const text = JSON.stringify(body);
  assert(!text.includes("SELECT") && !text.includes("secret") && !text.includes(".ts"));
  const logged = app.logs.find((l) => l.msg === "unhandled error");
  assertEquals(logged?.request_id, "boom-1");
});

Deno.test("[http] path parameters reach the handler decoded", async () => {
  const app = testApp({ routes: throwingRoutes() });
  const response = await app.request("/items/a%20b");
  assertEquals(response.status, 200);
  assertEquals(await response.json(), { id: "a b" });
});

Deno.test("[http] URLs over 8 KB are a 414 problem", async () => {
  const app = testApp();
  const ok = await app.request(`/health?pad=${"x".repeat(8000)}`);
  assertEquals(ok.status, 200);
  await ok.body?.cancel();
  const response = await app.request(`/health?pad=${"x".repeat(8200)}`);
  await assertProblem(response, 414);
});

Deno.test("[http] a request over REQUEST_TIMEOUT_MS is a 503 and its work is aborted", async () => {
  const app = testApp({ routes: throwingRoutes(), config: { requestTimeoutMs: 50 } });
  const started = performance.now();
  const response = await app.request("/slow");
  const body = await assertProblem(response, 503);
  assert(performance.now() - started < 400);
  assertMatch(String(body.detail), /50 ms/);
  assertEquals(response.headers.get("retry-after"), "1");
});

Deno.test("[http] rate limiting: 429 with Retry-After per client, health exempt", async () => {
  const app = testApp({ config: { rateLimitPerMinute: 3 } });
  for (let i = 0; i < 3; i++) {
    const ok = await app.request("/openapi.json", { remote: "10.0.0.1" });
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
  }
  const limited = await app.request("/openapi.json", { remote: "10.0.0.1" });
  const body = await assertProblem(limited, 429);
  assertMatch(limited.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  assertMatch(String(body.detail), /Too many requests/);
  const other = await app.request("/openapi.json", { remote: "10.0.0.2" });
  assertEquals(other.status, 200);
  await other.body?.cancel();
  for (let i = 0; i < 10; i++) {
    const health = await app.request("/health", { remote: "10.0.0.1" });
    assertEquals(health.status, 200);
    await health.body?.cancel();
  }
});

Deno.test("[http] rate limiting trusts the proxy header only when configured", async () => {
  const trusting = testApp({
    config: { rateLimitPerMinute: 1, trustProxyHeader: "X-Forwarded-For" },
  });
  const first = await trusting.request("/openapi.json", {
    headers: { "X-Forwarded-For": "1.1.1.1" },
  });
  await first.body?.cancel();
  const second = await trusting.request("/openapi.json", {
    headers: { "X-Forwarded-For": "2.2.2.2" },
  });
  assertEquals(second.status, 200);
  await second.body?.cancel();

  const plain = testApp({ config: { rateLimitPerMinute: 1 } });
  const a = await plain.request("/openapi.json", { headers: { "X-Forwarded-For": "1.1.1.1" } });
  await a.body?.cancel();
  const b = await plain.request("/openapi.json", { headers: { "X-Forwarded-For": "2.2.2.2" } });
  await assertProblem(b, 429);
});

Deno.test("[http] invalid and unknown query parameters are one 400 naming each", async () => {
  const app = testApp({ routes: throwingRoutes() });
  const response = await app.request("/items/1?limit=0&lmit=3&zzz=1");
  const body = await assertProblem(response, 400);
  const byName = Object.fromEntries((body.errors ?? []).map((e) => [e.parameter, e.message]));
  assertMatch(byName.limit ?? "", /integer from 1 to 10/);
  assertMatch(byName.lmit ?? "", /did you mean 'limit'/);
  assertMatch(byName.zzz ?? "", /Unknown parameter/);
});
