/**
 * Pages in distance order selected with a bounded heap
 * (`lib/search/distance_page.ts`), checked against a plain full sort on
 * random sets with many ties (equal distances, equal levels), with and
 * without levels first; and through the engine, a walk by cursor around a
 * point against the first pages it selects.
 */
import { assert, assertEquals } from "@std/assert";
import { type DistanceSet, nearestPositions, sortByDistance } from "../lib/search/distance_page.ts";
import { seededRandom } from "./_utils.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { queryFingerprint, SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import type { SearchQuery } from "../lib/search/query.ts";
import type { SearchHit } from "../lib/search/engine.ts";
import { specialtyIndex } from "../routes/specialties.ts";

/** A set of `n` distinct ids in id order, few distinct distances and levels (many ties). */
function randomSet(random: () => number, n: number, withLevels: boolean): DistanceSet {
  const ids = new Uint32Array(n);
  let id = 0;
  for (let i = 0; i < n; i++) ids[i] = id += 1 + Math.floor(random() * 5);
  const distances = Float64Array.from({ length: n }, () => Math.floor(random() * 40) / 4);
  const levels = withLevels ? Uint8Array.from({ length: n }, () => Math.floor(random() * 4)) : null;
  return { ids, levels, distances };
}

/** The model: every position, sorted by (level when byLevel), distance, id. */
function modelOrder(set: DistanceSet, byLevel: boolean): number[] {
  return Array.from(set.ids, (_, i) => i).sort((a, b) =>
    (byLevel ? set.levels![a]! - set.levels![b]! : 0) ||
    set.distances[a]! - set.distances[b]! || set.ids[a]! - set.ids[b]!
  );
}

Deno.test("[distance page] a selected page is the sorted set's page, ties and levels included", () => {
  const random = seededRandom(21);
  for (let round = 0; round < 60; round++) {
    const n = Math.floor(random() * 400);
    const byLevel = round % 2 === 0;
    const set = randomSet(random, n, byLevel || round % 3 === 0);
    const order = modelOrder(set, byLevel);
    for (const [offset, limit] of [[0, 1], [0, 10], [0, 100], [7, 13], [n - 3, 10], [n, 5]]) {
      if (offset! < 0) continue;
      const got = [...nearestPositions(set, byLevel, offset!, limit!)];
      assertEquals(got, order.slice(offset, offset! + limit!), `n=${n} ${offset}+${limit}`);
    }
    const sorted = sortByDistance(set, byLevel);
    assertEquals([...sorted.ids], order.map((p) => set.ids[p]!));
    assertEquals([...sorted.distances], order.map((p) => set.distances[p]!));
    if (set.levels) assertEquals([...sorted.levels!], order.map((p) => set.levels![p]!));
  }
});

Deno.test("[distance page] empty sets and pages past the end are empty", () => {
  const empty = { ids: new Uint32Array(0), levels: null, distances: new Float64Array(0) };
  assertEquals(nearestPositions(empty, false, 0, 10).length, 0);
  const one = { ids: Uint32Array.of(4), levels: null, distances: Float64Array.of(2.5) };
  assertEquals([...nearestPositions(one, false, 0, 10)], [0]);
  assertEquals(nearestPositions(one, false, 1, 10).length, 0);
});

Deno.test("[distance page] engine: first pages selected around a point agree with the sorted walk", async () => {
  const dir = await Deno.makeTempDir();
  buildDemoDatabase({ path: `${dir}/demo.db`, records: 3000, seed: 21 });
  // No result cache: every offset page is selected afresh from the unsorted set.
  const store = openSearchableStore(`${dir}/demo.db`, { resultCacheBytes: 0 });
  const query = (text: string, paging: Partial<SearchQuery> = {}): SearchQuery => {
    const url = new URLSearchParams(text);
    return {
      ...toSearchQuery(SEARCH_PARAMS.parse(url), {
        specialties: specialtyIndex(store),
        cursorScope: { query: queryFingerprint(url), release: "test" },
        url,
      }),
      ...paging,
    };
  };
  try {
    let compared = 0;
    for (
      const text of [
        "near=10001&radius=300",
        "near=60601&radius=500&facets=state,city",
        "near=90012&radius=400&q=smith",
        "near=90012&radius=400&q=smith&sort=distance",
        "near=77002&radius=200&q=nurse&sort=relevance",
      ]
    ) {
      // The walk by cursor: every page after the first sorts the whole set.
      const walk: SearchHit[] = [];
      let page = store.search(query(`${text}&limit=25`));
      const total = page.total;
      walk.push(...page.hits);
      while (page.next) {
        page = store.search(query(`${text}&limit=25`, { cursor: page.next }));
        walk.push(...page.hits);
      }
      assertEquals(walk.length, total, text);
      assertEquals(new Set(walk.map((h) => h.id)).size, total, `${text}: no duplicates`);
      for (const [offset, limit] of [[0, 10], [3, 7], [37, 50], [total - 4, 10]]) {
        if (offset! < 0) continue;
        const selected = store.search(query(`${text}&limit=${limit}&offset=${offset}`));
        assertEquals(selected.total, total);
        assertEquals(selected.hits, walk.slice(offset, offset! + limit!), `${text} ${offset}`);
        compared += selected.hits.length;
      }
    }
    assert(compared > 150, `pages compared hold results (${compared})`);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
