/** Typo variants: within the budget, most frequent first, none for a word many providers hold. */
import { assert, assertEquals } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { planWords, TYPED_WORD_MIN_DOCS, TypoFinder } from "../lib/search/text_query.ts";
import { Rng } from "../lib/demo/prng.ts";
import { TermCounts } from "../lib/index/term_counts.ts";
import { INDEX_SCHEMA } from "../lib/index/schema.ts";
import { IndexMap } from "../lib/index/index_map.ts";
import { partPath, readPartNames } from "../lib/store/parts.ts";
import {
  computeVocabulary,
  deletions,
  keyHash,
  MIN_TWO_EDIT_TERM,
  MIN_TYPO_TERM,
  TYPO_BUCKETS,
  VocabularyLookup,
  writeVocabulary,
} from "../lib/index/vocabulary.ts";

const dir = await Deno.makeTempDir();
const path = `${dir}/typo.db`;
buildDemoDatabase({ path, records: 20_000, seed: 5 });
const db = new DatabaseSync(path, { readOnly: true });
const docsOf = db.prepare("SELECT docs FROM term WHERE term = ?");
const docs = (term: string) => (docsOf.get(term) as { docs: number } | undefined)?.docs ?? 0;

Deno.test("[typos] a word many providers hold is searched as typed", () => {
  const finder = new TypoFinder(db);
  assert(docs("smith") >= TYPED_WORD_MIN_DOCS, "the demo has many Smiths");
  assertEquals(finder.variants("smith"), []);
  // The same word mistyped finds it.
  assert(finder.variants("smiht").includes("smith"));
});

Deno.test("[typos] a word few providers hold keeps its neighbours", () => {
  const finder = new TypoFinder(db);
  const rare = (db.prepare(
    "SELECT term FROM term WHERE docs BETWEEN 1 AND 3 AND length(term) >= 6 AND term GLOB '[a-z]*' ORDER BY term LIMIT 200",
  ).all() as { term: string }[]).map((r) => r.term);
  const withNeighbours = rare.filter((t) => finder.variants(t).length > 0);
  assert(withNeighbours.length > 0, "some rare words have typo neighbours");
  for (const t of withNeighbours) {
    assert(docs(t) < TYPED_WORD_MIN_DOCS);
    assert(!finder.variants(t).includes(t), "the word itself is not its own variant");
  }
  // Asked again, the same answer (remembered).
  assertEquals(finder.variants(withNeighbours[0]!), finder.variants(withNeighbours[0]!));
});

Deno.test("[typos] the in-memory term counts answer as the term table does", () => {
  const counts = TermCounts.read(db);
  const rows = db.prepare("SELECT term, docs FROM term ORDER BY id").all() as {
    term: string;
    docs: number;
  }[];
  assertEquals(counts.size, rows.length);
  assert(rows.length > 1000, "the demo vocabulary has terms");
  for (const { term, docs } of rows) assertEquals(counts.docs(term), docs, term);
  // Words between, before and after the terms, and prefixes and extensions of terms, are absent.
  const absent = ["", "0", "zzzzzzzz", "smithx", "smit", "aaaaaaaa", "m", "mmmmmmmmmmmm"];
  for (const word of absent) assertEquals(counts.docs(word), docs(word), word);
  for (const { term } of rows.slice(0, 500)) {
    assertEquals(counts.docs(`${term}q`), docs(`${term}q`), `${term}q`);
    assertEquals(counts.docs(term.slice(0, -1)), docs(term.slice(0, -1)), term.slice(0, -1));
  }
});

Deno.test("[typos] term counts of an empty vocabulary", () => {
  const empty = new DatabaseSync(":memory:");
  empty.exec(
    "CREATE TABLE term (id INTEGER PRIMARY KEY, term TEXT NOT NULL, docs INTEGER NOT NULL)",
  );
  const counts = TermCounts.read(empty);
  assertEquals(counts.size, 0);
  assertEquals(counts.docs("smith"), 0);
  empty.close();
});

Deno.test("[typos] whether a word is known comes from the term counts", () => {
  const finder = new TypoFinder(db);
  // Known and unknown are answered from the term counts, with no bucket read.
  assert(finder.known("smith"));
  assert(!finder.known("qzxqzx"));
  assert(!finder.known("smi"), "words under five letters count as unknown");
  assertEquals(finder.docs("smith"), docs("smith"));
});

