/**
 * The first page of a search of common words, counted and ranked on the
 * dense sets (`dense_page.ts`), against listing every match and sorting
 * it: on random sets, and through the engine on a demo dataset, where the
 * first page must be the one the listed set gives.
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import { type LeveledPart, unionAll } from "../lib/index/sorted.ts";
import { buildWordSet, intersectDense, type WordSet } from "../lib/search/word_sets.ts";
import {
  belowWorst,
  densePage,
  firstByRank,
  fitPage,
  flagPassBits,
  MARK_BLOCK_IDS,
  markBlocks,
} from "../lib/search/dense_page.ts";
import { rankKey, SUB, TIER } from "../lib/search/scores.ts";
import { Rng } from "../lib/demo/prng.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { testApp } from "./_utils.ts";
import { pagesAgree } from "./_pages.ts";

type Dense = Extract<WordSet, { kind: "dense" }>;

function randomList(rng: Rng, count: number, universe: number): Uint32Array {
  const set = new Set<number>();
  for (let i = 0; i < count; i++) set.add(rng.int(universe));
  return Uint32Array.from([...set].sort((a, b) => a - b));
}

/** A dense set: a long part and a few short ones at random levels, the long one at `base`. */
function denseSet(rng: Rng, universe: number, base: number): { set: Dense; parts: LeveledPart[] } {
  const parts = [
    { list: randomList(rng, Math.ceil(universe / (1 + rng.int(3))), universe), level: base },
    ...Array.from({ length: 1 + rng.int(4) }, () => ({
      list: randomList(rng, 1 + rng.int(universe / 20), universe),
      level: 1 + rng.int(13),
    })),
  ];
  const set = buildWordSet(parts, universe);
  if (set.kind !== "dense") throw new Error("the test meant a dense set");
  return { set, parts };
}

/** The model: every match listed, promoted, sorted by level then id, cut at `end`. */
function model(
  sets: readonly Dense[],
  flags: Uint8Array,
  mask: number,
  value: number,
  promoted: Uint32Array,
  upTo: number,
  end: number,
): { total: number; entries: [number, number][] } {
  const listed = intersectDense(sets, flags, mask, value);
  const raise = new Set(promoted);
  const entries = Array.from(listed.ids, (id, i): [number, number] => {
    const level = listed.levels[i]!;
    return [id, raise.has(id) && level >= 1 && level <= upTo ? 0 : level];
  });
  entries.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  return { total: listed.ids.length, entries: entries.slice(0, end) };
}

Deno.test("[dense page] total and first entries agree with listing every match", () => {
  const rng = new Rng(2027);
  let beyondLow = 0, fromLow = 0;
  for (let round = 0; round < 60; round++) {
    // Universes whose marks end in a whole 32-bit word and ones that do not.
    const universe = rng.pick([4096, 4099, 20_001, 65_543]);
    const flags = Uint8Array.from({ length: universe }, () => rng.int(4));
    const mask = rng.pick([0, 1, 3]), value = mask === 0 ? 0 : rng.int(mask + 1);
    const lowLevel = rng.pick([0, 1, 3, 5]);
    // Long parts at a level above the low ones in most rounds (names are rare, places common).
    const built = Array.from(
      { length: 1 + rng.int(3) },
      () => denseSet(rng, universe, rng.chance(0.8) ? lowLevel + 1 + rng.int(4) : rng.int(6)),
    );
    const sets = built.map((b) => b.set);
    // One set's parts at the low levels, and some other ids: every low match is among them.
    const low = unionAll([
      ...built[0]!.parts.filter((p) => p.level <= lowLevel).map((p) => p.list),
      randomList(rng, rng.int(200), universe),
    ], universe);
    const promoted = randomList(rng, rng.int(universe / 10), universe);
    const upTo = Math.min(lowLevel, rng.int(3));
    const end = rng.pick([1, 10, 100, 1000, 100_000]);
    const want = model(sets, flags, mask, value, promoted, upTo, end);
    const got = densePage({
      sets,
      pass: flagPassBits(flags, mask, value),
      low,
      lowLevel,
      promoted,
      upTo,
      end,
    });
    const label = `round ${round}: ${sets.length} sets over ${universe}, end ${end}`;
    assertEquals(got.total, want.total, label);
    assertEquals(Array.from(got.ids, (id, i) => [id, got.levels[i]!]), want.entries, label);
    if (want.entries.some(([, level]) => level > lowLevel)) beyondLow++;
    else fromLow++;
  }
  assert(beyondLow >= 5 && fromLow >= 5, `both ways are checked (${beyondLow}, ${fromLow})`);
});

/** Ids at random within a few blocks of {@linkcode MARK_BLOCK_IDS} ids only. */
function clusteredList(rng: Rng, count: number, universe: number, blocks: number): Uint32Array {
  const all = Math.ceil(universe / MARK_BLOCK_IDS);
  const chosen = Array.from({ length: blocks }, () => rng.int(all));
  const set = new Set<number>();
  for (let i = 0; i < count; i++) {
    const id = rng.pick(chosen) * MARK_BLOCK_IDS + rng.int(MARK_BLOCK_IDS);
    if (id < universe) set.add(id);
  }
  return Uint32Array.from([...set].sort((a, b) => a - b));
}

