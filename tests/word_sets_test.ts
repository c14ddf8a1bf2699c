/**
 * The engine's set structures, checked against a plain model on random
 * data: leveled unions (merged, marked, dense), candidates looked up in a
 * word's parts or in its union, and filter lists with and without bitmaps.
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  bitsOf,
  intersect,
  intersectLeveled,
  keepFlagged,
  keepInBits,
  type Leveled,
  type LeveledPart,
  unionAll,
  unionLeveled,
  unionLeveledBelow,
} from "../lib/index/sorted.ts";
import {
  bestLevels,
  buildWordSet,
  DENSE_STOCK,
  DenseStock,
  intersectDense,
  intersectWord,
  intersectWordSet,
  locateIsCheaper,
  memberBits,
  NO_LEVEL,
  probeIsCheaper,
  probeWord,
  streamIsCheaper,
  streamWord,
  type WordSet,
  WordSetCache,
  wordSetIds,
} from "../lib/search/word_sets.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { specialtyIndex } from "../routes/specialties.ts";
import {
  codesFilter,
  columnFilter,
  FILTER_BITS_MIN_IDS,
  filterLeveledBy,
  filterList,
  hasBitmap,
  idsFilter,
  intersectEach,
  intersectFilter,
  intersectFilters,
} from "../lib/search/filter_lists.ts";
import { Rng } from "../lib/demo/prng.ts";
import { type CodeColumns, CodeMatch } from "../lib/search/code_match.ts";
import { FIELD } from "../lib/index/fields.ts";

/** A sorted, distinct list of about `count` ids below `universe`. */
function randomList(rng: Rng, count: number, universe: number): Uint32Array {
  const set = new Set<number>();
  for (let i = 0; i < count; i++) set.add(rng.int(universe));
  return Uint32Array.from([...set].sort((a, b) => a - b));
}

/** Random parts: a mix of long and short lists at levels 0..14. */
function randomParts(rng: Rng, parts: number, universe: number, longest: number): LeveledPart[] {
  return Array.from({ length: parts }, () => ({
    list: randomList(rng, rng.chance(0.3) ? longest : rng.int(60), universe),
    level: rng.int(15),
  }));
}

/** The model: each id at the lowest level of the parts holding it, in id order. */
function modelUnion(parts: readonly LeveledPart[]): Map<number, number> {
  const best = new Map<number, number>();
  for (const { list, level } of parts) {
    for (const id of list) best.set(id, Math.min(best.get(id) ?? 99, level));
  }
  return new Map([...best].sort((a, b) => a[0] - b[0]));
}

function plain(set: Leveled): [number, number][] {
  return Array.from(set.ids, (id, i) => [id, set.levels[i]!]);
}

Deno.test("[word sets] leveled unions: merged, marked and dense agree with the model", () => {
  const rng = new Rng(11);
  const cases = [[2, 100, 50], [12, 5000, 3000], [40, 200_000, 20_000], [30, 2_000_000, 1000]];
  for (const [parts, universe, longest] of cases) {
    const everyone = new Uint8Array(universe!).fill(1);
    const odd = new Uint8Array(universe!);
    for (let id = 1; id < universe!; id += 2) odd[id] = 1;
    for (let round = 0; round < 5; round++) {
      const input = randomParts(rng, parts!, universe!, longest!);
      const want = JSON.stringify([...modelUnion(input)]);
      assertEquals(JSON.stringify(plain(unionLeveled(input))), want, `merged, ${parts} parts`);
      assertEquals(
        JSON.stringify(plain(unionLeveledBelow(input, universe!))),
        want,
        `marked, ${parts} parts`,
      );
      const word = buildWordSet(input, universe!);
      assertEquals(word.size, modelUnion(input).size);
      assertEquals(
        JSON.stringify(plain(wordSetIds(word, everyone, 1, 1))),
        want,
        `${word.kind} word set`,
      );
      assertEquals(
        JSON.stringify(plain(wordSetIds(word, odd, 1, 1))),
        JSON.stringify([...modelUnion(input)].filter(([id]) => id % 2 === 1)),
        `${word.kind} word set, odd ids`,
      );
      // Ids from `end` on cut off (an odd and an even end), with and without a flag test.
      for (const end of [rng.int(universe!) | 1, rng.int(universe!) & ~1]) {
        const below = [...modelUnion(input)].filter(([id]) => id < end);
        assertEquals(
          JSON.stringify(plain(wordSetIds(word, everyone, 0, 0, end))),
          JSON.stringify(below),
          `${word.kind} word set below ${end}`,
        );
        assertEquals(
          JSON.stringify(plain(wordSetIds(word, odd, 1, 1, end))),
          JSON.stringify(below.filter(([id]) => id % 2 === 1)),
          `${word.kind} word set, odd ids below ${end}`,
        );
      }
    }
  }
});

