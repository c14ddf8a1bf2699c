/**
 * Providers grouped by the point they are placed at.
 *
 * A provider's position is the centroid of its practice ZIP, so the 9.7
 * million located providers of the national file stand on about 40,000
 * distinct points. A `near` search that tests each provider reads two
 * coordinates per provider, scattered over 78 MB of columns: a circle of
 * 40 km around Manhattan holds a million providers and costs tens of
 * milliseconds. Grouped by point, the same search tests each point once:
 * the total is the sum of the points' counts (for the query's flag test,
 * counted once per test and kept), and only the nearest points' providers
 * are read to fill the page.
 *
 * Points are kept in latitude order, so the points of a bounding box are
 * one binary search and a scan of its band of latitude.
 *
 * @module
 */
import { distance } from "../geo/zip.ts";
import { checkWatch, type Watch } from "../deadline.ts";
import { boundingBoxes } from "./geometry.ts";
import { BoundedHeap, inSomeBox, type NearestPage, type NearestRequest } from "./nearest.ts";
import type { NearMatch } from "./query.ts";

/**
 * The positions points are grouped from: items `first` to `last` of two
 * columns (provider ids 1..size of the index, or rows 0..n − 1 of the
 * secondary locations).
 */
export interface PointColumns {
  lat: Float32Array;
  lon: Float32Array;
  first: number;
  last: number;
}

/** Flag tests whose per-point counts are kept at most. */
const MAX_COUNTED_TESTS = 32;

/** Long loops check their watch once every this many iterations (a power of two, minus 1). */
const CHECK_EVERY = 0xffff;

/**
 * Located items grouped by their exact (latitude, longitude), points in
 * latitude order, each point's items ascending.
 *
 * @example
 * ```ts
 * const points = PointIndex.build({ lat, lon, first: 1, last: lat.length - 1 });
 * points.count; // distinct positions
 * ```
 */
export class PointIndex {
  /** Latitude of each point, ascending. */
  readonly lat: Float32Array;
  /** Longitude of each point. */
  readonly lon: Float32Array;
  /** The items of point `p` are `items[start[p]]` up to (not including) `items[start[p + 1]]`. */
  readonly start: Uint32Array;
  /** Located items, grouped by point. */
  readonly items: Uint32Array;
  readonly #counts = new Map<number, Uint32Array>();

  private constructor(
    lat: Float32Array,
    lon: Float32Array,
    start: Uint32Array,
    items: Uint32Array,
  ) {
    this.lat = lat;
    this.lon = lon;
    this.start = start;
    this.items = items;
  }

  /** Number of distinct points. */
  get count(): number {
    return this.lat.length;
  }

