/**
 * A search request, validated and normalised: what the engine executes.
 *
 * @module
 */

import type { AddressScope, RecordCheck } from "./record_check.ts";
import type { NamePattern } from "../store/name_range.ts";

/** Ways results can be ordered. */
export type SortOrder = "relevance" | "distance" | "name";

/** Fields facets can be counted on. */
export type FacetName = "state" | "taxonomy" | "entity_type" | "sex" | "city";

/** One value of a name filter: a folded key, exact or prefix. */
export interface NameMatch {
  key: string;
  prefix: boolean;
}

/** Postal-code filters (any of them matches). */
export interface PostalMatch {
  /** 5-digit ZIPs: match the ZIP and every ZIP+4 in it. */
  zip5: string[];
  /** Full codes (ZIP+4 or foreign), matched exactly. */
  exact: string[];
  /** Prefixes (`212*`). */
  prefixes: string[];
}

/** One FHIR `address` value: any of these parts of the place may start with it. */
export interface AddressMatch {
  /** A city prefix, folded and upper case as stored. */
  city: string | null;
  /** A state code, when the value is one. */
  state: string | null;
  /** A ZIP prefix (2 to 5 digits). */
  zip: string | null;
}

/**
 * Address criteria that one and the same address of a provider must meet,
 * among the addresses `scope` names (the NPI Registry API's `city`, `state`,
 * `postal_code` and `address_purpose`); evaluated on the index's place
 * fields (see `places.ts`).
 */
export interface PlaceMatch {
  scope: AddressScope;
  /** The city, folded and upper case as stored; ending in `*`: a prefix. */
  city: string | null;
  /** An upper-case state code. */
  state: string | null;
  /** Digits: 5 (the ZIP and every ZIP+4 in it) or 9 exact, or a prefix of 2 to 9. */
  postal: { digits: string; prefix: boolean } | null;
}

/** A point and a radius. */
export interface NearMatch {
  lat: number;
  lon: number;
  radius: number;
  unit: "mi" | "km";
}

/**
 * A filter over index columns and lists that the query fields above do not
 * express (see `extra_filters.ts`); the FHIR directory uses them.
 */
export type ExtraFilter =
  /** Last-update day in one of the ranges `[from, to)` (day numbers of `lib/index/updated.ts`). */
  | { kind: "updated"; days: [number, number][] }
  /** Any of these terms of a posting field. */
  | { kind: "terms"; field: number; terms: string[] }
  /** Flags `(flags & mask) === value` and none of these taxonomy codes. */
  | { kind: "without_codes"; codes: string[]; mask: number; value: number };

/** Where a page starts when a cursor is given. */
export interface CursorPosition {
  /** Absolute position of the first result of the page. */
  offset: number;
  /** The sort key of the last result of the previous page. */
  after: number[];
}

/** A validated search. Lists inside one filter are OR; filters are AND. */
export interface SearchQuery {
  /** The words of `q`, folded; `null` without `q`. */
  words: string[] | null;
  npis: number[] | null;
  lastNames: NameMatch[] | null;
  firstNames: NameMatch[] | null;
  organizationNames: NameMatch[] | null;
  /** Any of last, first or organization name (FHIR `name`); absent: no filter. */
  anyNames?: NameMatch[] | null;
  entity: 1 | 2 | null;
  /** Codes from `taxonomy`. */
  taxonomyCodes: string[] | null;
  /** Codes `specialty` resolved to. */
  specialtyCodes: string[] | null;
  /** Cities, folded and upper case as stored; one ending in `*` is a prefix. */
  cities: string[] | null;
  states: string[] | null;
  postal: PostalMatch | null;
  /** FHIR `address` values (OR); absent: no filter. */
  addresses?: AddressMatch[] | null;
  /**
   * Address criteria one address must meet (NPI Registry API); absent: no
   * filter. Only without `words` and `near`.
   */
  places?: PlaceMatch | null;
  near: NearMatch | null;
  sex: "M" | "F" | null;
  includeDeactivated: boolean;
  /** Only deactivated NPIs (FHIR `active=false`); needs `includeDeactivated`. */
  deactivatedOnly?: boolean;
  sort: SortOrder;
  limit: number;
  offset: number;
  cursor: CursorPosition | null;
  facets: FacetName[];
  /**
   * Criteria evaluated over the candidates' records (see `record_check.ts`);
   * absent or `null` for none. Results are then in name order.
   */
  check?: RecordCheck | null;
  /** Only ids from `from` (included) to `to` (excluded); absent or `null` for any. */
  idRange?: { from: number; to: number } | null;
  /**
   * Only providers whose own last name (not another name of theirs) is
   * this, or starts with it (the Registry API's `last_name`): the id range
   * of that name (`lib/store/name_range.ts`), found where the search runs,
   * with `lastNames` as the list it is read off; absent or `null` for any.
   */
  ownLastName?: NamePattern | null;
  /** Further filters, all of which must hold (see {@linkcode ExtraFilter}); absent or `null` for none. */
  extraFilters?: ExtraFilter[] | null;
}

/**
 * A query with every filter off (all providers, deactivated included, in
 * name order, 20 a page) and `parts` on top: for code that builds queries
 * itself rather than from URL parameters (FHIR searches, roster blocking).
 *
 * @example
 * ```ts
 * const query = searchQuery({ states: ["OH"], entity: 1, limit: 40 });
 * ```
 */
export function searchQuery(parts: Partial<SearchQuery> = {}): SearchQuery {
  return {
    words: null,
    npis: null,
    lastNames: null,
    firstNames: null,
    organizationNames: null,
    entity: null,
    taxonomyCodes: null,
    specialtyCodes: null,
    cities: null,
    states: null,
    postal: null,
    near: null,
    sex: null,
    includeDeactivated: true,
    sort: "name",
    limit: 20,
    offset: 0,
    cursor: null,
    facets: [],
    ...parts,
  };
}
