/**
 * Browsing by last-update day: a query whose only filters are a
 * `_lastUpdated` day set and the flag test (`Practitioner?_lastUpdated=ge…`,
 * the directory sync) is answered like unfiltered browsing, without
 * building the list of every match. The total comes from a histogram of
 * providers by flag class and day (2 MB, one pass over the day column on
 * first use, then prefix sums); the page from walking ids in name order
 * from the cursor, testing each id's flags and day, and stopping at the
 * page. Used when the day set holds at least 1/{@linkcode WALK_DENSITY} of
 * the registry, so a page walks about that many ids per result at most; or
 * when the walk to the page's end, reckoned from the set's density, is
 * shorter than {@linkcode WALK_PER_LISTED} times the ids that listing the
 * set would read (its months' lists: an old cutoff for one kind of
 * provider, `Organization?_lastUpdated=le2013-05-07`, is 146,923 of 9.7
 * million among 700,122 in those months; its first page walked in 0.1–0.3
 * ms, listed in 32–37). A page's walk reads the day column once at most
 * (23 ms at 9.7 million). Other sparse sets read their month lists
 * (`extra_filters.ts`).
 *
 * A query filtered by one state besides (directory sync by state) walks
 * the state's posting list instead, its total counted in the state's days
 * kept sorted by flag class ({@linkcode browseUpdatedIn}).
 *
 * @module
 */
import type { SearchQuery } from "./query.ts";
import type { SearchIndex } from "../index/reader.ts";
import { FIELD, FLAG } from "../index/fields.ts";
import { seek } from "../index/sorted.ts";
import { MAX_DAY } from "../index/updated.ts";
import { checkWatch, type Watch } from "../deadline.ts";

/** A walk is used when the matches are at least one id in this many. */
export const WALK_DENSITY = 64;

/**
 * A sparser set is walked when the walk's expected length is at most this
 * many times the ids listing it reads (a step of the walk is two column
 * reads in order, about 2.4 ns; listing costs 50–100 ns an id read).
 */
export const WALK_PER_LISTED = 8;

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
    for (const [lo, hi] of spans(days)) total += at[base + hi]! - at[base + lo]!;
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
 * flag test, by walking ids; `null` when the flag test is not one the
 * counts are kept by, or when the matches are too sparse to walk against
 * `listed`, the ids that listing them would read (the caller lists them).
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
  listed = 0,
): WalkPage | null {
  const total = countUpdated(index, days, test.mask, test.value);
  if (total === null) return null;
  if (total * WALK_DENSITY < index.size) {
    // The ids a walk is expected to read: the page's end (from the cursor, if any) over the density.
    const end = (query.cursor ? 0 : query.offset) + query.limit;
    const walk = Math.min(index.size, (end * index.size) / Math.max(1, total));
    if (walk > WALK_PER_LISTED * listed) return null;
  }
  return walkPage(query, total, { days, test, index, ids: null }, watch);
}

/**
 * The last-update days of one state's providers (its posting list), by
 * flag class: class `c`'s days, sorted, are `days[starts[c]..starts[c+1]]`.
 */
interface StateDays {
  list: Uint32Array;
  starts: Uint32Array;
  days: Uint16Array;
}

const statesDays = new WeakMap<SearchIndex, Map<string, StateDays>>();

/** The days of a state no provider is in. */
const NO_DAYS: StateDays = {
  list: new Uint32Array(0),
  starts: new Uint32Array(CLASSES + 1),
  days: new Uint16Array(0),
};

/**
 * A state's {@linkcode StateDays}, made on first use (a pass over its list
 * and a sort of its days: two bytes a provider, 19 MB for every state at
 * 9.7 million) and kept; a state without providers (any text a client
 * sends) is not kept.
 */
