import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "@std/assert";
import { partFiles, partPath, readPartNames } from "../lib/store/parts.ts";
import { assertJson, assertProblem, testApp } from "./_utils.ts";
import { fixtureDatabase } from "./_fixtures.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { loadConfig } from "../lib/config.ts";
import { createLogger } from "../lib/log.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import {
  manifestPath,
  parseManifest,
  readRelease,
  releaseId,
  type ReleaseManifest,
  sourceDate,
} from "../lib/release/manifest.ts";
import { writeReleaseManifest } from "../lib/release/write.ts";
import { publishRelease } from "../lib/release/publish.ts";
import {
  downloadRelease,
  fetchManifest,
  ReleaseFetchError,
  releaseLocation,
} from "../lib/release/fetch.ts";
import { followReleases } from "../lib/service/replica.ts";

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function readJson<T>(path: string): T {
  return JSON.parse(Deno.readTextFileSync(path)) as T;
}

/** A demo database of `records` providers at `path`, with its manifest. */
async function demoRelease(path: string, records: number, seed: number): Promise<ReleaseManifest> {
  buildDemoDatabase({ path, records, seed });
  return await writeReleaseManifest(path);
}

Deno.test("[release] ids come from the source files' dates and the build time", () => {
  assertEquals(
    sourceDate(["npidata_pfile_20050523-20260810.csv", "pl_pfile_20050523-20260803.csv"]),
    "2026-08-10",
  );
  assertEquals(sourceDate(["npidata_pfile_20260803-20260809.csv"]), "2026-08-09");
  assertEquals(sourceDate(["npidata.csv", "x_20261399.csv", "npi 12345678901"]), null);
  const files = [{ kind: "npidata", name: "npidata_pfile_20050523-20260810.csv" }];
  assertEquals(
    releaseId({ source: "nppes", built_at: "2026-08-11T10:15:12.345Z", files }),
    "nppes-20260810-20260811T101512345Z",
  );
  // The demo's files are named by seed, which may look like a date: the build date is used.
  assertEquals(
    releaseId({
      source: "demo",
      built_at: "2026-11-25T10:56:34.123Z",
      files: [{ name: "synthetic seed 20260810" }],
    }),
    "demo-20261125-20261125T105634123Z",
  );
});

