/**
 * Browsing by last-update day: a query whose only filters are a
 * `_lastUpdated` day set and the flag test (`Practitioner?_lastUpdated=ge…`,
 * the directory sync) is answered like unfiltered browsing, without
 * building the list of every match. The total comes from a histogram of
 * providers by flag class and day (2 MB, one pass over the day column on
 * first use, then prefix sums); the page from walking ids in name order
 * from the cursor, testing each id's flags and day, and stopping at the
 * page. Used when the day set holds at least 1/{@linkcode WALK_DENSITY} of
 * the registry, so a page walks at most that many ids per result; sparser
 * sets read their month lists instead (`extra_filters.ts`).
 *
 * @module
 */
import type { SearchQuery } from "./query.ts";
import type { SearchIndex } from "../index/reader.ts";
import { FLAG } from "../index/fields.ts";
import { MAX_DAY } from "../index/updated.ts";
import { checkWatch, type Watch } from "../deadline.ts";

/** A walk is used when the matches are at least one id in this many. */
export const WALK_DENSITY = 64;

/** Flag bits the histogram is kept by (the flag tests FHIR searches make without `gender`). */
const CLASS_BITS = FLAG.active | FLAG.individual | FLAG.organization;
const CLASSES = CLASS_BITS + 1;
const DAYS = MAX_DAY + 1;

/** Long loops check their watch once every this many ids. */
const CHECK_EVERY = 0xffff;

const histograms = new WeakMap<SearchIndex, Uint32Array>();

/**
 * Cumulative counts by flag class and day: `at[c * (DAYS + 1) + d]` is the
 * number of providers of class `c` (their flags' {@linkcode CLASS_BITS})
 * whose day is below `d`.
 */
function cumulative(index: SearchIndex): Uint32Array {
  let at = histograms.get(index);
  if (at) return at;
  at = new Uint32Array(CLASSES * (DAYS + 1));
  const flags = index.flags, days = index.updated;
  for (let id = 1; id <= index.size; id++) {
    at[(flags[id]! & CLASS_BITS) * (DAYS + 1) + days[id]! + 1]!++;
  }
  for (let c = 0; c < CLASSES; c++) {
    const base = c * (DAYS + 1);
    for (let d = 1; d <= DAYS; d++) at[base + d]! += at[base + d - 1]!;
  }
  histograms.set(index, at);
  return at;
}

/**
 * How many providers pass the flag test with a day in `days`; `null` when
 * the test uses bits the histogram is not kept by.
 *
 * @example
 * ```ts
 * countUpdated(index, [[19723, 19754]], FLAG.active, FLAG.active); // active, updated in January 2024
 * ```
 */
export function countUpdated(
  index: SearchIndex,
  days: readonly [number, number][],
  mask: number,
  value: number,
): number | null {
  if ((mask & ~CLASS_BITS) !== 0) return null;
  const at = cumulative(index);
  let total = 0;
  for (let c = 0; c < CLASSES; c++) {
    if ((c & mask) !== value) continue;
    const base = c * (DAYS + 1);
    for (const [from, to] of days) {
      const lo = Math.max(0, Math.min(DAYS, from)), hi = Math.max(0, Math.min(DAYS, to));
      if (hi > lo) total += at[base + hi]! - at[base + lo]!;
    }
  }
  return total;
}

/** A page found by walking: ids in name order. */
export interface WalkPage {
  total: number;
  ids: number[];
  /** Where the next page starts; `null` on the last page. */
  next: { offset: number; after: number[] } | null;
  offset: number;
}

/**
 * The page of a query whose only filters are the day set `days` and the
 * flag test, by walking ids; `null` when the query has other filters or
 * the matches are too sparse to walk (the caller builds their list).
 *
 * @example
 * ```ts
 * const page = browseUpdated(query, [[19723, 65536]], { mask: 1, value: 1 }, index);
 * ```
 */
export function browseUpdated(
  query: SearchQuery,
  days: readonly [number, number][],
  test: { mask: number; value: number },
  index: SearchIndex,
  watch: Watch = {},
): WalkPage | null {
  const total = countUpdated(index, days, test.mask, test.value);
  if (total === null || total * WALK_DENSITY < index.size) return null;
  const allowed = new Uint8Array(DAYS);
  for (const [from, to] of days) allowed.fill(1, Math.max(1, from), Math.min(DAYS, to));
  const flags = index.flags, column = index.updated;
  let id = query.cursor ? query.cursor.after[0]! + 1 : 1;
  let skip = query.cursor ? 0 : query.offset;
  const offset = query.cursor ? query.cursor.offset : query.offset;
  const ids: number[] = [];
  for (; id <= index.size && ids.length < query.limit; id++) {
    if ((id & CHECK_EVERY) === 0) checkWatch(watch);
    if ((flags[id]! & test.mask) !== test.value || allowed[column[id]!] !== 1) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    ids.push(id);
  }
  const last = ids.at(-1);
  const next = last !== undefined && offset + ids.length < total
    ? { offset: offset + ids.length, after: [last] }
    : null;
  return { total, ids, next, offset };
}