Deno.test("[word sets] intersections, leveled or plain, stepped or galloped, agree with the model", () => {
  const rng = new Rng(17);
  for (const [short, long] of [[1000, 1200], [1000, 7000], [1000, 9000], [200, 60_000], [0, 50]]) {
    for (let round = 0; round < 4; round++) {
      const universe = 100_000;
      const leveled = (count: number): Leveled => {
        const ids = randomList(rng, count, universe);
        return { ids, levels: Uint8Array.from(ids, () => rng.int(15)) };
      };
      const a = leveled(short!), b = leveled(long!);
      const inB = new Map(plain(b));
      const want = plain(a).filter(([id]) => inB.has(id)).map((
        [id, level],
      ): [number, number] => [id, Math.max(level, inB.get(id)!)]);
      assertEquals(plain(intersectLeveled(a, b)), want, `${short} against ${long}`);
      assertEquals(plain(intersectLeveled(b, a)), want, `${long} against ${short}`);
      const ids = want.map(([id]) => id);
      assertEquals([...intersect(a.ids, b.ids)], ids, `plain, ${short} against ${long}`);
      assertEquals([...intersect(b.ids, a.ids)], ids, `plain, ${long} against ${short}`);
    }
  }
});

Deno.test("[word sets] a word matching an eighth of all ids or more is dense", () => {
  const rng = new Rng(3);
  const dense = buildWordSet([{ list: randomList(rng, 400, 1000), level: 2 }], 1000);
  const sparse = buildWordSet([{ list: randomList(rng, 40, 1000), level: 2 }], 1000);
  assertEquals([dense.kind, sparse.kind], ["dense", "sparse"]);
});

Deno.test("[word sets] the marking scratch is left clear, also after an id outside the universe", () => {
  const parts = [{ list: Uint32Array.from({ length: 5000 }, (_, i) => i), level: 1 }, {
    list: Uint32Array.of(3, 7000),
    level: 0,
  }, { list: Uint32Array.of(4), level: 0 }];
  assertThrows(() => unionLeveledBelow(parts, 6000), RangeError, "not below 6000");
  const ok = unionLeveledBelow(parts.slice(0, 1).concat(parts.slice(2)), 6000);
  assertEquals(ok.ids.length, 5000);
  assertEquals([ok.levels[3], ok.levels[4]], [1, 0]);
});

Deno.test("[word sets] marked unions are their own arrays, exactly their ids, whatever follows", () => {
  const rng = new Rng(11);
  const universe = 20_000;
  // Overlapping parts (duplicates to drop), long enough to be marked rather than merged.
  const parts = () =>
    Array.from({ length: 4 }, (_, i) => ({ list: randomList(rng, 3000, universe), level: i + 1 }));
  const first = parts();
  const second = parts();
  const a = unionLeveledBelow(first, universe);
  const kept = plain(a);
  const b = unionLeveledBelow(second, universe);
  assertEquals(plain(a), kept, "a later union changed an earlier one");
  assertEquals(kept, [...modelUnion(first)].sort((x, y) => x[0] - y[0]));
  assertEquals(plain(b), [...modelUnion(second)].sort((x, y) => x[0] - y[0]));
  for (const set of [a, b]) {
    assertEquals(set.ids.buffer.byteLength, set.ids.length * 4, "the ids hold a longer array");
    assert(set.ids.buffer !== b.levels.buffer);
  }
  assert(a.ids.buffer !== b.ids.buffer);
});

Deno.test("[word sets] candidates looked up in the parts, the sparse union or the dense union agree", () => {
  const rng = new Rng(29);
  for (let round = 0; round < 12; round++) {
    const universe = rng.chance(0.5) ? 3000 : 300_000;
    const parts = randomParts(rng, 1 + rng.int(30), universe, rng.chance(0.5) ? 2000 : 60_000);
    const candidates = unionLeveled([
      { list: randomList(rng, rng.chance(0.5) ? 50 : 5000, universe), level: rng.int(15) },
      { list: randomList(rng, 300, universe), level: rng.int(15) },
    ]);
    const want = plain(intersectLeveled(candidates, unionLeveled(parts)));
    const word = buildWordSet(parts, universe);
    assertEquals(plain(intersectWordSet(candidates, word)), want, `the ${word.kind} union`);
    assertEquals(plain(probeWord(candidates, parts, universe)), want, "probing merged parts");
    assertEquals(plain(streamWord(candidates, parts, universe)), want, "reading the parts through");
    assertEquals(
      plain(intersectWord(candidates, parts, universe, () => word)),
      want,
      "the cheaper",
    );
  }
});

