/**
 * Fault tests: a killed import leaves the served database byte-identical;
 * the server keeps serving during an import and picks up the new database
 * on SIGHUP without failing a request; bad database files at start-up give
 * a clear error and no crash loop.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { freePort, importCommand, serverCommand, waitForStatus } from "../scripts/processes.ts";
import { demoImportFiles, fixtureDatabase } from "./_fixtures.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const demoCsv = (dir: string, records: number) => demoImportFiles(dir, records, 5);

Deno.test("[faults] an import killed with SIGKILL at any point leaves the served database byte-identical", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = await fixtureDatabase(dir);
    const before = await sha256(db);
    const csv = await demoCsv(`${dir}`, 20_000);
    for (const delay of [150, 600, 1200, 2000]) {
      const child = importCommand(db, csv).spawn();
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        child.kill("SIGKILL");
      } catch { /* already finished */ }
      const status = await child.status;
      await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
      if (status.success || (await sha256(db)) !== before) {
        // The import got to its atomic swap before the kill (perhaps only just, before exiting):
        // then the new database replaced the old one whole.
        const store = openSqliteStore(db);
        try {
          assertEquals(store.dataset().records, 20_000, `after SIGKILL at ${delay} ms`);
        } finally {
          store.close();
        }
        break;
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[faults] the server serves during an import and swaps on SIGHUP without failing a request", async () => {
  const dir = await Deno.makeTempDir();
  const db = await fixtureDatabase(dir);
  const port = freePort();
  const server = serverCommand({ PORT: String(port), PROVIDERS_DB: db }).spawn();
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForStatus(`${base}/v1/dataset`, { timeoutMs: 15_000 });
    let failures = 0, requests = 0, stop = false;
    const load = (async () => {
      while (!stop) {
        const r = await fetch(`${base}/v1/providers/search?q=smith&limit=5`);
        requests++;
        if (r.status !== 200) failures++;
        await r.body?.cancel();
      }
    })();
    const csv = await demoCsv(dir, 3_000);
    const imported = await importCommand(db, csv).output();
    assert(imported.success, new TextDecoder().decode(imported.stderr));
    const before = await (await fetch(`${base}/v1/dataset`)).json();
    assertEquals(before.records, 7, "still the old dataset until told");
    server.kill("SIGHUP");
    let after = before;
    for (let i = 0; i < 100 && after.records === 7; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await (await fetch(`${base}/v1/dataset`)).json();
    }
    stop = true;
    await load;
    assertEquals(after.records, 3_000);
    assertEquals(failures, 0, `${failures} of ${requests} requests failed`);
    assert(requests > 10);
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[faults] a corrupt or old database file: clear error, health answers, no crash", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    for (
      const [name, write] of [
        [
          "corrupt",
          () =>
            Deno.writeTextFile(`${dir}/bad.db`, "SQLite format 3\u0000 but not really".repeat(200)),
        ],
        ["truncated", async () => {
          const db = await fixtureDatabase(dir);
          const bytes = await Deno.readFile(db);
          await Deno.writeFile(`${dir}/bad.db`, bytes.subarray(0, Math.floor(bytes.length / 3)));
        }],
      ] as const
    ) {
      await t.step(name, async () => {
        await write();
        const port = freePort();
        const child = serverCommand(
          { PORT: String(port), PROVIDERS_DB: `${dir}/bad.db` },
          { stdout: "piped", stderr: "piped" },
        ).spawn();
        try {
          await waitForStatus(`http://127.0.0.1:${port}/health`, { timeoutMs: 15_000 });
          const health = await fetch(`http://127.0.0.1:${port}/health`);
          assertEquals(health.status, 200);
          await health.body?.cancel();
          const data = await fetch(`http://127.0.0.1:${port}/v1/dataset`);
          assertEquals(data.status, 503);
          assertMatch((await data.json()).detail, /Cannot (open|serve)/);
        } finally {
          child.kill("SIGTERM");
          const [status, , stderr] = await Promise.all([
            child.status,
            new Response(child.stdout).text(),
            new Response(child.stderr).text(),
          ]);
          assertEquals(status.code, 0, "stops cleanly");
          assertMatch(stderr, /dataset unavailable/);
        }
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
