/**
 * Turns a Registry API request into the search engine's query: the criteria
 * the search index holds become posting-list filters, the rest a record
 * check over the candidates (see `lib/search/record_check.ts`).
 *
 * | criterion | evaluated on |
 * |---|---|
 * | `number` | the NPI lookup table |
 * | `enumeration_type` | the entity flag |
 * | `last_name` (provider) | the last-name keys, kept to the provider's own name by its id range (`name_range.ts`) |
 * | `first_name` (provider) | the first-name keys (own and other names), nicknames added |
 * | `first_name`, `last_name` with `name_purpose=AO` | the records: the authorized official |
 * | `organization_name` | the organization keys (legal and every other name) |
 * | `taxonomy_description` | the taxonomy codes whose description matches |
 * | `city`, `state`, `postal_code` (no `address_purpose`, `LOCATION`, `PRIMARY`) | the primary practice location's index fields |
 * | the same with `MAILING` or `SECONDARY`, and `country_code` | the records |
 *
 * @module
 */
import type { NameMatch, SearchQuery } from "../search/query.ts";
import type { AddressCheck, RecordCheck, TextMatch } from "../search/record_check.ts";
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
  for (const entry of entries) {
    const names = [
      taxonomyDesc(entry),
      entry.classification,
      entry.specialization,
      entry.display,
      entry.code,
    ];
    const hit = names.some((name) => {
      if (!name) return false;
      const key = nameKey(name);
      return pattern.prefix ? key.startsWith(wanted) : key === wanted;
    });
    if (hit) codes.push(entry.code);
  }
  return codes.sort();
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

/** What `toRegistryQuery` needs besides the request. */
export interface QueryContext {
  /** The dataset's taxonomy codes, for `taxonomy_description`. */
  taxonomy: readonly TaxonomyEntry[];
  /** The id range of providers whose own last name matches (see `name_range.ts`); none when absent. */
  surnameRange?: (pattern: Pattern) => { from: number; to: number };
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

  // Address criteria: on the index for the primary practice location, else checked on records.
  const scope = request.addressPurpose === "MAILING"
    ? "mailing"
    : request.addressPurpose === "SECONDARY"
    ? "secondary"
    : "primary";
  const onIndex = scope === "primary";
  let address: AddressCheck | null = null;
  const anyAddress = request.city || request.state || request.postalCode;
  if ((anyAddress && !onIndex) || request.countryCode) {
    address = {
      scope,
      city: !onIndex && request.city ? textMatch(request.city) : null,
      state: !onIndex ? request.state : null,
      postal: !onIndex && request.postalCode
        ? { digits: request.postalCode.text, prefix: request.postalCode.prefix }
        : null,
      country: request.countryCode,
    };
  }
  let postal: SearchQuery["postal"] = null;
  if (onIndex && request.postalCode) {
    const { text, prefix } = request.postalCode;
    if (prefix && text.length <= 5) postal = { zip5: [], exact: [], prefixes: [text] };
    else if (prefix) {
      // A prefix longer than a ZIP: its ZIP on the index, the rest checked on the record.
      postal = { zip5: [text.slice(0, 5)], exact: [], prefixes: [] };
      address = {
        scope,
        city: null,
        state: null,
        postal: { digits: text, prefix: true },
        country: request.countryCode,
      };
    } else if (text.length === 5) postal = { zip5: [text], exact: [], prefixes: [] };
    else postal = { zip5: [], exact: [text], prefixes: [] };
  }
  const city = onIndex && request.city
    ? [foldText(request.city.text).toUpperCase() + (request.city.prefix ? "*" : "")]
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
    cities: city,
    states: onIndex && request.state ? [request.state] : null,
    postal,
    near: null,
    sex: null,
    includeDeactivated: false,
    sort: "name",
    limit: request.limit,
    offset: request.skip,
    cursor: null,
    facets: [],
    check,
    idRange: !official && request.lastName && ctx.surnameRange
      ? ctx.surnameRange(request.lastName)
      : null,
  };
}
