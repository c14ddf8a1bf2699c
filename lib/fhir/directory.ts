/**
 * The FHIR directory over a provider store: read by id and search, on the
 * same engine (and search workers) as `GET /v1/providers/search`. Parsing
 * lives in `./search_params.ts`, resources in `./resources.ts`, the Bundle in
 * `./bundle.ts`; this module joins them to the data.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { HttpError, NotFoundError, ValidationError } from "../http/errors.ts";
import type { SearchIndex } from "../index/reader.ts";
import type { SearchableStore } from "../search/searcher.ts";
import { ReleaseChangedError } from "../search/params.ts";
import type { SearchPool } from "../search/pool.ts";
import {
  type CursorPosition,
  type ExtraFilter,
  type SearchQuery,
  searchQuery,
} from "../search/query.ts";
import { FIELD, FLAG } from "../index/fields.ts";
import { dayNumber } from "../index/updated.ts";
import { inDays } from "./date_search.ts";
import {
  type EndpointFilter,
  endpointMatches,
  endpointRows,
  endpointSource,
  hasChains,
  idsOfNpis,
  ownerBits,
  type OwnerChains,
} from "./endpoint_search.ts";
import { extraFilterList } from "../search/extra_filters.ts";
import {
  keyAfter,
  type LocationKey,
  type LocationSource,
  locationSource,
  secondaryRows,
} from "./location_search.ts";
import type { SearchHit, SearchPage } from "../search/engine.ts";
import {
  CursorError,
  CursorReleaseError,
  type CursorScope,
  decodeCursor,
  encodeCursor,
} from "../search/cursor.ts";
import { clock, type Watch } from "../deadline.ts";
import { resolveSpecialty, type SpecialtyIndex } from "../taxonomy/resolve.ts";
import { distance } from "../geo/zip.ts";
import { nameKey } from "../text/fold.ts";
import type { Provider } from "../provider.ts";
import { ID_FORMS, parseId, type ResourceType } from "./ids.ts";
import {
  type DistanceUnit,
  FhirSearchError,
  type IncludeSpec,
  onlyIds,
  type ParsedSearch,
  parseSearch,
} from "./search_params.ts";
import {
  GROUP_CODES,
  type ProviderResources,
  providerResources,
  type RenderContext,
  type Resource,
} from "./resources.ts";
import { type BundleEntry, searchBundle } from "./bundle.ts";

/** What the directory reads from. */
export interface DirectoryDeps {
  store: SearchableStore;
  /** The release being served: cursors are bound to it. */
  release: string;
  /** Search workers; `null` runs searches on the serving thread. */
  pool: SearchPool | null;
  /** The store's specialty index (for `specialty:text`). */
  specialties: SpecialtyIndex;
}

const contexts = new WeakMap<SearchableStore, RenderContext>();

/**
 * How resources of `store` are rendered: NUCC display names from its code
 * set, and organization subparts' parents found by exact legal name (cached).
 */
export function renderContext(store: SearchableStore): RenderContext {
  let ctx = contexts.get(store);
  if (ctx) return ctx;
  const displays = new Map(store.taxonomy().map((t) => [t.code, t.display]));
  const parents = new Map<string, string | null>();
  ctx = {
    displayOf: (code) => displays.get(code) ?? null,
    parentOf(p) {
      const name = p.organization?.parent_name;
      if (!name) return null;
      const key = nameKey(name);
      if (!key) return null;
      let parent = parents.get(key);
      if (parent === undefined) {
        parent = findParent(store, key);
        if (parents.size >= 10_000) parents.clear();
        parents.set(key, parent);
      }
      return parent === p.npi ? null : parent;
    },
  };
  contexts.set(store, ctx);
  return ctx;
}

/** Most organizations sharing a parent's name that are examined to find it. */
const PARENT_CANDIDATES = 200;

