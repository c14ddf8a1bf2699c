/**
 * One page of a `near` search sorted by distance, without sorting the whole
 * result: one pass over the candidates counts every provider within the
 * radius (the exact total) and keeps the page's nearest in a bounded
 * max-heap keyed by (distance, id), after the cursor's key. A candidate
 * outside the circle's bounding box is dropped before its great-circle
 * distance is computed. The order and the keys are those of the full sort
 * (distance, then id), so cursors are interchangeable with it.
 *
 * @module
 */
import { distance } from "../geo/zip.ts";
import type { NearMatch } from "./query.ts";
import { boundingBoxes } from "./geometry.ts";
import { checkWatch, type Watch } from "../deadline.ts";

/** The columns a nearest page reads. */
export interface NearestColumns {
  flags: Uint8Array;
  lat: Float32Array;
  lon: Float32Array;
}

/** What to page: the point, the flag test, where the page starts and its size. */
export interface NearestRequest {
  near: NearMatch;
  mask: number;
  value: number;
  /** The key (distance, id) of the last result of the previous page; `null` on the first. */
  after: readonly number[] | null;
  /** Results skipped before the page (offset paging; 0 with a cursor). */
  skip: number;
  limit: number;
}

/** A page: the exact total within the radius, and the page's ids with their distances. */
export interface NearestPage {
  total: number;
  ids: number[];
  distances: number[];
}

/**
 * The flat bounds are used for circles of at most this radius (km): the curvature they ignore is
 * then under 0.02% of a distance, far inside {@linkcode FLAT_MARGIN}.
 */
const FLAT_MAX_KM = 200;
/** The relative margin of the flat bounds on squared distances. */
const FLAT_MARGIN = 0.01;

/**
 * Bounds on the squared great-circle distance from the point, in the
 * unit's squares, from degrees of latitude and longitude: the flat
 * (equirectangular) distance with the two latitudes' cosine product taken
 * at its least (`low2`) and most (`high2`) over the box's latitudes, which
 * hold the point and the candidate; `null` for circles too large or too
 * near a pole for the bounds to hold.
 */
function flatBounds(
  near: NearMatch,
  box: { minLat: number; maxLat: number },
): { k2: number; low2: number; high2: number } | null {
  const km = near.unit === "km" ? near.radius : near.radius * 1.609344;
  if (km > FLAT_MAX_KM || Math.max(Math.abs(box.minLat), Math.abs(box.maxLat)) > 80) return null;
  const cos = (deg: number) => Math.cos((deg * Math.PI) / 180);
  const polar = Math.max(Math.abs(box.minLat), Math.abs(box.maxLat));
  const equatorial = box.minLat <= 0 && box.maxLat >= 0
    ? 0
    : Math.min(Math.abs(box.minLat), Math.abs(box.maxLat));
  const k = distance(0, 0, 1, 0, near.unit); // one degree of a great circle, in the unit
  return { k2: k * k, low2: cos(polar) ** 2, high2: cos(equatorial) ** 2 };
}

/** Long loops check their watch once every this many candidates. */
const CHECK_EVERY = 0xffff;

/**
 * A max-heap of at most `capacity` (distance, id) pairs: the smallest seen.
 *
 * @example
 * ```ts
 * const heap = new BoundedHeap(2);
 * for (const [d, id] of [[5, 1], [2, 9], [2, 3]]) heap.offer(d, id);
 * heap.sorted(); // { d: [2, 2], id: [3, 9] }
 * ```
 */
export class BoundedHeap {
  readonly d: Float64Array;
  readonly id: Uint32Array;
  size = 0;
  constructor(readonly capacity: number) {
    this.d = new Float64Array(capacity);
    this.id = new Uint32Array(capacity);
  }

  /** Whether (da, ia) sorts after (db, ib). */
  static #after(da: number, ia: number, db: number, ib: number): boolean {
    return da > db || (da === db && ia > ib);
  }

  /** Offers a pair; kept when there is room or it sorts before the largest kept. */
  offer(dist: number, id: number): void {
    const { d, id: ids } = this;
    if (this.size < this.capacity) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!BoundedHeap.#after(dist, id, d[parent]!, ids[parent]!)) break;
        d[i] = d[parent]!;
        ids[i] = ids[parent]!;
        i = parent;
      }
      d[i] = dist;
      ids[i] = id;
      return;
    }
    if (this.capacity === 0 || !BoundedHeap.#after(d[0]!, ids[0]!, dist, id)) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      let child = left;
      if (right < this.size && BoundedHeap.#after(d[right]!, ids[right]!, d[left]!, ids[left]!)) {
        child = right;
      }
      if (!BoundedHeap.#after(d[child]!, ids[child]!, dist, id)) break;
      d[i] = d[child]!;
      ids[i] = ids[child]!;
      i = child;
    }
    d[i] = dist;
    ids[i] = id;
  }

  /** The largest distance kept when full (what a pair must beat), else `Infinity`. */
  worst(): number {
    return this.size === this.capacity && this.size > 0 ? this.d[0]! : Infinity;
  }

  /** The kept pairs, nearest first. */
  sorted(): { d: number[]; id: number[] } {
    const order = Array.from({ length: this.size }, (_, k) => k);
    order.sort((a, b) => this.d[a]! - this.d[b]! || this.id[a]! - this.id[b]!);
    return { d: order.map((k) => this.d[k]!), id: order.map((k) => this.id[k]!) };
  }
}

