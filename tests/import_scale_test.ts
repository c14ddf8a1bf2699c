/**
 * The import's large-file paths on small inputs: the main file read by two
 * workers side by side, and the index spilled to segments and merged. Both
 * must give exactly the database the simple path gives.
 */
import { assert, assertEquals } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { PROVIDER_ROWS } from "../lib/store/provider_rows.ts";
import { runImport } from "../lib/import/importer.ts";
import { writeDemoCsv } from "../lib/demo/csv.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { partPath, readPartNames } from "../lib/store/parts.ts";

const quiet = { start() {}, update() {}, finish() {}, note() {} };

/** Every table that search reads, as comparable rows (the part files' included). */
function content(path: string): Record<string, unknown[]> {
  const parts = readPartNames(path)!;
  const db = new DatabaseSync(path, { readOnly: true });
  const postings = new DatabaseSync(partPath(path, parts.postings), { readOnly: true });
  const store = openSqliteStore(path, { lazyIndex: true, recordCacheBytes: 0 });
  try {
    const all = (sql: string, from = db) => from.prepare(sql).all().map((r) => ({ ...r }));
    const provider = all("SELECT id, npi, active, sides FROM provider ORDER BY id");
    return {
      provider,
      npi: all("SELECT npi, id FROM provider_npi ORDER BY npi"),
      zip9: all("SELECT zip9, id FROM provider_zip9 ORDER BY zip9, id"),
      posting: all(
        "SELECT field, term, hex(ids) AS ids FROM posting ORDER BY field, term",
        postings,
      ),
      // The provider rows column holds the record seqs, which differ as the provider table's do
      // (its NPIs and side bits are the table's: `provider_rows_test.ts`).
      blobs: all(
        `SELECT name, hex(data) AS data FROM index_blob WHERE name <> '${PROVIDER_ROWS}' ORDER BY name`,
      ),
      terms: all("SELECT id, term, docs FROM term ORDER BY id"),
      typos: all("SELECT bucket, hex(pairs) AS pairs FROM typo_bucket ORDER BY bucket"),
      records: store.getProvidersById(provider.map((p) => p.id as number)).map((r) => ({
        id: r.id,
        provider: r.provider,
      })),
    };
  } finally {
    store.close();
    postings.close();
    db.close();
  }
}