Deno.test("[word sets] best levels of ids, located, sought or read through, agree with the model", () => {
  const rng = new Rng(13);
  let located = 0, streamed = 0, sought = 0;
  for (let round = 0; round < 36; round++) {
    const universe = 40_000;
    const parts = randomParts(rng, 1 + rng.int(8), universe, rng.chance(0.5) ? 200 : 12_000);
    const ids = randomList(rng, [30, 300, 9_000][rng.int(3)]!, universe);
    const model = new Map(plain(unionLeveled(parts)));
    const want = [...ids].map((id) => model.get(id) ?? NO_LEVEL);
    assertEquals([...bestLevels(ids, parts, universe)], want, `round ${round}`);
    if (locateIsCheaper(ids.length, parts, universe)) located++;
    else if (streamIsCheaper(ids.length, parts, universe)) streamed++;
    else sought++;
  }
  assert(
    located > 0 && streamed > 0 && sought > 0,
    `every way is checked (${located}, ${streamed}, ${sought})`,
  );
  // Located: an id in several parts keeps the best level, whatever the parts' order.
  const ids = Uint32Array.from({ length: 10_000 }, (_, i) => i);
  const parts = [
    { list: Uint32Array.of(5, 50, 500), level: 3 },
    { list: Uint32Array.of(50, 700), level: 1 },
    { list: Uint32Array.of(5, 9_999), level: 7 },
  ];
  assert(locateIsCheaper(ids.length, parts, 40_000));
  const got = bestLevels(ids, parts, 40_000);
  assertEquals([got[5], got[50], got[500], got[700], got[9_999], got[6]], [
    3,
    1,
    3,
    1,
    7,
    NO_LEVEL,
  ]);
});

Deno.test("[word sets] reading parts through leaves no mark behind for the next search", () => {
  const rng = new Rng(7);
  const universe = 50_000;
  // The same parts with different candidates, again and again: a mark left from one call would
  // add a stale candidate to the next, or keep a level from a part of the last.
  for (let round = 0; round < 20; round++) {
    const parts = randomParts(rng, 1 + rng.int(6), universe, 8_000);
    const candidates = unionLeveled([
      { list: randomList(rng, 1 + rng.int(6_000), universe), level: rng.int(15) },
    ]);
    const want = plain(intersectLeveled(candidates, unionLeveled(parts)));
    assertEquals(plain(streamWord(candidates, parts, universe)), want, `round ${round}`);
  }
  const none = { ids: new Uint32Array(0), levels: new Uint8Array(0) };
  assertEquals(plain(streamWord(none, randomParts(rng, 3, universe, 100), universe)), []);
});

Deno.test("[word sets] dense unions intersected in one pass agree with listing and looking up", () => {
  const rng = new Rng(41);
  let compared = 0;
  for (let round = 0; round < 16; round++) {
    // Universes whose nibbles end in a whole 32-bit word and ones that do not.
    const universe = rng.pick([4096, 4099, 40_001, 120_006]);
    const flags = Uint8Array.from({ length: universe }, () => rng.int(4));
    const mask = rng.pick([0, 1, 3]), value = mask === 0 ? 0 : rng.int(mask + 1);
    const words = Array.from({ length: 2 + rng.int(3) }, () => {
      const set = buildWordSet(
        randomParts(rng, 1 + rng.int(6), universe, Math.ceil(universe / (1 + rng.int(4)))),
        universe,
      );
      return set;
    }).filter((w) => w.kind === "dense");
    if (words.length < 2) continue;
    // The engine's other path: the first set's ids listed (flag test applied), the rest looked up.
    let want = wordSetIds(words[0]!, flags, mask, value);
    for (const w of words.slice(1)) want = intersectWordSet(want, w);
    const got = intersectDense(
      words.flatMap((w) => w.kind === "dense" ? [w] : []),
      flags,
      mask,
      value,
    );
    assertEquals(plain(got), plain(want), `${words.length} sets over ${universe} ids`);
    // Ids from `end` on cut off, as the listing path cuts them: `end` one of the ids found, or any.
    const found = plain(want);
    const end = found.length > 0 && rng.chance(0.7)
      ? found[rng.int(found.length)]![0]
      : rng.int(universe + 2);
    let below = wordSetIds(words[0]!, flags, mask, value, end);
    for (const w of words.slice(1)) below = intersectWordSet(below, w);
    const dense = words.flatMap((w) => w.kind === "dense" ? [w] : []);
    assertEquals(
      plain(intersectDense(dense, flags, mask, value, end)),
      plain(below),
      `below ${end}`,
    );
    assertEquals(plain(below), plain(want).filter(([id]) => id < end));
    compared++;
  }
  assert(compared >= 8, `only ${compared} rounds had two dense sets or more`);
  const universes = [8, 16].map((u) => ({
    kind: "dense" as const,
    nibbles: new Uint8Array(u / 2),
    bits: new Uint32Array(1),
    size: 0,
    bytes: u / 2,
  }));
  assertThrows(() => intersectDense(universes, new Uint8Array(16), 0, 0), RangeError);
});

