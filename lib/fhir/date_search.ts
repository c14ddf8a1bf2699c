/**
 * FHIR date search (`_lastUpdated`) over the directory's last-update days.
 *
 * A resource's `meta.lastUpdated` is the NPPES last update date at
 * midnight UTC (`2024-05-28T00:00:00Z`), an instant. A search value is a
 * date or dateTime of any precision (`2024`, `2024-05`, `2024-05-28`,
 * `2024-05-28T10:00`, `2024-05-28T10:00:00.5+02:00`; without a zone, UTC),
 * standing for the range of instants it covers. With the prefixes of FHIR
 * R4 (search.html#prefix), for a resource instant `t` and a value range
 * `[lo, hi)`:
 *
 * | prefix           | matches            |
 * | ---------------- | ------------------ |
 * | `eq` (default)   | `lo <= t < hi`     |
 * | `ne`             | not `eq`           |
 * | `gt`, `sa`       | `t >= hi`          |
 * | `ge`             | `t >= lo`          |
 * | `lt`, `eb`       | `t < lo`           |
 * | `le`             | `t < hi`           |
 * | `ap`             | `[lo, hi)` widened by 10% of its distance from now, each side |
 *
 * Each condition becomes a set of whole days ({@linkcode DaySet}): the days
 * whose midnight lies in the matching instants. A comma list is OR (union);
 * the parameter repeated is AND (intersection). A resource without a last
 * update date matches no date condition.
 *
 * @module
 */
import { DAY_MS, MAX_DAY } from "../index/updated.ts";

/** Sorted, disjoint, non-empty day ranges `[from, to)` (day numbers of `lib/index/updated.ts`). */
export type DaySet = [number, number][];

/** Every day the index can hold. */
export const ALL_DAYS: DaySet = [[1, MAX_DAY + 1]];

/** The prefixes FHIR defines for date parameters. */
export const DATE_PREFIXES = ["eq", "ne", "gt", "lt", "ge", "le", "sa", "eb", "ap"] as const;

/** A date prefix. */
export type DatePrefix = typeof DATE_PREFIXES[number];

/** A bad date value; the message says what is expected. */
export class DateValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DateValueError";
  }
}

const DATE_TIME =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/**
 * The instants a date or dateTime value covers, `[lo, hi)` in ms since the
 * epoch.
 *
 * @example
 * ```ts
 * valueRange("2024-05"); // [Date.UTC(2024, 4, 1), Date.UTC(2024, 5, 1)]
 * ```
 */
export function valueRange(value: string): [number, number] {
  const m = DATE_TIME.exec(value);
  if (!m) {
    throw new DateValueError(
      `'${value.slice(0, 40)}' is not a FHIR date: use YYYY, YYYY-MM, YYYY-MM-DD or ` +
        "YYYY-MM-DDThh:mm[:ss[.sss]][Z|+hh:mm], after an optional prefix (eq, ne, gt, lt, ge, le, sa, eb, ap)",
    );
  }
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y), month = mo ? Number(mo) : 1, day = d ? Number(d) : 1;
  const hour = h ? Number(h) : 0, minute = mi ? Number(mi) : 0, second = s ? Number(s) : 0;
  if (year < 1) throw new DateValueError(`'${value}': the year must be 0001 or later`);
  if (month < 1 || month > 12) throw new DateValueError(`'${value}': no month ${mo}`);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) {
    throw new DateValueError(`'${value}': no day ${d} in that month`);
  }
  if (hour > 23 || minute > 59 || second > 59) {
    throw new DateValueError(`'${value}': no time ${h}:${mi}${s ? `:${s}` : ""}`);
  }
  let offsetMs = 0;
  if (zone && zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const zh = Number(zone.slice(1, 3)), zm = Number(zone.slice(4, 6));
    if (zh > 14 || zm > 59) throw new DateValueError(`'${value}': no time zone ${zone}`);
    offsetMs = sign * (zh * 60 + zm) * 60_000;
  }
  const utc = (yy: number, mm: number, dd: number, hh = 0, mn = 0, ss = 0, ms = 0) => {
    const date = new Date(0);
    date.setUTCFullYear(yy, mm, dd); // Date.UTC maps years 0-99 to 1900s.
    date.setUTCHours(hh, mn, ss, ms);
    return date.getTime() - offsetMs;
  };
  if (!mo) return [utc(year, 0, 1), utc(year + 1, 0, 1)];
  if (!d) return [utc(year, month - 1, 1), utc(year, month, 1)];
  if (!h) return [utc(year, month - 1, day), utc(year, month - 1, day + 1)];
  if (!s) {
    const lo = utc(year, month - 1, day, hour, minute);
    return [lo, lo + 60_000];
  }
  const millis = frac ? Number(frac.slice(0, 3).padEnd(3, "0")) : 0;
  const lo = utc(year, month - 1, day, hour, minute, second, millis);
  const width = frac ? (frac.length > 3 ? 1 : 10 ** (3 - frac.length)) : 1000;
  return [lo, lo + width];
}

