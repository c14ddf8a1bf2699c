/**
 * Turns a Registry API request into the search engine's query: the criteria
 * the search index holds become posting-list filters, the rest a record
 * check over the candidates (see `lib/search/record_check.ts`).
 *
 * | criterion | evaluated on |
 * |---|---|
 * | `number` | the NPI lookup table |
 * | `enumeration_type` | the entity flag |
 * | `last_name` (provider) | the last-name keys, kept to the provider's own name by its id range (`lib/store/name_range.ts`) |
 * | `first_name` (provider) | the first-name keys (own and other names), nicknames added |
 * | `first_name`, `last_name` with `name_purpose=AO` | the records: the authorized official |
 * | `organization_name` | the organization keys (legal and every other name) |
 * | `taxonomy_description` | the taxonomy codes whose description matches |
 * | `city`, `state`, `postal_code` | the place fields of the addresses `address_purpose` names: without it any address (primary location, mailing address, every secondary location), one and the same address meeting them all (`lib/search/places.ts`) |
 * | `country_code` | the records (the same address as the other address criteria) |
 *
 * @module
 */
import type { NameMatch, PlaceMatch, SearchQuery } from "../search/query.ts";
import type { AddressCheck, AddressScope, RecordCheck, TextMatch } from "../search/record_check.ts";
import type { TaxonomyEntry } from "../taxonomy/nucc.ts";
import { foldText, nameKey } from "../text/fold.ts";
import { nicknames } from "../names/nicknames.ts";
import type { Pattern, RegistryRequest } from "./params.ts";

/** The API's description of a taxonomy code: classification, then specialization. */
export function taxonomyDesc(entry: TaxonomyEntry): string {
  const parts = [entry.classification, entry.specialization].filter((p) => p && p.trim());
  return parts.length ? parts.join(" ") : entry.display;
}

function textMatch(p: Pattern): TextMatch {
  return { key: nameKey(p.text), prefix: p.prefix };
}

/**
 * The codes whose description matches `taxonomy_description`: the API's
 * description (classification and specialization), the classification
 * alone, the specialization alone or the display name, exactly or, with a
 * trailing `*`, as a prefix; case and punctuation folded. The code itself
 * (`207RC0000X`) matches too, an addition to the real API, which documents
 * descriptions only.
 *
 * @example
 * ```ts
 * taxonomyCodesFor(entries, { text: "internal medicine", prefix: false }); // ["207R00000X", "207RA0000X", ...]
 * ```
 */
export function taxonomyCodesFor(
  entries: readonly TaxonomyEntry[],
  pattern: Pattern,
): string[] {
  const wanted = nameKey(pattern.text);
  const codes: string[] = [];
  for (const [code, keys] of descriptionKeys(entries)) {
    const hit = keys.some((key) => (pattern.prefix ? key.startsWith(wanted) : key === wanted));
    if (hit) codes.push(code);
  }
  return codes.sort();
}

const keysOf = new WeakMap<readonly TaxonomyEntry[], [string, string[]][]>();

/** Each entry's code with the folded keys of its names, folded once per taxonomy. */
function descriptionKeys(entries: readonly TaxonomyEntry[]): [string, string[]][] {
  let keys = keysOf.get(entries);
  if (!keys) {
    keys = entries.map((entry) => {
      const names = [
        taxonomyDesc(entry),
        entry.classification,
        entry.specialization,
        entry.display,
        entry.code,
      ];
      return [entry.code, names.filter((name) => name).map((name) => nameKey(name!))];
    });
    keysOf.set(entries, keys);
  }
  return keys;
}

/**
 * The first names a `first_name` value searches: itself, and with
 * `use_first_name_alias` (not for wildcards) its nicknames and the formal
 * names it is a nickname of.
 *
 * @example
 * ```ts
 * firstNameKeys({ text: "Bob", prefix: false }, true); // ["bob", "robert", ...]
 * ```
 */