  /** Bytes held (the items, the points and the kept counts). */
  get bytes(): number {
    let counted = 0;
    for (const counts of this.#counts.values()) counted += counts.byteLength;
    return this.items.byteLength + this.start.byteLength + this.lat.byteLength * 2 + counted;
  }

  /** Groups the located items of `columns` by point (items without a position are left out). */
  static build(columns: PointColumns): PointIndex {
    const grouping = new PointGrouping(columns);
    while (grouping.step());
    return grouping.finish();
  }

  /** An index of the given parts (see {@linkcode PointGrouping.finish}). */
  static of(
    lat: Float32Array,
    lon: Float32Array,
    start: Uint32Array,
    items: Uint32Array,
  ): PointIndex {
    return new PointIndex(lat, lon, start, items);
  }

  /** The first point whose latitude is at least `lat`. */
  firstAtOrAbove(lat: number): number {
    let lo = 0, hi = this.lat.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lat[mid]! < lat) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * How many items of each point pass the flag test `(flags[id] & mask) ===
   * value`, `id` being the item or, with `owners`, `owners[item]`: counted
   * on first use of a test and kept (up to {@linkcode MAX_COUNTED_TESTS}
   * tests; one index is always counted with the same `owners`).
   */
  countsFor(flags: Uint8Array, mask: number, value: number, owners?: Uint32Array): Uint32Array {
    const key = mask * 256 + value;
    let counts = this.#counts.get(key);
    if (counts) return counts;
    const { start, items } = this;
    counts = new Uint32Array(this.count);
    for (let p = 0; p < counts.length; p++) {
      let k = 0;
      for (let i = start[p]!; i < start[p + 1]!; i++) {
        const id = owners ? owners[items[i]!]! : items[i]!;
        if ((flags[id]! & mask) === value) k++;
      }
      counts[p] = k;
    }
    if (this.#counts.size >= MAX_COUNTED_TESTS) {
      this.#counts.delete(this.#counts.keys().next().value!);
    }
    this.#counts.set(key, counts);
    return counts;
  }
}

/** Items a step of {@linkcode PointGrouping} reads (tens of milliseconds). */
const STEP_IDS = 1 << 19;

/**
 * Builds a {@linkcode PointIndex} a slice of items at a time, so that a
 * server can build it between searches (`LazyPoints.warm`): three passes
 * over the items — find each one's point, count the points' items, place
 * the items — each taken {@linkcode STEP_IDS} items a step.
 */
export class PointGrouping {
  readonly #columns: PointColumns;
  readonly #latBits: Uint32Array;
  readonly #lonBits: Uint32Array;
  readonly #table = new PointTable();
  /** The point of each item, plus one (0: no position); ranks in latitude order from the second pass. */
  readonly #pointOf: Uint32Array;
  /** The latitude rank of each point found, by its number. */
  #rankOf: Uint32Array | null = null;
  /** The pass under way (0 to 2), and the next item it reads. */
  #pass = 0;
  #next: number;
  #lat: Float32Array | null = null;
  #lon: Float32Array | null = null;
  #start: Uint32Array | null = null;
  #items: Uint32Array | null = null;
  /** Where the next item of each point goes (third pass). */
  #place: Uint32Array | null = null;

  constructor(columns: PointColumns) {
    const { lat, lon, first, last } = columns;
    if (first < 0 || last >= Math.min(lat.length, lon.length)) {
      throw new RangeError(`Items ${first} to ${last} are not all in the columns`);
    }
    this.#columns = columns;
    this.#latBits = new Uint32Array(lat.buffer, lat.byteOffset, lat.length);
    this.#lonBits = new Uint32Array(lon.buffer, lon.byteOffset, lon.length);
    this.#pointOf = new Uint32Array(last + 1);
    this.#next = first;
  }