/**
 * Code columns of `universe - 1` random providers holding up to three of
 * `codes` codes each (one primary at most, a code twice now and then, as
 * NPPES allows), with the posting lists a build derives from them.
 */
function randomCodeColumns(rng: Rng, universe: number, codes: number): CodeColumns {
  const names = ["", ...Array.from({ length: codes - 1 }, (_, k) => `C${k}`)];
  const offsets = new Uint32Array(universe + 1);
  const held: number[] = [], primary: number[] = [];
  const lists = new Map<string, number[]>();
  for (let id = 1; id < universe; id++) {
    offsets[id] = held.length;
    const count = rng.int(4);
    for (let k = 0; k < count; k++) {
      const code = 1 + rng.int(codes - 1), isPrimary = k === 0 && rng.chance(0.7);
      held.push(code);
      primary.push(isPrimary ? 1 : 0);
      const key = `${isPrimary ? FIELD.primaryCode : FIELD.secondaryCode}\u0000${names[code]}`;
      const list = lists.get(key) ?? [];
      if (list.at(-1) !== id) list.push(id);
      lists.set(key, list);
    }
  }
  offsets[universe] = held.length;
  const list = (field: number, term: string) =>
    Uint32Array.from(lists.get(`${field}\u0000${term}`) ?? []);
  return {
    codes: names,
    codeNumber: (code) => Math.max(0, names.indexOf(code)),
    codeListLength: (n, isPrimary) =>
      list(isPrimary ? FIELD.primaryCode : FIELD.secondaryCode, names[n]!).length,
    taxOffsets: offsets,
    taxCodes: Uint16Array.from(held),
    taxPrimary: Uint8Array.from(primary),
    list,
  };
}

Deno.test("[word sets] codes looked up in the code columns agree with their posting lists", () => {
  const rng = new Rng(41);
  for (let round = 0; round < 10; round++) {
    const universe = 2000 + rng.int(3000);
    const columns = randomCodeColumns(rng, universe, 40);
    const codes = new CodeMatch(columns);
    let best = 255;
    for (let k = 0; k < 1 + rng.int(8); k++) {
      const primary = rng.int(15);
      // A code added twice keeps its best levels.
      codes.add(`C${rng.int(39)}`, primary, primary + rng.int(2));
      best = Math.min(best, primary);
    }
    codes.add("not a code", 0, 0);
    assertEquals(codes.bestLevel, best, "the best level of the codes there are");
    const parts = randomParts(rng, rng.int(4), universe, 1500);
    const candidates = unionLeveled([
      { list: randomList(rng, rng.chance(0.5) ? 40 : 1500, universe), level: rng.int(15) },
    ]);
    const all = [...parts, ...codes.parts()];
    const want = plain(intersectLeveled(candidates, unionLeveled(all)));
    assertEquals(plain(probeWord(candidates, parts, universe, codes)), want, "probed");
    assertEquals(plain(streamWord(candidates, parts, universe, codes)), want, "read through");
    assertEquals(
      plain(intersectWord(candidates, parts, universe, () => buildWordSet(all, universe), codes)),
      want,
      "the cheaper",
    );
    let size = 0;
    for (const p of codes.parts()) size += p.list.length;
    assertEquals(codes.size, size, "the size is the lists' length");
  }
});

