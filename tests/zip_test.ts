import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { allZips, distance, lookupZip, ZIP_DATASET } from "../lib/geo/zip.ts";
import { parseZipRows } from "../lib/geo/zip_rows.ts";
import zipData from "../lib/geo/_zip_data.json" with { type: "json" };
import { ZIP_SOURCE, zipRows, zipTable } from "../scripts/vendor_zipcodes.ts";

Deno.test("[zip] known centroids", () => {
  const ny = lookupZip("10001");
  assertEquals(ny?.state, "NY");
  assertEquals(ny?.city, "NEW YORK");
  assertAlmostEquals(ny!.lat, 40.75, 0.05);
  assertAlmostEquals(ny!.lon, -74.0, 0.05);
  const bh = lookupZip("90210");
  assertEquals(bh?.state, "CA");
  assertEquals(bh?.city, "BEVERLY HILLS");
  assertAlmostEquals(bh!.lat, 34.09, 0.05);
  assertAlmostEquals(bh!.lon, -118.41, 0.05);
  assertEquals(lookupZip("00601")?.state, "PR");
});

Deno.test("[zip] ZIP+4 input uses the first five digits", () => {
  assertEquals(lookupZip("90210-1234"), lookupZip("90210"));
  assertEquals(lookupZip("902101234"), lookupZip("90210"));
  assertEquals(lookupZip(" 10001 "), lookupZip("10001"));
});

Deno.test("[zip] unknown or malformed input gives null", () => {
  for (const bad of ["00000", "99999", "1000", "100011", "10001-12", "ABCDE", "", "M5G 2C4"]) {
    assertEquals(lookupZip(bad), null, bad);
  }
});

Deno.test("[zip] allZips is sorted, US only, and complete", () => {
  const zips = allZips();
  assertEquals(ZIP_DATASET, "zipcodes@8.0.0");
  assert(zips.length > 40_000, `only ${zips.length} ZIPs`);
  for (let i = 1; i < zips.length; i++) assert(zips[i - 1]!.zip < zips[i]!.zip);
  assertEquals(zips.filter((z) => z.lat === 0 && z.lon === 0).length, 0);
  assert(zips.every((z) => /^[0-9]{5}$/.test(z.zip) && /^[A-Z]{2}$/.test(z.state)));
  assertEquals(allZips(), zips);
});

Deno.test("[zip] lookups are constant time after the first", () => {
  lookupZip("10001");
  const zips = allZips();
  const start = performance.now();
  let found = 0;
  for (let i = 0; i < 200_000; i++) if (lookupZip(zips[i % zips.length]!.zip)) found++;
  const ms = performance.now() - start;
  assertEquals(found, 200_000);
  assert(ms < 1000, `200k lookups took ${ms.toFixed(0)} ms`);
});

Deno.test("[zip] haversine distance matches known distances", () => {
  // New York City hall to Los Angeles city hall: about 2,445 miles.
  const mi = distance(40.7128, -74.006, 34.0522, -118.2437, "mi");
  assertAlmostEquals(mi, 2445, 2445 * 0.01);
  const km = distance(40.7128, -74.006, 34.0522, -118.2437, "km");
  assertAlmostEquals(km, 3936, 3936 * 0.01);
  assertAlmostEquals(km / mi, 1.609344, 0.0001);
  // London to Paris: about 344 km.
  assertAlmostEquals(distance(51.5074, -0.1278, 48.8566, 2.3522, "km"), 344, 4);
  assertEquals(distance(39.02, -77.13, 39.02, -77.13, "mi"), 0);
  assertAlmostEquals(
    distance(10, 20, 30, 40, "mi"),
    distance(30, 40, 10, 20, "mi"),
    1e-9,
  );
  // Antipodes: half the circumference.
  assertAlmostEquals(distance(0, 0, 0, 180, "km"), Math.PI * 6371.0088, 1e-6);
});

Deno.test("[zip] the vendored table is the package's US table, as the script writes it", async () => {
  const rows = zipRows();
  assertEquals(zipData.source, ZIP_SOURCE);
  assertEquals(ZIP_DATASET, ZIP_SOURCE);
  assertEquals(zipData.rows, rows.join("\n"));
  const file = await Deno.readTextFile(new URL("../lib/geo/_zip_data.json", import.meta.url));
  assertEquals(JSON.parse(file), JSON.parse(zipTable(rows)));
  assertEquals(allZips().length, rows.length);
  assertEquals(allZips().map((z) => z.zip), rows.map((row) => row.slice(0, 5)));
});

Deno.test("[zip] a malformed table row is refused with what to do", () => {
  const good = "10001\t40.7484\t-73.9967\tNY\tNEW YORK";
  assertEquals(parseZipRows(`${good}\n10002\t1\t2\tNY\t`).map((z) => z.zip), ["10001", "10002"]);
  for (
    const bad of [
      "1000\t1\t2\tNY\tA",
      "1000a\t1\t2\tNY\tA",
      "10001\t\t2\tNY\tA",
      "10001\tx\t2\tNY\tA",
      "10001\t1\t2\tNY",
      "10001\t1\t2\tNY\tA\tB",
      "10001\t1\t2\tny\tA",
    ]
  ) {
    const error = assertThrows(() => parseZipRows(`${good}\n${bad}`), Error);
    assert(error.message.includes("row 2") && error.message.includes("vendor_zipcodes"), bad);
  }
});