Deno.test("[dense page] blocks without a wanted level are skipped, the page unchanged", () => {
  // A prefix's page (`be`, `menta`): a long part at a poor level fills it from the first ids, above
  // levels that only one to three blocks hold; and pages that reach into those levels.
  const rng = new Rng(6143);
  let skipped = 0, reached = 0;
  for (let round = 0; round < 48; round++) {
    const universe = rng.pick([100_003, 163_840, 250_007]);
    const flags = Uint8Array.from({ length: universe }, () => rng.int(2));
    const mask = rng.pick([0, 1]), value = mask;
    const lowLevel = 3;
    const names: Uint32Array[] = [];
    const sets = Array.from({ length: 1 + rng.int(3) }, (_, s) => {
      const name = randomList(rng, rng.int(30), universe);
      names.push(name);
      const parts = [
        { list: randomList(rng, universe / (2 + rng.int(3)), universe), level: 6 + rng.int(3) },
        ...Array.from({ length: 1 + rng.int(4) }, () => ({
          list: clusteredList(rng, 1 + rng.int(40), universe, 1 + rng.int(3)),
          level: 4 + rng.int(s === 0 ? 4 : 2),
        })),
        { list: name, level: 1 + rng.int(3) },
      ];
      const set = buildWordSet(parts, universe);
      if (set.kind !== "dense") throw new Error("the test meant a dense set");
      return set;
    });
    const end = rng.pick([1, 10, 40, 200]);
    const want = model(sets, flags, mask, value, new Uint32Array(0), 0, end);
    const got = densePage({
      sets,
      pass: flagPassBits(flags, mask, value),
      low: unionAll(names, universe),
      lowLevel,
      promoted: new Uint32Array(0),
      upTo: 0,
      end,
    });
    const label = `round ${round}: ${sets.length} sets over ${universe}, end ${end}`;
    assertEquals(got.total, want.total, label);
    assertEquals(Array.from(got.ids, (id, i) => [id, got.levels[i]!]), want.entries, label);
    const levels = new Set(want.entries.map(([, level]) => level));
    if (want.entries.some(([, level]) => level > lowLevel && level < 6)) reached++;
    if (levels.size === 1 && want.entries.every(([, level]) => level >= 6)) skipped++;
  }
  assert(skipped >= 5 && reached >= 5, `both kinds of page are checked (${skipped}, ${reached})`);
});

Deno.test("[dense page] the marks each block of a set holds", () => {
  assertEquals([...markBlocks(Uint8Array.of(0x10, 0x63))], [0b1001010]);
  const nibbles = new Uint8Array(MARK_BLOCK_IDS + 2);
  nibbles[MARK_BLOCK_IDS / 2 - 1] = 0x20;
  nibbles[MARK_BLOCK_IDS + 1] = 0x0f;
  assertEquals([...markBlocks(nibbles)], [0b100, 0, 1 << 15]);
  assert(markBlocks(nibbles) === markBlocks(nibbles), "kept for the same marks");
});

Deno.test("[dense page] with a hint: the fitting matches ranked as listing and keying them all", () => {
  const rng = new Rng(4049);
  let served = 0, declined = 0;
  for (let round = 0; round < 40; round++) {
    const universe = rng.pick([4096, 4099, 20_001]);
    const flags = Uint8Array.from({ length: universe }, () => rng.int(4));
    const mask = rng.pick([0, 1]), value = mask;
    const sets = Array.from(
      { length: 1 + rng.int(2) },
      () => denseSet(rng, universe, 1 + rng.int(6)).set,
    );
    // A name the hint also is (few ids), and a state (many).
    const names = randomList(rng, rng.int(universe / 50), universe);
    const state = randomList(rng, rng.int(universe / 4), universe);
    const promoted = randomList(rng, rng.int(universe / 10), universe);
    const whole = randomList(rng, rng.int(universe / 10), universe);
    const end = rng.pick([1, 10, 100, 1000]);
    const wholeUpTo = rankKey(TIER.full, 2, SUB.neutral);
    // The model: every match listed, promoted, keyed by its fit (or a miss, a tier lower), whole
    // names promoted, sorted by key then id.
    const listed = intersectDense(sets, flags, mask, value);
    const raise = new Set(promoted), named = new Set(names), inState = new Set(state);
    const wholes = new Set(whole);
    const keyed = Array.from(listed.ids, (id, i): [number, number] => {
      let level = listed.levels[i]!;
      if (raise.has(id) && level >= 1 && level <= 2) level = 0;
      const sub = named.has(id) ? SUB.name : inState.has(id) ? SUB.place : -1;
      let key = sub < 0
        ? rankKey(TIER.oneMiss, level, SUB.neutral)
        : rankKey(TIER.full, level, sub);
      if (wholes.has(id) && key <= wholeUpTo) key = rankKey(TIER.full, 0, sub);
      return [id, key];
    }).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    const fitting = keyed.filter(([, key]) => key < rankKey(TIER.oneMiss, 0, 0)).length;
    const got = fitPage({
      sets,
      pass: flagPassBits(flags, mask, value),
      fits: [{ ids: names, sub: SUB.name }, { ids: state, sub: SUB.place }],
      promoted,
      upTo: 2,
      keyOf: (level, sub) => rankKey(TIER.full, level, sub),
      whole,
      wholeUpTo,
      end,
    });
    const label = `round ${round}: ${sets.length} sets over ${universe}, end ${end}`;
    if (fitting < end) {
      assertEquals(got, null, label);
      declined++;
      continue;
    }
    if (!got) throw new Error(`${label}: no page where ${fitting} matches fit`);
    assertEquals(got.total, listed.ids.length, label);
    assertEquals(Array.from(got.ids, (id, i) => [id, got.keys[i]!]), keyed.slice(0, end), label);
    served++;
  }
  assert(served >= 10 && declined >= 3, `both outcomes are checked (${served}, ${declined})`);
});

