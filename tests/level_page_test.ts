/**
 * Pages of relevance-ranked sets selected without sorting
 * (`lib/search/level_page.ts`), against a full sort on random data.
 */
import { assertEquals } from "@std/assert";
import { levelPositions, sortByLevel } from "../lib/search/level_page.ts";
import { RANK_KEYS } from "../lib/search/scores.ts";
import { Rng } from "../lib/demo/prng.ts";

/** A set in id order with random keys, few distinct ones or many. */
function randomSet(rng: Rng, n: number): { ids: Uint32Array; levels: Uint8Array } {
  const keys = rng.chance(0.5) ? 3 : RANK_KEYS;
  let id = 0;
  const ids = Uint32Array.from({ length: n }, () => (id += 1 + rng.int(5)));
  const levels = Uint8Array.from({ length: n }, () => rng.int(keys));
  return { ids, levels };
}

/** The model: every entry sorted by key, then id. */
function modelOrder(set: { ids: Uint32Array; levels: Uint8Array }): [number, number][] {
  return Array.from(set.ids, (id, i) => [set.levels[i]!, id] as [number, number])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

Deno.test("[level pages] a sort by key keeps id order within each key", () => {
  const rng = new Rng(5);
  for (let round = 0; round < 20; round++) {
    const set = randomSet(rng, rng.int(3000));
    const sorted = sortByLevel(set);
    assertEquals(Array.from(sorted.ids, (id, i) => [sorted.levels[i]!, id]), modelOrder(set));
  }
});

Deno.test("[level pages] a selected page is the sorted set's page, at any offset", () => {
  const rng = new Rng(8);
  for (let round = 0; round < 200; round++) {
    const set = randomSet(rng, rng.int(round < 20 ? 12 : 4000));
    const want = modelOrder(set);
    const offset = rng.chance(0.5) ? 0 : rng.int(want.length + 20);
    const limit = 1 + rng.int(120);
    const got = Array.from(
      levelPositions(set.levels, offset, limit),
      (p) => [set.levels[p]!, set.ids[p]!] as [number, number],
    );
    assertEquals(got, want.slice(offset, offset + limit), `offset ${offset}, limit ${limit}`);
  }
});
