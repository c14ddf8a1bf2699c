/**
 * Items grouped by point (`lib/search/points.ts`): the grouping holds every
 * located item once, under its own position, whatever the step size; a
 * `near` page and total from the points equal the plain model and the
 * per-provider page (`nearestPage`) over every provider, with ties at one
 * point and between points, cursors, offsets, flag tests, and circles over
 * the antimeridian; counts by owner equal a count of the items.
 */
import { assert, assertEquals } from "@std/assert";
import { nearestPage, type NearestRequest } from "../lib/search/nearest.ts";
import { LazyPoints, PointGrouping, PointIndex, pointsNearest } from "../lib/search/points.ts";
import type { NearMatch } from "../lib/search/query.ts";
import { seededRandom } from "./_utils.ts";
import { columnsAround, model } from "./_near_fixtures.ts";

/** `n` providers on a few hundred spots around `near`, some pairs at equal distances. */
function zipLikeColumns(random: () => number, near: NearMatch, n: number) {
  const { flags, lat, lon } = columnsAround(random, near, n);
  // Longitudes past the antimeridian wrap around, as real positions do.
  for (let id = 1; id <= n; id++) {
    if (lon[id]! > 180) lon[id] = lon[id]! - 360;
    if (lon[id]! < -180) lon[id] = lon[id]! + 360;
  }
  // Most providers share a spot, as providers share their ZIP's centroid.
  const spots = Array.from({ length: 300 }, () => 1 + Math.floor(random() * n));
  for (let id = 1; id <= n; id++) {
    if (Number.isNaN(lat[id]!) || random() < 0.3) continue;
    const spot = spots[Math.floor(random() * spots.length)]!;
    if (Number.isNaN(lat[spot]!)) continue;
    lat[id] = lat[spot]!;
    lon[id] = lon[spot]!;
  }
  // Mirrored spots east and west of the centre: distinct points at exactly the same distance.
  const centreLat = Math.fround(near.lat), centreLon = Math.fround(near.lon);
  // The nearest four: two points a few metres east and west, each holding a low and a high id.
  for (const [id, side] of [[1, -1], [2, 1], [3, 1], [4, -1]] as const) {
    lat[id] = centreLat;
    lon[id] = Math.fround(centreLon + side * 1e-4);
  }
  for (let id = 5; id + 1 <= n && id < 40; id += 2) {
    const dLon = Math.fround(random() * 0.05);
    lat[id] = lat[id + 1] = centreLat;
    lon[id] = Math.fround(centreLon - dLon);
    lon[id + 1] = Math.fround(centreLon + dLon);
  }
  for (let id = 1; id <= n; id++) flags[id] = flags[id]! | (random() < 0.5 ? 2 : 0);
  flags.fill(3, 1, 5);
  return { flags, lat, lon };
}

const CIRCLES: NearMatch[] = [
  { lat: 40.75, lon: -73.99, radius: 10, unit: "mi" },
  { lat: 40.75, lon: -73.99, radius: 40, unit: "km" },
  { lat: 61.2, lon: -149.9, radius: 120, unit: "km" },
  { lat: 35, lon: -100, radius: 300, unit: "km" },
  { lat: 25.8, lon: -80.2, radius: 2, unit: "km" },
  { lat: 51.9, lon: 179.95, radius: 30, unit: "km" }, // over the antimeridian
];

Deno.test("[points] every located item once, under its own point; any step size", () => {
  const random = seededRandom(5);
  const columns = zipLikeColumns(random, CIRCLES[0]!, 5000);
  const spans = { lat: columns.lat, lon: columns.lon, first: 1, last: 5000 };
  const built = PointIndex.build(spans);
  const grouping = new PointGrouping(spans);
  let steps = 0;
  while (grouping.step(97)) steps++;
  assert(steps >= 3 * Math.floor(5000 / 97), `${steps} steps of 97 items`);
  assertEquals(grouping.finish(), built);
  const seen = new Set<number>();
  for (let p = 0; p < built.count; p++) {
    if (p > 0) assert(built.lat[p - 1]! <= built.lat[p]!, "points in latitude order");
    const items = built.items.subarray(built.start[p]!, built.start[p + 1]!);
    assert(items.length > 0);
    items.forEach((item, k) => {
      if (k > 0) assert(items[k - 1]! < item, "a point's items ascending");
      assertEquals([columns.lat[item], columns.lon[item]], [built.lat[p], built.lon[p]]);
      seen.add(item);
    });
  }
  const located = [...columns.lat.keys()].filter((id) => id > 0 && !Number.isNaN(columns.lat[id]!));
  assertEquals(seen.size, located.length);
  assertEquals(built.items.length, located.length);
  assert(built.count < located.length / 2, `${built.count} points for ${located.length} items`);
});