Deno.test("[import] spilled index segments merge into the same index", () => {
  const dir = Deno.makeTempDirSync();
  try {
    buildDemoDatabase({ path: `${dir}/one.db`, records: 3000, seed: 3 });
    buildDemoDatabase({ path: `${dir}/many.db`, records: 3000, seed: 3, segmentEntries: 700 });
    const one = content(`${dir}/one.db`), many = content(`${dir}/many.db`);
    assert(one.posting!.length > 1000, "the index has postings");
    for (const table of Object.keys(one)) assertEquals(many[table], one[table], table);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[import] a main file read in two halves gives the same database", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const { files } = await writeDemoCsv(`${dir}/csv`, { records: 4000, seed: 11 });
    const path = (kind: string) => files.find((f) => f.kind === kind)!.path;
    const npi = path("npidata");
    const base = {
      othername: path("othername"),
      pl: path("pl"),
      endpoint: path("endpoint"),
      deactivated: path("deactivated"),
    };
    await t.step("indexed in the reading workers as in one thread", async () => {
      await runImport({ db: `${dir}/csv.db`, npi, ...base, splitMinBytes: 1, progress: quiet });
      buildDemoDatabase({ path: `${dir}/demo.db`, records: 4000, seed: 11 });
      const a = content(`${dir}/csv.db`), b = content(`${dir}/demo.db`);
      for (const table of Object.keys(a)) assertEquals(a[table], b[table], table);
    });
    // A repeated NPI in the second half, whose later row must win, and a malformed row there.
    const lines = (await Deno.readTextFile(npi)).split("\r\n");
    const first = lines.find((line) => /^"\d{10}","1",/.test(line))!;
    const renamed = first.replace(/^("\d{10}","1",(?:"[^"]*",){3})"[^"]*"/, '$1"ZZLATER"');
    assert(renamed !== first);
    const half = Math.floor(lines.length * 3 / 4);
    lines.splice(half, 0, renamed, '"1234567893","1","broken');
    await Deno.writeTextFile(npi, lines.join("\r\n"));
    const notes: string[] = [];
    const split = await runImport({
      db: `${dir}/split.db`,
      npi,
      ...base,
      splitMinBytes: 1,
      progress: { ...quiet, note: (line: string) => notes.push(line) },
    });
    const whole = await runImport({ db: `${dir}/whole.db`, npi, ...base, progress: quiet });
    await t.step("same counts, same skipped row at the same line", () => {
      assertEquals(split.stats, { ...whole.stats, seconds: split.stats.seconds });
      assertEquals(split.files[0]!.skipped, 1);
      assertEquals(notes.length, 1);
      assert(notes[0]!.includes(`:${half + 2}: skipped`), notes[0]);
    });
    await t.step("the later row of a repeated NPI wins", () => {
      const store = openSqliteStore(`${dir}/split.db`);
      try {
        const id = first.slice(1, 11);
        assertEquals(store.getProvider(id)!.individual?.last_name, "ZZLATER");
      } finally {
        store.close();
      }
    });
    await t.step("same ranks, postings, columns and vocabulary", () => {
      const a = content(`${dir}/split.db`), b = content(`${dir}/whole.db`);
      for (const table of Object.keys(a)) assertEquals(a[table], b[table], table);
    });
    await t.step("the same with every thread's lists spilled in small segments", async () => {
      // The importing thread's own segments keep the posting lists out of the worker.
      await runImport({
        db: `${dir}/spilled.db`,
        npi,
        ...base,
        splitMinBytes: 1,
        segmentEntries: 300,
        progress: quiet,
      });
      const a = content(`${dir}/spilled.db`), b = content(`${dir}/whole.db`);
      for (const table of Object.keys(a)) assertEquals(a[table], b[table], table);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] the deactivation report applied as records arrive equals applying it at the end", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { files } = await writeDemoCsv(`${dir}/csv`, { records: 3000, seed: 5 });
    const path = (kind: string) => files.find((f) => f.kind === kind)!.path;
    const sides = { othername: path("othername"), pl: path("pl"), endpoint: path("endpoint") };
    const report = path("deactivated");
    // NPIs of the main file not in the report yet, so that the report changes them.
    const listed = new Set(
      (await Deno.readTextFile(report)).split("\r\n").map((l) => l.slice(0, 10)),
    );
    const active = (await Deno.readTextFile(path("npidata"))).split("\r\n").slice(1)
      .map((line) => line.slice(1, 11)).filter((npi) => /^\d{10}$/.test(npi) && !listed.has(npi))
      .slice(0, 40);
    assertEquals(active.length, 40);
    await Deno.writeTextFile(
      report,
      `${await Deno.readTextFile(report)}${active.map((npi) => `${npi},06/01/2026\r\n`).join("")}`,
    );
    const arrived = await runImport({
      db: `${dir}/arrival.db`,
      npi: path("npidata"),
      ...sides,
      deactivated: report,
      progress: quiet,
    });
    await runImport({ db: `${dir}/end.db`, npi: path("npidata"), ...sides, progress: quiet });
    const ended = await runImport({
      db: `${dir}/end.db`,
      update: true,
      deactivated: report,
      progress: quiet,
    });
    assert(arrived.stats.deactivated >= 40, "the report deactivates records");
    assertEquals(ended.stats.deactivated, arrived.stats.deactivated);
    assertEquals(ended.stats.providers, arrived.stats.providers);
    const a = content(`${dir}/arrival.db`), b = content(`${dir}/end.db`);
    for (const table of Object.keys(a)) assertEquals(a[table], b[table], table);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
