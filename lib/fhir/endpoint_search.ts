/**
 * Endpoint searches without an owner (`Endpoint?connection-type=…`,
 * `status`, `name`, `_lastUpdated`): those by type, status and day alone
 * read the rows grouped by type and day (`endpoint_days.ts`); the others
 * make one pass over the endpoint columns (`lib/store/endpoint_columns.ts`,
 * some 7 bytes an endpoint row), which counts every match and takes the
 * page after the cursor's row, in the owners' name order. Searches by `organization` or `_id` look their few
 * endpoints up instead and test the rendered resources with
 * {@linkcode endpointMatches}; both tests mean the same.
 *
 * `name` tests each row's rendered `Endpoint.name` (NPPES's endpoint
 * description, else its affiliation's name) as a name key, from the name
 * columns the build writes (a dictionary of distinct keys and a number per
 * row). A database written before them has none: the first `name` search
 * of a process then reads the names from the `endpoint` table once (SQLite
 * extracts the two fields, rows in the columns' order) and keeps them.
 *
 * @module
 */
import {
  type EndpointColumns,
  type EndpointNameKeys,
  readEndpointColumns,
} from "../store/endpoint_columns.ts";
import { type ColumnSource, columnSource } from "./column_source.ts";
import type { SearchIndex } from "../index/reader.ts";
import { FIELD, FLAG } from "../index/fields.ts";
import { type DaySet, dayTable } from "./date_search.ts";
import { nameKey } from "../text/fold.ts";
import type { AddressMatch, NameMatch } from "../search/query.ts";
import { intersectAll, unionAll } from "../index/sorted.ts";
import { addressIds, codesUnion } from "../search/engine.ts";
import { type FilterList, filterList, hasBitmap } from "../search/filter_lists.ts";
import { connectionType, type Resource } from "./resources.ts";
import { EndpointDayOrder } from "./endpoint_days.ts";
import { group, type Groups } from "./groups.ts";

/** A token of `connection-type`: an optional system and a code. */
export interface CodingToken {
  system: string | null;
  code: string;
}

/** What an Endpoint search asks of each endpoint besides its owner. */
export interface EndpointFilter {
  connectionTypes: CodingToken[] | null;
  /** `active` (owner's NPI in use) or `off` (deactivated); `null` for either. */
  statuses: ("active" | "off")[] | null;
  updated: DaySet | null;
  /** `name` matches of the rendered `Endpoint.name`; `null` (or absent) for any. */
  endpointNames?: NameMatch[] | null;
  /** The owners allowed, as a bitmap over provider ids (bit `id`); `null` for any. */
  owners?: Uint32Array | null;
  /** The rows allowed, as `{owner id}-{position}` (`_id`); `null` for any. */
  rowKeys?: Set<string> | null;
  /** Only endpoints of organizations (a chained or `organization` filter). */
  organizationsOnly?: boolean;
}

/** The chained owner filters of an Endpoint search (`organization.name`, `.type`, …). */
export interface OwnerChains {
  names: NameMatch[] | null;
  /** Plan-Net organization types asked for; `null` for any. */
  orgTypes: ("prvgrp" | "fac")[] | null;
  /** Parent name keys `organization.partof` resolved to; `null` for no filter. */
  parentKeys: string[] | null;
  addresses: AddressMatch[] | null;
}

/** Per index, the organizations of each Plan-Net type, with their bitmap: made on first use. */
const typedOrganizations = new WeakMap<SearchIndex, Map<string, FilterList>>();

/**
 * The organizations meeting every chained filter, as a bitmap over
 * provider ids, from the index's lists (the lists the engine reads for the
 * same Organization parameters); `withoutGroupCodes` gives the list of
 * `fac` organizations. The bitmap may be shared: callers must not change it.
 */
