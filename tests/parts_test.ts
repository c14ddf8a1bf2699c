/**
 * Part files: the records split over several parts read exactly as from
 * one; an update keeps them; a missing part is refused with a clear error;
 * a commit removes the replaced release's parts and the sweep of leftovers
 * those of killed builds, never a part the database names. Held records:
 * every page of each part mapped by the store's own connections, and held
 * only where asked and where they fit.
 */
import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { StoreOpenError } from "../lib/store/store.ts";
import {
  parseParts,
  partFiles,
  partPath,
  readPartNames,
  removeReplacedParts,
} from "../lib/store/parts.ts";
import { findLeftovers } from "../lib/store/build_leftovers.ts";
import { runImport } from "../lib/import/importer.ts";
import { writeDemoCsv } from "../lib/demo/csv.ts";
import { ownProcFile } from "./_utils.ts";
import { recordsHeld } from "../lib/service/startup.ts";
import { loadConfig } from "../lib/config.ts";

const quiet = { start() {}, update() {}, finish() {}, note() {} };

/** Every provider's JSON text, in id order. */
function allJson(path: string): string[] {
  const store = openSqliteStore(path, { lazyIndex: true, recordCacheBytes: 0 });
  try {
    const n = store.dataset().records;
    const ids = Array.from({ length: n }, (_, i) => i + 1);
    const one = ids.filter((id) => id % 97 === 0).map((id) => store.providerJsonById([id])[0]);
    const many = store.providerJsonById(ids);
    assertEquals(many.length, n, "every record is read");
    assertEquals(one, many.filter((_, i) => (i + 1) % 97 === 0), "one by one as in batches");
    return many;
  } finally {
    store.close();
  }
}