  /** Reads up to `count` more items of the pass under way; returns whether any pass is left. */
  step(count: number = STEP_IDS): boolean {
    const { first, last } = this.#columns;
    if (this.#pass > 2) return false;
    const from = this.#next, to = Math.min(last, from + count - 1);
    if (this.#pass === 0) this.#find(from, to);
    else if (this.#pass === 1) this.#count(from, to);
    else this.#fill(from, to);
    this.#next = to + 1;
    if (this.#next > last) {
      this.#pass++;
      this.#next = first;
      if (this.#pass === 1) this.#rank();
      if (this.#pass === 2) this.#allot();
    }
    return this.#pass <= 2;
  }

  /** The index: points in latitude order, each point's items ascending (the passes left are run now). */
  finish(): PointIndex {
    while (this.step());
    return PointIndex.of(this.#lat!, this.#lon!, this.#start!, this.#items!);
  }

  #find(from: number, last: number): void {
    const { lat, lon } = this.#columns;
    const latBits = this.#latBits, lonBits = this.#lonBits, pointOf = this.#pointOf;
    for (let k = from; k <= last; k++) {
      if (Number.isNaN(lat[k]!) || Number.isNaN(lon[k]!)) continue;
      pointOf[k] = this.#table.pointOf(latBits[k]!, lonBits[k]!) + 1;
    }
  }

  /** Orders the points found by latitude. */
  #rank(): void {
    const table = this.#table, n = table.size;
    const found = new Float32Array(table.lats(), 0, n);
    const foundLon = new Float32Array(table.lons(), 0, n);
    const order = Array.from({ length: n }, (_, p) => p);
    order.sort((a, b) => found[a]! - found[b]! || a - b);
    this.#lat = new Float32Array(n);
    this.#lon = new Float32Array(n);
    this.#start = new Uint32Array(n + 1);
    this.#rankOf = new Uint32Array(n);
    order.forEach((p, r) => {
      this.#rankOf![p] = r;
      this.#lat![r] = found[p]!;
      this.#lon![r] = foundLon[p]!;
    });
  }

  #count(from: number, last: number): void {
    const pointOf = this.#pointOf, rankOf = this.#rankOf!, start = this.#start!;
    for (let k = from; k <= last; k++) {
      const p = pointOf[k]!;
      if (p === 0) continue;
      const r = rankOf[p - 1]!;
      pointOf[k] = r + 1;
      start[r + 1]!++;
    }
  }

  /** Turns the counts into where each point's ids begin. */
  #allot(): void {
    const start = this.#start!, n = start.length - 1;
    for (let r = 0; r < n; r++) start[r + 1]! += start[r]!;
    this.#items = new Uint32Array(start[n]!);
    this.#place = start.slice(0, n);
  }

  #fill(from: number, last: number): void {
    const pointOf = this.#pointOf, place = this.#place!, items = this.#items!;
    for (let k = from; k <= last; k++) {
      const r = pointOf[k]!;
      if (r !== 0) items[place[r - 1]!++] = k;
    }
  }
}

/**
 * Distinct (latitude bits, longitude bits) pairs, numbered in order of
 * first sight: open addressing, doubled when half full.
 */
class PointTable {
  #lat = new Uint32Array(1 << 16);
  #lon = new Uint32Array(1 << 16);
  /** Slot → point number plus one (0: empty). */
  #slots = new Uint32Array(1 << 17);
  size = 0;

