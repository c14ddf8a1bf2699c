/**
 * Endpoint searches without an owner (`Endpoint?connection-type=…`,
 * `status`, `name`, `_lastUpdated`): one pass over the endpoint columns
 * (`lib/store/endpoint_columns.ts`, some 7 bytes an endpoint row) counts
 * every match and takes the page after the cursor's row, in the owners'
 * name order. Searches by `organization` or `_id` look their few
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
import { addressIds } from "../search/engine.ts";
import { connectionType, type Resource } from "./resources.ts";

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

/**
 * The organizations meeting every chained filter, as a bitmap over
 * provider ids, from the index's lists (the lists the engine reads for the
 * same Organization parameters); `extra` gives the list of `fac`
 * organizations.
 */
export function ownerBits(
  index: SearchIndex,
  chains: OwnerChains,
  withoutGroupCodes: () => Uint32Array,
  groupCodes: readonly string[],
): Uint32Array {
  const universe = index.size + 1;
  const lists: Uint32Array[] = [];
  if (chains.names) {
    lists.push(unionAll(
      chains.names.map((m) =>
        m.prefix ? index.prefix(FIELD.orgKey, m.key) : index.list(FIELD.orgKey, m.key)
      ),
      universe,
    ));
  }
  if (chains.orgTypes?.length === 1) {
    lists.push(
      chains.orgTypes[0] === "prvgrp"
        ? unionAll(groupCodes.map((c) => index.list(FIELD.anyCode, c)), universe)
        : withoutGroupCodes(),
    );
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
  const { columns, index } = source;
  const typeOk = Uint8Array.from(columns.typeNames, (name) => {
    if (!filter.connectionTypes) return 1;
    const coding = connectionType({ type: name || null, type_description: null });
    return filter.connectionTypes.some((t) => tokenMatches(t, coding)) ? 1 : 0;
  });
  const wantActive = filter.statuses?.includes("active") ?? true;
  const wantOff = filter.statuses?.includes("off") ?? true;
  const dayOk = dayTable(filter.updated);
  const days = dayOk ? index.updated : null;
  const flags = index.flags;
  const { ids, types, positions } = columns;
  let nameOk: Uint8Array | null = null, nameRows: Uint32Array | null = null;
  if (filter.endpointNames) {
    const names = endpointNames(source);
    const matches = filter.endpointNames;
    nameOk = Uint8Array.from(names.keys, (key) => (nameMeets(key, matches) ? 1 : 0));
    nameRows = names.rows;
  }
  const owners = filter.owners ?? null, rowKeys = filter.rowKeys ?? null;
  let total = 0;
  const rows: number[] = [];
  for (let r = 0; r < ids.length; r++) {
    if (typeOk[types[r]!] !== 1) continue;
    if (nameOk && nameOk[nameRows![r]!] !== 1) continue;
    const id = ids[r]!;
    if (owners && (owners[id >>> 5]! & (1 << (id & 31))) === 0) continue;
    if (filter.organizationsOnly && (flags[id]! & FLAG.organization) === 0) continue;
    if (rowKeys && !rowKeys.has(`${id}-${positions[r]}`)) continue;
    const active = (flags[id]! & FLAG.active) !== 0;
    if (active ? !wantActive : !wantOff) continue;
    if (dayOk && dayOk[days![id]!] !== 1) continue;
    total++;
    if (r > after && rows.length < limit) rows.push(r);
  }
  return { total, rows };
}
