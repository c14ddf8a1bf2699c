/**
 * A `near` page sorted by distance (`lib/search/nearest.ts`), checked
 * against a plain model (every candidate's great-circle distance, a full
 * sort) on random points: dense rings at the circle's edge, high
 * latitudes, radii on both sides of the flat bounds' limit, offsets and
 * cursors. Totals, ids and distances must be exactly the model's.
 */
import { assertEquals } from "@std/assert";
import { nearestPage, type NearestRequest } from "../lib/search/nearest.ts";
import type { NearMatch } from "../lib/search/query.ts";
import { seededRandom } from "./_utils.ts";
import { columnsAround, model } from "./_near_fixtures.ts";

Deno.test("[nearest] pages and totals equal a full sort, on both sides of the flat bounds", () => {
  const random = seededRandom(23);
  const cases: NearMatch[] = [
    { lat: 40.75, lon: -73.99, radius: 10, unit: "mi" },
    { lat: 40.75, lon: -73.99, radius: 40, unit: "mi" },
    { lat: 61.2, lon: -149.9, radius: 120, unit: "km" }, // Anchorage: the cosine varies most
    { lat: 71.3, lon: -156.8, radius: 190, unit: "km" }, // Utqiagvik
    { lat: 0.2, lon: 10, radius: 50, unit: "km" }, // the box spans the equator
    { lat: 35, lon: -100, radius: 300, unit: "km" }, // beyond the flat bounds' limit
    { lat: 25.8, lon: -80.2, radius: 2, unit: "km" },
  ];
  for (const near of cases) {
    const columns = columnsAround(random, near, 6000);
    const candidates = Uint32Array.from({ length: 6000 }, (_, i) => i + 1)
      .filter(() => random() < 0.8);
    for (const [skip, limit] of [[0, 10], [0, 50], [30, 20], [0, 1]] as const) {
      const request: NearestRequest = { near, mask: 1, value: 1, after: null, skip, limit };
      const want = model(columns, candidates, request);
      assertEquals(nearestPage(candidates, columns, request), want, JSON.stringify(near));
      // The next page by cursor, from the page's last key.
      if (want.ids.length > 0) {
        const last = want.ids.length - 1;
        const after = [want.distances[last]!, want.ids[last]!];
        const next: NearestRequest = { ...request, after, skip: 0 };
        assertEquals(nearestPage(candidates, columns, next), model(columns, candidates, next));
      }
    }
  }
});
