/**
 * The secondary practice locations a Location search finds, from the
 * secondary location columns (`lib/store/location_columns.ts`): one pass
 * over them tests each row's place (state, city, postal code, `address`,
 * `near`) and its owner (in use, an organization when asked, one of the
 * `organization`s or `organization.name`s, its `_lastUpdated` day), counts
 * the matches and keeps the page after the cursor's key. The directory
 * merges them with the primary locations the engine finds, by the same
 * order: owner rank then position, or distance, owner rank, position.
 *
 * `_lastUpdated` never makes a pass over every row: the rows are grouped
 * once by their owner's last-update day (4 bytes a row) and counted by
 * owner class and day (a 2 MB histogram), both on first use. A day set
 * holding under 1/{@linkcode WALK_DENSITY} of the rows reads its days'
 * groups as the candidates; a denser one alone (`Location?_lastUpdated=…`)
 * takes its total from the histogram and its page by walking the rows from
 * the cursor's key, as the engine browses providers (`updated_browse.ts`).
 *
 * @module
 */
import { type LocationColumns, readLocationColumns } from "../store/location_columns.ts";
import { type ColumnSource, columnSource } from "./column_source.ts";
import { cellOf, cellsIn, FIELD } from "../index/fields.ts";
import { unionAll } from "../index/sorted.ts";
import { boundingBoxes } from "../search/geometry.ts";
import { BoundedHeap, CircleTest, FAR_INSIDE, OUTSIDE } from "../search/nearest.ts";
import type { AddressMatch, NameMatch, NearMatch, PostalMatch } from "../search/query.ts";
import { type DaySet, dayTable } from "./date_search.ts";
import { FLAG } from "../index/fields.ts";
import { MAX_DAY } from "../index/updated.ts";
import { WALK_DENSITY } from "../search/updated_browse.ts";
import { group, type Groups } from "./groups.ts";
import { itemsAt, PointIndex, pointsWithin } from "../search/points.ts";

/** What a secondary location search reads. */
export type LocationSource = ColumnSource<LocationColumns>;

/** The secondary location columns of a store that has them, loaded once; `null` otherwise. */
export const locationSource: (store: object) => LocationSource | null = columnSource(
  readLocationColumns,
);

/** The filters of a Location search, as the secondary rows are tested. */
export interface SecondaryFilter {
  states: string[] | null;
  cities: string[] | null;
  postal: PostalMatch | null;
  addresses: AddressMatch[] | null;
  near: NearMatch | null;
  /** Owner NPIs (`organization`, `_id`); `null` for any. */
  npis: string[] | null;
  /** The exact Location ids asked for (`_id`); `null` for any. */
  ids: string[] | null;
  organizationNames: NameMatch[] | null;
  updated: DaySet | null;
  /** The owners allowed, as a bitmap over provider ids (`organization.type`, `.partof`); `null` or absent for any. */
  owners?: Uint32Array | null;
  /** The owner's flag test. */
  mask: number;
  value: number;
}

/** A sort key: `[owner id, position]`, or `[distance, owner id, position]` with `near`. */
export type LocationKey = number[];

/** Whether key `a` sorts after key `b`. */
export function keyAfter(a: LocationKey, b: LocationKey): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! !== b[i]!) return a[i]! > b[i]!;
  }
  return false;
}

/** A page of secondary rows: the exact total, the rows and their keys. */
export interface SecondaryPage {
  total: number;
  rows: number[];
  keys: LocationKey[];
}

function ownerIds(source: LocationSource, filter: SecondaryFilter): Set<number> | null {
  let owners: Set<number> | null = null;
  if (filter.npis) {
    const lookup = source.db.prepare("SELECT id FROM provider_npi WHERE npi = ?");
    owners = new Set(
      filter.npis.flatMap((npi) => {
        const row = lookup.get(Number(npi)) as { id: number } | undefined;
        return row ? [row.id] : [];
      }),
    );
  }
  if (filter.organizationNames) {
    const { index } = source;
    const named = unionAll(
      filter.organizationNames.map((m) =>
        m.prefix ? index.prefix(FIELD.orgKey, m.key) : index.list(FIELD.orgKey, m.key)
      ),
      index.size + 1,
    );
    const next = new Set<number>();
    for (const id of named) if (!owners || owners.has(id)) next.add(id);
    owners = next;
  }
  return owners;
}

/**
 * The secondary rows meeting `filter`: their number, and the first `limit`
 * after `after` (`null`: from the start) in key order.
 *
 * @example
 * ```ts
 * const page = secondaryRows(source, filter, null, 10);
 * ```
 */
