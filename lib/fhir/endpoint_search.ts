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
import type { DatabaseSync } from "node:sqlite";
import { type EndpointColumns, readEndpointColumns } from "../store/endpoint_columns.ts";
import type { SearchIndex } from "../index/reader.ts";
import { FLAG } from "../index/fields.ts";
import { MAX_DAY } from "../index/updated.ts";
import type { DaySet } from "./date_search.ts";
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
}

/** What an unowned search reads: the endpoint columns and the index's flag and day columns. */
export interface EndpointSource {
  columns: EndpointColumns;
  index: SearchIndex;
}

const sources = new WeakMap<object, EndpointSource | null>();

/**
 * The endpoint columns of a store that has them (a SQLite store of schema 7
 * or later), loaded once; `null` otherwise.
 */
export function endpointSource(store: object): EndpointSource | null {
  if (sources.has(store)) return sources.get(store)!;
  const sqlite = store as { db?: DatabaseSync; index?: SearchIndex };
  let source: EndpointSource | null = null;
  if (sqlite.db && "index" in sqlite) {
    const columns = readEndpointColumns(sqlite.db);
    if (columns) source = { columns, index: sqlite.index! };
  }
  sources.set(store, source);
  return source;
}

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
  let dayOk: Uint8Array | null = null;
  if (filter.updated) {
    dayOk = new Uint8Array(MAX_DAY + 1);
    for (const [from, to] of filter.updated) dayOk.fill(1, from, Math.min(MAX_DAY + 1, to));
  }
  const days = dayOk ? index.updated : null;
  const flags = index.flags;
  const { ids, types } = columns;
  let total = 0;
  const rows: number[] = [];
  for (let r = 0; r < ids.length; r++) {
    if (typeOk[types[r]!] !== 1) continue;
    const id = ids[r]!;
    const active = (flags[id]! & FLAG.active) !== 0;
    if (active ? !wantActive : !wantOff) continue;
    if (dayOk && dayOk[days![id]!] !== 1) continue;
    total++;
    if (r > after && rows.length < limit) rows.push(r);
  }
  return { total, rows };
}
