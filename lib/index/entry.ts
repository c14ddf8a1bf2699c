/**
 * What one provider contributes to the search index, computed apart from
 * the index itself: a plain, structured-clone-friendly value, so that the
 * import can derive it in a parsing worker and the index builder only
 * appends it.
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import { foldText, nameKey, nameTokens } from "../text/fold.ts";
import { FIELD, FLAG } from "./fields.ts";
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
  return {
    terms,
    flags,
    state: loc?.state?.toUpperCase() || null,
    city: loc?.city ? foldText(loc.city).toUpperCase() || null : null,
    zip: zipNumber(loc?.postal_code?.trim() ?? ""),
    lat: located ? loc!.lat! : NaN,
    lon: located ? loc!.lon! : NaN,
    codes,
    primary,
    updated: dayNumber(p.last_updated),
  };
}