/**
 * The one organization in use, not itself a subpart, whose legal name is
 * `key`; `null` when there is none, more than one, or too many namesakes to
 * tell (subparts often share their parent's legal name).
 */
function findParent(store: SearchableStore, key: string): string | null {
  const query = searchQuery({
    organizationNames: [{ key, prefix: false }],
    entity: 2,
    includeDeactivated: false,
    limit: PARENT_CANDIDATES,
  });
  const page = store.search(query);
  if (page.total > PARENT_CANDIDATES) return null;
  const found = store.getProvidersById(page.hits.map((h) => h.id))
    .map((r) => r.provider)
    .filter((p) => !p.organization?.subpart && nameKey(p.organization?.name ?? "") === key);
  return found.length === 1 ? found[0]!.npi : null;
}

/**
 * Reads one resource. Unknown ids are 404s saying what ids look like; a
 * deactivated NPI of which NPPES publishes nothing else is a 410.
 *
 * @example
 * ```ts
 * const practitioner = readResource(store, "Practitioner", "1234567893");
 * ```
 */
export function readResource(store: SearchableStore, type: ResourceType, id: string): Resource {
  const parsed = parseId(type, id);
  if (!parsed) {
    throw new NotFoundError(
      `No ${type} has id '${id.slice(0, 40)}': ${type} ids are ${ID_FORMS[type]}`,
    );
  }
  const provider = store.getProvider(parsed.npi);
  if (!provider) {
    throw new NotFoundError(`No ${type} has id '${id}': no provider has NPI ${parsed.npi}`);
  }
  if (provider.entity_type === null) {
    throw new HttpError(
      410,
      `NPI ${parsed.npi} was deactivated${
        provider.deactivation_date ? ` on ${provider.deactivation_date}` : ""
      }; NPPES publishes nothing else about it`,
      { type: "gone" },
    );
  }
  const found = resourcesOfType(providerResources(provider, renderContext(store)), type)
    .find((r) => r.id === id);
  if (!found) {
    const other = provider.entity_type === "individual" ? "Practitioner" : "Organization";
    const hint = type === other || type === "Location" || type === "Endpoint"
      ? ""
      : `: NPI ${parsed.npi} is ${
        provider.entity_type === "individual" ? "an individual" : "an organization"
      }, see ${other}/${parsed.npi}`;
    throw new NotFoundError(`No ${type} has id '${id}'${hint}`);
  }
  return found;
}

function resourcesOfType(all: ProviderResources, type: ResourceType): Resource[] {
  switch (type) {
    case "Practitioner":
      return all.practitioner ? [all.practitioner] : [];
    case "Organization":
      return all.organization ? [all.organization] : [];
    case "PractitionerRole":
      return all.role ? [all.role] : [];
    case "Location":
      return all.locations;
    case "Endpoint":
      return all.endpoints;
  }
}

/** The identity of a search for its cursors: everything but `_count` and `_cursor`. */
function searchScope(type: ResourceType, params: URLSearchParams, release: string): CursorScope {
  const entries = [...params].filter(([k]) => k !== "_count" && k !== "_cursor").sort();
  return { query: `fhir|${type}|${JSON.stringify(entries)}`, release };
}

/** What a search request is: the parsed parameters and where it came from. */
export interface SearchRequest {
  type: ResourceType;
  /** The request URL (its query string is the search; `self` and `next` links derive from it). */
  url: URL;
  /** The base of fullUrls, e.g. `https://host/fhir`. */
  base: string;
  watch: Watch;
}

/**
 * The parent name keys of the organizations `partof` names: an
 * organization's subparts are found by the parent name they give, which
 * must be its legal name, and it must be the one organization that name
 * finds (as `partOf` is rendered); organizations that are no parent give
 * none.
 */
function parentKeys(store: SearchableStore, npis: readonly string[]): string[] {
  const keys: string[] = [];
  for (const npi of npis) {
    const p = store.getProvider(npi);
    const key = nameKey(p?.organization?.name ?? "");
    if (!p || p.entity_type !== "organization" || p.organization?.subpart || !key) continue;
    if (findParent(store, key) === npi) keys.push(key);
  }
  return keys;
}

