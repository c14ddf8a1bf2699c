/**
 * Endpoint rows of each NPPES endpoint type in order of their owner's
 * last-update day, for `Endpoint?connection-type=…&_lastUpdated=…` without
 * an owner: the search the directory's clients poll for changes.
 *
 * A pass over every endpoint row costs some 5 ms at national scale (670,000
 * rows). Grouped by type and day, a type's rows updated within a day range
 * are one slice, and a running count of active owners along the groups
 * gives the exact total for any `status` without visiting a row.
 * The page (the first rows after the cursor, in the owners' name order) is
 * then taken the cheaper of two ways: from the slices, keeping the lowest
 * rows, when they are short; or by walking the rows in name order from the
 * cursor, which meets matches at the rate the total says, when they are
 * many. Built once per store on first use (a counting sort, tens of
 * milliseconds): 8 bytes a row and 256 KB a type.
 *
 * @module
 */
import type { DaySet } from "./date_search.ts";
import { FLAG } from "../index/fields.ts";
import { MAX_DAY } from "../index/updated.ts";
import { group, type Groups } from "./groups.ts";

/** Day numbers a type's groups span (day 0: no update). */
const DAYS = MAX_DAY + 1;
/** Every day, with the rows whose owner has no update day. */
const EVERY_DAY: DaySet = [[0, DAYS]];

/** The columns the order is built from, each by endpoint row (rows in the owners' name order). */
export interface EndpointDayColumns {
  /** Endpoint type number of each row. */
  types: Uint8Array;
  /** Number of endpoint types (one more than the largest type number). */
  typeCount: number;
  /** The owner's last-update day of each row (0: none). */
  days: Uint16Array;
  /** The owner's index flags of each row ({@linkcode FLAG.active}). */
  flags: Uint8Array;
}

/** What a page of rows asks, besides the type: statuses and days. */
export interface DayPageFilter {
  /** Whether each type number is wanted. */
  types: ArrayLike<number>;
  wantActive: boolean;
  wantOff: boolean;
  /** Days wanted; `null` for any (rows whose owner has no update day included). */
  updated: DaySet | null;
}

/** The rows of each endpoint type by day, with counts of active owners. */
export class EndpointDayOrder {
  readonly #columns: EndpointDayColumns;
  /** Rows grouped by `type * DAYS + day`. */
  readonly #groups: Groups;
  /** Rows with an active owner among the first `i` of the groups' order. */
  readonly #active: Uint32Array;

  constructor(columns: EndpointDayColumns) {
    const { types, days, flags, typeCount } = columns;
    this.#columns = columns;
    const keys = new Uint32Array(types.length);
    for (let r = 0; r < keys.length; r++) keys[r] = types[r]! * DAYS + days[r]!;
    this.#groups = group(keys, typeCount * DAYS - 1);
    const rows = this.#groups.rows;
    this.#active = new Uint32Array(rows.length + 1);
    for (let i = 0; i < rows.length; i++) {
      const active = (flags[rows[i]!]! & FLAG.active) !== 0 ? 1 : 0;
      this.#active[i + 1] = this.#active[i]! + active;
    }
  }

  /**
   * Every row meeting the filter: their number, and up to `limit` of them
   * after row `after` (-1: from the start), in row order.
   */
  page(filter: DayPageFilter, after: number, limit: number): { total: number; rows: number[] } {
    const { offsets } = this.#groups;
    const slices: [number, number][] = [];
    let total = 0, sliced = 0;
    for (let t = 0; t < this.#columns.typeCount; t++) {
      if (filter.types[t] !== 1) continue;
      for (const [from, to] of filter.updated ?? EVERY_DAY) {
        const lo = offsets[t * DAYS + clamp(from)]!, hi = offsets[t * DAYS + clamp(to)]!;
        if (lo >= hi) continue;
        const active = this.#active[hi]! - this.#active[lo]!;
        total += (filter.wantActive ? active : 0) + (filter.wantOff ? hi - lo - active : 0);
        sliced += hi - lo;
        slices.push([lo, hi]);
      }
    }
    if (total === 0 || limit <= 0) return { total, rows: [] };
    // Rows a walk from the cursor visits, on average, to meet `limit` matches.
    const all = this.#columns.types.length;
    const walk = Math.min(all - after - 1, (limit + 1) * (all / total));
    const rows = walk < sliced
      ? this.#walk(filter, after, limit)
      : this.#lowest(slices, filter, after, limit);
    return { total, rows };
  }

  /** The first `limit` matching rows after `after`, walking rows in order. */
  #walk(filter: DayPageFilter, after: number, limit: number): number[] {
    const { types, days, flags } = this.#columns;
    const wanted = filter.updated;
    const out: number[] = [];
    for (let r = after + 1; r < types.length && out.length < limit; r++) {
      if (filter.types[types[r]!] !== 1) continue;
      if ((flags[r]! & FLAG.active) !== 0 ? !filter.wantActive : !filter.wantOff) continue;
      if (wanted && !inDaySet(days[r]!, wanted)) continue;
      out.push(r);
    }
    return out;
  }

  /** The `limit` lowest matching rows after `after` in the slices. */
  #lowest(
    slices: [number, number][],
    filter: DayPageFilter,
    after: number,
    limit: number,
  ): number[] {
    const flags = this.#columns.flags;
    const rows = this.#groups.rows;
    const best: number[] = [];
    for (const [lo, hi] of slices) {
      for (let i = lo; i < hi; i++) {
        const r = rows[i]!;
        if (r <= after || (best.length === limit && r >= best[limit - 1]!)) continue;
        if ((flags[r]! & FLAG.active) !== 0 ? !filter.wantActive : !filter.wantOff) continue;
        let at = best.length === limit ? limit - 1 : best.length;
        while (at > 0 && best[at - 1]! > r) {
          best[at] = best[at - 1]!;
          at--;
        }
        best[at] = r;
      }
    }
    return best;
  }
}

/** A day number clamped to the groups' days. */
function clamp(day: number): number {
  return Math.max(0, Math.min(DAYS, day));
}

/** Whether `day` lies in one of the set's ranges. */
function inDaySet(day: number, set: DaySet): boolean {
  for (const [from, to] of set) if (day >= from && day < to) return true;
  return false;
}
