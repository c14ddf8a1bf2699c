/**
 * US ZIP code centroids and great-circle distance.
 *
 * The data is the US table of the npm package `zipcodes@8.0.0` (42,249 of
 * its five-digit ZIPs: the 50 states, DC, the territories and the military
 * post offices, each with a centroid, a city and a state), vendored as one JSON
 * string in `_zip_data.json` by `scripts/vendor_zipcodes.ts`, which leaves
 * out its Canadian table and the ZIPs whose centroid is exactly `0,0` (some
 * military APO/FPO codes carry no location), so a lookup never places a
 * provider in the Gulf of Guinea. Imported, so `deno compile` and Deno
 * Deploy carry it; a string, so each thread loads it in about 15 ms
 * (the package's own object literal takes about 190 ms).
 *
 * Cities are upper-cased, the way NPPES writes them. The table is indexed
 * on first use; after that a lookup is two array reads.
 *
 * @module
 */

import zipData from "./_zip_data.json" with { type: "json" };
import { parseZipRows, type ZipInfo, type ZipTable } from "./zip_rows.ts";
import { digitsValue } from "../text/digits.ts";

export type { ZipInfo } from "./zip_rows.ts";

/** The package and version the ZIP centroids come from. */
export const ZIP_DATASET: string = (zipData satisfies ZipTable).source;

/** Earth's mean radius in statute miles (IUGG mean radius 6371.0088 km). */
const EARTH_RADIUS_MI = 3958.7613;
/** Earth's mean radius in kilometres. */
const EARTH_RADIUS_KM = 6371.0088;

const ZIP_INPUT = /^([0-9]{5})(?:-?[0-9]{4})?$/;

interface ZipIndex {
  /** By the ZIP as a number: 1 + its position in `sorted`, or 0. */
  byNumber: Uint32Array;
  sorted: readonly ZipInfo[];
}

let index: ZipIndex | null = null;

function buildIndex(): ZipIndex {
  const sorted = parseZipRows(zipData.rows);
  const byNumber = new Uint32Array(100_000);
  sorted.forEach((info, i) => (byNumber[Number(info.zip)] = i + 1));
  return { byNumber, sorted: Object.freeze(sorted) };
}

function getIndex(): ZipIndex {
  if (index === null) index = buildIndex();
  return index;
}

/**
 * Finds a ZIP code's centroid. Accepts 5 digits, 9 digits or `12345-6789`
 * (only the first five count, surrounding spaces are ignored). Returns `null`
 * for anything else and for ZIPs the dataset does not know.
 *
 * @example
 * ```ts
 * lookupZip("10001")?.city; // "NEW YORK"
 * lookupZip("90210-1234")?.state; // "CA"
 * lookupZip("00000"); // null
 * ```
 */
export function lookupZip(zip: string): ZipInfo | null {
  const five = zip.length === 5 ? zip : ZIP_INPUT.exec(zip.trim())?.[1];
  if (five === undefined) return null;
  // The five digits as a number (millions of lookups in an import: no hashing of strings).
  const n = digitsValue(five, 0, 5);
  if (n < 0) return null;
  const { byNumber, sorted } = getIndex();
  const at = byNumber[n]!;
  return at === 0 ? null : sorted[at - 1]!;
}

/**
 * Every known ZIP, sorted by ZIP code. Built once, on first call; the list
 * and its entries are frozen.
 *
 * @example
 * ```ts
 * allZips().length > 40_000; // true
 * allZips()[0]!.zip < allZips()[1]!.zip; // true
 * ```
 */
export function allZips(): readonly ZipInfo[] {
  return getIndex().sorted;
}

function toRadians(deg: number): number {
  return (deg * Math.PI) / 180;
}

/**
 * Great-circle distance between two points (haversine formula, spherical
 * Earth with the mean radius: 3958.7613 mi or 6371.0088 km).
 *
 * @example
 * ```ts
 * // New York (10001) to Beverly Hills (90210): about 2,450 miles
 * Math.round(distance(40.7484, -73.9967, 34.0901, -118.4065, "mi")); // 2450
 * ```
 */
export function distance(
  lat1: number,
  lon1: number,
  lat2: number,
  lon2: number,
  unit: "mi" | "km",
): number {
  const dLat = toRadians(lat2 - lat1);
  const dLon = toRadians(lon2 - lon1);
  const s = Math.sin(dLat / 2) ** 2 +
    Math.cos(toRadians(lat1)) * Math.cos(toRadians(lat2)) * Math.sin(dLon / 2) ** 2;
  const c = 2 * Math.asin(Math.min(1, Math.sqrt(s)));
  return c * (unit === "km" ? EARTH_RADIUS_KM : EARTH_RADIUS_MI);
}
