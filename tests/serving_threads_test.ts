/**
 * Serving threads (`SERVE_THREADS`): the real server with two threads on
 * one port answers from both, counts every request in `/metrics` whichever
 * thread answers the scrape, reloads both on `SIGHUP` and stops both on
 * `SIGTERM`; the configuration refuses more threads with what only one
 * thread does.
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { freePort, serverCommand } from "../scripts/processes.ts";
import { loadConfig } from "../lib/config.ts";
import { threadConfig } from "../lib/service/serving_threads.ts";
import { threadCaches } from "../lib/service/startup.ts";

Deno.test("[threads] SERVE_THREADS: 1 by default, more only without what one thread alone does", () => {
  assertEquals(loadConfig({}).serveThreads, 1);
  assertEquals(loadConfig({ SERVE_THREADS: "3" }).serveThreads, 3);
  for (
    const [name, value] of <[string, string][]> [
      ["SEARCH_WORKERS", "1"],
      ["SEARCH_QUEUE", "8"],
      ["SEARCH_MAX_WAIT_MS", "500"],
      ["RATE_LIMIT_PER_MINUTE", "60"],
      ["PROVIDERS_DB_URL", "https://example.org/current.release.json"],
    ]
  ) {
    const error = assertThrows(() => loadConfig({ SERVE_THREADS: "2", [name]: value }), TypeError);
    assert(
      error.message.includes(`SERVE_THREADS above 1 cannot go with ${name}`),
      error.message,
    );
  }
  assertEquals(loadConfig({ SERVE_THREADS: "2", RATE_LIMIT_PER_MINUTE: "0" }).serveThreads, 2);
  assertThrows(() => loadConfig({ SERVE_THREADS: "0" }), TypeError, "SERVE_THREADS");
  // Every thread searches on its own; only the first pins the files and trims the heaps.
  const config = loadConfig({ SERVE_THREADS: "2", PIN_DATA_FILES: "1", BUSY_TRIM_MS: "700" });
  assertEquals(threadConfig(config, true).searchWorkers, 0);
  assertEquals(threadConfig(config, true).pinDataFiles, true);
  assertEquals(threadConfig(config, false).pinDataFiles, false);
  assertEquals(threadConfig(config, true).busyTrimMs, 700);
  assertEquals(threadConfig(config, false).busyTrimMs, 0);
  // Their stores hand each other the word unions they build.
  assertEquals(threadCaches(1), {});
  assertEquals(threadCaches(2), { shareWordSets: true });
});

const dir = await Deno.makeTempDir();
const path = `${dir}/demo.db`;
buildDemoDatabase({ path, records: 3_000, seed: 23 });

/** The log lines of a server's stdout, parsed, as they come. */
function logLines(stream: ReadableStream<Uint8Array>): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  void (async () => {
    let rest = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + text).split("\n");
      rest = parts.pop()!;
      for (const part of parts) if (part.startsWith("{")) lines.push(JSON.parse(part));
    }
  })();
  return lines;
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `GET` on a connection of its own (the kernel picks the thread per connection). */
async function getFresh(url: string): Promise<Response> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const response = await fetch(url, { client });
    const body = await response.text();
    return new Response(body, { status: response.status, headers: response.headers });
  } finally {
    client.close();
  }
}

/** The value of a metric's sample with these labels in Prometheus text, or 0. */
function sample(text: string, name: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

Deno.test("[threads] two serving threads share the port, the metrics, reloads and shutdown", async () => {
  const port = freePort();
  const child = serverCommand(
    { PORT: String(port), PROVIDERS_DB: path, SERVE_THREADS: "2" },
    { stdout: "piped" },
  ).spawn();
  const lines = logLines(child.stdout);
  const base = `http://127.0.0.1:${port}`;
  const said = (msg: string) => lines.filter((l) => l.msg === msg);
  try {
    await until(() => said("listening").length === 2, "both threads to listen");
    assertEquals(said("listening").map((l) => l.thread ?? 0).sort(), [0, 1]);
    assertEquals(said("dataset open").map((l) => l.search_workers), [0, 0]);

    // Forty searches, each on a new connection: the kernel spreads them over both threads.
    const searches = 40;
    for (let i = 0; i < searches; i++) {
      const response = await getFresh(`${base}/v1/providers/search?q=smith&offset=${i}`);
      assertEquals(response.status, 200);
    }
    const route = 'route="/v1/providers/search",method="GET",status="200"';
    // Any thread answering the scrape counts the other's requests too (ten scrapes on new
    // connections: each thread answers some).
    for (let i = 0; i < 10; i++) {
      const text = await (await getFresh(`${base}/metrics`)).text();
      assertEquals(sample(text, "http_requests_total", route), searches);
      assert(/^dataset_ready 1$/m.test(text), "both threads searchable");
      assert(/^dataset_records\{status="all"\} 3000$/m.test(text), "records counted once");
    }

    child.kill("SIGHUP");
    await until(() => said("dataset reloaded").length === 2, "both threads to reload");
    assertEquals((await getFresh(`${base}/v1/providers/search?q=lee`)).status, 200);
  } finally {
    child.kill("SIGTERM");
  }
  const status = await child.status;
  assertEquals(status.code, 0);
  await until(() => said("stopped").length === 1, "the server to stop", 5_000);
  assertEquals(said("serving thread stopped").map((l) => l.thread), [1]);
});

Deno.test("[threads] cleanup", async () => {
  await Deno.remove(dir, { recursive: true });
});
