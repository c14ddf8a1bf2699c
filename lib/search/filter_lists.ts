/**
 * The id lists of structured filters (state, city, taxonomy or specialty
 * codes), with a bitmap of the long ones, and a byte-bounded cache of them.
 * A specialty such as `registered nurse` stands for dozens of codes whose
 * union holds a million providers; the same union recurs with every state
 * and ZIP it is combined with, and testing a candidate against its bitmap
 * is one read where galloping through the list is many.
 *
 * @module
 */
import { filterLeveled, intersect, keepInBits, type Leveled } from "../index/sorted.ts";
import { ByteLru } from "../lru.ts";

/** A filter's sorted ids, and a bitmap of them (bit `id`) when the list is long. */
export interface FilterList {
  ids: Uint32Array;
  bits: Uint32Array | null;
  bytes: number;
}

/** Lists this long or longer get a bitmap (and are worth caching). */
export const FILTER_BITS_MIN_IDS = 50_000;

/** A byte-bounded LRU cache of long filter lists, keyed by the filter and its values. */
export class FilterCache extends ByteLru<FilterList> {}

/**
 * Wraps a sorted id list, adding a bitmap over ids below `universe` when
 * the list is long.
 *
 * @example
 * ```ts
 * filterList(Uint32Array.of(2, 7), 10).bits; // null (a short list)
 * ```
 */
export function filterList(ids: Uint32Array, universe: number): FilterList {
  if (ids.length < FILTER_BITS_MIN_IDS) return { ids, bits: null, bytes: ids.byteLength };
  const bits = new Uint32Array((universe >>> 5) + 1);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    bits[id >>> 5]! |= 1 << (id & 31);
  }
  return { ids, bits, bytes: ids.byteLength + bits.byteLength };
}

/** The ids of `ids` whose bit is set. */
function keepBits(ids: Uint32Array, bits: Uint32Array): Uint32Array {
  const out = new Uint32Array(ids.length);
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if ((bits[id >>> 5]! & (1 << (id & 31))) !== 0) out[n++] = id;
  }
  return out.subarray(0, n);
}

/**
 * The ids in `ids` and in the filter: by the filter's bitmap when it has
 * one, else by galloping intersection.
 */
export function intersectFilter(ids: Uint32Array, filter: FilterList): Uint32Array {
  return filter.bits && ids.length <= filter.ids.length
    ? keepBits(ids, filter.bits)
    : intersect(ids, filter.ids);
}

/**
 * The intersection of filters, shortest first; the longer ones are tested
 * through their bitmaps.
 *
 * @example
 * ```ts
 * intersectFilters([filterList(Uint32Array.of(1, 3), 9), filterList(Uint32Array.of(3), 9)]); // [3]
 * ```
 */
export function intersectFilters(filters: readonly FilterList[]): Uint32Array {
  if (filters.length === 0) throw new RangeError("Cannot intersect no filters");
  const sorted = [...filters].sort((a, b) => a.ids.length - b.ids.length);
  let out = sorted[0]!.ids;
  for (let i = 1; i < sorted.length && out.length > 0; i++) out = intersectFilter(out, sorted[i]!);
  return out;
}

/** The entries of a leveled list whose id is in the filter. */
export function filterLeveledBy(set: Leveled, filter: FilterList): Leveled {
  const bits = filter.bits;
  if (bits && set.ids.length <= filter.ids.length) return keepInBits(set, bits);
  return filterLeveled(set, filter.ids);
}