Deno.test("[word sets] probing is chosen for few candidates, the union for many", () => {
  const long = { list: Uint32Array.from({ length: 100_000 }, (_, i) => i * 3), level: 1 };
  const many = Array.from({ length: 20 }, (_, k) => ({
    list: Uint32Array.from({ length: 10_000 }, (_, i) => i * 20 + k),
    level: k % 15,
  }));
  assertEquals(probeIsCheaper(100, [long], 300_000), true);
  assertEquals(probeIsCheaper(100, many, 200_000), true);
  assertEquals(probeIsCheaper(90_000, many, 200_000), false);
  // Many candidates against many long parts: the parts are read through.
  assertEquals(streamIsCheaper(90_000, many, 200_000), true);
  assertEquals(streamIsCheaper(100, many, 10_000_000), false, "few candidates: each is sought");
  assertEquals(streamIsCheaper(100, [long], 300_000), false);
});

Deno.test("[word sets] keepFlagged copies, never edits its input", () => {
  const set = { ids: Uint32Array.of(1, 2, 3), levels: Uint8Array.of(4, 5, 6) };
  const flags = Uint8Array.of(0, 1, 0, 1);
  assertEquals(plain(keepFlagged(set, flags, 1, 1)), [[1, 4], [3, 6]]);
  const all = keepFlagged(set, flags, 0, 0);
  all.ids[0] = 99;
  assertEquals([...set.ids], [1, 2, 3]);
  // Ids from `end` on are cut off, their flags unread; a copy still, unless in place.
  assertEquals(plain(keepFlagged(set, flags, 1, 1, false, 3)), [[1, 4]]);
  const below = keepFlagged(set, flags, 0, 0, false, 3);
  assertEquals(plain(below), [[1, 4], [2, 5]]);
  below.ids[0] = 99;
  assertEquals([...set.ids], [1, 2, 3]);
  assertEquals(plain(keepFlagged(set, flags, 0, 0, false, 1)), []);
  const own = { ids: Uint32Array.of(1, 2, 3), levels: Uint8Array.of(4, 5, 6) };
  const kept = keepFlagged(own, flags, 1, 1, true, 3);
  assertEquals(plain(kept), [[1, 4]]);
  assertEquals(kept.ids.buffer, own.ids.buffer, "in place: the caller's own arrays");
});

Deno.test("[filter lists] bitmaps and galloping give the same intersections", () => {
  const rng = new Rng(41);
  const universe = 1_000_000;
  for (let round = 0; round < 4; round++) {
    const long = randomList(rng, FILTER_BITS_MIN_IDS + rng.int(50_000), universe);
    const short = randomList(rng, 20 + rng.int(5000), universe);
    const withBits = filterList(long, universe);
    assertEquals(withBits.bits !== null, true);
    const plainLong = idsFilter(long);
    const inLong = new Set(long);
    const want = [...short].filter((id) => inLong.has(id));
    assertEquals([...intersectFilters([withBits, filterList(short, universe)])], want);
    assertEquals([...intersectFilters([plainLong, filterList(short, universe)])], want);
    const leveled = { ids: short, levels: Uint8Array.from(short, (id) => id % 15) };
    assertEquals(
      plain(filterLeveledBy(leveled, withBits)),
      plain(filterLeveledBy(leveled, plainLong)),
    );
    assertEquals(plain(filterLeveledBy(leveled, withBits)).map(([id]) => id), want);
  }
  assertThrows(() => intersectFilters([]), RangeError);
});

Deno.test("[filter lists] a long list's bitmap is made once, when read, and counted from the start", () => {
  const rng = new Rng(43);
  const universe = 1_000_000;
  const long = filterList(randomList(rng, FILTER_BITS_MIN_IDS + 5_000, universe), universe);
  assert(long.size >= FILTER_BITS_MIN_IDS, `${long.size} ids`);
  const bitmapBytes = ((universe >>> 5) + 1) * 4;
  assertEquals(long.bytes, long.ids.byteLength + bitmapBytes, "counted before it is made");
  assert(hasBitmap(long));
  const bits = long.bits!;
  assertEquals([...bits], [...bitsOf([long.ids], universe)]);
  assert(long.bits === bits, "made once");
  assertEquals(long.bytes, long.ids.byteLength + bits.byteLength);
  const short = filterList(randomList(rng, FILTER_BITS_MIN_IDS - 1, universe), universe);
  assertEquals([hasBitmap(short), short.bits], [false, null]);
  const column = columnFilter(
    { values: new Uint8Array(universe), pass: Uint8Array.of(1) },
    universe,
    () => Uint32Array.from({ length: universe }, (_, i) => i),
  );
  assertEquals(hasBitmap(column), false);
});

