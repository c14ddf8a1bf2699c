import { assertEquals } from "@std/assert";
import { testApp } from "./_utils.ts";

for (const path of ["/health", "/v1/health"]) {
  Deno.test(`[health] GET ${path} answers exactly {"status":"ok"}`, async (t) => {
    const app = testApp();
    const response = await app.request(path);
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("content-type"), "application/json; charset=utf-8");
    const text = await response.text();
    assertEquals(text, '{"status":"ok"}');
    await t.assertSnapshot(JSON.parse(text));
  });
}

Deno.test("[health] the fast lane answers and logs exactly as the full path does", async () => {
  const app = testApp();
  const fast = await app.request("/health", { headers: { "X-Request-ID": "probe-1" } });
  // A query string takes the full path (router and wrappers) to the same route.
  const full = await app.request("/health?from=lb", { headers: { "X-Request-ID": "probe-2" } });
  const headers = (r: Response) =>
    [...r.headers].filter(([name]) => name !== "x-request-id").sort();
  assertEquals(headers(fast), headers(full));
  assertEquals(await fast.text(), await full.text());
  assertEquals(fast.headers.get("x-request-id"), "probe-1");
  assertEquals(full.headers.get("x-request-id"), "probe-2");
  const lines = app.logs.map(({ time: _t, duration_ms: _d, ...rest }) => rest);
  assertEquals(lines, [
    {
      level: "info",
      msg: "request",
      request_id: "probe-1",
      method: "GET",
      path: "/health",
      status: 200,
    },
    {
      level: "info",
      msg: "request",
      request_id: "probe-2",
      method: "GET",
      path: "/health",
      status: 200,
    },
  ]);
});
