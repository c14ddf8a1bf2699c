/**
 * The Registry API's results written from stored records
 * (`lib/registry_api/registry_text.ts`) are exactly `JSON.stringify` of
 * `registryResult` over the record object: every record of a demo
 * database (random seed; people and organizations, authorized officials,
 * identifiers, other names, secondary locations, endpoints), demo records
 * damaged with hostile text and odd numbers, and stored forms of other
 * shapes, which go the slow way.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import type { StoredRecordRow } from "../lib/store/record_batch.ts";
import { RecordText, type StoredRecord } from "../lib/store/record_text.ts";
import type { Provider } from "../lib/provider.ts";
import { IDENTIFIER_CODES, registryResult, taxonomyDescriber } from "../lib/registry_api/render.ts";
import { RegistryText } from "../lib/registry_api/registry_text.ts";
import { seededRandom } from "./_utils.ts";
import { storedFrom } from "./_damaged_records.ts";

const seed = Number(Deno.env.get("REGISTRY_TEXT_SEED") ?? Date.now() % 100_000);
const random = seededRandom(seed);
const dir = await Deno.makeTempDir();
const path = `${dir}/demo.db`;
const RECORDS = 3000;
buildDemoDatabase({ path, records: RECORDS, seed });
const store = openSqliteStore(path);
const describe = taxonomyDescriber(store);
const objects = new RecordText(store.describe);
const ALL_IDS = Array.from({ length: RECORDS }, (_, i) => i + 1);

/** The record object as the store builds it from a stored record. */
function provider(record: StoredRecordRow): Provider {
  return objects.provider(record);
}

/** What the text must equal: the API's objects, through `JSON.stringify`. */
function expected(record: StoredRecordRow): string {
  return JSON.stringify(registryResult(provider(record), describe));
}

/**
 * A damaged record as a build stores one: secondary locations and endpoints
 * only as reference rows, the record's own lists of them empty.
 */
function asBuilt(record: StoredRecord): StoredRecord {
  const v = JSON.parse(record.doc) as unknown[];
  v[10] = [];
  v[12] = [];
  return { ...record, doc: JSON.stringify(v) };
}

/**
 * Whether a stored form has an identifier type the API has no code for, or
 * an other name of an unknown type (damaged names): the writer's slow way.
 */
function unknownType(doc: string): boolean {
  const v = JSON.parse(doc) as [unknown, ...unknown[]][][];
  return v[11]!.some(([type]) =>
    typeof type !== "string" || !Object.hasOwn(IDENTIFIER_CODES, type)
  ) ||
    v[6]!.some(([type]) => !(Number.isInteger(type) && (type as number) >= 0));
}

/** A writer whose slow way is the reference itself, counted. */
function writer(): RegistryText {
  return new RegistryText(describe, expected);
}

Deno.test(`[registry text] every demo record, as the API's objects give it (seed ${seed})`, () => {
  const text = writer();
  const rows = store.storedRecords(ALL_IDS);
  assertEquals(rows.length, RECORDS);
  const objects = rows.map(provider);
  const has = (test: (p: Provider) => boolean) => objects.some(test);
  assert(has((p) => p.organization?.authorized_official != null), "officials");
  assert(has((p) => p.individual !== null && p.other_names.length > 0), "people's other names");
  assert(has((p) => p.organization !== null && p.other_names.length > 0), "organizations' others");
  assert(has((p) => p.identifiers.length > 0), "identifiers");
  assert(has((p) => p.other_locations.length > 0), "secondary locations");
  assert(has((p) => p.endpoints.length > 0), "endpoints");
  assert(has((p) => p.mailing_address !== null), "mailing addresses");
  for (const row of rows) assertEquals(text.json(row), expected(row), `id ${row.id}`);
  assertEquals(text.slowPath, 0, "demo records take the fast path");
});

Deno.test(`[registry text] damaged records: the same text as the API's objects (seed ${seed})`, () => {
  const text = writer();
  let checked = 0, unknownTypes = 0;
  for (const row of store.storedRecords(ALL_IDS)) {
    for (let copy = 0; copy < 2; copy++) {
      const record = { ...asBuilt(storedFrom(provider(row), random)), id: row.id, npi: row.npi };
      assertEquals(text.json(record), expected(record), record.doc);
      if (unknownType(record.doc)) unknownTypes++;
      checked++;
    }
  }
  assertEquals(checked, 2 * RECORDS);
  assert(unknownTypes > 0 && unknownTypes < checked, `${unknownTypes} damaged types`);
  assertEquals(text.slowPath, unknownTypes, "only records with damaged types go the slow way");
});

Deno.test("[registry text] stored forms of other shapes go the slow way, with the same text", () => {
  const [row] = store.storedRecords([1]);
  const v = JSON.parse(row!.doc) as unknown[];
  const location = ["1 MAIN ST", null, "TOWN", "MD", "21201", "US", null, null, 39.2, -76.6, null];
  const shapes: unknown[][] = [
    [...v, "extra"], // a longer record
    v.map((x, i) => (i === 8 ? ["one", "short", "address"] : x)), // a short address
    v.map((x, i) => (i === 4 ? [] : x)), // an empty person
    v.map((x, i) => (i === 10 ? [location] : x)), // a secondary location in the record itself
    v.map((x, i) => (i === 12 ? [["a"]] : x)), // an endpoint in the record itself
    v.map((
      x,
      i,
    ) => (i === 11 ? [["medicare_upin", "X1", null, null], ["tax", "9", null, null]] : x)), // an identifier type the API has no code for
    v.map((x, i) => (i === 7 ? [["207Q00000X", "yes", null, null, null]] : x)), // primary not a boolean
    v.map((x, i) => (i === 15 ? 20200101 : x)), // a date as a number
    v.map((x, i) => (i === 6 ? [["x", "NAME"]] : x)), // an other name's type not a number
  ];
  const text = writer();
  for (const shape of shapes) {
    const record = { ...row!, doc: JSON.stringify(shape) };
    assertEquals(text.json(record), expected(record), record.doc);
  }
  const spaced = { ...row!, doc: JSON.stringify(v, null, 1) };
  assertEquals(text.json(spaced), expected(spaced));
  assertEquals(text.slowPath, shapes.length + 1);
});

Deno.test({
  name: "[registry text] cleanup",
  fn: async () => {
    store.close();
    await Deno.remove(dir, { recursive: true });
  },
});