Deno.test("[points] pages and totals equal the model and the per-provider page", () => {
  const random = seededRandom(31);
  for (const near of CIRCLES) {
    const columns = zipLikeColumns(random, near, 6000);
    const points = PointIndex.build({ lat: columns.lat, lon: columns.lon, first: 1, last: 6000 });
    const every = Uint32Array.from({ length: 6000 }, (_, i) => i + 1);
    const tests = [[0, 0], [1, 1], [1, 0], [3, 3]] as const;
    for (
      const [[mask, value], [skip, limit]] of tests.flatMap((t) =>
        ([[0, 10], [0, 50], [30, 20], [0, 1], [0, 2], [1, 2]] as const).map((s) => [t, s] as const)
      )
    ) {
      const request: NearestRequest = { near, mask, value, after: null, skip, limit };
      const want = model(columns, every, request);
      const label = `${JSON.stringify(near)} ${mask}/${value} ${skip}+${limit}`;
      assertEquals(pointsNearest(points, columns.flags, request), want, label);
      assertEquals(nearestPage(every, columns, request), want, label);
      if (want.ids.length === 0) continue;
      const last = want.ids.length - 1;
      const next: NearestRequest = {
        ...request,
        after: [want.distances[last]!, want.ids[last]!],
        skip: 0,
      };
      assertEquals(pointsNearest(points, columns.flags, next), model(columns, every, next), label);
    }
  }
});

Deno.test("[points] walked by cursor, the pages hold every provider within the circle once", () => {
  const random = seededRandom(77);
  const near = CIRCLES[1]!;
  const columns = zipLikeColumns(random, near, 4000);
  const points = PointIndex.build({ lat: columns.lat, lon: columns.lon, first: 1, last: 4000 });
  const every = Uint32Array.from({ length: 4000 }, (_, i) => i + 1);
  const all = model(columns, every, { near, mask: 1, value: 1, after: null, skip: 0, limit: 4000 });
  assert(all.total > 500, `${all.total} within`);
  const walked: number[] = [];
  let after: number[] | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const page = pointsNearest(points, columns.flags, {
      near,
      mask: 1,
      value: 1,
      after,
      skip: 0,
      limit: 7,
    });
    assertEquals(page.total, all.total);
    walked.push(...page.ids);
    if (page.ids.length < 7) break;
    after = [page.distances.at(-1)!, page.ids.at(-1)!];
  }
  assertEquals(walked, all.ids);
});

Deno.test("[points] counts by owner equal a count of the items; kept per flag test", () => {
  const random = seededRandom(3);
  const rows = 3000, providers = 500;
  const lat = new Float32Array(rows), lon = new Float32Array(rows);
  const owners = new Uint32Array(rows);
  for (let k = 0; k < rows; k++) {
    lat[k] = Math.fround(40 + Math.floor(random() * 30) / 100);
    lon[k] = random() < 0.05 ? NaN : Math.fround(-74 + Math.floor(random() * 30) / 100);
    owners[k] = 1 + Math.floor(random() * providers);
  }
  const flags = Uint8Array.from({ length: providers + 1 }, () => Math.floor(random() * 4));
  const points = PointIndex.build({ lat, lon, first: 0, last: rows - 1 });
  for (const [mask, value] of [[1, 1], [3, 2], [2, 0]] as const) {
    const counts = points.countsFor(flags, mask, value, owners);
    for (let p = 0; p < points.count; p++) {
      const items = points.items.subarray(points.start[p]!, points.start[p + 1]!);
      const want = items.filter((k) => (flags[owners[k]!]! & mask) === value).length;
      assertEquals(counts[p], want);
    }
    assert(points.countsFor(flags, mask, value, owners) === counts, "counted once");
  }
});

Deno.test("[points] warmed a step at a time, the index is the one built at once", () => {
  const random = seededRandom(9);
  const columns = zipLikeColumns(random, CIRCLES[2]!, 3000);
  const spans = () => ({ lat: columns.lat, lon: columns.lon, first: 1, last: 3000 });
  const lazy = new LazyPoints(spans);
  let steps = 0;
  while (lazy.warm()) steps++;
  assert(lazy.built);
  assertEquals(steps, 2, "one step for each pass but the last");
  assertEquals(lazy.get(), PointIndex.build(spans()));
  assertEquals(lazy.warm(), false);
});