/** The index filters of the FHIR parameters the native query has no field for. */
function extraFilters(search: ParsedSearch, parents: string[] | null): ExtraFilter[] {
  const q = search.query;
  const out: ExtraFilter[] = [];
  if (q.updated) out.push({ kind: "updated", days: q.updated });
  if (parents) out.push({ kind: "terms", field: FIELD.parentKey, terms: parents });
  if (q.orgTypes?.length === 1 && q.orgTypes[0] === "fac") {
    out.push({
      kind: "without_codes",
      codes: [...GROUP_CODES],
      mask: FLAG.organization,
      value: FLAG.organization,
    });
  }
  return out;
}

/**
 * Turns a parsed search into the engine's query; `null` when it matches
 * nothing. `parents` are the name keys `partof` resolved to
 * ({@linkcode parentKeys}).
 */
export function toEngineQuery(
  search: ParsedSearch,
  specialties: SpecialtyIndex,
  cursor: CursorPosition | null,
  parents: string[] | null = null,
): SearchQuery | null {
  const q = search.query;
  if (q.none || parents?.length === 0) return null;
  let specialtyCodes: string[] | null = null;
  if (q.specialtyWords) {
    const codes = new Set<string>();
    for (const words of q.specialtyWords) {
      const resolved = resolveSpecialty(specialties, words);
      if (!resolved.ok) {
        const hint = resolved.suggestions.length
          ? `: did you mean ${resolved.suggestions.map((s) => `'${s}'`).join(", ")}?`
          : ": see /v1/specialties";
        throw new FhirSearchError([{
          parameter: "specialty:text",
          message: `'${words.slice(0, 60)}' is not a known specialty${hint}`,
        }]);
      }
      for (const code of resolved.codes) codes.add(code);
    }
    specialtyCodes = [...codes].sort();
  }
  const type = search.type;
  let npis = q.npis;
  if (type === "Location" && q.ids) {
    // With other filters, the engine finds primary locations ({npi}-0) only.
    const primary = new Set(q.ids.filter((id) => id.endsWith("-0")).map((id) => id.slice(0, 10)));
    npis = (npis ?? []).filter((n) => primary.has(n));
    if (npis.length === 0) return null;
  }
  const organizationOnly = type === "Organization" ||
    (type === "Location" &&
      (q.organizationNames !== null || q.orgTypes !== null || q.partOf !== null)) ||
    (type === "Location" && q.npis !== null && q.ids === null);
  const entity = type === "Practitioner" || type === "PractitionerRole"
    ? 1
    : organizationOnly
    ? 2
    : null;
  // Location searches cover the locations of NPIs in use (see docs/fhir.md); the engine finds the
  // primary ones, `location_search.ts` the secondary ones.
  const includeDeactivated = type === "Location" ? false : q.active !== true;
  return searchQuery({
    npis: npis ? npis.map(Number) : null,
    lastNames: q.lastNames,
    firstNames: q.firstNames,
    organizationNames: q.organizationNames,
    anyNames: q.anyNames,
    entity,
    // `type=prvgrp`: a group practice code (`fac` is the extra filter without them).
    taxonomyCodes: q.orgTypes?.length === 1 && q.orgTypes[0] === "prvgrp"
      ? [...GROUP_CODES]
      : q.taxonomyCodes,
    specialtyCodes,
    cities: q.cities,
    states: q.states,
    postal: q.postal,
    addresses: q.addresses,
    near: q.near
      ? { lat: q.near.lat, lon: q.near.lon, radius: q.near.radius, unit: q.near.unit }
      : null,
    sex: q.sex,
    includeDeactivated,
    deactivatedOnly: q.active === false,
    sort: q.near ? "distance" : "name",
    limit: Math.max(1, search.count),
    cursor,
    extraFilters: extraFilters(search, parents),
  });
}

