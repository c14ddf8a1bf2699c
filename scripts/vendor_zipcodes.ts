/**
 * Regenerates `lib/geo/_zip_data.json`, the ZIP centroid table the
 * service reads, from the npm package `zipcodes` (BSD licence; see
 * `vendor/zipcodes/`). The package's own module is a 5 MB object literal
 * that takes each thread about 190 ms to load; the generated table holds
 * its US rows as one JSON string, loaded in about 15 ms and decoded on the
 * first ZIP lookup.
 *
 * ```sh
 * deno run --allow-write scripts/vendor_zipcodes.ts
 * deno fmt lib/geo/_zip_data.json
 * ```
 *
 * After changing the package's version in `deno.json`, run it, set
 * `ZIP_SOURCE` in the script to the new version, record it in
 * `vendor/zipcodes/SOURCE.md`, and commit all three.
 *
 * @module
 */
import * as zipSource from "zipcodes/codes";
import { ZIP_FIELD, ZIP_ROW, type ZipTable } from "../lib/geo/zip_rows.ts";

/** The package and version the table is generated from. */
export const ZIP_SOURCE = "zipcodes@8.0.0";

/**
 * One US row of the package's table in the service's form
 * (`zip<TAB>lat<TAB>lon<TAB>state<TAB>CITY`), or null for rows the service
 * leaves out: other countries, malformed ZIPs or coordinates, and ZIPs
 * whose centroid is exactly `0,0` (some military APO/FPO codes carry no
 * location, and would place a provider in the Gulf of Guinea).
 */
export function zipRow(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  const r = value as Record<string, unknown>;
  const { zip, latitude: lat, longitude: lon, city, state } = r;
  if (
    typeof zip !== "string" || !/^[0-9]{5}$/.test(zip) ||
    typeof lat !== "number" || typeof lon !== "number" ||
    !Number.isFinite(lat) || !Number.isFinite(lon) ||
    typeof city !== "string" || typeof state !== "string"
  ) {
    return null;
  }
  if (r.country !== undefined && r.country !== "US") return null;
  if (lat === 0 && lon === 0) return null;
  const cells = [zip, String(lat), String(lon), state.toUpperCase(), city.trim().toUpperCase()];
  if (cells.some((cell) => cell.includes(ZIP_FIELD) || cell.includes(ZIP_ROW))) return null;
  return cells.join(ZIP_FIELD);
}

/** The service's rows of the package's table, one per ZIP, sorted by ZIP. */
export function zipRows(): string[] {
  const raw: unknown = zipSource.codes;
  if (typeof raw !== "object" || raw === null) {
    throw new Error(`Cannot read ZIP data from '${ZIP_SOURCE}': no 'codes' table`);
  }
  const byZip = new Map<string, string>();
  for (const value of Object.values(raw as Record<string, unknown>)) {
    const row = zipRow(value);
    if (row !== null) byZip.set(row.slice(0, 5), row);
  }
  return [...byZip.keys()].sort().map((zip) => byZip.get(zip)!);
}

/**
 * The generated table for `rows`: JSON, which a thread loads several times
 * faster than a module holding the same string.
 */
export function zipTable(rows: readonly string[]): string {
  const table: ZipTable = {
    source: ZIP_SOURCE,
    licence: "BSD; see vendor/zipcodes/LICENSE",
    generated_by: "scripts/vendor_zipcodes.ts",
    rows: rows.join(ZIP_ROW),
  };
  return `${JSON.stringify(table, null, 2)}\n`;
}

if (import.meta.main) {
  const out = new URL("../lib/geo/_zip_data.json", import.meta.url);
  const rows = zipRows();
  Deno.writeTextFileSync(out, zipTable(rows));
  console.log(`${rows.length} ZIPs written to ${out.pathname}`);
}