Deno.test("[dense page] flag bits, and requests it cannot serve", () => {
  assertEquals([...flagPassBits(Uint8Array.of(0, 1, 1, 0, 3), 1, 1)], [0b10110]);
  assertEquals([...flagPassBits(Uint8Array.of(0, 1, 2), 0, 0)], [0b111]);
  const rng = new Rng(5);
  const { set } = denseSet(rng, 4096, 4);
  const { set: other } = denseSet(rng, 8192, 4);
  const request = {
    sets: [set],
    pass: flagPassBits(new Uint8Array(4096), 0, 0),
    low: new Uint32Array(0),
    lowLevel: 3,
    promoted: new Uint32Array(0),
    upTo: 2,
    end: 10,
  };
  assertEquals(densePage(request).total, set.size);
  assertThrows(() => densePage({ ...request, sets: [] }), RangeError);
  assertThrows(() => densePage({ ...request, sets: [set, other] }), RangeError);
  assertThrows(() => densePage({ ...request, upTo: 4 }), RangeError);
  assertThrows(() => densePage({ ...request, pass: new Uint32Array(2) }), RangeError);
});

Deno.test("[dense page] a first page of common words is the listed set's first page", async (t) => {
  const dir = await Deno.makeTempDir();
  buildDemoDatabase({ path: `${dir}/demo.db`, records: 3000, seed: 7 });
  const store = openSearchableStore(`${dir}/demo.db`);
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  try {
    await t.step("words", async () => {
      const topOnly = await pagesAgree(app, store, [
        "q=nurse",
        "q=family%20medicine",
        "q=nurse%20practitioner&limit=100&offset=20",
        "q=medical%20nurse&entity_type=individual",
        "q=pharmacy&include_deactivated=true&limit=50",
        "q=care%20nurse%20family&offset=7&limit=3",
        "q=nurse%20california",
        "q=texas%20family%20medicine&limit=25",
      ]);
      assert(topOnly >= 3, `most of these pages come from the dense sets (${topOnly})`);
    });
    await t.step("hints only, required as words (the first keys typed)", async () => {
      // A state code, a credential, a title, an initial: each also matches as a name and a prefix.
      const topOnly = await pagesAgree(app, store, [
        "q=ca",
        "q=c",
        "q=m&limit=40&offset=5",
        "q=md",
        "q=dr",
        "q=dr%20md",
        "q=tx&include_deactivated=true",
      ]);
      assert(topOnly >= 4, `most of these pages come from the dense sets (${topOnly})`);
    });
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[dense page] the matches below a set's worst level, and its total, agree with the model", () => {
  const rng = new Rng(35);
  for (const universe of [997, 20_000, 100_001]) {
    for (let round = 0; round < 6; round++) {
      // The long part at the worst level some rounds, at a better one in others.
      const { set, parts } = denseSet(rng, universe, rng.chance(0.5) ? 14 : 1 + rng.int(13));
      const flags = Uint8Array.from({ length: universe }, () => rng.int(4));
      const pass = flagPassBits(flags, 1, 1);
      const best = new Map<number, number>();
      for (const { list, level } of parts) {
        for (const id of list) best.set(id, Math.min(best.get(id) ?? 99, level));
      }
      const passing = [...best].filter(([id]) => (flags[id]! & 1) === 1).sort((a, b) =>
        a[0] - b[0]
      );
      const worst = Math.max(...best.values());
      const below = belowWorst(set, pass);
      assertEquals(below.total, passing.length);
      assertEquals(below.worst, worst);
      const want = passing.filter(([, level]) => level < worst);
      assertEquals([...below.ids], want.map(([id]) => id));
      assertEquals([...below.levels], want.map(([, level]) => level));
    }
  }
});

Deno.test("[dense page] entries ranked: the first by rank, then id", () => {
  const page = firstByRank(Uint32Array.of(4, 7, 9, 12), Uint8Array.of(2, 1, 2, 0), 3);
  assertEquals([...page.ids], [12, 7, 4]);
  assertEquals([...page.levels], [0, 1, 2]);
});
