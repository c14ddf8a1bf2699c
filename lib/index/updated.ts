/**
 * The last-update day of each provider, as the index keeps it: a day number
 * (days since 1970-01-01 UTC, so 0 is "no date": NPPES dates start in 2005)
 * in a 16-bit column by id (`updated`, 2 bytes a provider), and one posting
 * list per month of last update (field `updatedMonth`, term `YYYY-MM`) so a
 * narrow date range reads a few months' lists instead of the whole column.
 *
 * @module
 */

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/** The largest day number the column holds (2149-06-06). */
export const MAX_DAY = 65_535;

/**
 * The day number of an ISO date (`YYYY-MM-DD`); 0 for none or one the
 * column cannot hold.
 *
 * @example
 * ```ts
 * dayNumber("1970-01-02"); // 1
 * dayNumber("2024-05-28"); // 19871
 * dayNumber(null); // 0
 * ```
 */
export function dayNumber(date: string | null | undefined): number {
  if (!date) return 0;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return 0;
  const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY_MS;
  return Number.isInteger(day) && day >= 1 && day <= MAX_DAY ? day : 0;
}

/**
 * The month term of a day number (`YYYY-MM`), as in the `updatedMonth`
 * posting lists.
 *
 * @example
 * ```ts
 * monthOfDay(19871); // "2024-05"
 * ```
 */
export function monthOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 7);
}

/**
 * The first day of the month of `term` (`YYYY-MM`) and the first day of the
 * next month.
 *
 * @example
 * ```ts
 * monthDays("2024-02"); // [19754, 19783]
 * ```
 */
export function monthDays(term: string): [number, number] {
  const year = Number(term.slice(0, 4)), month = Number(term.slice(5, 7)) - 1;
  return [Date.UTC(year, month, 1) / DAY_MS, Date.UTC(year, month + 1, 1) / DAY_MS];
}

/**
 * A month number per id (`year * 12 + month + 1`, 0 for no date), from the
 * day column: the values the month posting lists are grouped by.
 */
export function monthColumn(days: Uint16Array): Uint32Array {
  const monthOf = new Uint32Array(MAX_DAY + 1);
  let from = 1;
  while (from <= MAX_DAY) {
    const d = new Date(from * DAY_MS);
    const to = Math.min(MAX_DAY + 1, Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS);
    monthOf.fill(d.getUTCFullYear() * 12 + d.getUTCMonth() + 1, from, to);
    from = to;
  }
  const out = new Uint32Array(days.length);
  for (let i = 0; i < days.length; i++) out[i] = monthOf[days[i]!]!;
  return out;
}

/** The month term (`YYYY-MM`) of a value of {@linkcode monthColumn}. */
export function monthTerm(value: number): string {
  const year = Math.floor((value - 1) / 12), month = (value - 1) % 12 + 1;
  return `${year}-${String(month).padStart(2, "0")}`;
}