Deno.test("[release] the import writes a manifest beside the database; /v1/dataset reports it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = await fixtureDatabase(dir);
    const manifest = parseManifest(await Deno.readTextFile(manifestPath(db)));
    assertEquals(manifest.format_version, 2);
    assertEquals(manifest.source, "nppes");
    assertEquals(manifest.source_date, "2026-08-10");
    assertEquals(manifest.records, 7);
    assertEquals(manifest.active, 6);
    assertEquals(manifest.deactivated, 1);
    assertEquals(manifest.files.length, 4);
    assertEquals(manifest.database.file, "providers.db");
    assertEquals(manifest.database.bytes, (await Deno.stat(db)).size);
    assertEquals(manifest.database.sha256, await sha256(db));
    assertMatch(manifest.release, /^nppes-20260810-\d{8}T\d{9}Z$/);
    // The part files, each with its own size and checksum.
    assertEquals(manifest.parts.map((p) => p.file), partFiles(readPartNames(db)!));
    for (const part of manifest.parts) {
      assertEquals(part.sha256, await sha256(partPath(db, part.file)), part.file);
      assertEquals(part.bytes, (await Deno.stat(partPath(db, part.file))).size, part.file);
    }

    const store = openSearchableStore(db);
    try {
      const release = readRelease(db, store.dataset());
      const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store, release }) } });
      const response = await app.request("/v1/dataset");
      assertEquals(response.headers.get("dataset-release"), manifest.release);
      const body = await assertJson<Record<string, unknown>>(response);
      assertEquals(body.records, 7, "the existing fields stay");
      assertEquals(body.release, {
        id: manifest.release,
        source_date: "2026-08-10",
        format_version: 2,
        created_at: manifest.created_at,
        sha256: manifest.database.sha256,
        bytes: manifest.database.bytes,
      });
      // A manifest of another build is not this database's: the id alone is reported.
      await Deno.writeTextFile(
        manifestPath(db),
        JSON.stringify({ ...manifest, release: "nppes-20260810-20260101T000000000Z" }),
      );
      const bare = readRelease(db, store.dataset());
      assertEquals(bare.id, manifest.release);
      assertEquals(bare.sha256, null);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[release] a manifest with a wrong field is refused with its name", () => {
  const good: ReleaseManifest = {
    format_version: 2,
    release: "nppes-20260810-20260811T101512345Z",
    created_at: "2026-08-11T10:20:00.000Z",
    source: "nppes",
    source_date: "2026-08-10",
    built_at: "2026-08-11T10:15:12.345Z",
    schema_version: 5,
    records: 7,
    active: 6,
    deactivated: 1,
    files: [],
    database: { file: "providers.db", bytes: 4096, sha256: "a".repeat(64) },
    parts: [
      { file: "providers.db.1-a.postings", bytes: 65536, sha256: "b".repeat(64) },
      { file: "providers.db.1-a.records-0", bytes: 4096, sha256: "c".repeat(64) },
    ],
  };
  assertEquals(parseManifest(JSON.stringify(good)).release, good.release);
  const part = good.parts[0]!;
  const cases: [string, unknown][] = [
    ["format_version", { ...good, format_version: 1 }],
    ["parts", { ...good, parts: undefined }],
    ["parts", { ...good, parts: [part] }],
    ["parts[1].file", { ...good, parts: [part, { ...part, file: "sub/records-0" }] }],
    ["parts[0].sha256", { ...good, parts: [{ ...part, sha256: "x" }, part] }],
    ["release", { ...good, release: "../x" }],
    ["created_at", { ...good, created_at: "yesterday" }],
    ["records", { ...good, records: -1 }],
    ["database.file", { ...good, database: { ...good.database, file: "../../etc/passwd" } }],
    ["database.file", { ...good, database: { ...good.database, file: "https://evil/x.db" } }],
    ["database.sha256", { ...good, database: { ...good.database, sha256: "abc" } }],
    ["database.bytes", { ...good, database: { ...good.database, bytes: 0 } }],
  ];
  for (const [field, value] of cases) {
    const error = assertThrows(() => parseManifest(JSON.stringify(value)), TypeError);
    assert(error.message.includes(`'${field}'`), `${field}: ${error.message}`);
  }
  assertThrows(() => parseManifest("<html>"), TypeError, "not JSON");
});

Deno.test("[release] PROVIDERS_DB_URL and PROVIDERS_DB_POLL_SECONDS are validated", () => {
  const config = loadConfig({
    PROVIDERS_DB_URL: "https://releases.example.org/providers/current.release.json",
    PROVIDERS_DB_POLL_SECONDS: "300",
  });
  assertEquals(config.releaseUrl, "https://releases.example.org/providers/current.release.json");
  assertEquals(config.releasePollSeconds, 300);
  assertEquals(
    loadConfig({ PROVIDERS_DB_URL: "/srv/releases/current.release.json" }).releaseUrl,
    "/srv/releases/current.release.json",
  );
  assertEquals(loadConfig({}).releaseUrl, null);
  assertEquals(loadConfig({}).releasePollSeconds, 0);
  assertThrows(
    () => loadConfig({ PROVIDERS_DB_URL: "ftp://host/x.json" }),
    TypeError,
    "http(s) or file:",
  );
  assertThrows(() => loadConfig({ PROVIDERS_DB_URL: "https://" }), TypeError, "not a valid URL");
  assertThrows(
    () => loadConfig({ PROVIDERS_DB_POLL_SECONDS: "60" }),
    TypeError,
    "needs PROVIDERS_DB_URL",
  );
  assertThrows(
    () => loadConfig({ PROVIDERS_DB_URL: "/x", PROVIDERS_DB_POLL_SECONDS: "-5" }),
    TypeError,
    "PROVIDERS_DB_POLL_SECONDS must be an integer",
  );
  assertEquals(
    releaseLocation("/srv/r/current.release.json").href,
    "file:///srv/r/current.release.json",
  );
});