/** The first day whose midnight is at or after instant `ms`. */
function firstDayFrom(ms: number): number {
  return Math.ceil(ms / DAY_MS);
}

/** The days whose midnight lies in `[lo, hi)` (ms), clamped to what the index holds. */
function daysOf(lo: number, hi: number): DaySet {
  const from = Math.max(1, firstDayFrom(lo)), to = Math.min(MAX_DAY + 1, firstDayFrom(hi));
  return from < to ? [[from, to]] : [];
}

/**
 * The days one `_lastUpdated` value matches (a prefix, then a date).
 *
 * @example
 * ```ts
 * dateCondition("ge2024-01-01"); // [[19723, 65536]]
 * dateCondition("2024-01"); // [[19723, 19754]]
 * ```
 */
export function dateCondition(raw: string, now = Date.now()): DaySet {
  const prefix = /^[a-z]{2}/.test(raw) ? raw.slice(0, 2) : "eq";
  const value = /^[a-z]{2}/.test(raw) ? raw.slice(2) : raw;
  if (!(DATE_PREFIXES as readonly string[]).includes(prefix)) {
    throw new DateValueError(
      `prefix '${prefix}' is not a date prefix: use eq, ne, gt, lt, ge, le, sa, eb or ap`,
    );
  }
  const [lo, hi] = valueRange(value);
  const far = (MAX_DAY + 1) * DAY_MS;
  switch (prefix as DatePrefix) {
    case "eq":
      return daysOf(lo, hi);
    case "ne":
      return subtract(ALL_DAYS, daysOf(lo, hi));
    case "gt":
    case "sa":
      return daysOf(hi, far);
    case "ge":
      return daysOf(lo, far);
    case "lt":
    case "eb":
      return daysOf(-far, lo);
    case "le":
      return daysOf(-far, hi);
    case "ap": {
      const below = Math.abs(now - lo) * 0.1, above = Math.abs(now - hi) * 0.1;
      return daysOf(lo - below, hi + above);
    }
  }
}

/**
 * The union of day sets.
 *
 * @example
 * ```ts
 * union([[[1, 5]], [[3, 9]], [[20, 21]]]); // [[1, 9], [20, 21]]
 * ```
 */
export function union(sets: readonly DaySet[]): DaySet {
  const all = sets.flat().sort((a, b) => a[0] - b[0]);
  const out: DaySet = [];
  for (const [from, to] of all) {
    const last = out.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/**
 * The intersection of two day sets.
 *
 * @example
 * ```ts
 * intersect([[1, 10]], [[5, 20]]); // [[5, 10]]
 * ```
 */
export function intersect(a: DaySet, b: DaySet): DaySet {
  const out: DaySet = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const from = Math.max(a[i]![0], b[j]![0]), to = Math.min(a[i]![1], b[j]![1]);
    if (from < to) out.push([from, to]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

/** The days of `a` not in `b`. */
function subtract(a: DaySet, b: DaySet): DaySet {
  const out: DaySet = [];
  for (const [from, to] of a) {
    let start = from;
    for (const [bf, bt] of b) {
      if (bt <= start || bf >= to) continue;
      if (bf > start) out.push([start, bf]);
      start = Math.max(start, bt);
    }
    if (start < to) out.push([start, to]);
  }
  return out;
}

/**
 * Whether day number `day` is in `set` (0, no date, is in none).
 *
 * @example
 * ```ts
 * inDays(7, [[5, 10]]); // true
 * ```
 */
export function inDays(day: number, set: DaySet): boolean {
  if (day === 0) return false;
  for (const [from, to] of set) if (day >= from && day < to) return true;
  return false;
}

/**
 * A table by day number: 1 for the days of `set`, 0 for the others (one
 * read per record where a search tests many). `null` for no condition.
 *
 * @example
 * ```ts
 * dayTable([[10, 12]])![11]; // 1
 * ```
 */
export function dayTable(set: DaySet | null | undefined): Uint8Array | null {
  if (!set) return null;
  const table = new Uint8Array(MAX_DAY + 1);
  for (const [from, to] of set) table.fill(1, from, Math.min(MAX_DAY + 1, to));
  return table;
}