export function firstNameKeys(pattern: Pattern, alias: boolean): TextMatch[] {
  const key = nameKey(pattern.text);
  if (pattern.prefix || !alias) return [{ key, prefix: pattern.prefix }];
  const keys = new Set([key, ...nicknames().aliasesOf(key).map(nameKey)]);
  return [...keys].filter((k) => k !== "").map((k) => ({ key: k, prefix: false }));
}

/**
 * The addresses `address_purpose` names: without it, any of a provider's
 * addresses (the real API: "a match on the mailing address or any
 * practice-location address counts").
 *
 * @example
 * ```ts
 * addressScope(null); // "any"
 * addressScope("LOCATION"); // "primary"
 * ```
 */
export function addressScope(purpose: RegistryRequest["addressPurpose"]): AddressScope {
  switch (purpose) {
    case null:
      return "any";
    case "LOCATION":
    case "PRIMARY":
      return "primary";
    case "MAILING":
      return "mailing";
    case "SECONDARY":
      return "secondary";
  }
}

/**
 * The index's place match of a request's `city`, `state` and `postal_code`
 * (one and the same address of `scope` must meet them all); null without
 * any of them.
 *
 * @example
 * ```ts
 * placeMatch(request, "any"); // { scope: "any", city: "BALTIMORE", state: "MD", postal: null }
 * ```
 */
export function placeMatch(request: RegistryRequest, scope: AddressScope): PlaceMatch | null {
  const { city, state, postalCode } = request;
  if (!city && !state && !postalCode) return null;
  return {
    scope,
    city: city ? foldText(city.text).toUpperCase() + (city.prefix ? "*" : "") : null,
    state,
    postal: postalCode ? { digits: postalCode.text, prefix: postalCode.prefix } : null,
  };
}

/** What `toRegistryQuery` needs besides the request. */
export interface QueryContext {
  /** The dataset's taxonomy codes, for `taxonomy_description`. */
  taxonomy: readonly TaxonomyEntry[];
}

/**
 * The engine query of a request: active providers only, in name order,
 * `limit` results after `skip`.
 *
 * @example
 * ```ts
 * const query = toRegistryQuery(request, { taxonomy: store.taxonomy() });
 * ```
 */
export function toRegistryQuery(request: RegistryRequest, ctx: QueryContext): SearchQuery {
  const official = request.namePurpose === "AO";
  const names = (p: Pattern | null): NameMatch[] | null => (p ? [textMatch(p)] : null);
  const firstNames = request.firstName
    ? firstNameKeys(request.firstName, request.useFirstNameAlias)
    : null;

  const scope = addressScope(request.addressPurpose);
  const places = placeMatch(request, scope);
  // A country is on the records only, of the same address as the other address criteria.
  const address: AddressCheck | null = request.countryCode
    ? {
      scope,
      city: request.city ? textMatch(request.city) : null,
      state: request.state,
      postal: request.postalCode
        ? { digits: request.postalCode.text, prefix: request.postalCode.prefix }
        : null,
      country: request.countryCode,
    }
    : null;

  const check: RecordCheck | null = address || official
    ? {
      address,
      official: official && (request.firstName || request.lastName)
        ? {
          first: firstNames,
          last: request.lastName ? textMatch(request.lastName) : null,
        }
        : null,
    }
    : null;

  return {
    words: null,
    npis: request.number ? [Number(request.number)] : null,
    lastNames: official ? null : names(request.lastName),
    firstNames: official ? null : firstNames,
    organizationNames: names(request.organizationName),
    entity: official ? request.enumerationType ?? 2 : request.enumerationType,
    taxonomyCodes: request.taxonomyDescription
      ? taxonomyCodesFor(ctx.taxonomy, request.taxonomyDescription)
      : null,
    specialtyCodes: null,
    cities: null,
    states: null,
    postal: null,
    places,
    near: null,
    sex: null,
    includeDeactivated: false,
    sort: "name",
    limit: request.limit,
    offset: request.skip,
    cursor: null,
    facets: [],
    check,
    ownLastName: official ? null : request.lastName,
  };
}
