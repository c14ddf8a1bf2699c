/**
 * The id lists of structured filters (state, city, taxonomy or specialty
 * codes), with a bitmap of the long ones, and a byte-bounded cache of them.
 * A specialty such as `registered nurse` stands for dozens of codes whose
 * union holds a million providers; the same union recurs with every state
 * and ZIP it is combined with, and testing a candidate against its bitmap
 * is one read where galloping through the list is many.
 *
 * A filter on a byte the index holds for every provider (the state) needs
 * no list: it is tested on that column, and its list read only when it is
 * the shortest of a query's filters. A state's list is up to a million ids,
 * read and turned into a bitmap for each search otherwise, however few
 * candidates it then tests. Taxonomy codes not cached are tested the same
 * way, on each candidate's codes in the index's code columns (a provider
 * holds one to a few): a description's first search in a small city reads
 * none of its codes' lists.
 *
 * @module
 */
import { bitsOf, filterLeveled, intersect, keepInBits, type Leveled } from "../index/sorted.ts";
import { ByteLru } from "../lru.ts";

/** A filter's sorted ids, and a bitmap of them (bit `id`) when the list is long. */
export interface FilterList {
  /** The ids that pass, ascending (read on first use for a column filter). */
  readonly ids: Uint32Array;
  /** How many ids pass: `ids.length`, known before the list is read. */
  readonly size: number;
  /** A bitmap of the ids (bit `id & 31` of word `id >>> 5`) for a long list, made on first use. */
  readonly bits: Uint32Array | null;
  /** For a filter on a per-id column: the test, made id by id instead of reading `ids`. */
  readonly column?: ColumnTest;
  /** For a filter on taxonomy codes: the test of each id's codes, made instead of reading `ids`. */
  readonly codes?: CodesTest;
  bytes: number;
}

/**
 * Which providers pass a filter on their taxonomy codes: those holding at
 * least one code whose number passes (the index's code columns).
 */
export interface CodesTest {
  /** Where each id's code numbers start in `codes` (they end where the next id's start). */
  offsets: Uint32Array;
  /** The code numbers of every provider, id after id. */
  codes: Uint16Array;
  /** 1 at each code number that passes, 0 elsewhere. */
  pass: Uint8Array;
}

/** Which providers pass a filter: those whose value in a per-id column passes. */
export interface ColumnTest {
  /** One value a provider id (a state number, an update day). */
  values: Uint8Array | Uint16Array;
  /** 1 at each value that passes, 0 elsewhere (one entry a possible value). */
  pass: Uint8Array;
}

/**
 * A filter answered by a per-id column: `size` providers pass, whose sorted
 * ids `read` lists when the filter must drive a query (it is the shortest).
 *
 * @example
 * ```ts
 * const pass = new Uint8Array(256);
 * pass[2] = 1;
 * const values = Uint8Array.of(0, 2, 1, 2);
 * const f = columnFilter({ values, pass }, 2, () => Uint32Array.of(1, 3));
 * intersectFilter(Uint32Array.of(1, 2), f); // [1]
 * ```
 */
export function columnFilter(
  test: ColumnTest,
  size: number,
  read: () => Uint32Array,
): FilterList {
  let ids: Uint32Array | null = null;
  return {
    get ids() {
      return ids ??= read();
    },
    size,
    bits: null,
    column: test,
    bytes: 0,
  };
}

/**
 * A filter answered by the code columns for few candidates: at most `size`
 * providers pass (`size` may count one twice: it orders the filters, it is
 * not a total). `read` lists them (sorted, with a bitmap when many) when
 * the filter drives a query or meets many candidates.
 *
 * @example
 * ```ts
 * const test = { offsets: Uint32Array.of(0, 0, 1, 3), codes: Uint16Array.of(4, 2, 5), pass: new Uint8Array(6) };
 * test.pass[5] = 1;
 * const f = codesFilter(test, 1, () => filterList(Uint32Array.of(2), 4));
 * intersectFilter(Uint32Array.of(1, 2), f); // [2]
 * ```
 */
