/**
 * A client that closes its connection abandons its search, over a real
 * socket: `request.signal` aborts only when the client goes away (deno.json
 * opts into Deno's `no-legacy-abort` behaviour, so a delivered answer does
 * not abort it and the server prints no warning about it).
 */
import { assert, assertEquals } from "@std/assert";
import { testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { type PoolObserver, SearchPool } from "../lib/search/pool.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { freePort, serverCommand } from "../scripts/processes.ts";

const dir = await Deno.makeTempDir();
const path = `${dir}/demo.db`;
buildDemoDatabase({ path, records: 2_000, seed: 21 });

/** Resolves once `check` holds, or rejects after `ms`. */
async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("[client gone] a search whose client disconnects is abandoned, running or queued", async () => {
  const abandoned: string[] = [];
  const observer: PoolObserver = { abandoned: (where) => abandoned.push(where) };
  const store = openSearchableStore(path, { lazyIndex: true });
  const pool = await SearchPool.start({ path, workers: 1, queue: 8, workerDelayMs: 400, observer });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  const app = testApp({ deps: { dataset } });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.handler);
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    const running = new AbortController();
    const queued = new AbortController();
    const gone = [
      fetch(`${base}/v1/providers/search?q=smith`, { signal: running.signal }),
      fetch(`${base}/v1/providers/search?q=jones`, { signal: queued.signal }),
    ].map((p) => p.catch((error: Error) => error.name));
    await until(() => pool.stats.busy === 1 && pool.stats.queued === 1, "one running, one queued");
    queued.abort();
    running.abort();
    assertEquals(await Promise.all(gone), ["AbortError", "AbortError"]);
    await until(() => abandoned.length === 2, "both searches abandoned");
    assertEquals(abandoned.sort(), ["queued", "running"]);
    // The running one's worker stopped (the work really ends) and kept its slot: not replaced.
    await until(() => pool.stats.busy === 0, "the worker to stop");
    assertEquals(pool.stats.replaced, 0);
    assertEquals(pool.stats.queued, 0);

    // A search answered in full is not abandoned afterwards.
    const answered = await fetch(`${base}/v1/providers/search?q=lee`);
    assertEquals(answered.status, 200);
    await answered.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assertEquals(abandoned.length, 2);
  } finally {
    await server.shutdown();
    await dataset.close();
  }
});

Deno.test("[client gone] the server prints no legacy request.signal warning", async () => {
  const port = freePort();
  const child = serverCommand(
    { PORT: String(port), PROVIDERS_DB: path, SEARCH_WORKERS: "1", RATE_LIMIT_PER_MINUTE: "0" },
    { stderr: "piped", stdout: "null" },
  ).spawn();
  const stderr = new Response(child.stderr).text();
  try {
    let ready = false;
    const end = performance.now() + 60_000;
    while (!ready && performance.now() < end) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/ready`);
        await response.body?.cancel();
        ready = response.status === 200;
      } catch { /* not listening yet */ }
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert(ready, "the server became ready");
    // A search that reads request.signal and is answered in full: what the legacy mode warns of.
    const response = await fetch(`http://127.0.0.1:${port}/v1/providers/search?q=smith`);
    assertEquals(response.status, 200);
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
  const text = await stderr;
  assert(!/legacy/i.test(text), `no legacy-abort warning on stderr:\n${text}`);
});

Deno.test("[client gone] cleanup", async () => {
  await Deno.remove(dir, { recursive: true });
});
