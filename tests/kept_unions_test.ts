/**
 * Kept unions: a database's commonest words' unions, dense and sparse, its
 * taxonomy codes grouped by state and its specialties' unions, built with
 * it and read in place, answer every search exactly as the unions built by
 * the search itself; the file reads back what was written (and a version 1
 * file, dense sets only, as before); a cut, foreign or missing file is
 * refused with a clear error; the budget keeps the dense first, the
 * largest first.
 */
import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { canMapFiles } from "../lib/index/mapped_file.ts";
import { partFiles, partPath, readPartNames } from "../lib/store/parts.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { specialtyIndex } from "../routes/specialties.ts";
import { codeSetKey, KeptUnions, writeKeptUnions } from "../lib/search/kept_unions.ts";
import { bitsOf } from "../lib/index/sorted.ts";
import {
  addKeptUnions,
  chooseKeptUnions,
  groupByState,
  keptUnionCandidates,
  planKeptUnions,
} from "../lib/search/kept_union_build.ts";
import { buildWordSet, type WordSet } from "../lib/search/word_sets.ts";
import { seededRandom } from "./_utils.ts";
import { demoImportFiles, writePartNames } from "./_fixtures.ts";
import { runImport } from "../lib/import/importer.ts";

/** A demo database in a new folder, with its parts. */
function demo(records: number): { dir: string; db: string } {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records, seed: 23 });
  return { dir, db };
}

/** The cache keys' words: `ca\u00001\u00001\u00000\u00004` → `ca`. */
const wordOf = (key: string) => key.slice(0, key.indexOf("\u0000"));

