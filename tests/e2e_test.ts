import { assert, assertEquals, assertMatch } from "@std/assert";
import { freePort, serverCommand, waitForStatus } from "../scripts/processes.ts";

Deno.test("[e2e] the real server answers /health over TCP and stops cleanly on SIGTERM", async (t) => {
  const port = freePort();
  const dir = await Deno.makeTempDir();
  const child = serverCommand(
    { PORT: String(port), PROVIDERS_DB: `${dir}/providers.db`, DEMO_RECORDS: "500" },
    { stdout: "piped", stderr: "piped" },
  ).spawn();
  try {
    await t.step("GET /health", async () => {
      await waitForStatus(`http://127.0.0.1:${port}/health`, { timeoutMs: 15_000 });
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("content-type"), "application/json; charset=utf-8");
      assertMatch(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
      assertEquals(await response.text(), '{"status":"ok"}');
    });
    await t.step(
      "first start: the demo is built while the server answers, then served",
      async () => {
        const deadline = Date.now() + 60_000;
        let response = await fetch(`http://127.0.0.1:${port}/v1/dataset`);
        while (response.status === 503) {
          assertMatch(response.headers.get("retry-after") ?? "", /^\d+$/);
          await response.body?.cancel();
          if (Date.now() > deadline) throw new Error("The demo dataset was not ready within 60 s");
          await new Promise((resolve) => setTimeout(resolve, 200));
          response = await fetch(`http://127.0.0.1:${port}/v1/dataset`);
        }
        assertEquals(response.status, 200);
        const body = await response.json();
        assertEquals(body.source, "demo");
        assertEquals(body.synthetic, true);
        assertEquals(body.records, 500);
      },
    );
    await t.step("HEAD /v1/health keeps the id it is given", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/health`, {
        method: "HEAD",
        headers: { "X-Request-ID": "e2e-1" },
      });
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("x-request-id"), "e2e-1");
      await response.body?.cancel();
    });
  } finally {
    child.kill("SIGTERM");
    const [status, stdout] = await Promise.all([
      child.status,
      new Response(child.stdout).text(),
      child.stderr.cancel(),
    ]);
    await Deno.remove(dir, { recursive: true });
    await t.step("exit 0 after SIGTERM, one log line per request", () => {
      assertEquals(status.code, 0);
      const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert(lines.filter((l) => l.msg === "request").length >= 3);
      const open = lines.find((l) => l.msg === "dataset open");
      assertEquals(open?.source, "demo");
      // The start task's permissions map the demo's index map: its index is read in place.
      assertEquals(open?.index, "index map");
      // The demo built on first start keeps its commonest words' unions, read in place.
      assertEquals(open?.unions, "kept");
      assertEquals(lines.at(-1).msg, "stopped");
    });
  }
});
