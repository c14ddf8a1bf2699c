/**
 * Endpoint searches without an owner (`Endpoint?connection-type=…`,
 * `status`, `_lastUpdated`): one pass over the endpoint columns
 * (`lib/store/endpoint_columns.ts`, some 7 bytes an endpoint row) counts
 * every match and takes the page after the cursor's row, in the owners'
 * name order. Searches by `organization` or `_id` look their few
 * endpoints up instead and test the rendered resources with
 * {@linkcode endpointMatches}; both tests mean the same.
 *
 * @module
 */
import { type EndpointColumns, readEndpointColumns } from "../store/endpoint_columns.ts";
import { type ColumnSource, columnSource } from "./column_source.ts";
import type { SearchIndex } from "../index/reader.ts";
import { FIELD, FLAG } from "../index/fields.ts";
import { type DaySet, dayTable } from "./date_search.ts";
import type { AddressMatch, NameMatch } from "../search/query.ts";
import { intersectAll, unionAll } from "../index/sorted.ts";
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
  if (chains.addresses) {
    const parts: Uint32Array[] = [];
    for (const a of chains.addresses) {
      if (a.city) parts.push(index.prefix(FIELD.city, a.city));
      if (a.state) parts.push(index.list(FIELD.state, a.state));
      if (a.zip) parts.push(index.prefix(FIELD.zip5, a.zip));
    }
    lists.push(unionAll(parts, universe));
  }
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
  return true;
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
  const owners = filter.owners ?? null, rowKeys = filter.rowKeys ?? null;
  let total = 0;
  const rows: number[] = [];
  for (let r = 0; r < ids.length; r++) {
    if (typeOk[types[r]!] !== 1) continue;
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