Deno.test("[parts] records split over many parts read exactly as from one", () => {
  const dir = Deno.makeTempDirSync();
  try {
    buildDemoDatabase({ path: `${dir}/one.db`, records: 6000, seed: 4 });
    buildDemoDatabase({ path: `${dir}/many.db`, records: 6000, seed: 4, recordPartBytes: 1 << 19 });
    const one = readPartNames(`${dir}/one.db`)!, many = readPartNames(`${dir}/many.db`)!;
    assertEquals(one.records.length, 1);
    assert(many.records.length >= 3, `${many.records.length} parts`);
    assertEquals(many.records[0]!.first, 1);
    const json = allJson(`${dir}/one.db`);
    assertEquals(allJson(`${dir}/many.db`), json);
    // Each part holds only its own range of arrival numbers, the first of it included.
    for (const [k, part] of many.records.entries()) {
      const next = many.records[k + 1]?.first ?? Infinity;
      const db = new DatabaseSync(partPath(`${dir}/many.db`, part.file), { readOnly: true });
      try {
        const { lo, hi } = db.prepare("SELECT min(seq) AS lo, max(seq) AS hi FROM record")
          .get() as {
            lo: number;
            hi: number;
          };
        assertEquals(lo, part.first, part.file);
        assert(hi < next, `${part.file}: ${hi} < ${next}`);
      } finally {
        db.close();
      }
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** Resident kB of this process's mappings of `path` (0 when it maps none). */
async function mappedKb(path: string): Promise<number> {
  let kb = 0, inFile = false;
  for (const line of (await ownProcFile("smaps")).split("\n")) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.endsWith(` ${path}`);
    else if (inFile && line.startsWith("Rss:")) kb += Number(/(\d+) kB/.exec(line)![1]);
  }
  return kb;
}

Deno.test({
  name: "[parts] held records: every page of each part mapped by the store's own connections",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = Deno.makeTempDirSync();
    const path = `${dir}/many.db`;
    try {
      buildDemoDatabase({ path, records: 3000, seed: 6, recordPartBytes: 1 << 19 });
      const files = readPartNames(path)!.records.map((r) =>
        Deno.realPathSync(partPath(path, r.file))
      );
      assert(files.length >= 3, `${files.length} parts`);
      const sizeKb = (file: string) => Deno.statSync(file).size / 1024;
      const reading = openSqliteStore(path, { lazyIndex: true, recordCacheBytes: 0 });
      try {
        assertEquals(reading.held, null, "not asked");
        assertEquals(reading.providerJsonById([1, 1500, 3000]).length, 3);
        let kb = 0, total = 0;
        for (const file of files) [kb, total] = [kb + await mappedKb(file), total + sizeKb(file)];
        assert(kb < total / 2, `read, not held: only some pages mapped (${kb} of ${total} kB)`);
      } finally {
        reading.close();
      }
      const held = openSqliteStore(path, {
        lazyIndex: true,
        recordCacheBytes: 0,
        holdRecords: true,
      });
      try {
        assertEquals(await held.held, { records: 3000 });
        for (const file of files) {
          // Every page of the table (a page of the file's own may be left: a free one).
          const kb = await mappedKb(file);
          assert(kb >= sizeKb(file) * 0.95, `${file}: ${kb} of ${sizeKb(file)} kB mapped`);
        }
        assertEquals(
          allJson(path),
          held.providerJsonById(Array.from({ length: 3000 }, (_, i) => i + 1)),
        );
      } finally {
        held.close();
      }
      for (const file of files) assertEquals(await mappedKb(file), 0, "let go at close");

      // Closed while holding: it stops between chunks, without an error.
      const stopped = openSqliteStore(path, {
        lazyIndex: true,
        recordCacheBytes: 0,
        holdRecords: true,
      });
      stopped.close();
      const outcome = await stopped.held;
      const records = outcome && "records" in outcome ? outcome.records : -1;
      assert(records >= 0 && records < 3000, `stopped, no error: ${JSON.stringify(outcome)}`);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test("[parts] records are held where they fit in half the available memory, if asked", () => {
  const dir = Deno.makeTempDirSync();
  try {
    buildDemoDatabase({ path: `${dir}/p.db`, records: 500, seed: 2 });
    assertEquals(recordsHeld(`${dir}/p.db`, loadConfig({})), true);
    assertEquals(recordsHeld(`${dir}/p.db`, loadConfig({ HOLD_RECORDS: "0" })), false);
    assertEquals(recordsHeld(`${dir}/none.db`, loadConfig({})), false, "no database, no parts");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[parts] an update copies the parts under its own names and removes the old ones", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { files } = await writeDemoCsv(`${dir}/csv`, { records: 3000, seed: 8 });
    const path = (kind: string) => files.find((f) => f.kind === kind)!.path;
    const db = `${dir}/providers.db`;
    await runImport({ db, npi: path("npidata"), progress: quiet, recordPartBytes: 1 << 18 });
    const before = readPartNames(db)!;
    assert(before.records.length >= 2, `${before.records.length} parts`);
    const json = allJson(db);
    // A weekly file that changes nothing still rebuilds: every record must survive the copy.
    await runImport({ db, update: true, othername: path("othername"), progress: quiet });
    const after = readPartNames(db)!;
    assertEquals(after.records.map((r) => r.first), before.records.map((r) => r.first));
    for (const file of partFiles(before)) {
      assert(!partFiles(after).includes(file), `${file} is renamed`);
      assertThrows(() => Deno.statSync(partPath(db, file)), Deno.errors.NotFound, file);
    }
    const updated = allJson(db);
    assertEquals(updated.length, json.length);
    assertEquals(
      updated.map((text) => JSON.parse(text).npi),
      json.map((text) => JSON.parse(text).npi),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[parts] a database whose part is missing is refused, saying which", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const db = `${dir}/p.db`;
    buildDemoDatabase({ path: db, records: 500, seed: 2 });
    const names = readPartNames(db)!;
    for (const file of [names.postings, names.records[0]!.file]) {
      Deno.renameSync(partPath(db, file), `${dir}/aside`);
      const error = assertThrows(() => openSqliteStore(db), StoreOpenError);
      assertMatch(error.message, new RegExp(`part '${file.replaceAll(".", "\\.")}' is missing`));
      assertMatch(error.message, /release manifest lists them/);
      Deno.renameSync(`${dir}/aside`, partPath(db, file));
    }
    openSqliteStore(db).close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[parts] part names are checked: plain names, records in order", () => {
  const good = {
    postings: "p.db.1-a.postings",
    records: [{ file: "p.db.1-a.records-0", first: 1 }],
  };
  assertEquals(parseParts(JSON.stringify(good)), good);
  // The index map is optional; named, it is a part like the others.
  const mapped = { ...good, map: "p.db.1-a.map" };
  assertEquals(parseParts(JSON.stringify(mapped)), mapped);
  assertEquals(partFiles(mapped), ["p.db.1-a.postings", "p.db.1-a.records-0", "p.db.1-a.map"]);
  assertEquals(partFiles(good), ["p.db.1-a.postings", "p.db.1-a.records-0"]);
  for (
    const bad of [
      undefined,
      "not json",
      JSON.stringify({ ...good, postings: "../x" }),
      JSON.stringify({ ...good, map: "../p.db.1-a.map" }),
      JSON.stringify({ ...good, map: 7 }),
      JSON.stringify({ ...good, records: [] }),
      JSON.stringify({ ...good, records: [{ file: "a/b", first: 1 }] }),
      JSON.stringify({
        ...good,
        records: [{ file: "r0", first: 5 }, { file: "r1", first: 5 }],
      }),
    ]
  ) {
    assertThrows(() => parseParts(bad), TypeError);
  }
});

Deno.test("[parts] a new build removes the parts it replaced; leftovers are only unnamed parts of dead builds", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const db = `${dir}/providers.db`;
    buildDemoDatabase({ path: db, records: 800, seed: 1 });
    const first = readPartNames(db)!;
    buildDemoDatabase({ path: db, records: 900, seed: 2 });
    const second = readPartNames(db)!;
    for (const file of partFiles(first)) {
      assertThrows(() => Deno.statSync(partPath(db, file)), Deno.errors.NotFound, file);
    }
    for (const file of partFiles(second)) assert(Deno.statSync(partPath(db, file)).isFile, file);
    // A part of a build whose process is gone, named by no database: a leftover.
    const orphan = `${dir}/providers.db.999999-zz.records-0`;
    Deno.writeTextFileSync(orphan, "left");
    // Another database's part in the same folder is not ours to judge.
    Deno.writeTextFileSync(`${dir}/other.db.999999-zz.records-0`, "theirs");
    assertEquals(findLeftovers(db).map((l) => l.path), [orphan]);
    // Removing a replaced release's parts spares those the new release names.
    assertEquals(removeReplacedParts(db, second, second), []);
    for (const file of partFiles(second)) assert(Deno.statSync(partPath(db, file)).isFile, file);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