function stateDays(index: SearchIndex, state: string): StateDays {
  let byState = statesDays.get(index);
  if (!byState) statesDays.set(index, byState = new Map());
  const known = byState.get(state);
  if (known) return known;
  const list = index.list(FIELD.state, state);
  if (list.length === 0) return NO_DAYS;
  const flags = index.flags, column = index.updated;
  const starts = new Uint32Array(CLASSES + 1);
  for (let i = 0; i < list.length; i++) starts[(flags[list[i]!]! & CLASS_BITS) + 1]!++;
  for (let c = 1; c <= CLASSES; c++) starts[c]! += starts[c - 1]!;
  const days = new Uint16Array(list.length);
  const at = starts.slice(0, CLASSES);
  for (let i = 0; i < list.length; i++) {
    const id = list[i]!;
    days[at[flags[id]! & CLASS_BITS]!++] = column[id]!;
  }
  for (let c = 0; c < CLASSES; c++) days.subarray(starts[c]!, starts[c + 1]!).sort();
  const made = { list, starts, days };
  byState.set(state, made);
  return made;
}

/** The first index of `sorted[from..to)` whose value is at least `value`. */
function lowerBound(sorted: Uint16Array, value: number, from: number, to: number): number {
  let lo = from, hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The page of a query whose only filters are one state, the day set
 * `days` and the flag test, by walking the state's list (directory sync by
 * state: `Practitioner?address-state=CA&_lastUpdated=ge2016&_lastUpdated=lt2019`,
 * 73,940 of California's 1.1 million providers). The total is counted in
 * the state's sorted days (two binary searches a class and span), so the
 * walk reads only up to the page: never more than the state's list, which
 * listing the matches would read whole. `null` when the flag test uses
 * bits the days are not kept by.
 *
 * @example
 * ```ts
 * const page = browseUpdatedIn(query, "CA", [[16801, 17897]], { mask: 2, value: 2 }, index);
 * ```
 */
export function browseUpdatedIn(
  query: SearchQuery,
  state: string,
  days: readonly [number, number][],
  test: { mask: number; value: number },
  index: SearchIndex,
  watch: Watch = {},
): WalkPage | null {
  if ((test.mask & ~CLASS_BITS) !== 0) return null;
  const held = stateDays(index, state);
  let total = 0;
  for (let c = 0; c < CLASSES; c++) {
    if ((c & test.mask) !== test.value) continue;
    const from = held.starts[c]!, to = held.starts[c + 1]!;
    for (const [lo, hi] of spans(days)) {
      total += lowerBound(held.days, hi, from, to) - lowerBound(held.days, lo, from, to);
    }
  }
  return walkPage(query, total, { days, test, index, ids: held.list }, watch);
}

/** Day spans clipped to the days kept (day 0, no date, is in none), empty ones left out. */
function spans(days: readonly [number, number][]): [number, number][] {
  return days.map(([from, to]): [number, number] => [Math.max(1, from), Math.min(DAYS, to)])
    .filter(([from, to]) => from < to);
}

/** What a walk tests: ids from `ids` (every id from 1 when null) passing `test` with a day in `days`. */
interface Walk {
  days: readonly [number, number][];
  test: { mask: number; value: number };
  index: SearchIndex;
  ids: Uint32Array | null;
}

/**
 * The page of `total` matches that starts at the query's cursor or
 * offset, walking the candidates in id order; it stops at the page's end
 * or after the last match.
 */
function walkPage(
  query: SearchQuery,
  total: number,
  { days, test, index, ids: list }: Walk,
  watch: Watch,
): WalkPage {
  const allowed = new Uint8Array(DAYS);
  for (const [from, to] of spans(days)) allowed.fill(1, from, to);
  const flags = index.flags, column = index.updated;
  const after = query.cursor ? query.cursor.after[0]! + 1 : 1;
  // Positions in the candidates: ids themselves when walking every id.
  let at = list ? seek(list, after) : after;
  const end = list ? list.length : index.size + 1;
  let skip = query.cursor ? 0 : query.offset;
  const offset = query.cursor ? query.cursor.offset : query.offset;
  const ids: number[] = [];
  // Matches not met yet (those before a cursor are behind it): the walk stops after the last one.
  let left = query.cursor ? total - query.cursor.offset : total;
  for (; at < end && ids.length < query.limit && left > 0; at++) {
    if ((at & CHECK_EVERY) === 0) checkWatch(watch);
    const id = list ? list[at]! : at;
    if ((flags[id]! & test.mask) !== test.value || allowed[column[id]!] !== 1) continue;
    left--;
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
