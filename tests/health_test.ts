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