Deno.test("[kept unions] searches answer the same with them as with the unions they build", () => {
  assert(canMapFiles(), "the test task allows FFI for the C library");
  const { dir, db } = demo(6000);
  try {
    // Specialties' unions of 100 providers or more kept too (9.7 million providers: 50,000).
    const added = addKeptUnions(db, { specialtyLeast: 100 });
    assert(added.written && added.sets >= 40, `${added.sets} unions kept`);
    assert(added.codeSets >= 10, `${added.codeSets} specialties kept`);
    const kept = openSearchableStore(db, { resultCacheBytes: 0 });
    const built = openSearchableStore(db, { resultCacheBytes: 0, keptUnions: false });
    try {
      const unions = kept.engineContext().keptUnions!;
      assertEquals(unions.size, added.sets);
      assertEquals(built.engineContext().keptUnions, null);
      const specialties = specialtyIndex(kept);
      const answer = (store: typeof kept, path: string) => {
        const url = new URL(path, "http://test").searchParams;
        const query = toSearchQuery(SEARCH_PARAMS.parse(url), {
          specialties,
          cursorScope: { query: path, release: "" },
          url,
        });
        const { total, hits, facets, next } = store.search(query);
        return JSON.stringify({ total, hits, facets, next });
      };
      // Each dense word, and every fourth sparse one, alone, last of two, first of two; with
      // filters, a point, facets, a page.
      const kinds = (kind: string) => unions.keys().filter((key) => unions.get(key)!.kind === kind);
      const dense = kinds("dense"), sparse = kinds("sparse");
      assert(
        dense.length >= 20 && sparse.length >= 20,
        `${dense.length} dense, ${sparse.length} sparse`,
      );
      unions.hits = 0;
      const words = [
        ...new Set([...dense, ...sparse.filter((_, i) => i % 4 === 0)].map(wordOf)),
      ];
      const paths: string[] = [];
      for (const [i, word] of words.entries()) {
        const other = words[(i * 7 + 3) % words.length]!;
        paths.push(
          `/v1/providers/search?q=${word}`,
          `/v1/providers/search?q=${other}+${word}`,
          `/v1/providers/search?q=${word}+${other}`,
          `/v1/providers/search?q=${word}&state=CA&facets=state,taxonomy,city`,
          `/v1/providers/search?q=${word}&near=10001&radius=100&sort=distance&limit=5`,
          `/v1/providers/search?q=${other}+${word}&offset=40&limit=20`,
          `/v1/providers/search?q=${word}&entity_type=organization&facets=entity_type`,
        );
      }
      for (const path of paths) assertEquals(answer(kept, path), answer(built, path), path);
      assert(
        unions.hits >= words.length,
        `${unions.hits} unions read for ${paths.length} searches`,
      );
      // Codes within states: every code, with one state or two, facets, words, a point, a page;
      // specialties of several codes; a state no provider is in.
      const { index } = kept.engineContext();
      const codes = index.codes.filter((code) => code !== "");
      const states = index.states.filter((state) => /^[A-Z]{2}$/.test(state));
      assertEquals(unions.codes, codes.length);
      const byState: string[] = [];
      for (const [i, code] of codes.entries()) {
        const state = states[i % states.length]!, other = states[(i * 5 + 2) % states.length]!;
        const word = words[i % words.length]!;
        byState.push(
          `/v1/providers/search?taxonomy=${code}&state=${state}&facets=city,taxonomy,sex`,
          `/v1/providers/search?taxonomy=${code},${
            codes[(i + 1) % codes.length]
          }&state=${state},${other}`,
          `/v1/providers/search?q=${word}&taxonomy=${code}&state=${other}&offset=10&limit=10`,
          `/v1/providers/search?taxonomy=${code}&state=${state}&near=10001&radius=500`,
        );
      }
      byState.push(
        "/v1/providers/search?specialty=nurse&state=CA&facets=taxonomy",
        "/v1/providers/search?specialty=dentist,counselor&state=NY,TX&entity_type=individual",
        "/v1/providers/search?specialty=dentist&taxonomy=1223G0001X&state=FL",
        "/v1/providers/search?specialty=pharmacy&state=GU",
      );
      for (const path of byState) assertEquals(answer(kept, path), answer(built, path), path);
      assert(unions.groupHits >= codes.length * 4, `${unions.groupHits} codes' groups read`);
      // Specialties without a state: alone, around a point, with words, faceted.
      unions.groupHits = 0;
      const names = kept.taxonomy().map(({ display }) => display)
        .filter((display) => !display.includes(",") && display.length <= 100);
      const specialtyPaths = names.flatMap((display, i) => {
        const name = encodeURIComponent(display);
        return [
          `/v1/providers/search?specialty=${name}&facets=state,sex`,
          `/v1/providers/search?specialty=${name}&near=${
            ["10001", "60601", "94103"][i % 3]
          }&radius=50`,
          `/v1/providers/search?q=${words[i % words.length]}&specialty=${name}&limit=5`,
        ];
      });
      for (const path of specialtyPaths) {
        assertEquals(answer(kept, path), answer(built, path), path);
      }
      assert(unions.groupHits >= added.codeSets, `${unions.groupHits} specialties' unions read`);
    } finally {
      kept.close();
      built.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[kept unions] the file reads back what was written", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const universe = 1001;
    const random = seededRandom(5);
    const list = (n: number) =>
      Uint32Array.from(new Set(Array.from({ length: n }, () => Math.floor(random() * universe))))
        .sort();
    // Dense and sparse in turn; sparse of an odd number of ids (the next set starts padded).
    const sets = [0, 1, 2, 3, 4].map((i) => ({
      key: `word${i}\u00001\u00001\u00000\u00000`,
      set: buildWordSet(
        i % 2 === 0
          ? [{ list: list(300), level: 1 }, { list: list(200), level: 3 + i }]
          : [{ list: list(7 + i * 10), level: 2 }, { list: list(9), level: 5 + i }],
        universe,
      ),
    }));
    assertEquals(sets.map(({ set }) => set.kind), ["dense", "sparse", "dense", "sparse", "dense"]);
    const path = `${dir}/kept.unions`;
    const stats = writeKeptUnions(path, universe, "p.postings", sets);
    assertEquals(stats.sets, 5);
    assertEquals(stats.bytes, Deno.statSync(path).size);
    const readsBack = (kept: KeptUnions, wrote: typeof sets) => {
      assertEquals(kept.keys(), wrote.map((s) => s.key));
      for (const { key, set } of wrote) {
        const read = kept.get(key)!;
        assertEquals([read.kind, read.size], [set.kind, set.size], key);
        if (read.kind === "dense" && set.kind === "dense") {
          assertEquals([...read.nibbles], [...set.nibbles], key);
          assertEquals([...read.bits], [...set.bits], key);
        } else if (read.kind === "sparse" && set.kind === "sparse") {
          assertEquals([...read.set.ids], [...set.set.ids], key);
          assertEquals([...read.set.levels], [...set.set.levels], key);
        }
      }
    };
    const kept = KeptUnions.open(path, universe, "p.postings")!;
    readsBack(kept, sets);
    assertEquals(kept.get("word9\u00001\u00001\u00000\u00000"), undefined);
    assertEquals(kept.hits, 5);
    // A version 1 file (dense sets only, no form in their entries) reads as it did.
    const dense = sets.filter(({ set }) => set.kind === "dense");
    const v1 = `${dir}/v1.unions`;
    writeKeptUnions(v1, universe, "p.postings", dense);
    const v1Bytes = Deno.readFileSync(v1);
    const v1HeaderEnd = 12 + new DataView(v1Bytes.buffer).getUint32(8, true);
    const v1Text = new TextDecoder().decode(v1Bytes.subarray(0, v1HeaderEnd));
    const blank = (text: string, from: string, to: string) =>
      text.replaceAll(from, to.padEnd(from.length, " "));
    const v1Header = blank(blank(v1Text, '"version":3', '"version":1'), '"kind":"dense",', "");
    v1Bytes.set(new TextEncoder().encode(v1Header));
    Deno.writeFileSync(v1, v1Bytes);
    readsBack(KeptUnions.open(v1, universe, "p.postings")!, dense);
    // Another index's, or cut short: refused, saying why.
    assertThrows(() => KeptUnions.open(path, universe + 1, "p.postings"), Error, "another index");
    assertThrows(() => KeptUnions.open(path, universe, "q.postings"), Error, "another index");
    const bytes = Deno.readFileSync(path);
    Deno.writeFileSync(path, bytes.subarray(0, bytes.length - 8));
    assertThrows(() => KeptUnions.open(path, universe, "p.postings"), Error, "a set lies outside");
    Deno.writeFileSync(path, bytes.subarray(0, 10));
    assertThrows(() => KeptUnions.open(path, universe, "p.postings"), Error, "cut short");
    Deno.writeFileSync(path, new TextEncoder().encode("NOTUNION".padEnd(64, " ")));
    assertThrows(
      () => KeptUnions.open(path, universe, "p.postings"),
      Error,
      "no kept unions header",
    );
    // A set over another universe is not written.
    const writeOne = (set: WordSet) =>
      writeKeptUnions(`${dir}/other.unions`, universe, "p.postings", [{ key: "x", set }]);
    const beyond = buildWordSet([{ list: Uint32Array.of(1, universe + 4), level: 1 }], 9999);
    assertThrows(() => writeOne(beyond), RangeError, "not a sparse set over 1001 ids");
    const wider = buildWordSet([{ list: list(900), level: 1 }], universe * 2);
    assertThrows(() => writeOne(wider), RangeError, "not a dense set over 1001 ids");
    assertThrows(() => Deno.statSync(`${dir}/other.unions.writing`), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[kept unions] codes grouped by state, each group ascending, and specialties' unions read back whole", () => {
  const random = seededRandom(11);
  const universe = 5000, values = 7;
  const column = Uint8Array.from({ length: universe }, () => Math.floor(random() * values));
  const list = (n: number) =>
    Uint32Array.from(new Set(Array.from({ length: n }, () => Math.floor(random() * universe))))
      .sort();
  const lists = [list(0), list(1), list(40), list(3000)];
  const grouped = lists.map((ids) => groupByState(ids, column, values));
  for (const [k, { starts, ids }] of grouped.entries()) {
    assertEquals(starts.length, values + 1);
    assertEquals([starts[0], starts[values]], [0, lists[k]!.length]);
    for (let v = 0; v < values; v++) {
      const group = [...ids.subarray(starts[v], starts[v + 1])];
      assertEquals(group, [...lists[k]!].filter((id) => column[id] === v), `value ${v}`);
    }
  }
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/kept.unions`;
    const word = {
      key: "word\u00001\u00001\u00000\u00000",
      set: buildWordSet([{ list: list(9), level: 2 }], universe),
    };
    const kept = grouped.map((groups, k) => ({ key: `CODE${k}X`, groups }));
    // A code set's union (ids of an odd count: its bits start padded), under its sorted key.
    const ids = list(301);
    const union = {
      key: codeSetKey(["CODE2X", "CODE1X"]),
      union: { ids, bits: bitsOf([ids], universe) },
    };
    const stats = writeKeptUnions(path, universe, "p.postings", [...kept, union, word]);
    assertEquals([stats.sets, stats.codes, stats.codeSets], [1, 4, 1]);
    const read = KeptUnions.open(path, universe, "p.postings")!;
    assertEquals([read.size, read.codes, read.codeSets], [1, 4, 1]);
    const back = read.codeSet(["CODE1X", "CODE2X", "CODE1X"])!;
    assertEquals([[...back.ids], [...back.bits]], [[...ids], [...union.union.bits]]);
    assertEquals(read.codeSet(["CODE1X"]), undefined);
    for (const { key, groups } of kept) {
      const back = read.byState(key)!;
      assertEquals([[...back.starts], [...back.ids]], [[...groups.starts], [...groups.ids]], key);
    }
    assertEquals(read.byState("CODE9X"), undefined);
    assertEquals(read.get(word.key)!.size, word.set.size);
    // Groups that do not add up to their ids are refused.
    const bytes = Deno.readFileSync(path);
    const text = new TextDecoder().decode(bytes.subarray(0, 4096));
    const at = text.indexOf('"states":7');
    assert(at > 0, "the header names the state column's values");
    bytes.set(new TextEncoder().encode('"states":6'), at);
    Deno.writeFileSync(path, bytes);
    assertThrows(() => KeptUnions.open(path, universe, "p.postings"), Error, "do not add up");
    // Codes grouped over different columns are not written together.
    const other = groupByState(list(20), column, values - 1);
    assertThrows(
      () => writeKeptUnions(path, universe, "p.postings", [...kept, { key: "Z", groups: other }]),
      RangeError,
      "not 7 states' ids",
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[kept unions] named in the database, listed with its parts, kept within the budget", () => {
  const { dir, db } = demo(3000);
  try {
    const store = openSearchableStore(db, { resultCacheBytes: 0, keptUnions: false });
    let everything: number;
    let largest: number[];
    let perSet: number;
    try {
      const ctx = store.engineContext();
      const words = keptUnionCandidates(store.db, ctx.index.size + 1);
      assert(words.length > 10, `${words.length} candidate words`);
      const plans = planKeptUnions(words, ctx);
      // The dense first, then the sparse, each the longest parts first.
      const kinds = plans.map((plan) => plan.kind);
      const firstSparse = kinds.indexOf("sparse");
      assert(firstSparse > 3, `${firstSparse} dense unions planned`);
      assert(kinds.slice(firstSparse).every((kind) => kind === "sparse"), "the dense first");
      for (const part of [plans.slice(0, firstSparse), plans.slice(firstSparse)]) {
        assert(part.every((plan, i) => i === 0 || plan.size <= part[i - 1]!.size), "longest first");
      }
      // A plan builds its union anew at each call, holding none it has let go of.
      assert(plans[0]!.union() !== plans[0]!.union(), "a plan does not keep its union");
      const all = [...chooseKeptUnions(plans, Infinity)];
      everything = all.length;
      assert(all.some(({ set }) => set.kind === "sparse"), "sparse unions kept too");
      perSet = all[0]!.set.bytes;
      largest = all.slice(0, 3).map((u) => u.set.size);
    } finally {
      store.close();
    }
    const three = addKeptUnions(db, { budget: perSet * 3 + perSet / 2 });
    assertEquals(three.sets, 3);
    const parts = readPartNames(db)!;
    assertEquals(parts.unions, three.file);
    assertMatch(three.file, /^demo\.db\..+\.unions$/);
    assert(partFiles(parts).includes(three.file), "the release's files include it");
    const reopened = openSearchableStore(db, { resultCacheBytes: 0 });
    try {
      const kept = reopened.engineContext().keptUnions!;
      const sizes = kept.keys().map((key) => kept.get(key)!.size);
      assertEquals(sizes, largest, "the three with the longest parts, longest first");
    } finally {
      reopened.close();
    }
    assertEquals(addKeptUnions(db).written, false, "named already: not written again");
    assertEquals(addKeptUnions(db, { again: true }).sets, everything);
    // A database naming a file that is gone is refused, saying what to do.
    Deno.removeSync(partPath(db, three.file));
    assertThrows(() => openSearchableStore(db), Error, "is missing");
    // Written again in its place, it is read again.
    assertEquals(addKeptUnions(db, { again: true }).file, three.file);
    const restored = openSearchableStore(db);
    try {
      assertEquals(restored.engineContext().keptUnions!.size, everything);
    } finally {
      restored.close();
    }
    // One naming none searches as before.
    const { unions: _, ...without } = parts;
    writePartNames(db, without);
    const plain = openSearchableStore(db);
    try {
      assertEquals(plain.engineContext().keptUnions, null);
    } finally {
      plain.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[kept unions] an import derives them before the swap, lists them, and an update replaces them", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const db = `${dir}/providers.db`;
    const files = await demoImportFiles(dir, 3000, 4);
    const progress = { start() {}, update() {}, finish() {}, note() {} };
    const derived: string[] = [];
    const derive = (built: string) => {
      derived.push(built);
      addKeptUnions(built);
    };
    const first = await runImport({
      db,
      npi: files.npidata,
      othername: files.othername,
      progress,
      derive,
    });
    assertEquals(derived.length, 1);
    assert(derived[0] !== db, "derived from the new file, before it replaces the served one");
    const parts = readPartNames(db)!;
    assert(parts.unions, "the database names its kept unions");
    assert(Deno.statSync(partPath(db, parts.unions!)).size > 0);
    assert(
      first.release.parts.some((part) => part.file === parts.unions),
      "the release manifest lists the file",
    );
    const again = await runImport({ db, npi: files.npidata, update: true, progress, derive });
    const after = readPartNames(db)!;
    assert(after.unions && after.unions !== parts.unions, "the update's own file");
    assertThrows(() => Deno.statSync(partPath(db, parts.unions!)), Deno.errors.NotFound);
    assert(again.release.parts.some((part) => part.file === after.unions));
    const store = openSearchableStore(db);
    try {
      assert(store.engineContext().keptUnions!.size > 0);
    } finally {
      store.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