Deno.test("[typos] a term extended by longer terms is found by one binary search", () => {
  const counts = TermCounts.read(db);
  const terms = (db.prepare("SELECT term FROM term ORDER BY id").all() as { term: string }[])
    .map((r) => r.term);
  const extended = (prefix: string) =>
    terms.some((t) => t.length > prefix.length && t.startsWith(prefix));
  const rng = new Rng(8);
  const tried = ["", "zzzzzzzzz", "smit", "smith", "smithx", "a", "0"];
  for (let k = 0; k < 400; k++) {
    const term = terms[rng.int(terms.length)]!;
    tried.push(term, term.slice(0, 1 + rng.int(term.length)), `${term}q`);
  }
  for (const word of tried) assertEquals(counts.extended(word), extended(word), word);
});

Deno.test("[typos] a last word that starts known words is searched as typed first", () => {
  const finder = new TypoFinder(db);
  // A prefix of a surname that is not itself a term: being typed, not misspelt.
  const row = db.prepare(
    "SELECT term FROM term WHERE length(term) >= 7 AND term GLOB '[a-z]*' AND docs >= 5 " +
      "ORDER BY docs DESC LIMIT 1",
  ).get() as { term: string };
  const typed = row.term.slice(0, 5);
  const prefixOnly = docs(typed) === 0 ? typed : row.term.slice(0, 6);
  assertEquals(docs(prefixOnly), 0, `'${prefixOnly}' is not a term itself`);
  assert(finder.extended(prefixOnly));
  assert(finder.variants(prefixOnly).length > 0, `'${prefixOnly}' has typo neighbours`);
  const [first] = planWords([prefixOnly], finder, "unknown");
  assertEquals(first!.typos, [], "no variants at first");
  // Not last, the same word is unknown and takes its variants at once; widened, so does the last.
  const [notLast] = planWords([prefixOnly, "smith"], finder, "unknown");
  assertEquals(notLast!.typos, finder.variants(prefixOnly));
  assertEquals(planWords([prefixOnly], finder, "all")[0]!.typos, finder.variants(prefixOnly));
});