Deno.test("[filter lists] a column filter agrees with its list, whether it drives or tests", () => {
  const rng = new Rng(43);
  const universe = 200_000;
  const values = new Uint8Array(universe);
  for (let id = 1; id < universe; id++) values[id] = rng.int(60);
  for (const passing of [[7], [3, 11, 59], [60]]) {
    const pass = new Uint8Array(256);
    for (const v of passing) pass[v] = 1;
    const listed: number[] = [];
    for (let id = 1; id < universe; id++) if (pass[values[id]!]) listed.push(id);
    let reads = 0;
    const column = columnFilter({ values, pass }, listed.length, () => {
      reads++;
      return Uint32Array.from(listed);
    });
    const asList = filterList(Uint32Array.from(listed), universe);
    for (const length of [5, 300, 20_000, 150_000]) {
      const other = filterList(randomList(rng, length, universe), universe);
      assertEquals(
        [...intersectFilters([column, other])],
        [...intersectFilters([asList, other])],
        `${passing} with ${length} others`,
      );
      const leveled = { ids: other.ids, levels: Uint8Array.from(other.ids, (id) => id % 15) };
      assertEquals(
        plain(filterLeveledBy(leveled, column)),
        plain(filterLeveledBy(leveled, asList)),
      );
    }
    // Read only when it is the shortest: never for one state among sixty against 5-20,000 ids.
    assertEquals(reads > 0, listed.length < 150_000, `${passing}: read ${reads} times`);
    assertEquals(reads <= 1, true, "read once at most");
  }
});

Deno.test("[filter lists] a codes filter agrees with its codes' union, tested or listed", () => {
  const rng = new Rng(47);
  const universe = 60_000;
  const columns = randomCodeColumns(rng, universe, 30);
  for (const wanted of [["C4"], ["C1", "C9", "C28"], ["not a code"]]) {
    const pass = new Uint8Array(columns.codes.length);
    let size = 0;
    for (const code of wanted) {
      const n = columns.codeNumber(code);
      if (n === 0) continue;
      pass[n] = 1;
      size += columns.codeListLength(n, true) + columns.codeListLength(n, false);
    }
    // A provider holding a code both as primary and as another is in both lists, once in the union.
    const union = new Set(wanted.flatMap((code) => [
      ...columns.list(FIELD.primaryCode, code),
      ...columns.list(FIELD.secondaryCode, code),
    ]));
    const listed = Uint32Array.from([...union].sort((a, b) => a - b));
    let reads = 0;
    const test = { offsets: columns.taxOffsets, codes: columns.taxCodes, pass };
    const codes = codesFilter(test, size, () => {
      reads++;
      return filterList(listed, universe);
    });
    const asList = filterList(listed, universe);
    for (const length of [5, 300, 20_000]) {
      const other = filterList(randomList(rng, length, universe), universe);
      assertEquals(
        [...intersectFilters([codes, other])],
        [...intersectFilters([asList, other])],
        `${wanted} with ${length} others`,
      );
      const leveled = { ids: other.ids, levels: Uint8Array.from(other.ids, (id) => id % 15) };
      assertEquals(plain(filterLeveledBy(leveled, codes)), plain(filterLeveledBy(leveled, asList)));
      // Few candidates are tested on their codes: the list is read only to meet many, or to drive.
      if (length === 300 && size >= 8 * 300) assertEquals(reads, 0, `${wanted} read for 300`);
    }
    assertEquals(reads, 1, `${wanted}: read once, to drive 20,000 (or as the shortest)`);
  }
});