Deno.test("[release] fetching checks size, SHA-256 and contents, over a path and over HTTP", async (t) => {
  const dir = await Deno.makeTempDir();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = `${dir}/published${new URL(request.url).pathname}`;
    try {
      return new Response(await Deno.readFile(path));
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  try {
    const source = `${dir}/built.db`;
    const built = await demoRelease(source, 800, 3);
    const { manifest, current } = await publishRelease(source, `${dir}/published`);
    assertEquals(manifest.release, built.release);
    assertEquals(manifest.database.file, `${built.release}.db`);
    assertEquals(readJson<ReleaseManifest>(current).release, built.release);
    const target = `${dir}/replica/providers.db`;
    await Deno.mkdir(`${dir}/replica`);

    for (
      const [name, location] of [["path", current], ["http", `${origin}/current.release.json`]]
    ) {
      await t.step(`a good release over ${name}`, async () => {
        const published = await fetchManifest(location!);
        assertEquals(published.manifest.release, built.release);
        const temp = await downloadRelease(published, target);
        assertEquals(await sha256(temp), built.database.sha256);
        // The parts are in place under their own names, whole.
        for (const part of built.parts) {
          assertEquals(await sha256(partPath(target, part.file)), part.sha256, part.file);
        }
        // Asked again, the parts already there are kept (checked, not downloaded).
        const before = (await Deno.stat(partPath(target, built.parts[0]!.file))).mtime;
        const again = await downloadRelease(published, target);
        assertEquals((await Deno.stat(partPath(target, built.parts[0]!.file))).mtime, before);
        // Not installed: the test removes what an install would have taken.
        for (const path of [temp, again, ...built.parts.map((p) => partPath(target, p.file))]) {
          await Deno.remove(path);
        }
      });
    }
    await t.step("a corrupt part: refused, nothing left behind", async () => {
      const part = manifest.parts.at(-1)!;
      const bytes = await Deno.readFile(`${dir}/published/${part.file}`);
      bytes[bytes.length >> 1]! ^= 0xff;
      await Deno.writeFile(`${dir}/published/corrupt-part`, bytes);
      await Deno.writeTextFile(
        `${dir}/published/corrupt-part.release.json`,
        JSON.stringify({
          ...manifest,
          parts: [...manifest.parts.slice(0, -1), { ...part, file: "corrupt-part" }],
        }),
      );
      const published = await fetchManifest(`${origin}/corrupt-part.release.json`);
      await assertRejects(() => downloadRelease(published, target), ReleaseFetchError, "SHA-256");
      assertEquals([...Deno.readDirSync(`${dir}/replica`)], []);
    });
    await t.step("a corrupt database: refused, nothing left behind", async () => {
      const file = `${dir}/published/${manifest.database.file}`;
      const bytes = await Deno.readFile(file);
      bytes[bytes.length >> 1]! ^= 0xff;
      await Deno.writeFile(`${dir}/published/corrupt.db`, bytes);
      await Deno.writeTextFile(
        `${dir}/published/corrupt.release.json`,
        JSON.stringify({ ...manifest, database: { ...manifest.database, file: "corrupt.db" } }),
      );
      const published = await fetchManifest(`${origin}/corrupt.release.json`);
      await assertRejects(() => downloadRelease(published, target), ReleaseFetchError, "SHA-256");
      assertEquals([...Deno.readDirSync(`${dir}/replica`)], []);
    });
    await t.step("a short download: refused", async () => {
      await Deno.writeTextFile(
        `${dir}/published/short.release.json`,
        JSON.stringify({
          ...manifest,
          database: { ...manifest.database, bytes: manifest.database.bytes + 1 },
        }),
      );
      const published = await fetchManifest(`${origin}/short.release.json`);
      await assertRejects(() => downloadRelease(published, target), ReleaseFetchError, "bytes");
      assertEquals([...Deno.readDirSync(`${dir}/replica`)], []);
    });
    await t.step("a download that stalls is abandoned", async () => {
      const stalled = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
        // Headers and a first chunk, then nothing.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new Uint8Array(1024));
          },
          pull() {
            return new Promise((resolve) => timer = setTimeout(resolve, 5_000));
          },
          cancel() {
            clearTimeout(timer);
          },
        });
        return new Response(body);
      });
      try {
        const published = {
          manifest,
          databaseUrl: new URL(`http://127.0.0.1:${stalled.addr.port}/x.db`),
        };
        await assertRejects(
          () => downloadRelease(published, target, { idleTimeoutMs: 300 }),
          ReleaseFetchError,
          "stalled",
        );
        assertEquals([...Deno.readDirSync(`${dir}/replica`)], []);
      } finally {
        await stalled.shutdown();
      }
    });
    await t.step("a missing manifest or database: the HTTP status is named", async () => {
      await assertRejects(
        () => fetchManifest(`${origin}/nothing.release.json`),
        ReleaseFetchError,
        "HTTP 404",
      );
      await Deno.writeTextFile(
        `${dir}/published/gone.release.json`,
        JSON.stringify({ ...manifest, database: { ...manifest.database, file: "gone.db" } }),
      );
      const published = await fetchManifest(`${origin}/gone.release.json`);
      await assertRejects(() => downloadRelease(published, target), ReleaseFetchError, "HTTP 404");
      await assertRejects(() => fetchManifest(`${dir}/nothing.json`), ReleaseFetchError);
    });
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[release] a replica installs new releases and keeps serving through a corrupt one", async () => {
  const dir = await Deno.makeTempDir();
  const logs: Record<string, unknown>[] = [];
  const log = createLogger({ write: (line) => logs.push(JSON.parse(line)) });
  const config = {
    ...loadConfig({}),
    databasePath: `${dir}/replica/providers.db`,
    releaseUrl: `${dir}/published/current.release.json`,
    searchWorkers: 0,
  };
  const dataset = new Dataset();
  try {
    const first = await demoRelease(`${dir}/a.db`, 600, 1);
    await publishRelease(`${dir}/a.db`, `${dir}/published`);
    const follower = followReleases(config, log, dataset);
    try {
      const start = await follower.started;
      assertEquals(start.kind, "installed");
      assertEquals(dataset.release().id, first.release);
      assertEquals(dataset.release().sha256, first.database.sha256);
      assertEquals(dataset.store().dataset().records, 600);
      assertEquals((await follower.sync()).kind, "current", "nothing new: nothing downloaded");

      const second = await demoRelease(`${dir}/b.db`, 700, 2);
      await publishRelease(`${dir}/b.db`, `${dir}/published`);
      const outcome = await follower.sync();
      assertEquals(outcome.kind, "installed");
      assertEquals(dataset.release().id, second.release);
      assertEquals(dataset.store().dataset().records, 700);
      assertEquals(await sha256(config.databasePath), second.database.sha256);
      // The first release's parts went with it; the second's are beside the database.
      const served = () =>
        [
          "providers.db",
          "providers.db.release.json",
          ...second.parts.map((p) => p.file),
        ].sort();
      assertEquals([...Deno.readDirSync(`${dir}/replica`)].map((e) => e.name).sort(), served());

      // A third release whose file was damaged after publishing: refused, the second serves on.
      const third = await demoRelease(`${dir}/c.db`, 500, 3);
      const { database } = await publishRelease(`${dir}/c.db`, `${dir}/published`);
      const bytes = await Deno.readFile(database);
      bytes[100_000]! ^= 0x01;
      await Deno.writeFile(database, bytes);
      const failed = await follower.sync();
      assertEquals(failed.kind, "failed");
      assertEquals(dataset.release().id, second.release);
      assertEquals(dataset.store().dataset().records, 700);
      const logged = logs.find((l) =>
        l.msg === "release fetch failed; still serving the current release"
      );
      assert(logged, "the failure is logged");
      assertEquals(logged!.current, second.release);
      assertMatch(String(logged!.error), /SHA-256/);
      assert(third.release !== second.release);
      assertEquals(
        [...Deno.readDirSync(`${dir}/replica`)].map((e) => e.name).sort(),
        served(),
        "no download left behind",
      );
    } finally {
      follower.stop();
    }
  } finally {
    await dataset.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[release] a replica without a release to fetch answers 503 and says why", async () => {
  const dir = await Deno.makeTempDir();
  const config = {
    ...loadConfig({}),
    databasePath: `${dir}/providers.db`,
    releaseUrl: `${dir}/missing.release.json`,
    searchWorkers: 0,
  };
  const dataset = new Dataset();
  const follower = followReleases(config, createLogger({ write() {} }), dataset);
  try {
    assertEquals((await follower.started).kind, "failed");
    const app = testApp({ deps: { dataset } });
    const problem = await assertProblem(await app.request("/v1/dataset"), 503);
    assertMatch(String(problem.detail), /PROVIDERS_DB_URL/);
  } finally {
    follower.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[cursor] a cursor from another release is 410 release-changed, never a mixed page", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = await fixtureDatabase(dir);
    const store = openSearchableStore(db);
    const releaseA = readRelease(db, store.dataset());
    const dataset = new Dataset({ kind: "ready", store, release: releaseA });
    const app = testApp({ deps: { dataset } });
    const first = await app.request("/v1/providers/search?limit=2");
    assertEquals(first.headers.get("dataset-release"), releaseA.id);
    const page = await assertJson<{ next_cursor: string }>(first);
    assert(page.next_cursor);
    const next = await app.request(`/v1/providers/search?limit=2&cursor=${page.next_cursor}`);
    assertEquals(next.status, 200, "same release: the walk goes on");
    await next.body?.cancel();

    // The same data under another release id, as after a swap.
    const releaseB = { ...releaseA, id: "nppes-20260817-20260818T090000000Z" };
    dataset.ready(store, null, releaseB);
    const gone = await assertProblem(
      await app.request(`/v1/providers/search?limit=2&cursor=${page.next_cursor}`),
      410,
    );
    assertEquals(gone.type, "/problems/release-changed");
    assertEquals(gone.cursor_release, releaseA.id);
    assertEquals(gone.current_release, releaseB.id);
    assertMatch(String(gone.detail), /Start again without cursor/);

    // Another query's cursor, or a damaged one, stays a 400.
    const other = await assertProblem(
      await app.request(`/v1/providers/search?limit=2&q=smith&cursor=${page.next_cursor}`),
      400,
    );
    assertEquals(other.errors?.[0]?.parameter, "cursor");
    await assertProblem(await app.request("/v1/providers/search?cursor=bm90LWEtY3Vyc29y"), 400);
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[release] deno task release: publish, then fetch as an init container does", async () => {
  const dir = await Deno.makeTempDir();
  const run = async (...args: string[]) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-net",
        "--allow-sys",
        `${new URL("../scripts/release.ts", import.meta.url).pathname}`,
        ...args,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    return { code: output.code, text };
  };
  try {
    const built = await demoRelease(`${dir}/built.db`, 500, 4);
    const published = await run("publish", "--db", `${dir}/built.db`, "--to", `${dir}/releases`);
    assertEquals(published.code, 0, published.text);
    assertMatch(published.text, new RegExp(`Published release ${built.release}`));

    const target = `${dir}/pod/data/providers.db`;
    const from = `${dir}/releases/current.release.json`;
    const fetched = await run("fetch", "--from", from, "--db", target);
    assertEquals(fetched.code, 0, fetched.text);
    assertMatch(fetched.text, /SHA-256 verified/);
    assertEquals(await sha256(target), built.database.sha256);
    assertEquals(readJson<ReleaseManifest>(manifestPath(target)).release, built.release);

    const again = await run("fetch", "--from", from, "--db", target);
    assertEquals(again.code, 0, again.text);
    assertMatch(again.text, /already is release/);

    const missing = await run("fetch", "--from", `${dir}/nowhere.json`, "--db", target);
    assertEquals(missing.code, 1);
    assertMatch(missing.text, /^error: Cannot fetch/m);
    const usage = await run("pull");
    assertEquals(usage.code, 2);
    assertMatch(usage.text, /Unknown command 'pull'/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[release] with PROVIDERS_DB_POLL_SECONDS a replica finds a new release by itself", async () => {
  const dir = await Deno.makeTempDir();
  const config = {
    ...loadConfig({}),
    databasePath: `${dir}/replica/providers.db`,
    releaseUrl: `${dir}/published/current.release.json`,
    releasePollSeconds: 1,
    searchWorkers: 0,
  };
  const dataset = new Dataset();
  try {
    const first = await demoRelease(`${dir}/a.db`, 300, 5);
    await publishRelease(`${dir}/a.db`, `${dir}/published`);
    const follower = followReleases(config, createLogger({ write() {} }), dataset);
    try {
      await follower.started;
      assertEquals(dataset.release().id, first.release);
      const second = await demoRelease(`${dir}/b.db`, 400, 6);
      await publishRelease(`${dir}/b.db`, `${dir}/published`);
      const deadline = Date.now() + 10_000;
      while (dataset.release().id !== second.release) {
        assert(Date.now() < deadline, "the poll did not pick up the new release");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assertEquals(dataset.store().dataset().records, 400);
    } finally {
      follower.stop();
    }
  } finally {
    await dataset.close();
    await Deno.remove(dir, { recursive: true });
  }
});