export function codesFilter(test: CodesTest, size: number, read: () => FilterList): FilterList {
  let list: FilterList | null = null;
  return {
    get ids() {
      return (list ??= read()).ids;
    },
    size,
    get bits() {
      return (list ??= read()).bits;
    },
    codes: test,
    bytes: 0,
  };
}

/**
 * Candidates are tested on their codes when this many times fewer than a
 * codes filter's size; more are tested on its list (read once, cached):
 * a code test is two scattered reads where a bitmap's is one.
 */
const CODES_TEST_RATIO = 8;

/** Whether `candidates` ids are tested on `filter`'s codes rather than on its list. */
function byCodes(candidates: number, filter: FilterList): boolean {
  return filter.codes !== undefined && candidates * CODES_TEST_RATIO <= filter.size;
}

/** Whether provider `id` holds a code that passes. */
function holdsCode({ offsets, codes, pass }: CodesTest, id: number): boolean {
  for (let k = offsets[id]!, end = offsets[id + 1]!; k < end; k++) {
    if (pass[codes[k]!] === 1) return true;
  }
  return false;
}

/** The ids of `ids` (in order) holding a code that passes. */
function keepHolding(ids: Uint32Array, test: CodesTest): Uint32Array {
  const out = new Uint32Array(ids.length);
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    if (holdsCode(test, ids[i]!)) out[n++] = ids[i]!;
  }
  return out.subarray(0, n);
}