export function ownerBits(
  index: SearchIndex,
  chains: OwnerChains,
  withoutGroupCodes: () => Uint32Array,
  groupCodes: readonly string[],
): Uint32Array {
  const universe = index.size + 1;
  const lists: Uint32Array[] = [];
  if (chains.orgTypes?.length === 1) {
    // The same two lists for every search: a union of millions of ids, kept with its bitmap.
    const type = chains.orgTypes[0]!;
    let byType = typedOrganizations.get(index);
    if (!byType) typedOrganizations.set(index, byType = new Map());
    let typed = byType.get(type);
    if (!typed) {
      const ids = type === "prvgrp" ? codesUnion(index, groupCodes) : withoutGroupCodes();
      byType.set(type, typed = filterList(ids, universe));
    }
    const alone = !chains.names && !chains.parentKeys && !chains.addresses;
    if (alone && hasBitmap(typed)) return typed.bits!;
    lists.push(typed.ids);
  }
  if (chains.names) {
    lists.push(unionAll(
      chains.names.map((m) =>
        m.prefix ? index.prefix(FIELD.orgKey, m.key) : index.list(FIELD.orgKey, m.key)
      ),
      universe,
    ));
  }
  if (chains.parentKeys) {
    lists.push(unionAll(chains.parentKeys.map((k) => index.list(FIELD.parentKey, k)), universe));
  }
  if (chains.addresses) lists.push(addressIds(index, chains.addresses));
  const bits = new Uint32Array((universe >>> 5) + 1);
  if (lists.length === 0) return bits.fill(0xffffffff);
  for (const id of intersectAll(lists)) bits[id >>> 5]! |= 1 << (id & 31);
  return bits;
}

/**
 * Provider ids by NPI (`provider_npi`), for owners named by `organization`
 * or `_id`; NPIs without a record are left out.
 */
export function idsOfNpis(source: EndpointSource, npis: readonly string[]): Map<string, number> {
  const lookup = source.db.prepare("SELECT id FROM provider_npi WHERE npi = ?");
  const out = new Map<string, number>();
  for (const npi of npis) {
    const row = lookup.get(Number(npi)) as { id: number } | undefined;
    if (row) out.set(npi, row.id);
  }
  return out;
}

/** Whether any chained owner filter is set. */
export function hasChains(chains: OwnerChains): boolean {
  return Boolean(chains.names || chains.orgTypes || chains.parentKeys || chains.addresses);
}

/** What an unowned search reads: the endpoint columns and the index's flag and day columns. */
export type EndpointSource = ColumnSource<EndpointColumns>;

/**
 * The endpoint columns of a store that has them (a SQLite store of schema 7
 * or later), loaded once; `null` otherwise.
 */
export const endpointSource: (store: object) => EndpointSource | null = columnSource(
  readEndpointColumns,
);

function tokenMatches(token: CodingToken, coding: Record<string, unknown>): boolean {
  return coding.code === token.code && (!token.system || coding.system === token.system);
}

/**
 * Whether a rendered Endpoint meets the filter's connection types and
 * statuses (its owner's last update is tested by the caller).
 */
export function endpointMatches(resource: Resource, filter: EndpointFilter): boolean {
  if (filter.connectionTypes) {
    const coding = resource.connectionType as Record<string, unknown>;
    if (!filter.connectionTypes.some((t) => tokenMatches(t, coding))) return false;
  }
  if (filter.statuses && !filter.statuses.includes(resource.status as "active" | "off")) {
    return false;
  }
  if (filter.endpointNames) {
    const key = typeof resource.name === "string" ? nameKey(resource.name) : "";
    if (!nameMeets(key, filter.endpointNames)) return false;
  }
  return true;
}

/** Whether a name key meets one of the matches (a prefix, or the whole key). */
function nameMeets(key: string, matches: readonly NameMatch[]): boolean {
  return key !== "" && matches.some((m) => (m.prefix ? key.startsWith(m.key) : key === m.key));
}

/** Names' rows are read from their groups, not by a pass over every row, under 1/this of the rows. */
const ROWS_BELOW = 8;

/**
 * The endpoint rows' name keys in key order, and the rows of each name:
 * a `name` search finds its keys by binary search, not by testing each.
 *
 * @example
 * ```ts
 * const names = new EndpointNameIndex({ keys: ["", "directmail", "portal"], rows: Uint32Array.of(2, 0, 1) });
 * names.rowsOf(names.numbers([{ key: "dir", prefix: true }]), Infinity); // [1]
 * ```
 */
export class EndpointNameIndex {
  /** Key numbers in key order. */
  readonly #sorted: Uint32Array;
  readonly #keys: readonly string[];
  /** The rows of each key number. */
  readonly #groups: Groups;
  /** The key number of each row. */
  readonly rows: Uint32Array;

