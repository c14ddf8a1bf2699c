/**
 * The record map: every provider reads from it exactly as from the
 * records parts (one at a time, in batches, by NPI, with reference rows);
 * a cut, garbled, foreign or missing map is refused with what to do.
 */
import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { canMapFiles } from "../lib/index/mapped_file.ts";
import { DatabaseSync } from "node:sqlite";
import { RecordMap, writeRecordMap } from "../lib/store/record_map.ts";
import { partPath, readPartNames } from "../lib/store/parts.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { StoreOpenError } from "../lib/store/store.ts";

/** A demo database in a new folder, with its parts. */
function demo(records: number, seed = 13): { dir: string; db: string } {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records, seed });
  return { dir, db };
}

/** What a store reads of every provider id (and two ids no provider has), from the map or not. */
function everything(db: string, recordMap: boolean) {
  const store = openSqliteStore(db, { lazyIndex: true, recordCacheBytes: 0, recordMap });
  try {
    const n = store.dataset().records;
    const ids = [0, ...Array.from({ length: n }, (_, i) => i + 1), n + 1];
    const stored = store.storedRecords(ids);
    const json = store.providerJsonById(ids);
    const one = ids.filter((id) => id % 53 === 0).map((id) => store.getProvidersById([id]));
    const byNpi = stored.filter((_, i) => i % 41 === 0).map((r) => store.getProvider(`${r.npi}`));
    return { n, stored, json, one, byNpi, missing: store.getProvider("1000000000") };
  } finally {
    store.close();
  }
}

Deno.test("[record map] every record reads as from the records parts", () => {
  assert(canMapFiles(), "the test task allows FFI for the C library");
  const { dir, db } = demo(5000);
  try {
    const docs = readPartNames(db)!.docs;
    if (!docs) throw new Error("a build names its record map");
    const map = RecordMap.open(partPath(db, docs))!;
    assertEquals(map.ids, 5001, "a column entry per provider id, and id 0");
    assertEquals(map.get(0), undefined);
    assertEquals(map.get(5001), undefined);
    const mapped = everything(db, true);
    const read = everything(db, false);
    assertEquals(mapped.stored.length, 5000, "ids no provider has are left out");
    assert(
      mapped.stored.some((r) => r.sides !== 0) && mapped.stored.some((r) => r.otherNames.length),
      "some providers have reference rows",
    );
    assertEquals(mapped, read);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[record map] a cut, garbled, foreign or missing map is refused with what to do", async (t) => {
  const { dir, db } = demo(800);
  try {
    const file = partPath(db, readPartNames(db)!.docs!);
    const whole = Deno.readFileSync(file);
    await t.step("cut short", () => {
      Deno.writeFileSync(`${dir}/cut.docs`, whole.subarray(0, whole.length - 64));
      assertThrows(() => RecordMap.open(`${dir}/cut.docs`), Error, "cut short");
      Deno.writeFileSync(`${dir}/empty.docs`, new Uint8Array(0));
      assertThrows(() => RecordMap.open(`${dir}/empty.docs`), Error, "cut short");
    });
    await t.step("not a map, or a header that is not one", () => {
      const other = new Uint8Array(2048);
      other.set(new TextEncoder().encode("SQLite format 3\0"));
      Deno.writeFileSync(`${dir}/other.docs`, other);
      assertThrows(() => RecordMap.open(`${dir}/other.docs`), Error, "no record map header");
      const garbled = whole.slice();
      garbled.fill(0x7b, 12, 40);
      Deno.writeFileSync(`${dir}/garbled.docs`, garbled);
      assertThrows(() => RecordMap.open(`${dir}/garbled.docs`), Error, "header is not readable");
      const moved = whole.slice();
      const text = new TextDecoder().decode(moved.subarray(12, 12 + 600));
      const shifted = text.replace(/"sides":\[(\d+)/, (_, at) => `"sides":[${Number(at) + 8}`);
      moved.set(new TextEncoder().encode(shifted), 12);
      Deno.writeFileSync(`${dir}/moved.docs`, moved);
      assertThrows(() => RecordMap.open(`${dir}/moved.docs`), Error, "sides section is amiss");
    });
    await t.step("made of other records", () => {
      const other = demo(300, 5);
      try {
        Deno.copyFileSync(partPath(other.db, readPartNames(other.db)!.docs!), file);
        const error = assertThrows(() => openSqliteStore(db), StoreOpenError);
        assertMatch(error.message, /made of other records: import again/);
      } finally {
        Deno.removeSync(other.dir, { recursive: true });
        Deno.writeFileSync(file, whole);
      }
    });
    await t.step("missing", () => {
      Deno.removeSync(file);
      const error = assertThrows(() => openSqliteStore(db), StoreOpenError);
      assertMatch(error.message, /part '.*\.docs' is missing: keep every file the import wrote/);
      openSqliteStore(db, { recordMap: false }).close();
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[record map] records of any text, ids with no provider, and a record not found", () => {
  const dir = Deno.makeTempDirSync();
  const db = new DatabaseSync(":memory:");
  try {
    db.exec(
      "CREATE TABLE provider (id INTEGER PRIMARY KEY, npi INTEGER, sides INTEGER, record INTEGER)",
    );
    const insert = db.prepare("INSERT INTO provider VALUES (?, ?, ?, ?)");
    // Providers 1, 2 and 4 (3 has none); their records in arrival order 5, 9, 7; seq 8 replaced.
    insert.run(1, 1234567893, 0, 9);
    insert.run(2, 1000000004, 5, 5);
    insert.run(4, 9999999991, 1, 7);
    const rows = [
      { seq: 5, doc: '["MUÑOZ","José","Ærø 🏥"]' },
      { seq: 7, doc: "" },
      { seq: 8, doc: "replaced" },
      { seq: 9, doc: "x".repeat(70_000) },
    ];
    const stats = writeRecordMap(`${dir}/t.docs`, db, rows, 9, "t.db.1-a.records-0");
    assertEquals(stats.providers, 3);
    assertEquals(stats.bytes, Deno.statSync(`${dir}/t.docs`).size);
    const map = RecordMap.open(`${dir}/t.docs`)!;
    assertEquals(map.records, "t.db.1-a.records-0");
    assertEquals(map.ids, 5);
    assertEquals(map.get(1), { npi: 1234567893, sides: 0, doc: "x".repeat(70_000) });
    assertEquals(map.get(2), { npi: 1000000004, sides: 5, doc: '["MUÑOZ","José","Ærø 🏥"]' });
    assertEquals(map.get(3), undefined, "an id no provider has");
    assertEquals(map.get(4), { npi: 9999999991, sides: 1, doc: "" });
    assertEquals(map.get(5), undefined);
    assertEquals(map.get(-1), undefined);
    // A provider whose record no part holds: nothing is written.
    insert.run(3, 1111111112, 0, 6);
    assertThrows(
      () => writeRecordMap(`${dir}/u.docs`, db, rows, 9, "t.db.1-a.records-0"),
      Error,
      "The record of provider 3 is in no records part",
    );
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["t.docs"]);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