export function secondaryRows(
  source: LocationSource,
  filter: SecondaryFilter,
  after: LocationKey | null,
  limit: number,
): SecondaryPage {
  const { columns: c, index } = source;
  const placeOrOwner = filter.states || filter.cities || filter.postal || filter.addresses ||
    filter.near || filter.npis || filter.ids || filter.organizationNames || filter.owners;
  if (!placeOrOwner && !filter.updated) {
    return everyRow(source, filter.mask, filter.value, after, limit);
  }
  if (!placeOrOwner && filter.updated && !sparseDays(source, filter.updated)) {
    const total = countRows(source, filter.updated, filter.mask, filter.value);
    if (total !== null) return walkUpdated(source, filter, total, after, limit);
  }
  if (filter.near && onlyNear(filter)) return nearestRows(source, filter, after, limit);
  const owners = ownerIds(source, filter);
  const ownerBits = filter.owners ?? null;
  const place = placeTest(c, filter);
  const wanted = filter.ids ? new Set(filter.ids) : null;
  const dayOk = dayTable(filter.updated);
  const days = dayOk ? index.updated : null;
  const flags = index.flags;
  const near = filter.near;
  const boxes = near ? boundingBoxes(near) : null;
  let total = 0;
  const found: { row: number; key: LocationKey }[] = [];
  // With `near`, the page's nearest rows after the key: rows are in (owner, position) order, so
  // (distance, row) sorts as the key (distance, owner, position) does.
  const nearest = near ? new BoundedHeap(limit) : null;
  const circle = near ? new CircleTest(near) : null;
  const candidates = candidateRows(source, filter, boxes, owners);
  const count = candidates ? candidates.length : c.ids.length;
  for (let i = 0; i < count; i++) {
    const k = candidates ? candidates[i]! : i;
    // The circle first: with `near`, most candidates lie outside it.
    const d = circle
      ? circle.distance(c.lat[k]!, c.lon[k]!, after ? Infinity : nearest!.worst())
      : 0;
    if (d === OUTSIDE) continue;
    const id = c.ids[k]!;
    if ((flags[id]! & filter.mask) !== filter.value) continue;
    if (owners && !owners.has(id)) continue;
    if (ownerBits && (ownerBits[id >>> 5]! & (1 << (id & 31))) === 0) continue;
    if (dayOk && dayOk[days![id]!] !== 1) continue;
    if (place && !place(k)) continue;
    if (wanted && !wanted.has(`${npiOf(source, id)}-${c.positions[k]}`)) continue;
    total++;
    if (nearest) {
      if (d !== FAR_INSIDE && (!after || nearAfter(d, id, c.positions[k]!, after))) {
        nearest.offer(d, k);
      }
      continue;
    }
    const key = [id, c.positions[k]!];
    if (after && !keyAfter(key, after)) continue;
    if (found.length < limit) found.push({ row: k, key }); // Rows are in key order without `near`.
  }
  if (nearest) {
    const { d, id: rows } = nearest.sorted();
    return { total, rows, keys: rows.map((k, i) => [d[i]!, c.ids[k]!, c.positions[k]!]) };
  }
  return { total, rows: found.map((f) => f.row), keys: found.map((f) => f.key) };
}

/** Whether `near` and the owners' flags are all a filter asks for. */
function onlyNear(f: SecondaryFilter): boolean {
  return !f.states && !f.cities && !f.postal && !f.addresses && !f.npis && !f.ids &&
    !f.organizationNames && !f.updated && !f.owners;
}

const byPoint = new WeakMap<LocationColumns, PointIndex>();

/** The rows grouped by their point (`points.ts`), built on first use. */
function rowPoints(c: LocationColumns): PointIndex {
  let points = byPoint.get(c);
  if (!points) {
    points = PointIndex.build({ lat: c.lat, lon: c.lon, first: 0, last: c.ids.length - 1 });
    byPoint.set(c, points);
  }
  return points;
}

/**
 * A search with `near` and no other filter but the owners' flags: the
 * points within the circle (`points.ts`) give the total from their counts,
 * and the nearest of them the page, without testing every row of the
 * circle's cells.
 */
