/**
 * The index map: every list, term range, list length and column reads
 * exactly as from SQLite; searches answer the same from it; a cut, foreign
 * or missing map is refused with a clear error; a database built before
 * maps gets one.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertNotStrictEquals,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { IndexMap } from "../lib/index/index_map.ts";
import { FIELD } from "../lib/index/fields.ts";
import { canMapFiles } from "../lib/index/mapped_file.ts";
import { addIndexMap } from "../lib/store/add_index_map.ts";
import { partPath, readPartNames } from "../lib/store/parts.ts";
import { writePartNames } from "./_fixtures.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { specialtyIndex } from "../routes/specialties.ts";
import { StoreOpenError } from "../lib/store/store.ts";

/** A demo database in a new folder, with its parts. */
function demo(records = 4000): { dir: string; db: string } {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records, seed: 11 });
  return { dir, db };
}

/** The map and the postings part of a database, opened. */
function openBoth(db: string): { map: IndexMap; postings: DatabaseSync; main: DatabaseSync } {
  const parts = readPartNames(db)!;
  if (!parts.map) throw new Error("the build names no index map");
  const map = IndexMap.open(partPath(db, parts.map));
  if (!map) throw new Error("files cannot be mapped in the tests: the test task allows FFI");
  const postings = new DatabaseSync(partPath(db, parts.postings), { readOnly: true });
  const main = new DatabaseSync(db, { readOnly: true });
  return { map, postings, main };
}

const asIds = (bytes: Uint8Array) => [...new Uint32Array(bytes.slice().buffer)];