function invalid(error: FhirSearchError): ValidationError {
  return new ValidationError(error.errors);
}

/**
 * Answers `GET /fhir/{type}?…` with a searchset Bundle: exact `total`, a
 * `next` link while results remain, included resources after the matches.
 *
 * @example
 * ```ts
 * const bundle = await searchResources(deps, { type: "Practitioner", url, base, watch: {} });
 * ```
 */
export async function searchResources(
  deps: DirectoryDeps,
  request: SearchRequest,
): Promise<Record<string, unknown>> {
  const { store } = deps;
  const params = request.url.searchParams;
  let search: ParsedSearch;
  try {
    search = parseSearch(request.type, params);
  } catch (error) {
    if (error instanceof FhirSearchError) throw invalid(error);
    throw error;
  }
  const scope = searchScope(request.type, params, deps.release);
  let cursor: CursorPosition | null = null;
  if (search.cursor) {
    try {
      cursor = decodeCursor(search.cursor, scope);
    } catch (error) {
      // A cursor of an earlier release: 410, as the native search answers (an OperationOutcome here).
      if (error instanceof CursorReleaseError) throw new ReleaseChangedError(error);
      if (!(error instanceof CursorError)) throw error;
      throw new ValidationError([{ parameter: "_cursor", message: error.message }]);
    }
  }
  const ctx = renderContext(store);
  let total: number;
  let matches: { resource: Resource; hit?: SearchHit }[];
  let next: CursorPosition | null;
  const owners = new Map<string, ProviderResources>();
  const own = (p: Provider) => {
    let all = owners.get(p.npi);
    if (!all) {
      all = providerResources(p, ctx);
      owners.set(p.npi, all);
    }
    return all;
  };
  const q = search.query;
  const chains: OwnerChains = {
    names: q.organizationNames,
    orgTypes: q.orgTypes,
    parentKeys: search.type === "Endpoint" && q.partOf ? parentKeys(store, q.partOf) : null,
    addresses: q.addresses,
  };
  const chained = search.type === "Endpoint" && hasChains(chains);
  const owned = (params.has("_id") || params.has("organization")) && !chained;
  const source = search.type === "Endpoint" && !owned ? endpointSource(store) : null;
  if (search.type === "Endpoint" && !owned && !source) {
    throw new ValidationError([{
      parameter: chained ? "organization" : "_id",
      message:
        "this database has no endpoint columns (built before schema 7): Endpoint searches need " +
        "'organization' or '_id', without chains",
    }]);
  }
  if (source) {
    // Endpoints of any owner, from the endpoint columns: the page's rows, then their owners.
    const none = q.none || chains.parentKeys?.length === 0;
    const filter: EndpointFilter = {
      connectionTypes: q.connectionTypes,
      statuses: q.statuses,
      endpointNames: q.endpointNames,
      updated: q.updated,
      organizationsOnly: chained || params.has("organization"),
    };
    if (chained) {
      filter.owners = ownerBits(
        source.index,
        chains,
        () => facOrganizations(source),
        [...GROUP_CODES],
      );
    }
    if (q.npis) {
      // `organization` or `_id`: only these owners (and rows).
      const ids = idsOfNpis(source, q.npis);
      const named = new Uint32Array((source.index.size + 1 >>> 5) + 1);
      for (const id of ids.values()) named[id >>> 5]! |= 1 << (id & 31);
      if (filter.owners) { for (let w = 0; w < named.length; w++) named[w]! &= filter.owners[w]!; }
      filter.owners = named;
      if (q.ids) {
        filter.rowKeys = new Set(q.ids.flatMap((rid) => {
          const id = ids.get(rid.slice(0, 10));
          return id === undefined ? [] : [`${id}-${Number(rid.slice(11))}`];
        }));
      }
    }
    const page = none ? { total: 0, rows: [] } : endpointRows(
      source,
      filter,
      cursor?.after[0] ?? -1,
      search.count,
    );
    const start = cursor?.offset ?? 0;
    total = page.total;
    const { ids, positions } = source.columns;
    const byId = new Map(
      store.getProvidersById([...new Set(page.rows.map((r) => ids[r]!))]).map((
        r,
      ) => [r.id, r.provider]),
    );
    matches = [];
    for (const r of page.rows) {
      const p = byId.get(ids[r]!);
      const resource = p ? own(p).endpoints[positions[r]!] : undefined;
      if (resource) matches.push({ resource });
    }
    const last = page.rows.at(-1);
    next = last !== undefined && start + page.rows.length < total
      ? { offset: start + page.rows.length, after: [last] }
      : null;
  } else if (search.type === "Endpoint" || (search.type === "Location" && onlyIds(params))) {
    // Looked up by id or owner: Endpoints (no index of their own) and Locations by `_id` alone
    // (which finds secondary locations too).
    const found: Resource[] = [];
    const updated = search.query.updated;
    for (const npi of search.query.none ? [] : search.query.npis ?? []) {
      const p = store.getProvider(npi);
      if (!p || (params.has("organization") && p.entity_type !== "organization")) continue;
      if (updated && !inDays(dayNumber(p.last_updated), updated)) continue;
      const all = own(p);
      for (const r of search.type === "Endpoint" ? all.endpoints : all.locations) {
        if (search.query.ids && !search.query.ids.includes(r.id)) continue;
        if (search.type === "Endpoint" && !endpointMatches(r, search.query)) continue;
        found.push(r);
      }
    }
    const start = cursor?.offset ?? 0;
    total = found.length;
    matches = found.slice(start, start + search.count).map((resource) => ({ resource }));
    next = start + search.count < total ? { offset: start + search.count, after: [] } : null;
  } else if (search.type === "Location" && locationSource(store)) {
    ({ total, matches, next } = await searchLocations(
      deps,
      search,
      locationSource(store)!,
      { scope, cursor, watch: request.watch },
      own,
    ));
  } else {
    let query: SearchQuery | null;
    try {
      const parents = search.query.partOf ? parentKeys(store, search.query.partOf) : null;
      if (search.query.endpointOwners) {
        // `endpoint.organization`: the organizations named that manage an endpoint (their own).
        const owners = search.query.endpointOwners.filter((npi) => {
          const p = store.getProvider(npi);
          return p?.entity_type === "organization" && p.endpoints.length > 0;
        });
        applyOwners(search.query, owners);
      }
      query = toEngineQuery(search, deps.specialties, cursor, parents);
    } catch (error) {
      if (error instanceof FhirSearchError) throw invalid(error);
      throw error;
    }
    const page = await enginePage(deps, query, scope, request.watch, search.count > 0);
    total = page.total;
    const hits = search.count === 0 ? [] : page.hits;
    next = search.count === 0 ? null : page.next;
    const byId = providersById(store, hits.map((h) => h.id), page);
    matches = [];
    for (const hit of hits) {
      const p = byId.get(hit.id);
      if (!p) continue;
      const all = own(p);
      const resource = search.type === "Location"
        ? all.locations.find((l) => l.id === `${p.npi}-0`)
        : resourcesOfType(all, search.type)[0];
      if (resource) matches.push({ resource, hit });
    }
  }
  const near = search.query.near;
  // Every Location entry, matched or included, carries its distance from the `near` point.
  const entry = (resource: Resource, mode: "match" | "include"): BundleEntry => {
    const position = resource.position as { latitude: number; longitude: number } | undefined;
    if (!near || !position) return { resource, mode };
    const value = distanceIn(
      near.fhirUnit,
      near.lat,
      near.lon,
      position.latitude,
      position.longitude,
    );
    return { resource, mode, distance: { value, unit: near.fhirUnit } };
  };
  const entries: BundleEntry[] = matches.map(({ resource }) => entry(resource, "match"));
  // A match's own resources are written already: an include of the same provider reuses them.
  const resourcesOf = (npi: string): ProviderResources | null => {
    const known = owners.get(npi);
    if (known) return known;
    const p = store.getProvider(npi);
    return p ? own(p) : null;
  };
  const included = includeResources(
    matches.map((m) => m.resource),
    search.includes,
    search.revincludes,
    resourcesOf,
  );
  for (const resource of included) entries.push(entry(resource, "include"));
  const self = request.url.href;
  let nextUrl: string | null = null;
  if (next) {
    const url = new URL(request.url.href);
    url.searchParams.set("_cursor", encodeCursor(next, scope));
    nextUrl = url.href;
  }
  return searchBundle({ base: request.base, total, entries, self, next: nextUrl });
}

