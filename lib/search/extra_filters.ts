/**
 * The id lists of a query's {@linkcode ExtraFilter}s: last-update day
 * ranges (FHIR `_lastUpdated`), any term of a posting field (FHIR
 * `partof`), and providers holding none of some taxonomy codes (FHIR
 * Organization `type=fac`). Each becomes a {@linkcode FilterList} that the
 * engine intersects with the query's other lists.
 *
 * A day range is answered from the month lists it touches when they hold
 * few providers (a recent week: one or two months' lists, filtered by the
 * day column), else by one pass over the day column (2 bytes a provider).
 * Long lists are kept in the engine's filter cache.
 *
 * @module
 */
import type { ExtraFilter } from "./query.ts";
import {
  type FilterCache,
  type FilterList,
  filterList,
  hasBitmap,
  idsFilter,
  keepPassing,
} from "./filter_lists.ts";
import type { SearchIndex } from "../index/reader.ts";
import { FIELD } from "../index/fields.ts";
import { MAX_DAY, monthDays } from "../index/updated.ts";
import { unionAll } from "../index/sorted.ts";

/** What the filters read: the index and the cache of long filter lists. */
export interface ExtraFilterContext {
  index: SearchIndex;
  filterLists?: FilterCache;
}

/** Month lists are read instead of the whole day column while they hold under 1/this of all ids. */
const MONTHS_BELOW = 8;

/** Filter lists of more bytes than this are not cached (a range matching most of the registry). */
const MAX_CACHED_BYTES = 16 * 1024 * 1024;

const monthSizes = new WeakMap<SearchIndex, [string, number][]>();

/** Each month's list length (SQLite answers `length()` of a blob without reading it). */
function monthCounts(ctx: ExtraFilterContext): [string, number][] {
  let counts = monthSizes.get(ctx.index);
  if (!counts) {
    counts = ctx.index.listLengths(FIELD.updatedMonth);
    monthSizes.set(ctx.index, counts);
  }
  return counts;
}

/** The month terms whose days meet `days`, and how many providers their lists hold together. */
function monthsMeeting(
  days: readonly [number, number][],
  ctx: ExtraFilterContext,
): { months: string[]; covered: number } {
  const months: string[] = [];
  let covered = 0;
  for (const [term, n] of monthCounts(ctx)) {
    const [first, end] = monthDays(term);
    if (days.some(([from, to]) => from < end && first < to)) {
      months.push(term);
      covered += n;
    }
  }
  return { months, covered };
}

/**
 * How many providers the month lists meeting `days` hold: what
 * {@linkcode updatedIds} reads to list the day set (from an eighth of the
 * registry on, it reads the whole day column instead).
 *
 * @example
 * ```ts
 * monthsHold([[1, 14988]], ctx); // every provider last updated before February 2011
 * ```
 */
export function monthsHold(days: readonly [number, number][], ctx: ExtraFilterContext): number {
  return monthsMeeting(days, ctx).covered;
}

/**
 * The ids whose last-update day is in one of `days` (`[from, to)` day
 * numbers), in id order.
 *
 * @example
 * ```ts
 * const ids = updatedIds([[19723, 19754]], ctx); // updated in January 2024
 * ```
 */
export function updatedIds(
  days: readonly [number, number][],
  ctx: ExtraFilterContext,
): Uint32Array {
  const { index } = ctx;
  const allowed = allowedDays(days);
  const { months, covered } = monthsMeeting(days, ctx);
  const column = index.updated;
  if (covered * MONTHS_BELOW < index.size) {
    const candidates = unionAll(
      months.map((m) => index.list(FIELD.updatedMonth, m)),
      index.size + 1,
    );
    return keepUpdated(candidates, days, index).slice();
  }
  const out = new Uint32Array(covered);
  let n = 0;
  for (let id = 1; id <= index.size; id++) {
    if (allowed[column[id]!] === 1) out[n++] = id;
  }
  return out.subarray(0, n);
}

/** A span of day numbers, `[from, to)` (see `lib/index/updated.ts`). */
export type DaySpan = readonly [number, number];

/** A table by day number: 1 for the days in `days`, else 0. */
function allowedDays(days: readonly DaySpan[]): Uint8Array {
  const allowed = new Uint8Array(MAX_DAY + 1);
  for (const [from, to] of days) allowed.fill(1, Math.max(1, from), Math.min(MAX_DAY + 1, to));
  return allowed;
}

/**
 * The ids of `ids` (in order) whose last-update day is in one of `days`:
 * one read of the day column each, for candidates other filters left.
 *
 * @example
 * ```ts
 * keepUpdated(Uint32Array.of(3, 8), [[19723, 19754]], index); // those updated in January 2024
 * ```
 */
export function keepUpdated(
  ids: Uint32Array,
  days: readonly DaySpan[],
  index: SearchIndex,
): Uint32Array {
  return keepPassing(ids, { values: index.updated, pass: allowedDays(days) });
}

/** The ids with `(flags & mask) === value` holding none of `codes`. */
function withoutCodes(
  filter: Extract<ExtraFilter, { kind: "without_codes" }>,
  index: SearchIndex,
): Uint32Array {
  const excluded = new Set(filter.codes.map((c) => index.codes.indexOf(c)).filter((k) => k > 0));
  const flags = index.flags, offsets = index.taxOffsets, codes = index.taxCodes;
  const out: number[] = [];
  for (let id = 1; id <= index.size; id++) {
    if ((flags[id]! & filter.mask) !== filter.value) continue;
    let keep = true;
    for (let k = offsets[id]!; k < offsets[id + 1]! && keep; k++) {
      if (excluded.has(codes[k]!)) keep = false;
    }
    if (keep) out.push(id);
  }
  return Uint32Array.from(out);
}

/**
 * The filter list of one extra filter; long ones are taken from and kept in
 * the context's filter cache.
 *
 * @example
 * ```ts
 * const list = extraFilterList({ kind: "updated", days: [[19723, 19754]] }, ctx);
 * list.ids.length; // providers last updated in January 2024
 * ```
 */
export function extraFilterList(filter: ExtraFilter, ctx: ExtraFilterContext): FilterList {
  const universe = ctx.index.size + 1;
  if (filter.kind === "terms") {
    const ids = unionAll(filter.terms.map((t) => ctx.index.list(filter.field, t)), universe);
    return idsFilter(ids);
  }
  const key = `extra:${JSON.stringify(filter)}`;
  const hit = ctx.filterLists?.get(key);
  if (hit) return hit;
  const ids = filter.kind === "updated"
    ? updatedIds(filter.days, ctx)
    : withoutCodes(filter, ctx.index);
  const list = filterList(ids, universe);
  if (hasBitmap(list) && list.bytes <= MAX_CACHED_BYTES) ctx.filterLists?.set(key, list);
  return list;
}
