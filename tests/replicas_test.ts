/**
 * Three replicas behind nginx (deploy/nginx.conf, with local ports and
 * paths) on this machine: a new release is rolled through them one by one
 * while clients walk search results with cursors; no request fails and no
 * walk mixes two releases.
 */
import { assert, assertEquals } from "@std/assert";
import { freePort, ROOT, serverCommand, waitForStatus } from "../scripts/processes.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { writeReleaseManifest } from "../lib/release/write.ts";
import { publishRelease } from "../lib/release/publish.ts";

/** The nginx binary, or null when it is not installed. */
function findNginx(): string | null {
  for (const path of ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not here */ }
  }
  return null;
}

const NGINX = findNginx();

/**
 * deploy/nginx.conf with this machine's ports and paths; each replacement
 * must match, so the deployed file keeps the shape this test relies on.
 */
function localNginxConf(dir: string, port: number, replicas: number[]): string {
  let conf = Deno.readTextFileSync(`${ROOT}deploy/nginx.conf`);
  const replace = (pattern: RegExp, by: string) => {
    assert(pattern.test(conf), `deploy/nginx.conf has no match for ${pattern}`);
    conf = conf.replace(pattern, by);
  };
  replace(/^user nginx;$/m, Deno.uid?.() === 0 ? "user root;" : "");
  replace(/^pid .*;$/m, `pid ${dir}/nginx.pid;`);
  replace(/^ {2}access_log .*;$/m, `  access_log ${dir}/access.log replicas;`);
  replace(/^error_log .*;$/m, `error_log ${dir}/error.log warn;`);
  replace(/proxy_cache_path \/var\/cache\/nginx\/providers/, `proxy_cache_path ${dir}/cache`);
  replace(
    /( {4}server replica\d:7860 [^\n]*\n){3}/,
    replicas.map((p) => `    server 127.0.0.1:${p} max_fails=3 fail_timeout=10s;\n`).join(""),
  );
  replace(/listen 8080;/, `listen 127.0.0.1:${port};`);
  // Short cache lifetime: the walks that meet a new release restart quickly in this short test.
  replace(/proxy_cache_valid 200 10s;/, "proxy_cache_valid 200 1s;");
  return `${conf}\n# temporary files of this run\n`.replace(
    /^http \{$/m,
    `http {\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;`,
  );
}

interface Tally {
  requests: number;
  failures: string[];
  walks: number;
  walksByRelease: Map<string, number>;
  restarts: number;
  mixed: string[];
}

/**
 * One client: walks a listing page by page with `next_cursor` (up to
 * `pages` pages), restarting on 410; records every failure and every walk
 * whose pages came from two releases (by the `Dataset-Release` header, and
 * by `total`, which differs between the two datasets).
 */
async function client(
  base: string,
  query: string,
  pages: number,
  tally: Tally,
  stopped: () => boolean,
): Promise<void> {
  for (let walk = 0; !stopped(); walk++) {
    // A page size of its own for each walk: its pages are new to the cache, and reach replicas.
    const limit = `&limit=${5 + (walk * 7) % 45}`;
    const releases = new Set<string>();
    const totals = new Set<number>();
    let cursor: string | null = null;
    let restarted = false;
    for (let page = 0; page < pages && !stopped(); page++) {
      const url = `${base}/v1/providers/search?${query}${limit}${
        cursor ? `&cursor=${cursor}` : ""
      }`;
      let response: Response;
      tally.requests++;
      try {
        response = await fetch(url);
      } catch (error) {
        tally.failures.push(`${url}: ${error instanceof Error ? error.message : error}`);
        break;
      }
      if (response.status === 410) {
        const problem = await response.json();
        if (problem.type !== "/problems/release-changed") {
          tally.failures.push(`${url}: 410 ${JSON.stringify(problem)}`);
        }
        tally.restarts++;
        restarted = true;
        break;
      }
      if (response.status !== 200) {
        tally.failures.push(`${url}: ${response.status} ${await response.text()}`);
        break;
      }
      const body = await response.json() as { total: number; next_cursor: string | null };
      releases.add(response.headers.get("dataset-release") ?? "(none)");
      totals.add(body.total);
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    if (releases.size > 1 || totals.size > 1) {
      tally.mixed.push(`${[...releases].join(" + ")} totals ${[...totals].join(", ")}`);
    }
    if (!restarted && releases.size === 1) {
      tally.walks++;
      const release = [...releases][0]!;
      tally.walksByRelease.set(release, (tally.walksByRelease.get(release) ?? 0) + 1);
    }
  }
}

async function releaseOf(port: number): Promise<string> {
  const body = await (await fetch(`http://127.0.0.1:${port}/v1/dataset`)).json();
  return body.release.id;
}

Deno.test({
  name: NGINX
    ? "[replicas] a release rolls through three replicas behind nginx: no failed request, no mixed walk"
    : "[replicas] rolling release behind nginx (skipped: nginx is not installed; apt-get install nginx)",
  ignore: NGINX === null,
  async fn() {
    const dir = await Deno.makeTempDir();
    await Deno.chmod(dir, 0o755);
    const children: Deno.ChildProcess[] = [];
    let nginx: Deno.ChildProcess | null = null;
    try {
      // Two releases of different sizes, so that their answers differ.
      buildDemoDatabase({ path: `${dir}/a.db`, records: 3_000, seed: 1 });
      const a = await writeReleaseManifest(`${dir}/a.db`);
      buildDemoDatabase({ path: `${dir}/b.db`, records: 3_600, seed: 2 });
      const b = await writeReleaseManifest(`${dir}/b.db`);
      await publishRelease(`${dir}/a.db`, `${dir}/releases`);

      const ports = [freePort(), freePort(), freePort()];
      for (const [i, port] of ports.entries()) {
        children.push(
          serverCommand({
            PORT: String(port),
            PROVIDERS_DB: `${dir}/replica${i + 1}/providers.db`,
            PROVIDERS_DB_URL: `${dir}/releases/current.release.json`,
            SEARCH_WORKERS: "1",
          }).spawn(),
        );
      }
      for (const port of ports) {
        await waitForStatus(`http://127.0.0.1:${port}/v1/dataset`, { timeoutMs: 60_000 });
        assertEquals(await releaseOf(port), a.release);
      }

      const port = freePort();
      await Deno.writeTextFile(`${dir}/nginx.conf`, localNginxConf(dir, port, ports));
      nginx = new Deno.Command(NGINX!, {
        args: ["-p", dir, "-c", `${dir}/nginx.conf`, "-g", "daemon off;"],
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const base = `http://127.0.0.1:${port}`;
      await waitForStatus(`${base}/health`, { timeoutMs: 15_000 });

      const tally: Tally = {
        requests: 0,
        failures: [],
        walks: 0,
        walksByRelease: new Map(),
        restarts: 0,
        mixed: [],
      };
      let stop = false;
      const queries = ["sort=name", "q=smith", "state=CA", "entity_type=individual"];
      const clients = queries.map((q) => client(base, q, 6, tally, () => stop));
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

      await pause(1_500);
      await publishRelease(`${dir}/b.db`, `${dir}/releases`);
      // One replica at a time: told by SIGHUP, then on to the next once it serves the new release.
      for (const [i, child] of children.entries()) {
        child.kill("SIGHUP");
        const deadline = Date.now() + 60_000;
        while ((await releaseOf(ports[i]!)) !== b.release) {
          assert(Date.now() < deadline, `replica ${i + 1} did not switch to ${b.release}`);
          await pause(100);
        }
        await pause(1_500);
      }
      await pause(2_500);
      stop = true;
      await Promise.all(clients);

      for (const p of ports) assertEquals(await releaseOf(p), b.release);
      assertEquals(tally.failures, [], `${tally.failures.length} of ${tally.requests} failed`);
      assertEquals(tally.mixed, [], "walks that mixed releases");
      assert(tally.requests > 100, `only ${tally.requests} requests`);
      assert((tally.walksByRelease.get(a.release) ?? 0) > 0, "walks on the first release");
      assert((tally.walksByRelease.get(b.release) ?? 0) > 0, "walks on the second release");
      console.log(
        `[replicas] ${tally.requests} requests, ${tally.walks} walks (${
          [...tally.walksByRelease.values()].join(" on the first, ")
        } on the second), ${tally.restarts} restarted on 410, 0 failed`,
      );
    } finally {
      if (nginx) {
        nginx.kill("SIGQUIT");
        await nginx.status;
        await nginx.stderr.cancel();
      }
      for (const child of children) {
        try {
          child.kill("SIGTERM");
        } catch { /* exited */ }
        await child.status;
      }
      await Deno.remove(dir, { recursive: true });
    }
  },
});
