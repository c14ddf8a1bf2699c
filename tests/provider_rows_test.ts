/**
 * The provider rows column (`lib/store/provider_rows.ts`): the build writes
 * the provider table's NPI, record seq and side bits of every id into the
 * index map; pages of records read through it are those read through the
 * table, whatever the ids asked; a database imported before it keeps
 * reading the table until `index-map --again` writes the column; and a
 * column of the wrong size is not taken.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { IndexMap, writeIndexMap } from "../lib/index/index_map.ts";
import { addIndexMap } from "../lib/store/add_index_map.ts";
import { partPath, readPartNames } from "../lib/store/parts.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { recordBatchReader } from "../lib/store/record_batch.ts";
import {
  PROVIDER_ROW_WORDS,
  PROVIDER_ROWS,
  providerRowsOf,
  writeProviderRows,
} from "../lib/store/provider_rows.ts";
import { seededRandom } from "./_utils.ts";

const RECORDS = 2500;

function demo(): { dir: string; db: string } {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records: RECORDS, seed: 23 });
  return { dir, db };
}

/** The provider table's rows by id: NPI, record seq, side bits. */
function tableRows(db: string): Map<number, [number, number, number]> {
  const main = new DatabaseSync(db, { readOnly: true });
  try {
    const rows = main.prepare("SELECT id, npi, record, sides FROM provider").all() as {
      id: number;
      npi: number;
      record: number;
      sides: number;
    }[];
    return new Map(rows.map((r) => [r.id, [r.npi, r.record, r.sides]]));
  } finally {
    main.close();
  }
}

/** Ids as a page may ask them: shuffled, some repeated, some unknown. */
function askedIds(random: () => number, size: number): number[] {
  const ids = Array.from({ length: 300 }, () => 1 + Math.floor(random() * size));
  ids.push(ids[0]!, 0, -4, size + 1, size + 70);
  return ids;
}

Deno.test("[provider rows] the build maps every id's row, and pages read through it are the table's", () => {
  const { dir, db } = demo();
  try {
    const store = openSqliteStore(db);
    try {
      const size = store.index.size;
      const rows = providerRowsOf(store.index.mappedBlob(PROVIDER_ROWS), size);
      if (!rows) throw new Error("the build's map holds no provider rows column");
      const table = tableRows(db);
      assertEquals(table.size, size);
      assert([...table.values()].some(([, , sides]) => sides !== 0), "the demo has side rows");
      for (const [id, row] of table) {
        const at = id * PROVIDER_ROW_WORDS;
        assertEquals([rows[at], rows[at + 1], rows[at + 2]], row, `id ${id}`);
      }
      const byTable = recordBatchReader(store.db, store.records, () => null);
      const byColumn = recordBatchReader(store.db, store.records, () => rows);
      const random = seededRandom(5);
      for (let round = 0; round < 5; round++) {
        const ids = askedIds(random, size);
        const expected = byTable(ids);
        assertEquals(expected.length, ids.length - 4, "unknown ids are skipped");
        assertEquals(byColumn(ids), expected);
        assertEquals(store.storedRecords(ids), expected, "the store reads through the column");
      }
    } finally {
      store.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[provider rows] a database imported before the column reads its table until index-map --again writes it", () => {
  const { dir, db } = demo();
  try {
    const ids = askedIds(seededRandom(9), RECORDS);
    const before = openSqliteStore(db);
    const expected = before.storedRecords(ids);
    before.close();
    // As an older import left it: no column in the database, none in its map.
    const main = new DatabaseSync(db);
    main.prepare("DELETE FROM index_blob WHERE name = ?").run(PROVIDER_ROWS);
    main.close();
    assertEquals(addIndexMap(db, { again: false }).written, false);
    const mapFile = partPath(db, readPartNames(db)!.map!);
    const older = new DatabaseSync(db, { readOnly: true });
    const postings = new DatabaseSync(partPath(db, readPartNames(db)!.postings), {
      readOnly: true,
    });
    try {
      writeIndexMap(mapFile, older, postings, readPartNames(db)!.postings);
    } finally {
      postings.close();
      older.close();
    }
    assertEquals(IndexMap.open(mapFile)!.blob(PROVIDER_ROWS), undefined);
    const withoutColumn = openSqliteStore(db);
    try {
      assertEquals(withoutColumn.index.mappedBlob(PROVIDER_ROWS), undefined);
      assertEquals(withoutColumn.storedRecords(ids), expected, "read from the table");
    } finally {
      withoutColumn.close();
    }
    const again = addIndexMap(db, { again: true });
    assertEquals(again.written, true);
    const after = openSqliteStore(db);
    try {
      assert(providerRowsOf(after.index.mappedBlob(PROVIDER_ROWS), after.index.size));
      assertEquals(after.storedRecords(ids), expected, "read through the column written");
    } finally {
      after.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[provider rows] a column of another size or alignment is not taken", () => {
  const rows = new Uint32Array(4 * PROVIDER_ROW_WORDS);
  const bytes = new Uint8Array(rows.buffer);
  assertEquals(providerRowsOf(bytes, 3)?.length, rows.length);
  assertEquals(providerRowsOf(bytes, 4), null, "too short for four ids");
  assertEquals(providerRowsOf(bytes, 2), null, "too long for two ids");
  assertEquals(providerRowsOf(undefined, 3), null);
  const shifted = new Uint8Array(bytes.byteLength + 1).subarray(1);
  assertEquals(providerRowsOf(shifted, 3), null, "not aligned to read u32s");
});

Deno.test("[provider rows] written from the table, id 0 unused, an empty table an empty column", () => {
  const db = new DatabaseSync(":memory:");
  db.exec(
    "CREATE TABLE provider (id INTEGER PRIMARY KEY, npi INTEGER, record INTEGER, active INTEGER, sides INTEGER);" +
      "CREATE TABLE index_blob (name TEXT PRIMARY KEY, data BLOB NOT NULL);",
  );
  assertEquals(writeProviderRows(db), 0);
  const blob = () =>
    (db.prepare("SELECT data FROM index_blob WHERE name = ?").get(PROVIDER_ROWS) as {
      data: Uint8Array;
    }).data;
  assertEquals(blob().byteLength, PROVIDER_ROW_WORDS * 4);
  db.exec(
    "INSERT INTO provider VALUES (1, 1999999999, 7, 1, 0), (2, 1003000126, 3, 1, 5), (3, 1234567893, 1, 0, 2)",
  );
  assertEquals(writeProviderRows(db), 3);
  const column = providerRowsOf(blob(), 3)!;
  assertEquals([...column], [0, 0, 0, 1999999999, 7, 0, 1003000126, 3, 5, 1234567893, 1, 2]);
  db.close();
});
