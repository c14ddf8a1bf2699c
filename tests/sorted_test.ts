/** Set operations on posting lists, checked against plain arrays. */
import { assertEquals, assertThrows } from "@std/assert";
import {
  bitsOf,
  intersectUnion,
  sortUnique,
  sortUniqueBelow,
  subtract,
  unionAll,
} from "../lib/index/sorted.ts";

/** A deterministic list of `count` ids below `universe`, with repeats. */
function ids(count: number, universe: number, seed: number): Uint32Array {
  let x = seed;
  return Uint32Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % universe;
  });
}

/** What a sorted, duplicate-free list of `list` must be. */
function expected(list: ArrayLike<number>): number[] {
  return [...new Set(Array.from(list))].sort((a, b) => a - b);
}

Deno.test("[sorted] sortUniqueBelow equals sortUnique, short and long, sparse and dense", () => {
  const cases: [number, number][] = [[10, 50], [5000, 1_000_000], [20_000, 30_000], [100_000, 64]];
  for (const [count, universe] of cases) {
    for (const seed of [1, 2]) {
      const list = ids(count, universe, seed);
      const want = expected(list);
      assertEquals(
        [...sortUniqueBelow(list.slice(), universe)],
        want,
        `${count} below ${universe}`,
      );
      assertEquals([...sortUnique(list.slice())], want);
    }
  }
  // The bitmap is left clear: a second call sees only its own ids.
  assertEquals([...sortUniqueBelow(Uint32Array.from({ length: 5000 }, () => 7), 100)], [7]);
});

Deno.test("[sorted] sortUniqueBelow rejects an id outside the universe and stays usable", () => {
  const list = ids(6000, 1000, 3);
  list[5999] = 1000;
  assertThrows(() => sortUniqueBelow(list, 1000), RangeError, "not below 1000");
  assertEquals([...sortUniqueBelow(Uint32Array.from({ length: 5000 }, (_, i) => i % 3), 1000)], [
    0,
    1,
    2,
  ]);
});

Deno.test("[sorted] intersectUnion equals the intersection with the union, and leaves the bitmap clear", () => {
  const universe = 300_000;
  const cases: [number, number, number][] = [
    [50, 90, 2000],
    [4000, 12, 30_000],
    [1, 3, 10],
    [2500, 1, 0],
  ];
  for (const [within, lists, length] of cases) {
    const w = sortUnique(ids(within, universe, within + 7));
    // Lists overlapping each other and `within` (an id in several lists is listed once).
    const parts = Array.from({ length: lists }, (_, i) => sortUnique(ids(length, universe, i + 3)));
    parts.push(w.subarray(0, w.length >> 1));
    const union = new Set(parts.flatMap((l) => [...l]));
    const want = [...w].filter((id) => union.has(id));
    assertEquals([...intersectUnion(w, parts, universe)], want, `${within} in ${lists} lists`);
  }
  assertEquals([...intersectUnion(new Uint32Array(0), [Uint32Array.of(1)], 10)], []);
  // Ids past `within`'s bitmap words are in none of it; the next call sees only its own ids.
  assertEquals([...intersectUnion(Uint32Array.of(3), [Uint32Array.of(3, 999_999)], 10)], [3]);
  assertEquals([...intersectUnion(Uint32Array.of(4), [Uint32Array.of(3, 4)], 10)], [4]);
  assertThrows(() => intersectUnion(Uint32Array.of(10), [], 10), RangeError, "not below 10");
  assertEquals([...sortUniqueBelow(Uint32Array.from({ length: 5000 }, (_, i) => i % 2), 100)], [
    0,
    1,
  ]);
});

Deno.test("[sorted] unionAll of many long lists, with and without a universe", () => {
  const lists = Array.from({ length: 12 }, (_, i) => sortUnique(ids(3000, 200_000, i + 1)));
  const want = expected(lists.flatMap((l) => [...l]));
  assertEquals([...unionAll(lists, 200_000)], want);
  assertEquals([...unionAll(lists)], want);
  assertEquals(
    [...unionAll(lists.slice(0, 3), 200_000)],
    expected(lists.slice(0, 3).flatMap((l) => [...l])),
  );
});

Deno.test("[sorted] unionAll of one long list among short ones, in any order", () => {
  // The shortest lists are merged first: whatever the input order, the union is the same.
  const long = sortUnique(ids(50_000, 400_000, 9));
  const short = Array.from({ length: 7 }, (_, i) => sortUnique(ids(5 + i * 40, 400_000, 20 + i)));
  const want = expected([...long, ...short.flatMap((l) => [...l])]);
  for (const lists of [[long, ...short], [...short, long], [short[0]!, long, ...short.slice(1)]]) {
    assertEquals([...unionAll(lists, 400_000)], want);
  }
  // Equal lengths and a single empty list among them.
  const equal = [ids(100, 1000, 1), ids(100, 1000, 2), new Uint32Array(0), ids(100, 1000, 3)]
    .map((l) => sortUnique(l));
  assertEquals([...unionAll(equal)], expected(equal.flatMap((l) => [...l])));
});

Deno.test("[sorted] subtract: short and long lists, galloping or stepping", () => {
  for (const [na, nb, universe] of [[10, 10, 40], [50, 20_000, 100_000], [20_000, 40, 50_000]]) {
    const a = sortUnique(ids(na!, universe!, 3)), b = sortUnique(ids(nb!, universe!, 5));
    const inB = new Set(b);
    assertEquals([...subtract(a, b)], [...a].filter((v) => !inB.has(v)));
  }
  assertEquals([...subtract(Uint32Array.of(1, 2), new Uint32Array(0))], [1, 2]);
  assertEquals([...subtract(new Uint32Array(0), Uint32Array.of(1))], []);
  assertEquals([...subtract(Uint32Array.of(1, 3, 5), Uint32Array.of(3, 4))], [1, 5]);
});

Deno.test("[sorted] unionAll of thousands of short lists over a large universe (sorted, not merged)", () => {
  // As the organization names starting `family`: 21,473 terms of two ids each, among 9.7 million.
  const lists = Array.from(
    { length: 5000 },
    (_, k) => sortUnique(ids(1 + (k % 3), 9_700_000, k + 7)),
  );
  const want = expected(lists.flatMap((l) => [...l]));
  assertEquals([...unionAll(lists, 9_700_001)], want);
  assertEquals([...unionAll(lists)], want);
});

Deno.test("[sorted] bitsOf sets the bit of every listed id and no other", () => {
  const lists = [Uint32Array.of(0, 31, 32, 99), Uint32Array.of(31, 63, 64)];
  const bits = bitsOf(lists, 100);
  assertEquals(bits.length, 4);
  const listed = new Set([0, 31, 32, 63, 64, 99]);
  for (let id = 0; id < 100; id++) {
    assertEquals(((bits[id >>> 5]! >>> (id & 31)) & 1) === 1, listed.has(id), `id ${id}`);
  }
  assertEquals(bitsOf([], 10), new Uint32Array(1));
});