Deno.test("[index map] lists, term ranges, lengths and columns read as from SQLite", () => {
  assert(canMapFiles(), "the test task allows FFI for the C library");
  const { dir, db } = demo();
  const { map, postings, main } = openBoth(db);
  try {
    const rows = postings.prepare("SELECT field, term, ids FROM posting").all() as {
      field: number;
      term: string;
      ids: Uint8Array;
    }[];
    assert(rows.length > 1000, `${rows.length} lists`);
    // Every term and the terms beside it, before the map samples its terms and after: a term one
    // byte longer, one shorter, the last letter one before, and eight shared bytes then another
    // ending; each as SQLite answers it (mostly nothing).
    const one = postings.prepare("SELECT ids FROM posting WHERE field = ? AND term = ?");
    const lookUpAll = () => {
      let found = 0;
      for (const { field, term, ids } of rows) {
        assertEquals([...map.list(field, term)], asIds(ids), `${field} ${term}`);
        const last = term.charCodeAt(term.length - 1);
        const near = [
          `${term}\u0001`,
          term.slice(0, -1),
          term.slice(0, -1) + String.fromCharCode(Math.max(1, last - 1)),
          `${term.padEnd(8, "a").slice(0, 8)}zz`,
        ];
        for (const other of near) {
          const row = one.get(field, other) as { ids: Uint8Array } | undefined;
          if (row) found++;
          assertEquals([...map.list(field, other)], row ? asIds(row.ids) : [], `${field} ${other}`);
        }
      }
      assert(found > 100, `${found} terms beside others are terms too`);
    };
    assert(!map.termsSampled);
    lookUpAll();
    let steps = 0;
    while (map.sampleTerms()) steps++;
    assert(map.termsSampled && steps === 0, "a small map is sampled in one step");
    lookUpAll();
    assertEquals(map.list(1, "no-such-term").length, 0);
    assertEquals(map.list(99, "smith").length, 0, "a field the map has not");
    assertEquals(map.list(-1, "smith").length, 0);
    // Ranges: every prefix of one to three letters of some terms, with and without the prefix.
    const range = postings.prepare(
      "SELECT ids FROM posting WHERE field = ? AND term >= ? AND term < ? AND substr(term, -1) <> '*' ORDER BY term",
    );
    const prefixes = new Set<string>();
    for (const [i, { field, term }] of rows.entries()) {
      if (i % 37 === 0) {
        for (let n = 1; n <= 3; n++) prefixes.add(`${field}|${term.slice(0, n)}`);
      }
    }
    let starred = 0;
    for (const key of prefixes) {
      const [f, prefix] = key.split("|") as [string, string];
      const field = Number(f);
      const end = prefix.slice(0, -1) +
        String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
      for (const from of [prefix, `${prefix}\u0000`]) {
        const want = (range.all(field, from, end) as { ids: Uint8Array }[]).map((r) =>
          asIds(r.ids)
        );
        assertEquals(map.range(field, from, end).map((l) => [...l]), want, `${field} ${from}`);
      }
      if (map.list(field, `${prefix}*`).length > 0) starred++;
    }
    assert(starred > 0, "some prefixes have precomputed lists, which ranges leave out");
    const lengths = postings.prepare(
      "SELECT term, length(ids) / 4 AS n FROM posting WHERE field = ? ORDER BY term",
    );
    for (const field of new Set(rows.map((r) => r.field))) {
      const want = (lengths.all(field) as { term: string; n: number }[]).map((r) => [r.term, r.n]);
      assertEquals(map.lengths(field), want, `lengths of field ${field}`);
    }
    for (const row of main.prepare("SELECT name, data FROM index_blob").all()) {
      const { name, data } = row as { name: string; data: Uint8Array };
      assertEquals(map.blob(name), data, name);
    }
    assertEquals(map.blob("no-such-column"), undefined);
  } finally {
    postings.close();
    main.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** The answers of `urls` from the database, as JSON, read from its map or from SQLite. */
function answers(db: string, indexMap: boolean, urls: readonly string[]): string[] {
  const store = openSearchableStore(db, { indexMap });
  try {
    const specialties = specialtyIndex(store);
    return urls.map((path) => {
      const url = new URL(path, "http://x").searchParams;
      const cursorScope = { query: path, release: "" };
      const query = toSearchQuery(SEARCH_PARAMS.parse(url), { specialties, cursorScope, url });
      const page = store.search(query);
      const { total, hits, next, facets } = page;
      return JSON.stringify({ total, hits, next, facets });
    });
  } finally {
    store.close();
  }
}

Deno.test("[index map] searches answer the same from the map as from SQLite", () => {
  const { dir, db } = demo(6000);
  try {
    // Names, prefixes, typos, organization words, specialties, places, facets and distance.
    const urls = [
      "q=smith",
      "q=jo",
      "q=mar",
      "q=john sm",
      "q=smtih",
      "q=family health",
      "q=cardiology",
      "q=nurse practitioner",
      "specialty=family medicine&state=CA&facets=state,city,taxonomy",
      "last_name=jo*&state=TX",
      "q=clinic&near=10001&radius=50&sort=distance",
      "city=HOUSTON&state=TX&offset=20",
      "q=dr m smith md",
      "q=ca",
    ].map((q) => `/v1/providers/search?${q}`);
    const mapped = answers(db, true, urls);
    assertEquals(answers(db, false, urls), mapped);
    assert(mapped.some((a) => JSON.parse(a).total > 100), "some searches find many");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[index map] a cut, foreign or missing map is refused with what to do", async (t) => {
  const { dir, db } = demo(1500);
  try {
    const parts = readPartNames(db)!;
    const file = partPath(db, parts.map!);
    const whole = Deno.readFileSync(file);
    await t.step("cut short", () => {
      Deno.writeFileSync(`${dir}/cut.map`, whole.subarray(0, whole.length - 4096));
      assertThrows(() => IndexMap.open(`${dir}/cut.map`), Error, "cut short");
    });
    await t.step("empty, or a header that is not one", () => {
      Deno.writeFileSync(`${dir}/empty.map`, new Uint8Array(0));
      assertThrows(() => IndexMap.open(`${dir}/empty.map`), Error, "cut short");
      const garbled = whole.slice(0, 4096);
      garbled.fill(0x7b, 12, 40);
      Deno.writeFileSync(`${dir}/garbled.map`, garbled);
      assertThrows(() => IndexMap.open(`${dir}/garbled.map`), Error, "header is not readable");
    });
    await t.step("not a map", () => {
      Deno.writeFileSync(`${dir}/other.map`, new TextEncoder().encode("SQLite format 3\0 ..."));
      assertThrows(() => IndexMap.open(`${dir}/other.map`), Error, "no index map header");
    });
    await t.step("made of other postings", () => {
      const other = demo(1000);
      try {
        Deno.copyFileSync(partPath(other.db, readPartNames(other.db)!.map!), file);
        const error = assertThrows(() => openSearchableStore(db), StoreOpenError);
        assertMatch(error.message, /made of other postings: import again/);
      } finally {
        Deno.removeSync(other.dir, { recursive: true });
        Deno.writeFileSync(file, whole);
      }
    });
    await t.step("missing", () => {
      Deno.removeSync(file);
      const error = assertThrows(() => openSearchableStore(db), StoreOpenError);
      assertMatch(error.message, /part '.*\.map' is missing: keep every file the import wrote/);
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[index map] a database built before maps is given one", () => {
  const { dir, db } = demo(1500);
  try {
    const parts = readPartNames(db)!;
    const mapFile = parts.map!;
    // As an older build left it: no map, none named.
    Deno.removeSync(partPath(db, mapFile));
    const { map: _, ...older } = parts;
    writePartNames(db, older);
    const urls = ["/v1/providers/search?q=jo", "/v1/providers/search?q=smith&state=CA"];
    const before = answers(db, true, urls);
    // A server holding the database: nothing is named, and no map is left behind.
    const served = openSearchableStore(db, { lazyIndex: true });
    try {
      served.dataset();
      assertThrows(() => addIndexMap(db), Error, "stop the servers of the database");
      assertThrows(() => Deno.statSync(partPath(db, mapFile)), Deno.errors.NotFound);
      assertEquals(readPartNames(db)!.map, undefined);
    } finally {
      served.close();
    }
    const added = addIndexMap(db);
    assertEquals(added.written, true);
    assertEquals(added.file, mapFile, "the map takes its postings part's stamp");
    assert(added.entries > 100 && added.bytes > 0);
    assertEquals(readPartNames(db)!.map, mapFile);
    assert(IndexMap.open(partPath(db, mapFile)), "the map written opens");
    assertEquals(answers(db, true, urls), before);
    assertEquals(addIndexMap(db).written, false, "a database with a map is left as it is");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[index map] a map written before it held the typo buckets reads them from the main file, until written again", () => {
  const { dir, db } = demo(3000);
  try {
    const file = partPath(db, readPartNames(db)!.map!);
    const urls = ["q=smtih", "q=jonson", "q=willaims carter", "q=cardiolgy"].map((q) =>
      `/v1/providers/search?${q}`
    );
    const withBuckets = answers(db, true, urls);
    assert(IndexMap.open(file)!.typoBuckets(), "a build writes them");
    // The header as an older build wrote it: the same sections, less the buckets' two.
    const bytes = Deno.readFileSync(file);
    const length = new DataView(bytes.buffer).getUint32(8, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length)));
    assert("typo:starts" in header.blobs && "typo:pairs" in header.blobs);
    delete header.blobs["typo:starts"];
    delete header.blobs["typo:pairs"];
    const older = new TextEncoder().encode(JSON.stringify(header).padEnd(length, " "));
    bytes.set(older, 12);
    Deno.writeFileSync(file, bytes);
    assertEquals(IndexMap.open(file)!.typoBuckets(), null);
    assertEquals(answers(db, true, urls), withBuckets);
    assert(withBuckets.every((a) => JSON.parse(a).total > 0), "every misspelling finds someone");
    // `index-map --again` writes it anew, buckets included.
    assertEquals(addIndexMap(db).written, false, "a map named is kept unless asked");
    const again = addIndexMap(db, { again: true });
    assertEquals([again.written, again.file], [true, readPartNames(db)!.map]);
    assert(IndexMap.open(file)!.typoBuckets(), "the map written anew holds the buckets");
    assertEquals(answers(db, true, urls), withBuckets);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[index map] a long list asked again is the same view while kept, the least recently used let go", () => {
  const { dir, db } = demo(4000);
  try {
    const parts = readPartNames(db)!;
    // The three longest given names' lists, longest first; the budget holds the first two.
    const map0 = IndexMap.open(partPath(db, parts.map!))!;
    const [a, b, c] = map0.lengths(FIELD.given).sort((x, y) => y[1] - x[1]).slice(0, 3);
    assert(c && c[1] >= 16, `the demo has long given-name lists (${JSON.stringify([a, b, c])})`);
    const map = IndexMap.open(partPath(db, parts.map!), { ids: 16, bytes: (a![1] + b![1]) * 4 })!;
    const list = (term: string) => map.list(FIELD.given, term);
    const first = list(a![0]);
    assertStrictEquals(list(a![0]), first, "asked again: the same view");
    const second = list(b![0]);
    assertStrictEquals(list(a![0]), first, "both fit");
    // The first used again, the third added: the second, least recently used, is let go.
    const third = list(c![0]);
    assertStrictEquals(list(a![0]), first);
    assertStrictEquals(list(c![0]), third);
    const again = list(b![0]);
    assertNotStrictEquals(again, second, "let go, then made again");
    assertEquals([...again], [...second], "the same ids");
    // A list shorter than the kept ones is a new view each time, with the same ids.
    const [short] = map0.lengths(FIELD.given).find(([, n]) => n > 0 && n < 16)!;
    assertNotStrictEquals(list(short), list(short));
    assertEquals([...list(short)], [...map0.list(FIELD.given, short)]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