/** Keeps only `npis` among the query's NPIs (none left: no match). */
function applyOwners(q: ParsedSearch["query"], npis: readonly string[]): void {
  q.npis = q.npis === null ? [...npis] : q.npis.filter((n) => npis.includes(n));
  if (q.npis.length === 0) q.none = true;
}

/** The organizations without a group practice code (Plan-Net `fac`), from the filter lists. */
function facOrganizations(source: { db: DatabaseSync; index: SearchIndex }): Uint32Array {
  return extraFilterList({
    kind: "without_codes",
    codes: [...GROUP_CODES],
    mask: FLAG.organization,
    value: FLAG.organization,
  }, source).ids;
}

/**
 * Runs an engine query on the pool, or here without one; `null` matches
 * nothing. With `records`, the pool's worker reads the hits' stored
 * records with the page (`SearchJob.recordsWithPage`), which
 * {@linkcode providersById} decodes: the serving thread, which writes every
 * resource of the bundle, does not read them too.
 */
async function enginePage(
  deps: DirectoryDeps,
  query: SearchQuery | null,
  scope: CursorScope,
  watch: Watch,
  records = false,
): Promise<SearchPage> {
  if (query === null) return { total: 0, hits: [], next: null, offset: 0 };
  return deps.pool
    ? await deps.pool.page(
      { query, cursorScope: scope, startedAt: clock(), recordsWithPage: records },
      watch,
    )
    : deps.store.search(query, watch);
}

