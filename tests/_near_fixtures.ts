/**
 * Random provider positions around a point, and the plain model of a
 * `near` page (every candidate's great-circle distance, a full sort), for
 * the tests of `lib/search/nearest.ts` and `lib/search/points.ts`.
 *
 * @module
 */
import type { NearestRequest } from "../lib/search/nearest.ts";
import { distance } from "../lib/geo/zip.ts";
import type { NearMatch } from "../lib/search/query.ts";

/** Columns of `n` providers around `near`: half on a thin ring at the radius, many at equal spots. */
export function columnsAround(random: () => number, near: NearMatch, n: number) {
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
export function model(
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
