/**
 * A `near` page sorted by distance (`lib/search/nearest.ts`), checked
 * against a plain model (every candidate's great-circle distance, a full
 * sort) on random points: dense rings at the circle's edge, high
 * latitudes, radii on both sides of the flat bounds' limit, offsets and
 * cursors. Totals, ids and distances must be exactly the model's.
 */
import { assertEquals } from "@std/assert";
import { nearestPage, type NearestRequest } from "../lib/search/nearest.ts";
import { distance } from "../lib/geo/zip.ts";
import type { NearMatch } from "../lib/search/query.ts";
import { seededRandom } from "./_utils.ts";

/** Columns of `n` providers around `near`: half on a thin ring at the radius, many at equal spots. */
function columnsAround(random: () => number, near: NearMatch, n: number) {
  const flags = new Uint8Array(n + 1);
  const lat = new Float32Array(n + 1).fill(NaN);
  const lon = new Float32Array(n + 1).fill(NaN);
  const perDegree = distance(0, 0, 1, 0, near.unit);
  const spots: [number, number][] = [];
  for (let id = 1; id <= n; id++) {
    flags[id] = random() < 0.9 ? 1 : 0;
    if (random() < 0.03) continue; // not located
    if (spots.length > 0 && random() < 0.1) {
      [lat[id], lon[id]] = spots[Math.floor(random() * spots.length)]!; // ties
      continue;
    }
    const angle = random() * 2 * Math.PI;
    // Half exactly around the radius (±0.5%), half anywhere out to twice the radius.
    const r = random() < 0.5
      ? near.radius * (0.995 + random() * 0.01)
      : near.radius * 2 * Math.sqrt(random());
    const dLat = (r / perDegree) * Math.sin(angle);
    const dLon = (r / perDegree) * Math.cos(angle) / Math.cos((near.lat * Math.PI) / 180);
    lat[id] = near.lat + dLat;
    lon[id] = near.lon + dLon;
    if (random() < 0.05) spots.push([lat[id]!, lon[id]!]);
  }
  return { flags, lat, lon };
}

/** The model: every flagged, located candidate's distance, the ones within, sorted. */
function model(
  columns: ReturnType<typeof columnsAround>,
  candidates: Uint32Array,
  request: NearestRequest,
) {
  const { near } = request;
  const within: [number, number][] = [];
  for (const id of candidates) {
    if ((columns.flags[id]! & request.mask) !== request.value) continue;
    const lat = columns.lat[id]!, lon = columns.lon[id]!;
    if (Number.isNaN(lat)) continue;
    const d = distance(near.lat, near.lon, lat, lon, near.unit);
    if (d <= near.radius) within.push([d, id]);
  }
  within.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const after = request.after;
  const rest = after
    ? within.filter(([d, id]) => d > after[0]! || (d === after[0] && id > after[1]!))
    : within;
  const page = rest.slice(request.skip, request.skip + request.limit);
  return { total: within.length, ids: page.map((p) => p[1]), distances: page.map((p) => p[0]) };
}

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