/** The entries of a leveled list (with their levels) holding a code that passes. */
function keepHoldingLeveled(set: Leveled, test: CodesTest): Leveled {
  const ids = new Uint32Array(set.ids.length);
  const levels = new Uint8Array(set.ids.length);
  let n = 0;
  for (let i = 0; i < set.ids.length; i++) {
    if (holdsCode(test, set.ids[i]!)) {
      ids[n] = set.ids[i]!;
      levels[n++] = set.levels[i]!;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/** A plain filter of sorted ids, without a bitmap. */
export function idsFilter(ids: Uint32Array): FilterList {
  return { ids, size: ids.length, bits: null, bytes: ids.byteLength };
}

/** Lists this long or longer get a bitmap (and are worth caching). */
export const FILTER_BITS_MIN_IDS = 50_000;

/** A byte-bounded LRU cache of long filter lists, keyed by the filter and its values. */
export class FilterCache extends ByteLru<FilterList> {}

/**
 * Wraps a sorted id list, with a bitmap over ids below `universe` when the
 * list is long ({@linkcode hasBitmap}). The bitmap is made when first read:
 * a list that drives its query (the shortest of its filters) is read
 * through and never needs one (a specialty's 50,000 to 400,000 providers
 * in one state: making the bitmap was a fifth of such a search). Its bytes
 * are counted from the start, so that a cache of lists keeps its budget
 * whichever have made theirs.
 *
 * @example
 * ```ts
 * filterList(Uint32Array.of(2, 7), 10).bits; // null (a short list)
 * ```
 */
export function filterList(ids: Uint32Array, universe: number): FilterList {
  if (ids.length < FILTER_BITS_MIN_IDS) return idsFilter(ids);
  let bits: Uint32Array | null = null;
  return {
    ids,
    size: ids.length,
    get bits() {
      return bits ??= bitsOf([ids], universe);
    },
    bytes: ids.byteLength + ((universe >>> 5) + 1) * 4,
  };
}

/**
 * Whether a list made by {@linkcode filterList} has a bitmap (a long list,
 * worth keeping), without making it.
 *
 * @example
 * ```ts
 * hasBitmap(filterList(Uint32Array.of(2, 7), 10)); // false
 * ```
 */
export function hasBitmap(list: FilterList): boolean {
  return list.column === undefined && list.codes === undefined &&
    list.size >= FILTER_BITS_MIN_IDS;
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
 * The ids of `ids` (in order) whose value in a per-id column passes:
 * `pass[values[id]] === 1`.
 *
 * @example
 * ```ts
 * keepPassing(Uint32Array.of(1, 2, 3), { values: Uint8Array.of(0, 5, 6, 5), pass: Uint8Array.of(0, 0, 0, 0, 0, 1) });
 * // [1, 3]
 * ```
 */
export function keepPassing(ids: Uint32Array, { values, pass }: ColumnTest): Uint32Array {
  const out = new Uint32Array(ids.length);
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (pass[values[id]!] === 1) out[n++] = id;
  }
  return out.subarray(0, n);
}

/** The entries of a leveled list (with their levels) whose value in the column passes. */
function keepPassingLeveled(set: Leveled, { values, pass }: ColumnTest): Leveled {
  const ids = new Uint32Array(set.ids.length);
  const levels = new Uint8Array(set.ids.length);
  let n = 0;
  for (let i = 0; i < set.ids.length; i++) {
    const id = set.ids[i]!;
    if (pass[values[id]!] === 1) {
      ids[n] = id;
      levels[n++] = set.levels[i]!;
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/**
 * The ids in `ids` and in the filter: by the filter's column when it has
 * one; else by its codes or bitmap when `ids` is the shorter, or by
 * galloping intersection.
 */
export function intersectFilter(ids: Uint32Array, filter: FilterList): Uint32Array {
  return intersectEach([ids], filter)?.[0] ?? intersect(ids, filter.ids);
}

/**
 * Each of `lists` intersected with `filter`, tested as one list of their
 * total length would be (by the column; else by the codes or the bitmap,
 * as that length decides); `null` when the filter (not a column's) is the
 * shorter, for the caller to unite the lists and gallop through the
 * filter's ids instead ({@linkcode intersectFilter} is the one-list case).
 * Uniting what passes is then cheap: a specialty's providers among an
 * area's 400 cells are a few of their ids, and uniting the cells first was
 * a third of such a search.
 *
 * @example
 * ```ts
 * const f = filterList(Uint32Array.of(2, 5, 9), 10);
 * intersectEach([Uint32Array.of(2), Uint32Array.of(5, 6)], f); // [[2], [5]]
 * intersectEach([Uint32Array.of(1, 2), Uint32Array.of(5, 6)], f); // null: the filter is shorter
 * ```
 */
export function intersectEach(
  lists: readonly Uint32Array[],
  filter: FilterList,
): Uint32Array[] | null {
  const column = filter.column;
  if (column) return lists.map((list) => keepPassing(list, column));
  let total = 0;
  for (const list of lists) total += list.length;
  if (total > filter.size) return null;
  if (byCodes(total, filter)) return lists.map((list) => keepHolding(list, filter.codes!));
  const bits = filter.bits;
  return lists.map((list) => bits ? keepBits(list, bits) : intersect(list, filter.ids));
}

/**
 * How a filter ranks as the one to drive an intersection: its size, and a
 * column filter's four times over, since testing a column is one read in
 * order where testing a list is a bitmap to make or a list to merge.
 */
function driveCost(filter: FilterList): number {
  return filter.column ? filter.size * COLUMN_DRIVE_FACTOR : filter.size;
}

/** See {@linkcode driveCost}. */
const COLUMN_DRIVE_FACTOR = 4;

/**
 * The intersection of filters, the cheapest to drive first (see
 * {@linkcode driveCost}); the others are tested on its ids, through their
 * columns, codes or bitmaps.
 *
 * @example
 * ```ts
 * intersectFilters([filterList(Uint32Array.of(1, 3), 9), filterList(Uint32Array.of(3), 9)]); // [3]
 * ```
 */
export function intersectFilters(filters: readonly FilterList[]): Uint32Array {
  if (filters.length === 0) throw new RangeError("Cannot intersect no filters");
  const sorted = [...filters].sort((a, b) => driveCost(a) - driveCost(b));
  let out = sorted[0]!.ids;
  for (let i = 1; i < sorted.length && out.length > 0; i++) out = intersectFilter(out, sorted[i]!);
  return out;
}

/** The entries of a leveled list whose id is in the filter. */
export function filterLeveledBy(set: Leveled, filter: FilterList): Leveled {
  if (set.ids.length <= filter.size) {
    if (filter.column) return keepPassingLeveled(set, filter.column);
    if (byCodes(set.ids.length, filter)) return keepHoldingLeveled(set, filter.codes!);
    if (filter.bits) return keepInBits(set, filter.bits);
  }
  return filterLeveled(set, filter.ids);
}
