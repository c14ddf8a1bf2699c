/**
 * Everything the database build needs from one provider record, computed in
 * one pure step (so the import can run it in a parsing worker): its place on
 * the map, its stored form, its rank key and its index entry.
 *
 * @module
 */
import type { Endpoint, Location, OtherLocation, OtherName, Provider } from "../provider.ts";
import { type IndexEntry, indexEntry, locationTerms } from "../index/entry.ts";
import { lookupZip } from "../geo/zip.ts";
import { encodeProvider, packEndpoint, packOtherLocation } from "./codec.ts";
import { packOtherName } from "./sides.ts";
import { sortKey } from "./sort_key.ts";

/** A provider's record ready to be written, without its index entry. */
export type PreparedRecord = Omit<PreparedProvider, "entry">;

/** What the build writes of a record itself (its rank key and index entry go elsewhere). */
export type StoredRecord = Pick<PreparedProvider, "npi" | "doc" | "zipsNotFound">;

/** A provider ready to be written: plain data, cheap to post between threads. */
export interface PreparedProvider {
  npi: number;
  active: boolean;
  /** The name key that orders providers (see {@linkcode sortKey}). */
  sortKey: string;
  /** The practice postal code as stored for exact 9-digit lookups. */
  postal: string | null;
  /** The stored form ({@linkcode encodeProvider}). */
  doc: string;
  entry: IndexEntry;
  /** US practice ZIPs not found in the ZIP dataset (0 or 1). */
  zipsNotFound: number;
}

/**
 * Puts ZIP centroids on `places` (in place); returns how many US postal
 * codes were not found.
 *
 * @example
 * ```ts
 * locatePlaces([provider.practice_location]); // 0 when its ZIP is known
 * ```
 */
export function locatePlaces(places: readonly (Location | null)[]): number {
  let missing = 0;
  for (const place of places) {
    if (!place) continue;
    const us = !place.country_code || place.country_code === "US";
    const zip = us && place.postal_code ? lookupZip(place.postal_code.slice(0, 5)) : null;
    place.lat = zip?.lat ?? null;
    place.lon = zip?.lon ?? null;
    if (us && place.postal_code && !zip) missing++;
  }
  return missing;
}

/** The practice postal code as stored for exact 9-digit lookups (letters and digits only). */
export function postalKey(p: Provider): string | null {
  const code = p.practice_location?.postal_code;
  if (!code) return null;
  // Most codes are letters and digits already: no new string.
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a))) {
      return code.replace(/[^0-9A-Za-z]/g, "") || null;
    }
  }
  return code;
}

/**
 * Locates the practice location of `p` (in place) and derives what the
 * build stores.
 *
 * @example
 * ```ts
 * const prepared = prepareProvider(providerFromRow(fields));
 * prepared.sortKey; // "smith\u0001john\u0001a"
 * ```
 */
export function prepareProvider(p: Provider): PreparedProvider {
  const zipsNotFound = locatePlaces([p.practice_location]);
  return {
    npi: Number(p.npi),
    active: p.status === "active",
    sortKey: sortKey(p),
    postal: postalKey(p),
    doc: encodeProvider(p),
    entry: indexEntry(p),
    zipsNotFound,
  };
}

/**
 * A provider marked deactivated on `date` (the report's date, else its
 * own), unless it was reactivated on or after that date.
 *
 * @example
 * ```ts
 * deactivate(provider, "2024-05-01").status; // "deactivated"
 * ```
 */
export function deactivate(p: Provider, date: string | null): Provider {
  const deactivation_date = date ?? p.deactivation_date;
  if (p.reactivation_date && deactivation_date && p.reactivation_date >= deactivation_date) {
    return p;
  }
  return { ...p, status: "deactivated", deactivation_date };
}

/** The tables of the three reference files. */
export type SideTable = "other_name" | "location" | "endpoint";

/** A reference row ready to be written: plain data, cheap to post between threads. */
export interface PreparedReference {
  table: SideTable;
  npi: number;
  /** The stored form. */
  doc: string;
  /** An other name's text, which the index adds to its record's terms; null for other rows. */
  name: string | null;
  /**
   * Index terms the row adds to its record whatever the record is (a secondary
   * location's state, city and ZIP: {@linkcode locationTerms}); null for other rows.
   */
  terms: (number | string)[] | null;
  /** US ZIPs of a secondary location not found in the ZIP dataset (0 or 1). */
  zipsNotFound: number;
}

/**
 * An other name (othername file) ready to be written.
 *
 * @example
 * ```ts
 * prepareOtherName("1003000126", { type: "former_name", name: "JANE DOE" }).doc;
 * // '["former_name","JANE DOE"]'
 * ```
 */
export function prepareOtherName(npi: string, name: OtherName): PreparedReference {
  return {
    table: "other_name",
    npi: Number(npi),
    doc: packOtherName(name),
    name: name.name,
    terms: null,
    zipsNotFound: 0,
  };
}

/** A secondary practice location (pl file) ready to be written, located by its ZIP (in place). */
export function prepareLocation(npi: string, location: OtherLocation): PreparedReference {
  const zipsNotFound = locatePlaces([location]);
  const doc = JSON.stringify(packOtherLocation(location));
  const terms = locationTerms(location);
  return { table: "location", npi: Number(npi), doc, name: null, terms, zipsNotFound };
}

/** An endpoint (endpoint file) ready to be written. */
export function prepareEndpoint(npi: string, endpoint: Endpoint): PreparedReference {
  const doc = JSON.stringify(packEndpoint(endpoint));
  return { table: "endpoint", npi: Number(npi), doc, name: null, terms: null, zipsNotFound: 0 };
}

/**
 * A record for an NPI known only from the deactivation report.
 *
 * @example
 * ```ts
 * deactivatedStub("1003000126").status; // "deactivated"
 * ```
 */
export function deactivatedStub(npi: string): Provider {
  return {
    npi,
    entity_type: null,
    status: "deactivated",
    name: "",
    individual: null,
    organization: null,
    other_names: [],
    taxonomies: [],
    practice_location: null,
    mailing_address: null,
    other_locations: [],
    identifiers: [],
    endpoints: [],
    replacement_npi: null,
    enumeration_date: null,
    last_updated: null,
    certification_date: null,
    deactivation_date: null,
    reactivation_date: null,
  };
}
