/**
 * Pages of a result set in distance order without sorting the whole set.
 *
 * A search around a point can match hundreds of thousands of providers
 * (everyone within 500 miles of a large city: a quarter of the dataset),
 * and sorting all of them by distance cost more than everything else the
 * search does. A first page needs only its own entries: a bounded max-heap
 * of `offset + limit` positions, filled in one pass over the set, finds
 * them in O(n log k) — and in practice O(n), since few entries beat the
 * heap's worst once it is full. The order is exactly the full sort's: by
 * level first when `byLevel` (relevance with a point), then distance, then
 * id (name rank), so a page found here and one found in the sorted set are
 * the same page.
 *
 * Deeper pages (a cursor, or a large offset) are what walks through the
 * whole set do — exports, roster matching, clients paging on — and they
 * sort it once ({@linkcode sortByDistance}), the engine keeping the sorted
 * set in its result cache for the next page.
 *
 * @module
 */

/** A result set with a distance per entry, in any order. */
export interface DistanceSet {
  ids: Uint32Array;
  /** Rank keys (relevance levels) per entry, or `null` without free text. */
  levels: Uint8Array | null;
  distances: Float64Array;
}

/** Largest `offset + limit` answered by selection; deeper pages sort the set. */
export const MAX_SELECTED = 1000;

/**
 * Compares the entries at positions `a` and `b`: level (when `byLevel`),
 * then distance, then id. Negative when `a` comes first.
 */
function comparator(set: DistanceSet, byLevel: boolean): (a: number, b: number) => number {
  const { ids, distances } = set;
  const levels = byLevel ? set.levels : null;
  if (levels) {
    return (a, b) => levels[a]! - levels[b]! || distances[a]! - distances[b]! || ids[a]! - ids[b]!;
  }
  return (a, b) => distances[a]! - distances[b]! || ids[a]! - ids[b]!;
}

/**
 * The positions of entries `offset` to `offset + limit` of `set` in
 * distance order (level first when `byLevel`), found with a bounded heap
 * instead of a sort. `offset + limit` should be small (see
 * {@linkcode MAX_SELECTED}); the cost is one pass over the set.
 *
 * @example
 * ```ts
 * const set = {
 *   ids: Uint32Array.of(1, 2, 3),
 *   levels: null,
 *   distances: Float64Array.of(5, 1, 3),
 * };
 * nearestPositions(set, false, 0, 2); // Uint32Array [1, 2]: ids 2 and 3
 * ```
 */
export function nearestPositions(
  set: DistanceSet,
  byLevel: boolean,
  offset: number,
  limit: number,
): Uint32Array {
  const n = set.ids.length;
  const k = Math.min(n, offset + limit);
  if (k <= 0 || offset >= n) return new Uint32Array(0);
  const cmp = comparator(set, byLevel);
  // A max-heap of positions: the root is the worst of the best k seen so far.
  const heap = new Uint32Array(k);
  let size = 0;
  const siftUp = (at: number) => {
    const item = heap[at]!;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (cmp(heap[parent]!, item) >= 0) break;
      heap[at] = heap[parent]!;
      at = parent;
    }
    heap[at] = item;
  };
  const siftDown = (item: number) => {
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && cmp(heap[child + 1]!, heap[child]!) > 0) child++;
      if (cmp(heap[child]!, item) <= 0) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = item;
  };
  for (let i = 0; i < n; i++) {
    if (size < k) {
      heap[size] = i;
      siftUp(size++);
    } else if (cmp(i, heap[0]!) < 0) siftDown(i);
  }
  return heap.sort(cmp).slice(offset);
}

/**
 * The whole of `set` in distance order (level first when `byLevel`): new
 * arrays, for walks through every page.
 *
 * @example
 * ```ts
 * const sorted = sortByDistance(
 *   { ids: Uint32Array.of(1, 2), levels: null, distances: Float64Array.of(9, 4) },
 *   false,
 * );
 * sorted.ids; // Uint32Array [2, 1]
 * ```
 */
export function sortByDistance(set: DistanceSet, byLevel: boolean): DistanceSet {
  const n = set.ids.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort(comparator(set, byLevel));
  const ids = new Uint32Array(n), distances = new Float64Array(n);
  const levels = set.levels ? new Uint8Array(n) : null;
  for (let i = 0; i < n; i++) {
    const p = order[i]!;
    ids[i] = set.ids[p]!;
    distances[i] = set.distances[p]!;
    if (levels) levels[i] = set.levels![p]!;
  }
  return { ids, levels, distances };
}