Deno.test("[filter lists] lists tested each on a filter unite to the union tested on it", () => {
  const rng = new Rng(47);
  const universe = 60_000;
  const columns = randomCodeColumns(rng, universe, 30);
  const n = columns.codeNumber("C4");
  const pass = new Uint8Array(columns.codes.length);
  pass[n] = 1;
  const listed = Uint32Array.from(
    [
      ...new Set([
        ...columns.list(FIELD.primaryCode, "C4"),
        ...columns.list(FIELD.secondaryCode, "C4"),
      ]),
    ]
      .sort((a, b) => a - b),
  );
  const codes = codesFilter(
    { offsets: columns.taxOffsets, codes: columns.taxCodes, pass },
    listed.length,
    () => filterList(listed, universe),
  );
  const values = Uint8Array.from({ length: universe }, () => rng.int(4));
  const column = columnFilter(
    { values, pass: Uint8Array.of(0, 1, 0, 0) },
    values.filter((v) => v === 1).length,
    () => Uint32Array.from(values.keys()).filter((id) => values[id] === 1),
  );
  // Six ids in seven: long enough for a bitmap.
  const most = Uint32Array.from({ length: universe }, (_, id) => id).filter((id) => id % 7 !== 0);
  const bits = filterList(most, universe);
  assert(hasBitmap(bits));
  const filters = { codes, bits, column, plain: idsFilter(listed) };
  for (const [name, filter] of Object.entries(filters)) {
    for (const [cells, each] of [[20, 5], [400, 3], [40, 60], [7, 2_000], [3, 30_000]]) {
      const lists = Array.from(
        { length: cells! },
        () => randomList(rng, rng.int(each! * 2), universe),
      );
      const total = lists.reduce((sum, list) => sum + list.length, 0);
      const passing = intersectEach(lists, filter);
      const label = `${name}: ${total} ids in ${cells} lists`;
      // The caller unites them and gallops through the filter when it is the shorter (a column is
      // always read).
      assertEquals(passing === null, total > filter.size && !filter.column, label);
      if (passing === null) continue;
      const united = unionAll(lists, universe);
      assertEquals([...unionAll(passing, universe)], [...intersectFilter(united, filter)], label);
    }
  }
});

Deno.test("[word sets] a shared cache hands its sets over in shared memory, once", () => {
  const rng = new Rng(5);
  const universe = 100_000;
  const sparse = buildWordSet(randomParts(rng, 4, universe, 2_000), universe);
  const dense = buildWordSet([{ list: randomList(rng, 30_000, universe), level: 3 }], universe);
  assertEquals([sparse.kind, dense.kind], ["sparse", "dense"]);
  const builder = new WordSetCache(64 << 20, { share: true });
  builder.set("sparse", sparse);
  builder.set("dense", dense);
  const fresh = builder.takeFresh();
  assertEquals(fresh.map(([key]) => key), ["sparse", "dense"]);
  assertEquals(builder.takeFresh(), [], "listed once");
  for (const [key, set] of fresh) {
    const arrays = set.kind === "dense" ? [set.nibbles] : [set.set.ids, set.set.levels];
    for (const a of arrays) assert(a.buffer instanceof SharedArrayBuffer, `${key} is shared`);
    assertEquals(set, key === "sparse" ? sparse : dense, "the same set");
    assertEquals(builder.get(key), set, "kept as handed over");
  }
  const other = new WordSetCache(64 << 20, { share: true });
  const own = buildWordSet([{ list: Uint32Array.of(1, 2), level: 0 }], universe);
  other.set("sparse", own);
  other.takeFresh();
  other.adopt(fresh);
  assertEquals(other.get("sparse"), own, "a set kept already stays");
  assertEquals(other.get("dense"), dense);
  assertEquals(other.takeFresh(), [], "adopted sets are not handed on again");
  // A cache that does not share keeps what it is given and lists nothing.
  const plainCache = new WordSetCache(64 << 20);
  plainCache.set("sparse", sparse);
  assert(plainCache.get("sparse") === sparse);
  assertEquals(plainCache.takeFresh(), []);
});

Deno.test("[word sets] member bits keep exactly the candidates some part holds", () => {
  const rng = new Rng(13);
  for (let round = 0; round < 10; round++) {
    const universe = 1000 + rng.int(200_000);
    const parts = randomParts(rng, 1 + rng.int(12), universe, rng.chance(0.5) ? 300 : 40_000);
    const candidates = unionLeveled([
      { list: randomList(rng, 50 + rng.int(20_000), universe), level: rng.int(15) },
    ]);
    const bits = memberBits(parts, universe);
    const held = new Set(parts.flatMap((p) => [...p.list]));
    const kept = keepInBits(candidates, bits);
    const want = plain(candidates).filter(([id]) => held.has(id));
    assertEquals(plain(kept), want);
    // Looked up after the bits, the word's levels are those of the whole union.
    assertEquals(
      plain(probeWord(kept, parts, universe)),
      plain(intersectLeveled(candidates, unionLeveled(parts))),
    );
  }
});