  constructor(names: EndpointNameKeys) {
    this.#keys = names.keys;
    this.rows = names.rows;
    const order = Array.from({ length: names.keys.length }, (_, n) => n);
    order.sort((
      a,
      b,
    ) => (names.keys[a]! < names.keys[b]! ? -1 : names.keys[a]! > names.keys[b]! ? 1 : 0));
    this.#sorted = Uint32Array.from(order);
    this.#groups = group(names.rows, names.keys.length - 1);
  }

  /** 1 for each key number meeting one of the matches, else 0. */
  numbers(matches: readonly NameMatch[]): Uint8Array {
    const out = new Uint8Array(this.#keys.length);
    for (const m of matches) {
      // The keys a match meets are one run in key order ("" names nothing).
      for (let i = this.#firstAtLeast(m.key); i < this.#sorted.length; i++) {
        const n = this.#sorted[i]!, key = this.#keys[n]!;
        if (key === "") continue;
        if (m.prefix ? !key.startsWith(m.key) : key !== m.key) break;
        out[n] = 1;
      }
    }
    return out;
  }

  /**
   * The rows of the marked key numbers, ascending; `null` when they number
   * `most` or more and lie in several groups (to be sorted).
   */
  rowsOf(marked: Uint8Array, most: number): Uint32Array | null {
    const { offsets, rows } = this.#groups;
    let n = 0, parts = 0, only = 0;
    for (let k = 0; k < marked.length; k++) {
      if (marked[k] === 1) {
        n += offsets[k + 1]! - offsets[k]!;
        parts++;
        only = k;
      }
    }
    if (parts <= 1) return rows.subarray(offsets[only]!, offsets[only]! + n);
    if (n >= most) return null;
    const out = new Uint32Array(n);
    let at = 0;
    for (let k = 0; k < marked.length; k++) {
      if (marked[k] !== 1) continue;
      out.set(rows.subarray(offsets[k]!, offsets[k + 1]!), at);
      at += offsets[k + 1]! - offsets[k]!;
    }
    return parts > 1 ? out.sort() : out;
  }

  /** The first position in key order whose key is at least `key`. */
  #firstAtLeast(key: string): number {
    let lo = 0, hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#keys[this.#sorted[mid]!]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const nameIndexes = new WeakMap<EndpointSource, EndpointNameIndex>();

/** The source's endpoint name index, made on first use. */
function nameIndex(source: EndpointSource): EndpointNameIndex {
  let index = nameIndexes.get(source);
  if (!index) nameIndexes.set(source, index = new EndpointNameIndex(endpointNames(source)));
  return index;
}

const namesOf = new WeakMap<EndpointSource, EndpointNameKeys>();

/**
 * The name key of each endpoint row's rendered `Endpoint.name`: the
 * build's name columns, or (a database written before them) read from the
 * `endpoint` table once per source, in the order the build wrote the
 * columns (owner id, then file order). Throws when the table and the
 * columns disagree (a database written by another build).
 */
export function endpointNames(source: EndpointSource): EndpointNameKeys {
  if (source.columns.names) return source.columns.names;
  let names = namesOf.get(source);
  if (names) return names;
  const rows = source.db.prepare(
    "SELECT coalesce(json_extract(e.doc, '$[3]'), json_extract(e.doc, '$[5]')) AS name " +
      "FROM endpoint e JOIN provider_npi p ON p.npi = e.npi ORDER BY p.id, e.rowid",
  );
  const numbers = new Map<string, number>([["", 0]]);
  const keys = [""];
  const out = new Uint32Array(source.columns.ids.length);
  let k = 0;
  for (const row of rows.iterate()) {
    if (k >= out.length) break;
    const name = (row as { name: unknown }).name;
    const key = typeof name === "string" ? nameKey(name) : "";
    let n = numbers.get(key);
    if (n === undefined) {
      n = keys.length;
      keys.push(key);
      numbers.set(key, n);
    }
    out[k++] = n;
  }
  if (k !== out.length) {
    throw new Error(
      `The endpoint table has ${k} rows with a record, the endpoint columns ${out.length}: import again`,
    );
  }
  names = { keys, rows: out };
  namesOf.set(source, names);
  return names;
}

/** Each endpoint row's owner's last-update day and index flags, by row. */
interface RowOwners {
  days: Uint16Array;
  flags: Uint8Array;
}

const rowOwnersOf = new WeakMap<EndpointSource, RowOwners>();

/**
 * The owners' days and flags copied to the rows once (3 bytes a row): a
 * search reads them in row order instead of at each owner's id.
 */
function rowOwners(source: EndpointSource): RowOwners {
  let owners = rowOwnersOf.get(source);
  if (!owners) {
    const { ids } = source.columns, { updated, flags } = source.index;
    owners = { days: new Uint16Array(ids.length), flags: new Uint8Array(ids.length) };
    for (let r = 0; r < ids.length; r++) {
      owners.days[r] = updated[ids[r]!]!;
      owners.flags[r] = flags[ids[r]!]!;
    }
    rowOwnersOf.set(source, owners);
  }
  return owners;
}

const dayOrders = new WeakMap<EndpointSource, EndpointDayOrder>();

/** The source's rows by type and day, made on first use. */
function dayOrder(source: EndpointSource): EndpointDayOrder {
  let order = dayOrders.get(source);
  if (!order) {
    const { types, typeNames } = source.columns;
    order = new EndpointDayOrder({ types, typeCount: typeNames.length, ...rowOwners(source) });
    dayOrders.set(source, order);
  }
  return order;
}

/** A page of endpoint rows: the exact total and the rows (indexes into the columns). */
export interface EndpointRowPage {
  total: number;
  rows: number[];
}

/**
 * Every endpoint row meeting the filter: their number, and up to `limit`
 * of them after row `after` (-1: from the start).
 *
 * @example
 * ```ts
 * const page = endpointRows(source, { connectionTypes: [{ system: null, code: "hl7-fhir-rest" }], statuses: null, updated: null }, -1, 10);
 * ```
 */
export function endpointRows(
  source: EndpointSource,
  filter: EndpointFilter,
  after: number,
  limit: number,
): EndpointRowPage {
  const { columns } = source;
  const typeOk = Uint8Array.from(columns.typeNames, (name) => {
    if (!filter.connectionTypes) return 1;
    const coding = connectionType({ type: name || null, type_description: null });
    return filter.connectionTypes.some((t) => tokenMatches(t, coding)) ? 1 : 0;
  });
  const wantActive = filter.statuses?.includes("active") ?? true;
  const wantOff = filter.statuses?.includes("off") ?? true;
  const owners = filter.owners ?? null, rowKeys = filter.rowKeys ?? null;
  if (!filter.endpointNames && !owners && !rowKeys && !filter.organizationsOnly) {
    const byDay = { types: typeOk, wantActive, wantOff, updated: filter.updated };
    return dayOrder(source).page(byDay, after, limit);
  }
  const dayOk = dayTable(filter.updated);
  const { days, flags } = rowOwners(source);
  const { ids, types, positions } = columns;
  let nameOk: Uint8Array | null = null, nameRows: Uint32Array | null = null;
  let candidates: Uint32Array | null = null;
  if (filter.endpointNames) {
    const names = nameIndex(source);
    nameOk = names.numbers(filter.endpointNames);
    nameRows = names.rows;
    // Names are mostly distinct: their rows, when few, are the rows to test.
    candidates = names.rowsOf(nameOk, ids.length / ROWS_BELOW);
  }
  let total = 0;
  const rows: number[] = [];
  const count = candidates ? candidates.length : ids.length;
  for (let i = 0; i < count; i++) {
    const r = candidates ? candidates[i]! : i;
    if (typeOk[types[r]!] !== 1) continue;
    if (nameOk && nameOk[nameRows![r]!] !== 1) continue;
    const id = ids[r]!;
    if (owners && (owners[id >>> 5]! & (1 << (id & 31))) === 0) continue;
    if (filter.organizationsOnly && (flags[r]! & FLAG.organization) === 0) continue;
    if (rowKeys && !rowKeys.has(`${id}-${positions[r]}`)) continue;
    const active = (flags[r]! & FLAG.active) !== 0;
    if (active ? !wantActive : !wantOff) continue;
    if (dayOk && dayOk[days[r]!] !== 1) continue;
    total++;
    if (r > after && rows.length < limit) rows.push(r);
  }
  return { total, rows };
}
