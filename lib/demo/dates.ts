/**
 * Calendar days for the demo data, as day numbers (days since 1970-01-01,
 * UTC) with fast `MM/DD/YYYY` formatting, the date format of the NPPES files.
 *
 * @module
 */

import { Rng, WeightedTable } from "./prng.ts";

/**
 * Day number of a calendar date.
 *
 * @example
 * ```ts
 * dayNumber(1970, 1, 2); // 1
 * ```
 */
export function dayNumber(year: number, month: number, day: number): number {
  return Math.floor(Date.UTC(year, month - 1, day) / 86_400_000);
}

/** First day NPPES enumerated NPIs (05/23/2005). */
export const NPPES_START_DAY: number = dayNumber(2005, 5, 23);
/** The demo release date (08/10/2026): nothing happens after it. */
export const DEMO_RELEASE_DAY: number = dayNumber(2026, 8, 10);

const TABLE_FIRST = dayNumber(2005, 1, 1);
const TABLE_LAST = dayNumber(2026, 12, 31);
let formatted: string[] | null = null;

function buildTable(): string[] {
  const out: string[] = [];
  for (let d = TABLE_FIRST; d <= TABLE_LAST; d++) {
    const date = new Date(d * 86_400_000);
    const mm = String(date.getUTCMonth() + 1).padStart(2, "0");
    const dd = String(date.getUTCDate()).padStart(2, "0");
    out.push(`${mm}/${dd}/${date.getUTCFullYear()}`);
  }
  return out;
}

/**
 * Formats a day number as `MM/DD/YYYY`.
 *
 * @example
 * ```ts
 * formatDay(dayNumber(2026, 8, 10)); // "08/10/2026"
 * ```
 */
export function formatDay(day: number): string {
  if (day >= TABLE_FIRST && day <= TABLE_LAST) {
    formatted ??= buildTable();
    return formatted[day - TABLE_FIRST]!;
  }
  const date = new Date(day * 86_400_000);
  const mm = String(date.getUTCMonth() + 1).padStart(2, "0");
  const dd = String(date.getUTCDate()).padStart(2, "0");
  return `${mm}/${dd}/${date.getUTCFullYear()}`;
}

/**
 * Moves a Saturday to the Friday before and a Sunday to the Monday after.
 *
 * @example
 * ```ts
 * formatDay(weekday(dayNumber(2026, 8, 8))); // "08/07/2026" (a Saturday moves to Friday)
 * ```
 */
export function weekday(day: number): number {
  const dow = ((day % 7) + 7 + 4) % 7; // 0 = Sunday; 1970-01-01 was a Thursday
  if (dow === 6) return day - 1;
  if (dow === 0) return day + 1;
  return day;
}

/** Share of today's NPIs enumerated in each year (the 2005-2007 wave, then steady growth). */
const YEAR_WEIGHTS: WeightedTable<number> = (() => {
  const pairs = `2005:8 2006:9 2007:6 2008:3.6 2009:3.5 2010:3.5 2011:3.6 2012:3.7 2013:3.8
    2014:3.9 2015:4.1 2016:4.3 2017:4.5 2018:4.7 2019:4.8 2020:4.8 2021:5.2 2022:5.4 2023:5.5
    2024:5.6 2025:5.7 2026:3.4`.trim().split(/\s+/).map((p) => p.split(":").map(Number));
  return new WeightedTable(pairs.map((p) => p[0]!), pairs.map((p) => p[1]!));
})();

/** Day numbers of January 1st, 2005 to 2027. */
const YEAR_START: readonly number[] = Array.from(
  { length: 23 },
  (_, i) => dayNumber(2005 + i, 1, 1),
);

/**
 * A weekday enumeration date between 05/23/2005 and the release.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * enumerationDay(new Rng(1)) >= NPPES_START_DAY; // true
 * ```
 */
export function enumerationDay(rng: Rng): number {
  const year = YEAR_WEIGHTS.sample(rng);
  const from = Math.max(NPPES_START_DAY, YEAR_START[year - 2005]!);
  const to = Math.min(DEMO_RELEASE_DAY - 3, YEAR_START[year - 2004]! - 1);
  return Math.min(DEMO_RELEASE_DAY - 1, weekday(from + rng.int(to - from + 1)));
}

/**
 * A weekday between `from` and `to` (inclusive), skewed towards `to` when `recent`.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * const d = dayBetween(new Rng(1), dayNumber(2020, 1, 1), dayNumber(2020, 12, 31), true);
 * d >= dayNumber(2020, 1, 1); // true
 * ```
 */
export function dayBetween(rng: Rng, from: number, to: number, recent = false): number {
  if (to <= from) return from;
  const u = recent ? Math.sqrt(rng.float()) : rng.float();
  const d = weekday(from + Math.floor(u * (to - from + 1)));
  return Math.max(from, Math.min(to, d));
}