Deno.test("[word sets] a dense set the cache lets go of is built over only after its search", () => {
  const rng = new Rng(17);
  const universe = 50_000;
  const denseParts = () => randomParts(rng, 3, universe, 12_000);
  // Room for four dense sets: the fifth lets the first go.
  const one = buildWordSet(denseParts(), universe);
  assertEquals(one.kind, "dense");
  const cache = new WordSetCache(4.5 * (one.bytes + 128));
  const kept: WordSet[] = [];
  for (let i = 0; i < 5; i++) {
    const set = buildWordSet(denseParts(), universe, cache.stock);
    kept.push(set);
    cache.set(`w${i}`, set);
  }
  assertEquals(cache.has("w0"), false, "the first set was let go of");
  assertEquals(cache.stock.size, 1);
  const first = kept[0]!;
  if (first.kind !== "dense") throw new Error("a dense set");
  const before = first.nibbles.slice();
  // The same search goes on reading the set let go of while it builds another: not in its arrays.
  const parts = denseParts();
  const during = buildWordSet(parts, universe, cache.stock);
  if (during.kind !== "dense") throw new Error("a dense set");
  assert(during.nibbles.buffer !== first.nibbles.buffer, "not built over during the search");
  assertEquals(first.nibbles, before, "the set let go of is as it was");
  // Once the search ends, the next dense union is built in its arrays, zeroed first.
  cache.stock.settle();
  const after = buildWordSet(parts, universe, cache.stock);
  if (after.kind !== "dense") throw new Error("a dense set");
  assert(after.nibbles.buffer === first.nibbles.buffer, "built in the arrays let go of");
  assert(after.bits.buffer === first.bits.buffer);
  assertEquals(after, during, "the same set as in new arrays");
  assertEquals(cache.stock.size, 0);
  // A set of another universe, or in shared memory, is not taken; the stock holds a few at most.
  const other = buildWordSet([{ list: randomList(rng, 9_000, 60_000), level: 1 }], 60_000);
  cache.stock.retire(other);
  cache.stock.settle();
  const sized = buildWordSet(parts, universe, cache.stock);
  if (sized.kind !== "dense" || other.kind !== "dense") throw new Error("dense sets");
  assert(sized.nibbles.buffer !== other.nibbles.buffer, "arrays of another size are dropped");
  const shared = new WordSetCache(64 << 20, { share: true });
  shared.set("s", one);
  const inShared = shared.get("s")!;
  const stock = new DenseStock();
  stock.retire(inShared);
  assertEquals(stock.size, 0, "another worker may read a set in shared memory");
  for (let i = 0; i < DENSE_STOCK + 2; i++) stock.retire(buildWordSet(denseParts(), universe));
  assertEquals(stock.size, DENSE_STOCK);
});

Deno.test("[word sets] every search ends its stock's hold, also one that fails", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records: 3000, seed: 4 });
  let settles = 0;
  const settle = DenseStock.prototype.settle;
  DenseStock.prototype.settle = function (this: DenseStock) {
    settles++;
    settle.call(this);
  };
  const store = openSearchableStore(db, { wordSetCacheBytes: 1 << 20 });
  try {
    const specialties = specialtyIndex(store);
    const run = (q: string, watch = {}) =>
      store.search(
        toSearchQuery(SEARCH_PARAMS.parse(new URLSearchParams(q)), {
          specialties,
          cursorScope: { query: q, release: "" },
          url: new URLSearchParams(q),
        }),
        watch,
      );
    run("q=health care");
    run("q=smith&state=CA");
    assertEquals(settles, 2, "one settle a search");
    assertThrows(() => run("q=family medicine", { deadline: 0 }));
    assertEquals(settles, 3, "a search that throws settles too");
  } finally {
    DenseStock.prototype.settle = settle;
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[word sets] a marked union reads back every id it marked, a part out of order too", () => {
  const universe = 200_000;
  const rng = new Rng(29);
  // Long enough to be marked: three parts, one of them not in order, its ids above the others'.
  const sorted = [randomList(rng, 9_000, universe / 2), randomList(rng, 4_000, universe / 2)];
  const shuffled = randomList(rng, 3_000, universe / 2).map((id) => id + universe / 2).reverse();
  const parts = [
    { list: sorted[0]!, level: 2 },
    { list: shuffled, level: 1 },
    { list: sorted[1]!, level: 5 },
  ];
  const model = modelUnion(parts);
  assertEquals(plain(unionLeveledBelow(parts, universe)), [...model]);
  // Nothing is left marked for the next union.
  const next = [{ list: sorted[1]!, level: 3 }, { list: sorted[0]!, level: 4 }, {
    list: randomList(rng, 2_000, universe),
    level: 0,
  }];
  assertEquals(plain(unionLeveledBelow(next, universe)), [...modelUnion(next)]);
});
