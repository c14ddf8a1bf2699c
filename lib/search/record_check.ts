/**
 * Filters evaluated over provider records rather than the search index: the
 * criteria of the NPI Registry API that the index does not hold (the country
 * of an address, authorized officials' names), and the confirmation of an
 * address match the index cannot tell for sure (city, state and ZIP of one
 * and the same secondary location, a ZIP+4 outside the primary location).
 * The engine applies them to the candidates its posting lists leave, so
 * their cost grows with the candidates, not the dataset.
 *
 * A check is plain data (it crosses to a search worker by structured clone
 * and is part of the result cache's key).
 *
 * @module
 */
import type { Address, Provider } from "../provider.ts";
import { foldText, nameKey } from "../text/fold.ts";
import { placeCity, placeState } from "../index/entry.ts";
import type { PlaceMatch } from "./query.ts";

/** A folded value to compare, exactly or as a prefix. */
export interface TextMatch {
  /** Folded key ({@linkcode nameKey}: lower case, no punctuation or spaces). */
  key: string;
  prefix: boolean;
}

/** Which addresses an address check looks at. */
export type AddressScope = "primary" | "mailing" | "secondary" | "any";

/** Criteria that one address must meet, all of them. */
export interface AddressCheck {
  scope: AddressScope;
  city: TextMatch | null;
  /** Upper-case state code. */
  state: string | null;
  /** Digits; a 5-digit exact value also matches the ZIP+4 codes in it. */
  postal: { digits: string; prefix: boolean } | null;
  /** Upper-case country code. */
  country: string | null;
}

/** The authorized official's names (organizations only). */
export interface OfficialCheck {
  /** Any of these first names (nickname aliases already expanded). */
  first: TextMatch[] | null;
  last: TextMatch | null;
}

/** What a record must also meet to be a result. */
export interface RecordCheck {
  address: AddressCheck | null;
  official: OfficialCheck | null;
  /** Address criteria compared as the index compares them (see {@linkcode placeMatches}). */
  place?: PlaceMatch | null;
}

function matches(value: string | null | undefined, match: TextMatch): boolean {
  if (!value) return false;
  const key = nameKey(value);
  return match.prefix ? key.startsWith(match.key) : key === match.key;
}

function postalMatches(value: string | null, postal: { digits: string; prefix: boolean }): boolean {
  if (!value) return false;
  const digits = value.replace(/[^0-9A-Za-z]/g, "");
  if (postal.prefix) return digits.startsWith(postal.digits);
  if (postal.digits.length === 5) return digits.length >= 5 && digits.slice(0, 5) === postal.digits;
  return digits === postal.digits;
}

/**
 * Whether one address meets every criterion of `check`.
 *
 * @example
 * ```ts
 * addressMatches({ city: "BALTIMORE", state: "MD", postal_code: "212392905" } as Address,
 *   { scope: "mailing", city: { key: "balt", prefix: true }, state: "MD", postal: null, country: null }); // true
 * ```
 */
export function addressMatches(address: Address | null, check: AddressCheck): boolean {
  if (!address) return false;
  if (check.state !== null && (address.state ?? "").toUpperCase() !== check.state) return false;
  // An address without a country code is a US one (the files leave it empty for US addresses).
  if (check.country !== null && (address.country_code || "US").toUpperCase() !== check.country) {
    return false;
  }
  if (check.city !== null && !matches(foldText(address.city ?? ""), check.city)) return false;
  if (check.postal !== null && !postalMatches(address.postal_code, check.postal)) return false;
  return true;
}

/**
 * Whether one address meets a {@linkcode PlaceMatch}, its values compared
 * as the index's place fields hold them (state upper case, city folded
 * upper case, the ZIP's first five digits; a 9-digit code or a longer
 * prefix against the code's letters and digits).
 *
 * @example
 * ```ts
 * placeMatches({ city: "Baltimore", state: "md", postal_code: "212392905" } as Address,
 *   { scope: "any", city: "BALT*", state: "MD", postal: { digits: "21239", prefix: false } }); // true
 * ```
 */
export function placeMatches(address: Address | null, place: PlaceMatch): boolean {
  if (!address) return false;
  if (place.state !== null && placeState(address) !== place.state) return false;
  if (place.city !== null) {
    const city = placeCity(address);
    if (city === null) return false;
    const wanted = place.city;
    if (wanted.endsWith("*") ? !city.startsWith(wanted.slice(0, -1)) : city !== wanted) {
      return false;
    }
  }
  if (place.postal !== null && !postalMatches(address.postal_code?.trim() ?? null, place.postal)) {
    return false;
  }
  return true;
}

/** The addresses of `p` an address check of `scope` looks at. */
function addressesIn(p: Provider, scope: AddressScope): (Address | null)[] {
  switch (scope) {
    case "primary":
      return [p.practice_location];
    case "mailing":
      return [p.mailing_address];
    case "secondary":
      return p.other_locations;
    case "any":
      return [p.mailing_address, p.practice_location, ...p.other_locations];
  }
}

/**
 * Whether a provider record meets a check.
 *
 * @example
 * ```ts
 * passesCheck(provider, { address: null, official: { first: null, last: { key: "smith", prefix: false } } });
 * ```
 */
export function passesCheck(p: Provider, check: RecordCheck): boolean {
  if (check.address) {
    const address = check.address;
    if (!addressesIn(p, address.scope).some((a) => addressMatches(a, address))) return false;
  }
  if (check.place) {
    const place = check.place;
    if (!addressesIn(p, place.scope).some((a) => placeMatches(a, place))) return false;
  }
  if (check.official) {
    const ao = p.organization?.authorized_official;
    if (!ao) return false;
    const { first, last } = check.official;
    if (last && !matches(ao.last_name, last)) return false;
    if (first && !first.some((m) => matches(ao.first_name, m))) return false;
  }
  return true;
}
