/**
 * What one provider contributes to the search index, computed apart from
 * the index itself: a plain, structured-clone-friendly value, so that the
 * import can derive it in a parsing worker and the index builder only
 * appends it.
 *
 * @module
 */
import type { Address, Provider } from "../provider.ts";
import { foldText, nameKey, nameTokens } from "../text/fold.ts";
import { FIELD, FLAG, MANY_LOCATIONS, stateCityTerm } from "./fields.ts";
import { digitsValue } from "../text/digits.ts";
import { credentialTokens } from "../text/credentials.ts";
import { dayNumber } from "./updated.ts";

/** A provider's index terms and column values. */
export interface IndexEntry {
  /** Posting terms as flat pairs: field number, then term. */
  terms: (number | string)[];
  /** {@linkcode FLAG} bits. */
  flags: number;
  /** Practice state, upper case, or null. */
  state: string | null;
  /** Practice city, folded upper case, or null. */
  city: string | null;
  /** Practice ZIP (5 digits) as a number plus one; 0 when there is none. */
  zip: number;
  /** Mailing address state, upper case, or null. */
  mailState: string | null;
  /** Mailing address city, folded upper case, or null. */
  mailCity: string | null;
  /** Mailing address ZIP (5 digits) as a number plus one; 0 when there is none. */
  mailZip: number;
  /** Practice coordinates; NaN when unknown. */
  lat: number;
  lon: number;
  /** Taxonomy codes, primary first, without repeats. */
  codes: string[];
  /** 1 where the code at the same position is primary. */
  primary: number[];
  /** Day of the last update (see `updated.ts`); 0 when unknown. */
  updated: number;
}

/** What kind of name owner other names belong to; it decides which name keys they give. */
export type NameOwner = "individual" | "organization" | null;

function push(terms: (number | string)[], field: number, values: Iterable<string>): void {
  for (const value of values) if (value) terms.push(field, value);
}

/**
 * Appends to `terms` the terms an other name adds: its words, and name keys
 * (a person's: first and last word; an organization's: the whole name).
 *
 * @example
 * ```ts
 * otherNameTerms("JANE DOE", "individual"); // [field, "jane", field, "doe", ...]
 * ```
 */
export function otherNameTerms(
  name: string,
  owner: NameOwner,
  terms: (number | string)[] = [],
): (number | string)[] {
  push(terms, FIELD.other, nameTokens(name));
  if (owner === "individual") {
    const parts = name.split(/\s+/).filter((w) => w);
    push(terms, FIELD.firstKey, [nameKey(parts[0] ?? "")]);
    push(terms, FIELD.lastKey, [nameKey(parts.at(-1) ?? "")]);
  } else if (owner === "organization") {
    push(terms, FIELD.orgKey, [nameKey(name)]);
  }
  return terms;
}

/**
 * The initials of given names (first and middle), without repeats: `p`
 * and `b` for `PAUL BYRON`.
 *
 * @example
 * ```ts
 * initials("PAUL BYRON"); // ["p", "b"]
 * ```
 */
export function initials(given: string): string[] {
  const out = new Set<string>();
  for (const word of foldText(given).split(" ")) if (word) out.add(word[0]!);
  return [...out];
}

/** The number of a postal code's first five digits plus one; 0 when it does not start with five. */
function zipNumber(postal: string): number {
  return digitsValue(postal, 0, 5) + 1;
}

/**
 * An address's state as indexed: upper case, or null.
 *
 * @example
 * ```ts
 * placeState({ state: "md" } as Address); // "MD"
 * ```
 */
export function placeState(a: Address | null): string | null {
  return a?.state?.toUpperCase() || null;
}

/**
 * An address's city as indexed: folded, upper case, or null.
 *
 * @example
 * ```ts
 * placeCity({ city: "Coeur d'Alene" } as Address); // "COEUR DALENE"
 * ```
 */
export function placeCity(a: Address | null): string | null {
  return a?.city ? foldText(a.city).toUpperCase() || null : null;
}

/**
 * An address's ZIP as indexed: its first five digits, or null when its
 * postal code does not start with five digits.
 *
 * @example
 * ```ts
 * placeZip5({ postal_code: "212392905" } as Address); // "21239"
 * ```
 */
export function placeZip5(a: Address | null): string | null {
  const zip = zipNumber(a?.postal_code?.trim() ?? "");
  return zip === 0 ? null : String(zip - 1).padStart(5, "0");
}

