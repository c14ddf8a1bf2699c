/**
 * The ZIP centroid table's form (`_zip_data.json`, written by
 * `scripts/vendor_zipcodes.ts`): its rows are one string, a row per ZIP,
 * `zip<TAB>lat<TAB>lon<TAB>state<TAB>CITY`, rows split by newlines.
 *
 * @module
 */
import { digitsValue } from "../text/digits.ts";

/** Splits a row's fields. */
export const ZIP_FIELD = "\t";
/** Splits rows. */
export const ZIP_ROW = "\n";

/** The generated table file. */
export interface ZipTable {
  /** The package and version the rows come from (`zipcodes@8.0.0`). */
  source: string;
  /** Where its licence is. */
  licence: string;
  /** The script that wrote it. */
  generated_by: string;
  /** The rows, sorted by ZIP. */
  rows: string;
}

/** One ZIP code's centroid and place name. */
export interface ZipInfo {
  /** Five digits. */
  zip: string;
  /** Centroid latitude, degrees. */
  lat: number;
  /** Centroid longitude, degrees. */
  lon: number;
  /** Preferred city name, upper case (`"NEW YORK"`). */
  city: string;
  /** Two-letter USPS state or territory code. */
  state: string;
}

/**
 * Reads the rows of `text`, each frozen; throws at the first malformed row
 * (the table is generated: one would mean a damaged file).
 *
 * @example
 * ```ts
 * parseZipRows("10001\t40.7484\t-73.9967\tNY\tNEW YORK")[0]!.city; // "NEW YORK"
 * ```
 */
export function parseZipRows(text: string): ZipInfo[] {
  const out: ZipInfo[] = [];
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf(ZIP_ROW, at);
    if (end < 0) end = text.length;
    const t1 = text.indexOf(ZIP_FIELD, at);
    const t2 = text.indexOf(ZIP_FIELD, t1 + 1);
    const t3 = text.indexOf(ZIP_FIELD, t2 + 1);
    const t4 = text.indexOf(ZIP_FIELD, t3 + 1);
    const info = {
      zip: text.slice(at, t1),
      lat: t2 > t1 + 1 ? Number(text.slice(t1 + 1, t2)) : NaN,
      lon: t3 > t2 + 1 ? Number(text.slice(t2 + 1, t3)) : NaN,
      city: text.slice(t4 + 1, end),
      state: text.slice(t3 + 1, t4),
    };
    if (
      t1 !== at + 5 || t4 < 0 || t4 >= end || isBefore(text.indexOf(ZIP_FIELD, t4 + 1), end) ||
      digitsValue(text, at, t1) < 0 || !isStateCode(info.state) ||
      !Number.isFinite(info.lat) || !Number.isFinite(info.lon)
    ) {
      throw new Error(
        `ZIP table row ${
          out.length + 1
        } is malformed: regenerate it with scripts/vendor_zipcodes.ts`,
      );
    }
    out.push(Object.freeze(info));
    at = end + 1;
  }
  return out;
}

/** Whether `at` (an `indexOf` answer) was found before `end`. */
function isBefore(at: number, end: number): boolean {
  return at >= 0 && at < end;
}

function isStateCode(s: string): boolean {
  if (s.length !== 2) return false;
  const a = s.charCodeAt(0), b = s.charCodeAt(1);
  return a >= 65 && a <= 90 && b >= 65 && b <= 90;
}