/**
 * The providers of `ids`: those whose stored records came with `page`
 * (read by a search worker) decoded, the others read from the store.
 */
function providersById(
  store: SearchableStore,
  ids: readonly number[],
  page: SearchPage,
): Map<number, Provider> {
  const stored = new Map((page.records ?? []).map((r) => [r.id, r]));
  const given = ids.flatMap((id) => stored.get(id) ?? []);
  const missing = ids.filter((id) => !stored.has(id));
  const found = [
    ...(given.length > 0 ? store.getProvidersById(given.map((r) => r.id), given) : []),
    ...(missing.length > 0 ? store.getProvidersById(missing) : []),
  ];
  return new Map(found.map((r) => [r.id, r.provider]));
}

/**
 * A Location search over primary and secondary practice locations: the
 * engine's page of primary ones and the secondary rows' page, merged in key
 * order (owner rank, then position; with `near`, distance first). The
 * cursor's key is the last entry's key plus how many primary ones came
 * before, which is where the engine's own cursor resumes.
 */
async function searchLocations(
  deps: DirectoryDeps,
  search: ParsedSearch,
  source: LocationSource,
  paging: { scope: CursorScope; cursor: CursorPosition | null; watch: Watch },
  own: (p: Provider) => ProviderResources,
): Promise<{ total: number; matches: { resource: Resource }[]; next: CursorPosition | null }> {
  const q = search.query;
  const near = q.near
    ? { lat: q.near.lat, lon: q.near.lon, radius: q.near.radius, unit: q.near.unit }
    : null;
  const width = near ? 3 : 2;
  const { cursor } = paging;
  if (cursor && cursor.after.length !== width + 1) {
    throw new ValidationError([{
      parameter: "_cursor",
      message: "is not a cursor of this search",
    }]);
  }
  const key: LocationKey | null = cursor ? cursor.after.slice(0, width) : null;
  const primaryOffset = cursor ? cursor.after[width]! : 0;
  const engineCursor = key
    ? { offset: primaryOffset, after: near ? [key[0]!, key[1]!] : [key[0]!] }
    : null;
  let query: SearchQuery | null;
  const parents = q.partOf ? parentKeys(deps.store, q.partOf) : null;
  try {
    query = toEngineQuery(search, deps.specialties, engineCursor, parents);
  } catch (error) {
    if (error instanceof FhirSearchError) throw invalid(error);
    throw error;
  }
  const limit = Math.max(1, search.count);
  const primary = await enginePage(deps, query, paging.scope, paging.watch, search.count > 0);
  const organizationOnly = q.organizationNames !== null || q.orgTypes !== null ||
    q.partOf !== null || (q.npis !== null && q.ids === null);
  // `organization.type` and `organization.partof`: the owners the same Organization parameters find.
  const ownerChains: OwnerChains = {
    names: null,
    orgTypes: q.orgTypes,
    parentKeys: parents,
    addresses: null,
  };
  const owners = hasChains(ownerChains)
    ? ownerBits(source.index, ownerChains, () => facOrganizations(source), [...GROUP_CODES])
    : null;
  const secondary = q.none || parents?.length === 0
    ? { total: 0, rows: [], keys: [] }
    : secondaryRows(
      source,
      {
        states: q.states,
        cities: q.cities,
        postal: q.postal,
        addresses: q.addresses,
        near,
        npis: q.npis,
        ids: q.ids,
        organizationNames: q.organizationNames,
        updated: q.updated,
        owners,
        mask: FLAG.active | (organizationOnly ? FLAG.organization : 0),
        value: FLAG.active | (organizationOnly ? FLAG.organization : 0),
      },
      key,
      limit,
    );
  const { index } = source;
  const primaryKey = (id: number): LocationKey =>
    near
      ? [distance(near.lat, near.lon, index.lat[id]!, index.lon[id]!, near.unit), id, 0]
      : [id, 0];
  // Merge the two pages by key.
  const picked: { id: number; position: number; key: LocationKey }[] = [];
  let i = 0, j = 0, primaries = 0;
  const hits = primary.hits;
  while (picked.length < limit && (i < hits.length || j < secondary.rows.length)) {
    const pk = i < hits.length ? primaryKey(hits[i]!.id) : null;
    const sk = j < secondary.rows.length ? secondary.keys[j]! : null;
    if (pk && (!sk || keyAfter(sk, pk))) {
      picked.push({ id: hits[i++]!.id, position: 0, key: pk });
      primaries++;
    } else {
      const row = secondary.rows[j]!;
      picked.push({
        id: source.columns.ids[row]!,
        position: source.columns.positions[row]!,
        key: sk!,
      });
      j++;
    }
  }
  const total = primary.total + secondary.total;
  const start = cursor?.offset ?? 0;
  const shown = search.count === 0 ? [] : picked;
  const last = shown.at(-1);
  const next = last && start + shown.length < total
    ? { offset: start + shown.length, after: [...last.key, primaryOffset + primaries] }
    : null;
  const byId = providersById(deps.store, [...new Set(shown.map((s) => s.id))], primary);
  const matches: { resource: Resource }[] = [];
  for (const s of shown) {
    const p = byId.get(s.id);
    const resource = p && own(p).locations.find((l) => l.id === `${p.npi}-${s.position}`);
    if (resource) matches.push({ resource });
  }
  return { total, matches, next };
}