function nearestRows(
  source: LocationSource,
  filter: SecondaryFilter,
  after: LocationKey | null,
  limit: number,
): SecondaryPage {
  const c = source.columns, flags = source.index.flags;
  const { mask, value } = filter;
  const points = rowPoints(c);
  const within = pointsWithin(points, filter.near!);
  const total = itemsAt(
    points,
    within,
    mask === 0 ? null : points.countsFor(flags, mask, value, c.ids),
  );
  const heap = new BoundedHeap(limit);
  const { start, items } = points;
  for (const { p, d } of within) {
    if (after && d < after[0]!) continue;
    if (d > heap.worst()) break;
    for (let i = start[p]!; i < start[p + 1]!; i++) {
      const k = items[i]!, id = c.ids[k]!;
      if ((flags[id]! & mask) !== value) continue;
      if (after && !nearAfter(d, id, c.positions[k]!, after)) continue;
      heap.offer(d, k);
    }
  }
  const { d, id: rows } = heap.sorted();
  return { total, rows, keys: rows.map((k, i) => [d[i]!, c.ids[k]!, c.positions[k]!]) };
}

/** Whether the key `[d, id, position]` sorts after `after` (a `near` key). */
function nearAfter(d: number, id: number, position: number, after: LocationKey): boolean {
  if (d !== after[0]) return d > after[0]!;
  return id !== after[1] ? id > after[1]! : position > after[2]!;
}

/** The first row (in owner, then position order) after the cursor key `[owner id, position]`. */
function firstRowAfter(ids: Uint32Array, positions: ArrayLike<number>, after: LocationKey): number {
  let k = firstRowOf(ids, after[0]!);
  while (k < ids.length && ids[k] === after[0] && positions[k]! <= after[1]!) k++;
  return k;
}

const rowCounts = new WeakMap<LocationSource, Map<number, number>>();

/**
 * A search with no filter but the owners' flags: the total counted once per
 * flag test, the page from the first row after the key.
 */
function everyRow(
  source: LocationSource,
  mask: number,
  value: number,
  after: LocationKey | null,
  limit: number,
): SecondaryPage {
  const { ids, positions } = source.columns;
  const flags = source.index.flags;
  let counts = rowCounts.get(source);
  if (!counts) rowCounts.set(source, counts = new Map());
  let total = counts.get(mask * 256 + value);
  if (total === undefined) {
    total = 0;
    for (let k = 0; k < ids.length; k++) if ((flags[ids[k]!]! & mask) === value) total++;
    counts.set(mask * 256 + value, total);
  }
  let k = after ? firstRowAfter(ids, positions, after) : 0;
  const rows: number[] = [], keys: LocationKey[] = [];
  for (; k < ids.length && rows.length < limit; k++) {
    if ((flags[ids[k]!]! & mask) !== value) continue;
    rows.push(k);
    keys.push([ids[k]!, positions[k]!]);
  }
  return { total, rows, keys };
}

const byCell = new WeakMap<LocationColumns, Groups>();
const byState = new WeakMap<LocationColumns, Groups>();
const byCity = new WeakMap<LocationColumns, Groups>();

/** Owners looked up by range (binary search) while there are at most this many. */
const MAX_OWNER_RANGES = 5_000;