globalThis.addEventListener("unload", () => {
  db.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("[typos] the vocabulary finds the terms stored under any key asked, keys sharing a bucket too", () => {
  const memory = new DatabaseSync(":memory:");
  try {
    memory.exec(INDEX_SCHEMA);
    const rng = new Rng(23);
    const word = () =>
      Array.from({ length: 5 + rng.int(6) }, () => "abcdefgh"[rng.int(8)]).join("");
    const terms = [...new Set(Array.from({ length: 3000 }, word))].sort();
    writeVocabulary(memory, computeVocabulary(terms.map((t) => [t, 1] as const)));
    const lookup = new VocabularyLookup(memory);
    // Two keys of one bucket: searched for among random words (65,536 buckets).
    const byBucket = new Map<number, string>();
    let pair: [string, string] | null = null;
    while (!pair) {
      const w = word();
      const b = keyHash(w) & (TYPO_BUCKETS - 1);
      const other = byBucket.get(b);
      if (other !== undefined && other !== w) pair = [other, w];
      byBucket.set(b, w);
    }
    const storedUnder = (t: string) =>
      new Set([
        t,
        ...(t.length >= MIN_TYPO_TERM ? deletions(t, t.length >= MIN_TWO_EDIT_TERM ? 2 : 1) : []),
      ]);
    for (const keys of [[...pair], [pair[0]], [terms[7]!, ...deletions(terms[7]!, 1)]]) {
      const want = terms.filter((t) => keys.some((k) => storedUnder(t).has(k)));
      const found = lookup.find(keys).map((r) => r.term).sort();
      // Hash collisions may add a candidate; every term stored under a key is there.
      assertEquals(want.filter((t) => !found.includes(t)), [], `keys ${keys}`);
      assert(found.length <= want.length + 2, `few extra candidates for ${keys}`);
    }
  } finally {
    memory.close();
  }
});

Deno.test("[typos] the index map's buckets and the term counts find what the tables find", () => {
  const parts = readPartNames(path)!;
  const map = IndexMap.open(partPath(path, parts.map!));
  if (!map) throw new Error("files cannot be mapped in the tests: the test task allows FFI");
  const buckets = map.typoBuckets();
  if (!buckets) throw new Error("the build wrote no typo buckets into the map");
  // Each bucket holds its row's pairs, in order of hash.
  const rows = db.prepare("SELECT bucket, pairs FROM typo_bucket").all() as {
    bucket: number;
    pairs: Uint8Array;
  }[];
  assert(rows.length > 1000, `${rows.length} buckets`);
  const pairsOf = (u32: Uint32Array) =>
    Array.from({ length: u32.length / 2 }, (_, k) => `${u32[2 * k]}:${u32[2 * k + 1]}`);
  for (const { bucket, pairs } of rows) {
    const inMap = buckets.pairs.subarray(
      2 * buckets.starts[bucket]!,
      2 * buckets.starts[bucket + 1]!,
    );
    for (let k = 2; k < inMap.length; k += 2) {
      assert(inMap[k - 2]! <= inMap[k]!, `bucket ${bucket}`);
    }
    assertEquals(pairsOf(inMap).sort(), pairsOf(new Uint32Array(pairs.slice().buffer)).sort());
  }
  // Keys of every kind: terms, their deletions, misspellings, words no term is near.
  const rng = new Rng(41);
  const terms = (db.prepare("SELECT term FROM term WHERE length(term) >= 5").all() as {
    term: string;
  }[]).map((r) => r.term);
  const words: string[] = [];
  for (let i = 0; i < 1500; i++) {
    const t = terms[rng.int(terms.length)]!;
    const at = rng.int(t.length);
    words.push(
      t,
      t.slice(0, at) + "qx"[rng.int(2)] + t.slice(at + 1),
      t.slice(0, at) + t.slice(at + 1),
    );
  }
  words.push("zzzzzzzzzz", "qqqqq", "aaaaaaaaaaaa");
  const rowsLookup = new VocabularyLookup(db);
  const counts = TermCounts.read(db);
  assert(counts.hasIds, "a build writes term ids in term order from 1");
  const mapLookup = new VocabularyLookup(db, { buckets, terms: () => counts });
  const sorted = (found: { term: string; docs: number }[]) =>
    found.map((r) => `${r.term} ${r.docs}`).sort();
  for (const w of words) {
    const keys = [w, ...deletions(w, w.length >= MIN_TWO_EDIT_TERM ? 2 : 1)];
    assertEquals(sorted(mapLookup.find(keys)), sorted(rowsLookup.find(keys)), w);
  }
  const fromRows = new TypoFinder(db), fromMap = new TypoFinder(db, buckets);
  let found = 0;
  for (const w of words) {
    const want = fromRows.variants(w);
    assertEquals(fromMap.variants(w), want, w);
    if (want.length > 0) found++;
  }
  assert(found > 500, `${found} words have variants`);
});

Deno.test("[typos] terms are read by id from memory only where the table's ids follow its order", () => {
  const memory = new DatabaseSync(":memory:");
  try {
    memory.exec(INDEX_SCHEMA);
    const terms = ["carter", "cartier", "garter", "smith", "smyth", "smithe"];
    writeVocabulary(memory, computeVocabulary(terms.map((t, i) => [t, i + 1] as const)));
    const counts = TermCounts.read(memory);
    assert(counts.hasIds);
    terms.forEach((term, i) => assertEquals(counts.byId(i + 1), { term, docs: i + 1 }));
    for (const id of [0, -1, 1.5, terms.length + 1]) assertEquals(counts.byId(id), undefined);
    const keys = ["smith", ...deletions("smith", 1)];
    const want = new VocabularyLookup(memory).find(keys).map((r) => r.term).sort();
    assertEquals(want, ["smith", "smithe", "smyth"]);
    // Ids with a gap (not a table a build writes): nothing is read from memory, the table answers.
    memory.exec("UPDATE term SET id = 100 WHERE term = 'smith'");
    memory.exec("DELETE FROM typo_bucket");
    const reordered = [...memory.prepare("SELECT id, term, docs FROM term ORDER BY id").all()] as {
      id: number;
      term: string;
      docs: number;
    }[];
    writeBucketsFor(memory, reordered);
    const gapped = TermCounts.read(memory);
    assert(!gapped.hasIds, "ids with a gap are not positions");
    assertEquals(gapped.byId(1), undefined);
    const lookup = new VocabularyLookup(memory, { terms: () => gapped });
    assertEquals(lookup.find(keys).map((r) => r.term).sort(), want);
    const finder = new TypoFinder(memory);
    assertEquals(finder.variants("smiht"), new TypoFinder(memory).variants("smiht"));
  } finally {
    memory.close();
  }
});

/** The typo buckets of terms with the ids given (as `computeVocabulary` stores them by position). */
function writeBucketsFor(db: DatabaseSync, terms: { id: number; term: string }[]): void {
  const vocabulary = computeVocabulary(terms.map((t) => [t.term, 1] as const));
  const ids = terms.map((t) => t.id);
  const add = db.prepare("INSERT INTO typo_bucket (bucket, pairs) VALUES (?, ?)");
  for (let b = 0; b < TYPO_BUCKETS; b++) {
    const from = vocabulary.starts[b]!, to = vocabulary.starts[b + 1]!;
    if (from === to) continue;
    const pairs = vocabulary.pairs.slice(from, to);
    for (let k = 1; k < pairs.length; k += 2) pairs[k] = ids[pairs[k]! - 1]!;
    add.run(b, new Uint8Array(pairs.buffer));
  }
}
