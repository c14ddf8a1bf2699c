/**
 * Browsing by last-update day (`updated_browse.ts`): a walk's pages,
 * followed by cursor or taken by offset, hold exactly the providers that
 * pass the flag test with a day in the set, in id order, with their exact
 * total, dense sets and sparse ones alike; a sparse set is walked only
 * when listing it would read many more ids than the walk.
 */
import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import {
  browseUpdated,
  browseUpdatedIn,
  WALK_DENSITY,
  WALK_PER_LISTED,
  type WalkPage,
} from "../lib/search/updated_browse.ts";
import { monthsHold } from "../lib/search/extra_filters.ts";
import { type SearchQuery, searchQuery } from "../lib/search/query.ts";
import { FLAG } from "../lib/index/fields.ts";
import type { SearchIndex } from "../lib/index/reader.ts";

type Days = [number, number][];

/**
 * The ids passing the test with a day in `days` (and in state `state`, a
 * number of `index.states`, when given), in id order: the brute force.
 */
function matching(
  index: SearchIndex,
  days: Days,
  mask: number,
  value: number,
  state = 0,
): number[] {
  const out: number[] = [];
  for (let id = 1; id <= index.size; id++) {
    const day = index.updated[id]!;
    if ((index.flags[id]! & mask) !== value) continue;
    if (state > 0 && index.state[id] !== state) continue;
    if (days.some(([from, to]) => day >= Math.max(1, from) && day < to)) out.push(id);
  }
  return out;
}

/** The day below which `share` of the providers passing the test were last updated. */
function dayAtShare(index: SearchIndex, mask: number, value: number, share: number): number {
  const days: number[] = [];
  for (let id = 1; id <= index.size; id++) {
    if ((index.flags[id]! & mask) === value && index.updated[id]! > 0) {
      days.push(index.updated[id]!);
    }
  }
  days.sort((a, b) => a - b);
  return days[Math.floor(share * (days.length - 1))]! + 1;
}

/**
 * Checks a walk's pages against `want`: followed by cursor seven at a time,
 * and taken by offset (the middle, the last page, past the end).
 */
function checkPages(label: string, want: number[], walk: (query: SearchQuery) => WalkPage): void {
  const got: number[] = [];
  let page = walk(searchQuery({ limit: 7 }));
  for (let pages = 0;; pages++) {
    assertEquals(page.total, want.length, `${label}: total`);
    assertEquals(page.offset, got.length, `${label}: offset`);
    got.push(...page.ids);
    if (!page.next) break;
    assert(pages < want.length, `${label}: the walk ends`);
    page = walk(searchQuery({ limit: 7, cursor: page.next }));
  }
  assertEquals(got, want, label);
  for (
    const offset of [Math.floor(want.length / 2), Math.max(0, want.length - 3), want.length + 5]
  ) {
    const byOffset = walk(searchQuery({ limit: 7, offset }));
    assertEquals(byOffset.ids, want.slice(offset, offset + 7), `${label} offset ${offset}`);
    assertEquals(byOffset.next === null, offset + 7 >= want.length, `${label} offset ${offset}`);
  }
}

/** Runs `check` on the index of a 6,000-provider demo database made with `seed`, then removes it. */
function onDemoIndex(seed: number, check: (index: SearchIndex) => void): void {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records: 6_000, seed });
  const store = openSearchableStore(db);
  try {
    check(store.index);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("[updated-browse] walked pages hold exactly the matches, by cursor and by offset", () => {
  onDemoIndex(5, (index) => {
    const org = FLAG.organization, active = FLAG.active;
    // The organizations updated first (a fiftieth of them): a sparse set.
    const early = dayAtShare(index, org, org, 0.02);
    const cases: { days: Days; mask: number; value: number }[] = [
      { days: [[1, early]], mask: org, value: org },
      { days: [[1, early]], mask: org | active, value: org | active },
      { days: [[1, early], [early + 400, early + 800]], mask: org, value: org },
      { days: [[early, 1 << 16]], mask: active, value: active },
      { days: [[1, 2]], mask: 0, value: 0 },
    ];
    for (const { days, mask, value } of cases) {
      const label = `${JSON.stringify(days)} ${mask}/${value}`;
      const want = matching(index, days, mask, value);
      const walk = (query: SearchQuery) =>
        browseUpdated(query, days, { mask, value }, index, {}, index.size)!;
      checkPages(label, want, walk);
    }
    // A sparse set is walked only when listing it would read more than the walk: its months' lists
    // hold at least the providers of its days, and the walk to a first page reads size / total ids
    // a result.
    const sparse = cases[0]!;
    const test = { mask: sparse.mask, value: sparse.value };
    const count = matching(index, sparse.days, test.mask, test.value).length;
    assert(count > 0 && count * WALK_DENSITY < index.size, `${count} sparse`);
    const held = monthsHold(sparse.days, { index });
    assert(held >= matching(index, sparse.days, 0, 0).length, `${held} held`);
    const walk = (20 * index.size) / count;
    const first = searchQuery({ limit: 20 });
    assertEquals(browseUpdated(first, sparse.days, test, index, {}, 0), null);
    assertEquals(
      browseUpdated(first, sparse.days, test, index, {}, walk / WALK_PER_LISTED - 1),
      null,
    );
    assertEquals(
      browseUpdated(first, sparse.days, test, index, {}, walk / WALK_PER_LISTED)?.total,
      count,
    );
  });
});

Deno.test("[updated-browse] a state's walked pages hold exactly its matches, counted exactly", () => {
  onDemoIndex(8, (index) => {
    const person = FLAG.individual, org = FLAG.organization, active = FLAG.active;
    const middle = dayAtShare(index, 0, 0, 0.5), late = dayAtShare(index, 0, 0, 0.9);
    const daySets: Days[] = [
      [[1, middle]],
      [[middle, late]],
      [[1, middle], [late, 1 << 16]],
      [[middle, middle + 1]],
      [[1 << 15, 1 << 16]],
    ];
    const tests = [[person, person], [org | active, org | active], [0, 0], [active, 0]];
    // The most populous states and one with few providers.
    const byCount = index.states.map((code, n) => ({
      code,
      n,
      count: n > 0 ? index.stateCount(n) : 0,
    }))
      .filter((s) => s.count > 0).sort((a, b) => b.count - a.count);
    const states = [byCount[0]!, byCount[1]!, byCount.at(-1)!];
    let some = 0;
    for (const { code, n } of states) {
      for (const days of daySets) {
        for (const [mask, value] of tests) {
          const label = `${code} ${JSON.stringify(days)} ${mask}/${value}`;
          const want = matching(index, days, mask!, value!, n);
          if (want.length > 7) some++;
          checkPages(
            label,
            want,
            (query) => browseUpdatedIn(query, code, days, { mask: mask!, value: value! }, index)!,
          );
        }
      }
    }
    assert(some >= 10, `${some} walks of more than a page`);
    // A state no provider is in has no match, whatever the days.
    const none = browseUpdatedIn(searchQuery(), "ZZ", [[1, 1 << 16]], { mask: 0, value: 0 }, index);
    assertEquals([none?.total, none?.ids, none?.next], [0, [], null]);
    // Flags the days are not kept by (sex) are left to the lists.
    const male = FLAG.male;
    assertEquals(
      browseUpdatedIn(searchQuery(), "CA", [[1, middle]], { mask: male, value: male }, index),
      null,
    );
  });
});