/**
 * The posting terms a secondary practice location (pl file) adds to its
 * provider: its state, city and ZIP, and its state and city together.
 *
 * @example
 * ```ts
 * locationTerms({ city: "Rockville", state: "MD", postal_code: "20852" } as Address);
 * // [FIELD.otherState, "MD", FIELD.otherCity, "ROCKVILLE", FIELD.otherZip5, "20852",
 * //  FIELD.otherStateCity, "MD|ROCKVILLE"]
 * ```
 */
export function locationTerms(a: Address): (number | string)[] {
  const terms: (number | string)[] = [];
  const state = placeState(a), city = placeCity(a);
  push(terms, FIELD.otherState, [state ?? ""]);
  push(terms, FIELD.otherCity, [city ?? ""]);
  push(terms, FIELD.otherZip5, [placeZip5(a) ?? ""]);
  if (state && city) push(terms, FIELD.otherStateCity, [stateCityTerm(state, city)]);
  return terms;
}

/** The posting term of a provider with two or more secondary practice locations. */
export const MANY_LOCATIONS_TERMS: readonly (number | string)[] = [FIELD.otherMany, MANY_LOCATIONS];

/** The owner kind of a provider's names. */
export function nameOwner(p: Provider): NameOwner {
  return p.individual ? "individual" : p.organization ? "organization" : null;
}

/**
 * The index entry of a provider (its practice location already located).
 *
 * @example
 * ```ts
 * const entry = indexEntry(provider);
 * entry.flags & FLAG.active; // non-zero for an active provider
 * ```
 */
export function indexEntry(p: Provider): IndexEntry {
  const ind = p.individual, org = p.organization;
  const terms: (number | string)[] = [];
  push(terms, FIELD.surname, nameTokens(ind ? ind.last_name ?? "" : org?.name ?? ""));
  if (ind) {
    const given = ind.middle_name
      ? `${ind.first_name ?? ""} ${ind.middle_name}`
      : ind.first_name ?? "";
    push(terms, FIELD.given, nameTokens(given));
    push(terms, FIELD.initial, initials(given));
    push(terms, FIELD.credential, [
      ...credentialTokens(ind.prefix),
      ...credentialTokens(ind.credential),
    ]);
  }
  const loc = p.practice_location;
  push(terms, FIELD.place, nameTokens(loc?.city ?? ""));
  if (ind) {
    push(terms, FIELD.lastKey, [nameKey(ind.last_name ?? "")]);
    push(terms, FIELD.firstKey, [nameKey(ind.first_name ?? "")]);
  } else if (org) {
    push(terms, FIELD.orgKey, [nameKey(org.name ?? "")]);
    if (org.subpart && org.parent_name) push(terms, FIELD.parentKey, [nameKey(org.parent_name)]);
  }
  const owner = nameOwner(p);
  for (const o of p.other_names) otherNameTerms(o.name, owner, terms);
  let flags = p.status === "active" ? FLAG.active : 0;
  if (p.entity_type === "individual") flags |= FLAG.individual;
  if (p.entity_type === "organization") flags |= FLAG.organization;
  if (ind?.sex === "M") flags |= FLAG.male;
  if (ind?.sex === "F") flags |= FLAG.female;
  if (ind?.prefix) flags |= FLAG.titled;
  if (ind?.credential) flags |= FLAG.credentialed;
  const located = loc?.lat != null && loc.lon != null;
  const codes: string[] = [];
  const primary: number[] = [];
  for (const wantPrimary of [true, false]) {
    for (const t of p.taxonomies) {
      if (t.primary !== wantPrimary || codes.includes(t.code)) continue;
      codes.push(t.code);
      primary.push(wantPrimary ? 1 : 0);
    }
  }
  const state = placeState(loc), city = placeCity(loc);
  const zip = zipNumber(loc?.postal_code?.trim() ?? "");
  // The mailing address is often the practice location's: its values are reused then.
  const mail = p.mailing_address;
  const sameCity = mail?.city === loc?.city, sameState = mail?.state === loc?.state;
  const samePostal = mail?.postal_code === loc?.postal_code;
  return {
    terms,
    flags,
    state,
    city,
    zip,
    mailState: sameState ? state : placeState(mail),
    mailCity: sameCity ? city : placeCity(mail),
    mailZip: samePostal ? zip : zipNumber(mail?.postal_code?.trim() ?? ""),
    lat: located ? loc!.lat! : NaN,
    lon: located ? loc!.lon! : NaN,
    codes,
    primary,
    updated: dayNumber(p.last_updated),
  };
}