  /** The number of the point, given it a new one when not seen before. */
  pointOf(lat: number, lon: number): number {
    const mask = this.#slots.length - 1;
    for (let slot = hash(lat, lon) & mask;; slot = (slot + 1) & mask) {
      const held = this.#slots[slot]!;
      if (held === 0) break;
      if (this.#lat[held - 1] === lat && this.#lon[held - 1] === lon) return held - 1;
    }
    if (this.size === this.#lat.length) this.#grow();
    const p = this.size++;
    this.#lat[p] = lat;
    this.#lon[p] = lon;
    this.#place(p);
    return p;
  }

  /** The latitude bits of the points, by number (the first `size` entries). */
  lats(): ArrayBuffer {
    return this.#lat.buffer as ArrayBuffer;
  }

  /** The longitude bits of the points, by number (the first `size` entries). */
  lons(): ArrayBuffer {
    return this.#lon.buffer as ArrayBuffer;
  }

  #place(p: number): void {
    const mask = this.#slots.length - 1;
    let slot = hash(this.#lat[p]!, this.#lon[p]!) & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = p + 1;
  }

  #grow(): void {
    const lat = new Uint32Array(this.#lat.length * 2), lon = new Uint32Array(this.#lon.length * 2);
    lat.set(this.#lat);
    lon.set(this.#lon);
    this.#lat = lat;
    this.#lon = lon;
    this.#slots = new Uint32Array(this.#slots.length * 2);
    for (let p = 0; p < this.size; p++) this.#place(p);
  }
}

function hash(lat: number, lon: number): number {
  let h = Math.imul(lat ^ Math.imul(lon, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  return Math.imul(h, 0xc2b2ae35) ^ (h >>> 13);
}

/** A point within a circle: its number and its distance from the centre. */
export interface PointWithin {
  p: number;
  d: number;
}

/**
 * The points within the circle of `near`, nearest first: those in its
 * bounding boxes at most its radius away by the great-circle distance, as
 * {@linkcode CircleTest} decides for each item at the point.
 */
export function pointsWithin(
  points: PointIndex,
  near: NearMatch,
  watch: Watch = {},
): PointWithin[] {
  const boxes = boundingBoxes(near);
  let minLat = Infinity, maxLat = -Infinity;
  for (const b of boxes) {
    minLat = Math.min(minLat, b.minLat);
    maxLat = Math.max(maxLat, b.maxLat);
  }
  const { lat, lon } = points;
  const within: PointWithin[] = [];
  for (let p = points.firstAtOrAbove(minLat); p < lat.length && lat[p]! <= maxLat; p++) {
    if ((p & CHECK_EVERY) === 0) checkWatch(watch);
    const pLat = lat[p]!, pLon = lon[p]!;
    if (!inSomeBox(boxes, pLat, pLon)) continue;
    const d = distance(near.lat, near.lon, pLat, pLon, near.unit);
    if (d <= near.radius) within.push({ p, d });
  }
  return within.sort((a, b) => a.d - b.d);
}

/** The number of items at `within`'s points, from per-point `counts` (or every item). */
export function itemsAt(
  points: PointIndex,
  within: readonly PointWithin[],
  counts: Uint32Array | null,
): number {
  let total = 0;
  const { start } = points;
  for (const { p } of within) total += counts ? counts[p]! : start[p + 1]! - start[p]!;
  return total;
}

/**
 * The page nearest to the point of `request` among all located providers
 * passing its flag test, and how many lie within the radius: the same page
 * and total as {@linkcode nearestPage} over every provider of the circle's
 * cells, from the points instead of the providers.
 *
 * @example
 * ```ts
 * const page = pointsNearest(points, index.flags, { near, mask: 1, value: 1, after: null, skip: 0, limit: 10 });
 * ```
 */
export function pointsNearest(
  points: PointIndex,
  flags: Uint8Array,
  request: NearestRequest,
  watch: Watch = {},
): NearestPage {
  const { near, mask, value, after } = request;
  const within = pointsWithin(points, near, watch);
  const total = itemsAt(points, within, mask === 0 ? null : points.countsFor(flags, mask, value));
  const { start, items } = points;
  const heap = new BoundedHeap(request.skip + request.limit);
  const afterD = after ? after[0]! : -1, afterId = after ? after[1] ?? 0 : 0;
  for (const { p, d } of within) {
    // Before the cursor: skipped; beyond what the page still takes: the page is full.
    if (d < afterD) continue;
    if (d > heap.worst()) break;
    for (let i = start[p]!; i < start[p + 1]!; i++) {
      const id = items[i]!;
      if ((flags[id]! & mask) !== value || (d === afterD && id <= afterId)) continue;
      heap.offer(d, id);
    }
  }
  const sorted = heap.sorted();
  return { total, ids: sorted.id.slice(request.skip), distances: sorted.d.slice(request.skip) };
}

/**
 * The point index of a search index, built on its first use or by
 * {@linkcode LazyPoints.warm} (about 40 MB at 9.7 million providers).
 *
 * @example
 * ```ts
 * const points = new LazyPoints(() => index);
 * points.get().count;
 * ```
 */
export class LazyPoints {
  readonly #columns: () => PointColumns;
  #grouping: PointGrouping | null = null;
  #points: PointIndex | null = null;

  constructor(columns: () => PointColumns) {
    this.#columns = columns;
  }

  /** The index, built now (or finished, when warming began it) when not yet. */
  get(): PointIndex {
    if (!this.#points) {
      this.#points = (this.#grouping ?? new PointGrouping(this.#columns())).finish();
      this.#grouping = null;
    }
    return this.#points;
  }

  /** Whether the index is built. */
  get built(): boolean {
    return this.#points !== null;
  }

  /** Takes one step of building the index; returns whether any is left. */
  warm(): boolean {
    if (this.#points) return false;
    this.#grouping ??= new PointGrouping(this.#columns());
    if (this.#grouping.step()) return true;
    this.get();
    return false;
  }
}