/** Great-circle distance in a FHIR unit, to the metre. */
function distanceIn(
  unit: DistanceUnit,
  lat1: number,
  lon1: number,
  lat2: number,
  lon2: number,
): number {
  if (unit === "[mi_i]") return Math.round(distance(lat1, lon1, lat2, lon2, "mi") * 1000) / 1000;
  const km = distance(lat1, lon1, lat2, lon2, "km");
  return unit === "m" ? Math.round(km * 1000) : Math.round(km * 1000) / 1000;
}

/** The NPI a resource derives from. */
function npiOf(resource: Resource): string {
  return resource.id.slice(0, 10);
}

/**
 * The resources `_include` and `_revinclude` add: each resource once, none
 * that is already a match. `:iterate` ones also apply to what was included.
 * `resourcesOf` gives a provider's resources by NPI (`null`: none).
 */
export function includeResources(
  matches: readonly Resource[],
  includes: readonly IncludeSpec[],
  revincludes: readonly IncludeSpec[],
  resourcesOf: (npi: string) => ProviderResources | null,
): Resource[] {
  const key = (r: Resource) => `${r.resourceType}/${r.id}`;
  const seen = new Set(matches.map(key));
  const out: Resource[] = [];
  const loaded = new Map<string, ProviderResources | null>();
  const ownOf = (npi: string): ProviderResources | null => {
    let all = loaded.get(npi);
    if (all === undefined) {
      all = resourcesOf(npi);
      loaded.set(npi, all);
    }
    return all;
  };
  const related = (spec: string, reverse: boolean, r: Resource): Resource[] => {
    const mine = ownOf(npiOf(r));
    if (!mine) return [];
    const [source] = spec.split(":");
    if (reverse) {
      switch (spec) {
        case "PractitionerRole:practitioner":
          return r.resourceType === "Practitioner" && mine.role ? [mine.role] : [];
        case "PractitionerRole:location":
          return r.resourceType === "Location" && mine.role ? [mine.role] : [];
        case "Endpoint:organization":
          return r.resourceType === "Organization" ? mine.endpoints : [];
        case "Location:organization":
          return r.resourceType === "Organization" ? mine.locations : [];
        default:
          return [];
      }
    }
    if (r.resourceType !== source) return [];
    switch (spec) {
      case "PractitionerRole:practitioner":
        return mine.practitioner ? [mine.practitioner] : [];
      case "PractitionerRole:location": {
        const ids = new Set(
          (r.location as { reference: string }[] | undefined ?? []).map((l) => l.reference),
        );
        return mine.locations.filter((l) => ids.has(`Location/${l.id}`));
      }
      case "PractitionerRole:endpoint":
      case "Organization:endpoint":
        return mine.endpoints;
      case "Organization:partof": {
        const ref = (r.partOf as { reference?: string } | undefined)?.reference;
        const parent = ref ? ownOf(ref.slice(ref.lastIndexOf("/") + 1)) : null;
        return parent?.organization ? [parent.organization] : [];
      }
      case "Location:organization":
      case "Endpoint:organization":
        return r.managingOrganization && mine.organization ? [mine.organization] : [];
      default:
        return [];
    }
  };
  const round = (pool: readonly Resource[], specs: { spec: IncludeSpec; reverse: boolean }[]) => {
    let added = 0;
    for (const r of pool) {
      for (const { spec, reverse } of specs) {
        for (const found of related(spec.value, reverse, r)) {
          const k = key(found);
          if (seen.has(k)) continue;
          seen.add(k);
          out.push(found);
          added++;
        }
      }
    }
    return added;
  };
  const all = [
    ...includes.map((spec) => ({ spec, reverse: false })),
    ...revincludes.map((spec) => ({ spec, reverse: true })),
  ];
  round(matches, all);
  const iterating = all.filter((s) => s.spec.iterate);
  for (let i = 0; i < 4 && iterating.length; i++) {
    if (round([...matches, ...out], iterating) === 0) break;
  }
  return out;
}