/**
 * The page of `candidates` (sorted ids) nearest to the point after the
 * cursor key, and how many candidates passing the flag test lie within the
 * radius.
 *
 * @example
 * ```ts
 * const page = nearestPage(ids, index, { near, mask: 1, value: 1, after: null, skip: 0, limit: 10 });
 * ```
 */
export function nearestPage(
  candidates: Uint32Array,
  columns: NearestColumns,
  request: NearestRequest,
  watch: Watch = {},
): NearestPage {
  const { near, mask, value, after } = request;
  const { flags, lat: lats, lon: lons } = columns;
  const circle = new CircleTest(near);
  const heap = new BoundedHeap(request.skip + request.limit);
  const afterD = after ? after[0]! : -1, afterId = after ? after[1] ?? 0 : 0;
  let total = 0;
  for (let i = 0; i < candidates.length; i++) {
    if ((i & CHECK_EVERY) === 0) checkWatch(watch);
    const id = candidates[i]!;
    // The circle first: most candidates of its cells lie outside it, and the flags are not read.
    const d = circle.distance(lats[id]!, lons[id]!, after ? Infinity : heap.worst());
    if (d === OUTSIDE || (mask !== 0 && (flags[id]! & mask) !== value)) continue;
    total++;
    if (d === FAR_INSIDE || (after && (d < afterD || (d === afterD && id <= afterId)))) continue;
    heap.offer(d, id);
  }
  const { d, id } = heap.sorted();
  return { total, ids: id.slice(request.skip), distances: d.slice(request.skip) };
}

/** {@linkcode CircleTest.distance} of a point outside the circle. */
export const OUTSIDE = -1;
/** {@linkcode CircleTest.distance} of a point inside the circle but farther than the page needs. */
export const FAR_INSIDE = -2;

/**
 * Whether points lie within a `near` circle, and how far: the bounding
 * boxes first, then (for circles of at most {@linkcode FLAT_MAX_KM}) flat
 * bounds that settle most points without the great-circle formula, which
 * decides the rest.
 *
 * @example
 * ```ts
 * const circle = new CircleTest({ lat: 40, lon: -75, radius: 10, unit: "km" });
 * circle.distance(40.01, -75, Infinity); // about 1.11
 * ```
 */
export class CircleTest {
  readonly #near: NearMatch;
  readonly #boxes: ReturnType<typeof boundingBoxes>;
  readonly #box: ReturnType<typeof boundingBoxes>[number] | null;
  readonly #flat: ReturnType<typeof flatBounds>;
  readonly #r2: number;

  constructor(near: NearMatch) {
    this.#near = near;
    this.#boxes = boundingBoxes(near);
    this.#box = this.#boxes.length === 1 ? this.#boxes[0]! : null;
    this.#flat = this.#box ? flatBounds(near, this.#box) : null;
    this.#r2 = near.radius * near.radius;
  }

  /**
   * The distance of the point from the centre, in the circle's unit, when
   * within the radius; {@linkcode OUTSIDE} when not (or without a position);
   * {@linkcode FAR_INSIDE} when it surely lies inside and farther than
   * `worst` (the farthest distance a page still needs; `Infinity` for any).
   */
  distance(lat: number, lon: number, worst: number): number {
    if (Number.isNaN(lat)) return OUTSIDE;
    const box = this.#box, near = this.#near;
    if (box) {
      if (lat < box.minLat || lat > box.maxLat || lon < box.minLon || lon > box.maxLon) {
        return OUTSIDE;
      }
    } else if (!inSomeBox(this.#boxes, lat, lon)) return OUTSIDE;
    const flat = this.#flat;
    if (flat) {
      // Surely outside, or surely inside and too far for the page: no great-circle formula.
      const dy = lat - near.lat, dx = lon - near.lon;
      const low = flat.k2 * (dy * dy + flat.low2 * dx * dx) * (1 - FLAT_MARGIN);
      if (low > this.#r2) return OUTSIDE;
      const high = flat.k2 * (dy * dy + flat.high2 * dx * dx) * (1 + FLAT_MARGIN);
      if (high < this.#r2 && low > worst * worst) return FAR_INSIDE;
    }
    const d = distance(near.lat, near.lon, lat, lon, near.unit);
    return d > near.radius ? OUTSIDE : d;
  }
}

/** Whether a point lies in one of the boxes (a circle's bounding boxes, split at the antimeridian). */
export function inSomeBox(
  boxes: ReturnType<typeof boundingBoxes>,
  lat: number,
  lon: number,
): boolean {
  for (const b of boxes) {
    if (lat >= b.minLat && lat <= b.maxLat && lon >= b.minLon && lon <= b.maxLon) return true;
  }
  return false;
}
