/**
 * The text renderer (`lib/store/record_text.ts`) and the batch reader
 * (`lib/store/record_batch.ts`) write exactly what the record object path
 * writes: `JSON.stringify` of `decodeProvider` + `withSides`, and
 * `providerCsvLine`, over every record of a demo database (random seed),
 * in any order, and over demo records damaged with hostile text (quotes,
 * backslashes, control characters, surrogates, formula starts, line
 * breaks), odd numbers and stored forms of other shapes.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { decodeProvider } from "../lib/store/codec.ts";
import { parseEndpoint, parseLocation, unpackOtherName, withSides } from "../lib/store/sides.ts";
import { providerCsvLine, renderRecords } from "../lib/store/flat_records.ts";
import { RecordText, type StoredRecord } from "../lib/store/record_text.ts";
import { RECORD_BATCH, recordBatchReader } from "../lib/store/record_batch.ts";
import type { Provider } from "../lib/provider.ts";
import { seededRandom } from "./_utils.ts";
import { storedFrom } from "./_damaged_records.ts";

const seed = Number(Deno.env.get("RECORD_TEXT_SEED") ?? Date.now() % 100_000);
const random = seededRandom(seed);
const dir = await Deno.makeTempDir();
const path = `${dir}/demo.db`;
const RECORDS = 3000;
buildDemoDatabase({ path, records: RECORDS, seed });
const store = openSqliteStore(path);

/** The record object as the store's one-by-one reader builds it, from a stored record. */
function reference(record: StoredRecord): Provider {
  const base = decodeProvider(record.doc, store.describe);
  if (record.sides === 0) return base;
  return withSides(base, {
    otherNames: record.otherNames.map(unpackOtherName),
    locations: record.locations.map(parseLocation),
    endpoints: record.endpoints.map(parseEndpoint),
  });
}

function shuffled<T>(items: T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const ALL_IDS = Array.from({ length: RECORDS }, (_, i) => i + 1);

Deno.test(`[record text] every demo record, JSON and CSV, as the record objects give (seed ${seed})`, () => {
  const read = recordBatchReader(store.db, store.records, () => null);
  const text = new RecordText(store.describe);
  const rows = read(ALL_IDS);
  assertEquals(rows.length, RECORDS);
  assert(rows.some((r) => r.sides !== 0), "the demo has reference rows");
  const objects = store.getProvidersById(ALL_IDS);
  rows.forEach((row, i) => {
    const provider = objects[i]!.provider;
    assertEquals(row.id, objects[i]!.id);
    assertEquals(text.json(row), JSON.stringify(provider), `id ${row.id}`);
    assertEquals(text.csv(row), providerCsvLine(provider), `id ${row.id}`);
  });
  assertEquals(text.slowPath, 0, "demo records take the fast path");
});

Deno.test("[record text] exportText and providerJsonById: any order, repeats and unknown ids", () => {
  for (let round = 0; round < 5; round++) {
    const ids = shuffled(ALL_IDS).slice(0, 1 + Math.floor(random() * 700));
    ids.push(ids[0]!, RECORDS + 5, 0, -3);
    const providers = store.getProvidersById(ids).map((r) => r.provider);
    assertEquals(store.exportText(ids, "ndjson"), renderRecords(providers, "ndjson"));
    assertEquals(store.exportText(ids, "csv"), renderRecords(providers, "csv"));
    // Half the records are cached by now (the first rounds), half read in a batch.
    assertEquals(store.providerJsonById(ids), providers.map((p) => JSON.stringify(p)));
  }
  assertEquals(store.exportText([], "csv"), "");
  assertEquals(store.providerJsonById([]), []);
  assert(RECORD_BATCH < 700, "rounds cross batch boundaries");
});

Deno.test(`[record text] damaged records: the same text as the record objects (seed ${seed})`, () => {
  const text = new RecordText(store.describe);
  const providers = store.getProvidersById(ALL_IDS).map((r) => r.provider);
  let checked = 0;
  for (const provider of providers) {
    for (let copy = 0; copy < 2; copy++) {
      const record = storedFrom(provider, random);
      const object = reference(record);
      assertEquals(text.json(record), JSON.stringify(object), record.doc);
      assertEquals(text.csv(record), providerCsvLine(object), record.doc);
      checked++;
    }
  }
  assertEquals(checked, 2 * RECORDS);
  assertEquals(text.slowPath, 0, "damaged text still takes the fast path");
});

Deno.test("[record text] stored forms of other shapes go the slow way, with the same text", () => {
  const text = new RecordText(store.describe);
  const [row] = recordBatchReader(store.db, store.records, () => null)([1]);
  const v = JSON.parse(row!.doc) as unknown[];
  const shapes: unknown[][] = [
    [...v, "extra"], // a longer record
    v.slice(0, -1).concat([undefined]).slice(0, -1).concat([null]), // the same, rewritten
    v.map((x, i) => (i === 9 ? ["one", "short", "address"] : x)), // a short address
    v.map((x, i) => (i === 1 ? "1" : x)), // the kind as a string
    v.map((x, i) => (i === 4 ? [] : x)), // an empty person
  ];
  for (const shape of shapes) {
    const record = { ...row!, doc: JSON.stringify(shape) };
    const object = reference(record);
    assertEquals(text.json(record), JSON.stringify(object));
  }
  const spaced = { ...row!, doc: JSON.stringify(v, null, 1) };
  assertEquals(text.json(spaced), JSON.stringify(reference(spaced)));
  assertEquals(text.csv(spaced), providerCsvLine(reference(spaced)));
  assert(text.slowPath >= 4, `${text.slowPath} slow`);
});

Deno.test({
  name: "[record text] cleanup",
  fn: async () => {
    store.close();
    await Deno.remove(dir, { recursive: true });
  },
});