/** The first row of owner `id` (or where it would be) in the sorted owner column. */
function firstRowOf(ids: Uint32Array, id: number): number {
  let lo = 0, hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rows of each 0.25° cell (the index's cells; value 0 for rows without a position). */
function cellGroups(c: LocationColumns): Groups {
  let groups = byCell.get(c);
  if (!groups) {
    const cells = new Uint32Array(c.ids.length);
    for (let k = 0; k < cells.length; k++) {
      if (!Number.isNaN(c.lat[k]!)) cells[k] = cellOf(c.lat[k]!, c.lon[k]!) + 1;
    }
    byCell.set(c, groups = group(cells, 720 * 1440));
  }
  return groups;
}

/**
 * The rows worth testing, ascending: those in the cells of the `near`
 * boxes, or of the wanted states; `null` for every row.
 */
function candidateRows(
  source: LocationSource,
  filter: SecondaryFilter,
  boxes: ReturnType<typeof boundingBoxes> | null,
  owners: Set<number> | null,
): Uint32Array | null {
  const c = source.columns;
  let groups: Groups, values: number[];
  if (boxes) {
    groups = cellGroups(c);
    values = [...new Set(boxes.flatMap((b) => cellsIn(b)))].map((cell) => cell + 1);
  } else if (owners && owners.size <= MAX_OWNER_RANGES) {
    // Rows are in owner order: each owner's rows are one range.
    const out: number[] = [];
    for (const id of [...owners].sort((a, b) => a - b)) {
      for (let k = firstRowOf(c.ids, id); k < c.ids.length && c.ids[k] === id; k++) out.push(k);
    }
    return Uint32Array.from(out);
  } else if (filter.cities) {
    groups = byCity.get(c) ?? group(c.city, c.cities.length);
    byCity.set(c, groups);
    values = filter.cities.map((s) => cityNumbers(c).get(s) ?? 0).filter((v) => v > 0);
  } else if (filter.states) {
    groups = byState.get(c) ?? group(c.state, c.states.length);
    byState.set(c, groups);
    values = filter.states.map((s) => c.states.indexOf(s)).filter((v) => v > 0);
  } else if (filter.updated && sparseDays(source, filter.updated)) {
    return dayRows(source, filter.updated);
  } else return null;
  let n = 0;
  for (const v of values) n += groups.offsets[v + 1]! - groups.offsets[v]!;
  const out = new Uint32Array(n);
  let at = 0;
  for (const v of values) {
    const part = groups.rows.subarray(groups.offsets[v]!, groups.offsets[v + 1]!);
    out.set(part, at);
    at += part.length;
  }
  return values.length > 1 ? out.sort() : out;
}

/** A day span's bounds clamped to the day numbers. */
function clampSpan([from, to]: readonly [number, number]): [number, number] {
  return [Math.max(0, Math.min(MAX_DAY + 1, from)), Math.max(0, Math.min(MAX_DAY + 1, to))];
}

/**
 * The rows whose owner's day is in `set`, ascending: the rows of a span of
 * days are one range of the day groups, so a set costs its rows, not its days.
 */
function dayRows(source: LocationSource, set: DaySet): Uint32Array {
  const { offsets, rows } = dayGroups(source);
  const spans = set.map(clampSpan).filter(([lo, hi]) => hi > lo);
  let n = 0;
  for (const [lo, hi] of spans) n += offsets[hi]! - offsets[lo]!;
  const out = new Uint32Array(n);
  let at = 0;
  for (const [lo, hi] of spans) {
    const part = rows.subarray(offsets[lo]!, offsets[hi]!);
    out.set(part, at);
    at += part.length;
  }
  return out.sort();
}

const byDay = new WeakMap<LocationSource, Groups>();

/** The rows grouped by their owner's last-update day (0: none), built once. */
function dayGroups(source: LocationSource): Groups {
  let groups = byDay.get(source);
  if (!groups) {
    const { ids } = source.columns, days = source.index.updated;
    const rowDays = new Uint16Array(ids.length);
    for (let k = 0; k < ids.length; k++) rowDays[k] = days[ids[k]!]!;
    byDay.set(source, groups = group(rowDays, MAX_DAY));
  }
  return groups;
}

/** Whether the rows of `set`'s days are under 1/{@linkcode WALK_DENSITY} of all rows. */
function sparseDays(source: LocationSource, set: DaySet): boolean {
  const { offsets } = dayGroups(source);
  let n = 0;
  for (const [lo, hi] of set.map(clampSpan)) if (hi > lo) n += offsets[hi]! - offsets[lo]!;
  return n * WALK_DENSITY < source.columns.ids.length;
}

/** Flag bits the row histogram is kept by (the owner tests Location searches make). */
const CLASS_BITS = FLAG.active | FLAG.individual | FLAG.organization;
const DAYS = MAX_DAY + 1;
const rowHistograms = new WeakMap<LocationSource, Uint32Array>();

/**
 * How many rows have an owner passing the flag test with a day in `set`,
 * from cumulative counts by owner class and day (built once); `null` when
 * the test uses other bits.
 */
function countRows(
  source: LocationSource,
  set: DaySet,
  mask: number,
  value: number,
): number | null {
  if ((mask & ~CLASS_BITS) !== 0) return null;
  let at = rowHistograms.get(source);
  if (!at) {
    at = new Uint32Array((CLASS_BITS + 1) * (DAYS + 1));
    const { ids } = source.columns, flags = source.index.flags, days = source.index.updated;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      at[(flags[id]! & CLASS_BITS) * (DAYS + 1) + days[id]! + 1]!++;
    }
    for (let c = 0; c <= CLASS_BITS; c++) {
      const base = c * (DAYS + 1);
      for (let d = 1; d <= DAYS; d++) at[base + d]! += at[base + d - 1]!;
    }
    rowHistograms.set(source, at);
  }
  let total = 0;
  for (let c = 0; c <= CLASS_BITS; c++) {
    if ((c & mask) !== value) continue;
    const base = c * (DAYS + 1);
    for (const [from, to] of set) {
      const lo = Math.max(0, Math.min(DAYS, from)), hi = Math.max(0, Math.min(DAYS, to));
      if (hi > lo) total += at[base + hi]! - at[base + lo]!;
    }
  }
  return total;
}

/**
 * A dense `_lastUpdated` alone: the total counted, the page walked from the
 * row after the key, testing each row's owner flags and day.
 */
function walkUpdated(
  source: LocationSource,
  filter: SecondaryFilter,
  total: number,
  after: LocationKey | null,
  limit: number,
): SecondaryPage {
  const { ids, positions } = source.columns;
  const flags = source.index.flags, days = source.index.updated;
  const dayOk = dayTable(filter.updated)!;
  let k = after ? firstRowAfter(ids, positions, after) : 0;
  const rows: number[] = [], keys: LocationKey[] = [];
  for (; k < ids.length && rows.length < limit; k++) {
    const id = ids[k]!;
    if ((flags[id]! & filter.mask) !== filter.value || dayOk[days[id]!] !== 1) continue;
    rows.push(k);
    keys.push([id, positions[k]!]);
  }
  return { total, rows, keys };
}

const cityMaps = new WeakMap<LocationColumns, Map<string, number>>();

/** City name to dictionary number (built once). */
function cityNumbers(c: LocationColumns): Map<string, number> {
  let map = cityMaps.get(c);
  if (!map) cityMaps.set(c, map = new Map(c.cities.map((name, k) => [name, k])));
  return map;
}

/** Marks the dictionary entries `keep` accepts. */
function marks(values: readonly string[], keep: (v: string) => boolean): Uint8Array {
  return Uint8Array.from(values, (v) => (v !== "" && keep(v) ? 1 : 0));
}

/** ZIP ranges `[from, to)` of five-digit prefixes, as the `zip5` column's numbers (value + 1). */
function zipRanges(prefixes: readonly string[]): [number, number][] {
  return prefixes.map((p) => {
    const scale = 10 ** (5 - p.length);
    return [Number(p) * scale + 1, (Number(p) + 1) * scale + 1];
  });
}

/**
 * The test of a row's place (state, city, postal codes, `address`), on
 * dictionary numbers and ZIP numbers; `null` when the filter has none.
 */
function placeTest(
  c: LocationColumns,
  filter: SecondaryFilter,
): ((k: number) => boolean) | null {
  const tests: ((k: number) => boolean)[] = [];
  if (filter.states) {
    const ok = marks(c.states, (s) => filter.states!.includes(s));
    tests.push((k) => ok[c.state[k]!] === 1);
  }
  if (filter.cities) {
    const wanted = new Set(filter.cities.map((s) => cityNumbers(c).get(s) ?? -1));
    tests.push((k) => wanted.has(c.city[k]!));
  }
  const inRanges = (ranges: [number, number][], zip: number) =>
    ranges.some(([from, to]) => zip >= from && zip < to);
  if (filter.postal) {
    const p = filter.postal;
    const zip5 = new Set(p.zip5.map((z) => Number(z) + 1));
    const zip9 = new Set(p.exact.map((z) => Number(z) + 1));
    const ranges = zipRanges(p.prefixes);
    tests.push((k) =>
      zip5.has(c.zip5[k]!) || zip9.has(c.zip9[k]!) ||
      (c.zip5[k] !== 0 && inRanges(ranges, c.zip5[k]!))
    );
  }
  if (filter.addresses) {
    const a = filter.addresses;
    const cityOk = marks(c.cities, (s) => a.some((m) => m.city !== null && s.startsWith(m.city)));
    const stateOk = marks(c.states, (s) => a.some((m) => m.state === s));
    const ranges = zipRanges(a.flatMap((m) => (m.zip ? [m.zip] : [])));
    tests.push((k) =>
      cityOk[c.city[k]!] === 1 || stateOk[c.state[k]!] === 1 ||
      (c.zip5[k] !== 0 && inRanges(ranges, c.zip5[k]!))
    );
  }
  if (tests.length === 0) return null;
  return (k) => tests.every((t) => t(k));
}

const npiCache = new WeakMap<LocationSource, Map<number, string>>();

/** The NPI of provider `id` (for `_id` tests). */
function npiOf(source: LocationSource, id: number): string {
  let cache = npiCache.get(source);
  if (!cache) npiCache.set(source, cache = new Map());
  let npi = cache.get(id);
  if (npi === undefined) {
    const row = source.db.prepare("SELECT npi FROM provider WHERE id = ?").get(id) as
      | { npi: number }
      | undefined;
    npi = row ? String(row.npi) : "";
    if (cache.size > 10_000) cache.clear();
    cache.set(id, npi);
  }
  return npi;
}
