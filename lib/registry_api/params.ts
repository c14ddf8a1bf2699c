/**
 * The query parameters of the NPI Registry API v2.1, read the way the real
 * API reads them: every refusal becomes an entry of `Errors` (never a 400),
 * all of them at once; empty values count as absent; parameters it does not
 * know are ignored, as the real API ignores them.
 *
 * @module
 */
import { ERROR_NUMBER, INVALID_VALUE, type RegistryError, registryError } from "./errors.ts";
import { STATE_CODES } from "../search/params.ts";
import { custom, defineQuery } from "../http/params.ts";

/** A name-like value: the text before any trailing `*`, and whether it had one. */
export interface Pattern {
  text: string;
  prefix: boolean;
}

/** Which addresses the address criteria apply to (`null`: not given). */
export type AddressPurpose = "LOCATION" | "MAILING" | "PRIMARY" | "SECONDARY";

/** A request to the Registry API, validated. */
export interface RegistryRequest {
  number: string | null;
  enumerationType: 1 | 2 | null;
  taxonomyDescription: Pattern | null;
  /** Whose names `first_name` and `last_name` search: the provider's or the authorized official's. */
  namePurpose: "PROVIDER" | "AO";
  firstName: Pattern | null;
  useFirstNameAlias: boolean;
  lastName: Pattern | null;
  organizationName: Pattern | null;
  addressPurpose: AddressPurpose | null;
  city: Pattern | null;
  state: string | null;
  postalCode: Pattern | null;
  countryCode: string | null;
  limit: number;
  skip: number;
  pretty: boolean;
}

/** The parameters this API reads, in the order the help page lists them. */
export const REGISTRY_PARAMETERS = [
  "version",
  "number",
  "enumeration_type",
  "taxonomy_description",
  "name_purpose",
  "first_name",
  "use_first_name_alias",
  "last_name",
  "organization_name",
  "address_purpose",
  "city",
  "state",
  "postal_code",
  "country_code",
  "limit",
  "skip",
  "pretty",
] as const;

/** Results a page when `limit` is absent or 0. */
export const DEFAULT_LIMIT = 10;
/** Most results a page; a larger `limit` counts as this. */
export const MAX_LIMIT = 200;
/** The real API's `skip` ceiling: the default of `NPPES_API_MAX_SKIP`. */
export const DEFAULT_MAX_SKIP = 1000;
/** Longest name or city value accepted. */
const MAX_TEXT = 100;

/** Letters, digits, spaces and the special characters the help page allows in names. */
const NAME_CHARACTERS = /^[\p{L}\p{M}0-9 &':,/\-().#";]+$/u;
/** Organization names also allow `@`. */
const ORGANIZATION_CHARACTERS = /^[\p{L}\p{M}0-9 &':,/\-().#";@]+$/u;

/** The outcome of reading a query string. */
export type ParseResult =
  | { ok: true; request: RegistryRequest }
  | { ok: false; errors: RegistryError[] };

/**
 * Reads a query string. `maxSkip` is the largest `skip` accepted
 * (`NPPES_API_MAX_SKIP`).
 *
 * @example
 * ```ts
 * const result = parseRegistryParams(new URLSearchParams("version=2.1&last_name=smith&state=ny"));
 * result.ok && result.request.state; // "NY"
 * ```
 */
export function parseRegistryParams(
  query: URLSearchParams,
  options: { maxSkip?: number } = {},
): ParseResult {
  const maxSkip = options.maxSkip ?? DEFAULT_MAX_SKIP;
  const errors: RegistryError[] = [];
  const value = (name: string): string | null => {
    const raw = query.get(name);
    if (raw === null) return null;
    const trimmed = raw.trim();
    return trimmed === "" ? null : trimmed;
  };
  const invalid = (field: string, description = INVALID_VALUE) =>
    errors.push(registryError(ERROR_NUMBER.invalid, field, description));

  /** A value that may end in `*` after at least two characters. */
  const pattern = (field: string, allowed: RegExp): Pattern | null => {
    const raw = value(field);
    if (raw === null) return null;
    const star = raw.indexOf("*");
    const prefix = star === raw.length - 1;
    const text = prefix ? raw.slice(0, -1).trimEnd() : raw;
    if (star >= 0 && !prefix) {
      invalid(field);
      return null;
    }
    if (prefix && text.length < 2) {
      errors.push(
        registryError(
          ERROR_NUMBER.wildcard,
          field,
          "Wildcards require at least two leading characters",
        ),
      );
      return null;
    }
    if (text.length > MAX_TEXT || !allowed.test(text)) {
      invalid(field);
      return null;
    }
    return { text, prefix };
  };

  const version = value("version");
  if (version !== "2.1") {
    errors.push(registryError(ERROR_NUMBER.version, "version", "Unsupported Version"));
  }

  let number: string | null = value("number");
  if (number !== null && !/^\d{10}$/.test(number)) {
    errors.push(registryError(ERROR_NUMBER.npiDigits, "number", "NPI must be 10 digits"));
    number = null;
  }

  let enumerationType: 1 | 2 | null = null;
  const enumeration = value("enumeration_type");
  if (enumeration !== null) {
    const upper = enumeration.toUpperCase();
    if (upper === "NPI-1") enumerationType = 1;
    else if (upper === "NPI-2") enumerationType = 2;
    else invalid("enumeration_type");
  }

  const taxonomyDescription = pattern("taxonomy_description", NAME_CHARACTERS);

  let namePurpose: "PROVIDER" | "AO" = "PROVIDER";
  const purpose = value("name_purpose");
  if (purpose !== null) {
    const upper = purpose.toUpperCase();
    if (upper === "AO" || upper === "PROVIDER") namePurpose = upper;
    else invalid("name_purpose", "Field name_purpose must be AO or Provider");
  }

  const firstName = pattern("first_name", NAME_CHARACTERS);
  let useFirstNameAlias = true;
  const alias = value("use_first_name_alias");
  if (alias !== null) {
    const lower = alias.toLowerCase();
    if (lower === "true") useFirstNameAlias = true;
    else if (lower === "false") useFirstNameAlias = false;
    else invalid("use_first_name_alias", "Field use_first_name_alias must be True or False");
  }
  const lastName = pattern("last_name", NAME_CHARACTERS);
  const organizationName = pattern("organization_name", ORGANIZATION_CHARACTERS);

  let addressPurpose: AddressPurpose | null = null;
  const addressValue = value("address_purpose");
  if (addressValue !== null) {
    const upper = addressValue.toUpperCase();
    if (
      upper === "LOCATION" || upper === "MAILING" || upper === "PRIMARY" || upper === "SECONDARY"
    ) {
      addressPurpose = upper;
    } else {
      invalid(
        "address_purpose",
        "Field address_purpose must be LOCATION, MAILING, PRIMARY or SECONDARY",
      );
    }
  }

  const city = pattern("city", NAME_CHARACTERS);

  let state: string | null = value("state");
  if (state !== null) {
    state = state.toUpperCase();
    if (!STATE_CODES.has(state)) {
      invalid("state");
      state = null;
    }
  }

  let postalCode: Pattern | null = null;
  const postal = value("postal_code");
  if (postal !== null) {
    const prefix = postal.endsWith("*");
    const digits = (prefix ? postal.slice(0, -1) : postal).replace(/^(\d{5})-(\d{4})$/, "$1$2");
    if (prefix && digits.length < 2) {
      errors.push(
        registryError(
          ERROR_NUMBER.wildcard,
          "postal_code",
          "Wildcards require at least two leading characters",
        ),
      );
    } else if (
      !/^\d+$/.test(digits) || digits.length > 9 || (!prefix && ![5, 9].includes(digits.length))
    ) {
      invalid("postal_code");
    } else postalCode = { text: digits, prefix };
  }

  let countryCode: string | null = value("country_code");
  if (countryCode !== null) {
    countryCode = countryCode.toUpperCase();
    if (!/^[A-Z]{2}$/.test(countryCode)) {
      invalid("country_code");
      countryCode = null;
    }
  }

  let limit = DEFAULT_LIMIT;
  const limitValue = value("limit");
  if (limitValue !== null) {
    if (!/^\d{1,9}$/.test(limitValue)) {
      invalid("limit", `Field limit must be a whole number from 1 to ${MAX_LIMIT}`);
    } else {
      const n = Number(limitValue);
      limit = n === 0 ? DEFAULT_LIMIT : Math.min(n, MAX_LIMIT);
    }
  }
  let skip = 0;
  const skipValue = value("skip");
  if (skipValue !== null) {
    if (!/^\d{1,9}$/.test(skipValue) || Number(skipValue) > maxSkip) {
      invalid("skip", `Field skip must be a whole number from 0 to ${maxSkip}`);
    } else skip = Number(skipValue);
  }

  errors.push(...criteriaErrors(value));
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    request: {
      number,
      enumerationType,
      taxonomyDescription,
      namePurpose,
      firstName,
      useFirstNameAlias,
      lastName,
      organizationName,
      addressPurpose,
      city,
      state,
      postalCode,
      countryCode,
      limit,
      skip,
      pretty: query.has("pretty"),
    },
  };
}

/** Criteria that are enough on their own (whatever their values' validity). */
const STRONG_CRITERIA = [
  "number",
  "taxonomy_description",
  "first_name",
  "last_name",
  "organization_name",
  "city",
  "postal_code",
] as const;

/**
 * The "requires additional search criteria" errors: 04 without any
 * criterion, 07 for `state` (or `country_code=US`) with nothing but
 * `enumeration_type` and `country_code` beside it, 09 for
 * `enumeration_type` likewise. `limit`, `skip`, `pretty`, `version`,
 * `name_purpose`, `address_purpose` and `use_first_name_alias` are not
 * criteria.
 */
function criteriaErrors(value: (name: string) => string | null): RegistryError[] {
  if (STRONG_CRITERIA.some((name) => value(name) !== null)) return [];
  const state = value("state") !== null;
  const enumeration = value("enumeration_type") !== null;
  const country = value("country_code")?.toUpperCase() ?? null;
  const foreign = country !== null && country !== "US";
  const errors: RegistryError[] = [];
  if (state) {
    errors.push(
      registryError(
        ERROR_NUMBER.needsMore,
        "state",
        "Field state requires additional search criteria",
      ),
    );
  }
  if (country === "US" && !state) {
    errors.push(
      registryError(
        ERROR_NUMBER.needsMore,
        "country_code",
        "Field country_code=US requires additional search criteria",
      ),
    );
  }
  if (enumeration && (state || !foreign)) {
    errors.push(
      registryError(
        ERROR_NUMBER.enumerationAlone,
        "enumeration_type",
        "Enumeration_type requires additional search criteria",
      ),
    );
  }
  if (errors.length === 0 && !foreign) {
    errors.push(
      registryError(ERROR_NUMBER.noCriteria, "generic", "No valid search criteria provided"),
    );
  }
  return errors;
}

const WILDCARD =
  "Exact (case-insensitive), or a prefix with a trailing `*` after at least 2 characters.";

function doc(
  description: string,
  schema: Record<string, unknown> = { type: "string" },
  example?: string,
) {
  return custom({ description, schema, example, parse: (raw) => raw });
}

/**
 * The parameters as the OpenAPI document shows them, next to the parser
 * that reads them ({@linkcode parseRegistryParams}: the route answers
 * refusals itself, as `Errors` with 200, so these definitions only document).
 *
 * @example
 * ```ts
 * Object.keys(registryParamDocs(1000).params).length; // 17
 * ```
 */
export function registryParamDocs(maxSkip: number) {
  return defineQuery({
    version: doc(
      "Must be `2.1`; missing or other → error 17.",
      { type: "string", enum: ["2.1"] },
      "2.1",
    ),
    number: doc("The NPI, 10 digits, exact (else error 06). A deactivated NPI gives no result.", {
      type: "string",
      pattern: "^[0-9]{10}$",
    }),
    enumeration_type: doc(
      "`NPI-1` (individuals) or `NPI-2` (organizations); not a criterion on its own (error 09).",
      { type: "string", enum: ["NPI-1", "NPI-2"] },
    ),
    taxonomy_description: doc(
      `A taxonomy description (classification and specialization, the classification, the ` +
        `specialization or the display name; also the NUCC code itself). ${WILDCARD} Matches any ` +
        "of a provider's taxonomies.",
    ),
    name_purpose: doc(
      "`Provider` (default): `first_name`/`last_name` search the provider's names; `AO`: the " +
        "authorized official's (organizations only; evaluated on the candidates' records).",
      { type: "string", enum: ["Provider", "AO"] },
    ),
    first_name: doc(`Individuals' first name (own or other names). ${WILDCARD}`),
    use_first_name_alias: doc(
      "`True` (default): an exact `first_name` also finds its nicknames and formal names " +
        "(Robert → Bob, Rob...; table `lib/names/nicknames.ts`); `False`: that name only. Ignored with a wildcard.",
      { type: "string", enum: ["True", "False"] },
    ),
    last_name: doc(
      `Individuals' own last name, whole (\`smith\` is not \`smith-andrade\`). ${WILDCARD}`,
    ),
    organization_name: doc(
      `Any organization name: legal, doing-business-as, former, other. ${WILDCARD}`,
    ),
    address_purpose: doc(
      "Which address `city`, `state`, `postal_code` and `country_code` apply to: `LOCATION` or " +
        "`PRIMARY` (the primary practice location), `MAILING`, `SECONDARY` (any secondary " +
        "practice location). Not given: any of them. Either way one and the same address must " +
        "meet them all.",
      { type: "string", enum: ["LOCATION", "MAILING", "PRIMARY", "SECONDARY"] },
    ),
    city: doc(`City of the address. ${WILDCARD}`),
    state: doc(
      "2-letter code of the address's state; needs another criterion besides " +
        "`enumeration_type` and `country_code` (error 07).",
      { type: "string", pattern: "^[A-Za-z]{2}$" },
    ),
    postal_code: doc(
      "5 digits (also matches ZIP+4 codes in that ZIP), 9 digits, or 2+ digits and `*`.",
      { type: "string", pattern: "^[0-9]{5}(-?[0-9]{4})?$|^[0-9]{2,8}\\*$" },
    ),
    country_code: doc("2-letter country code of the address; `US` needs another criterion.", {
      type: "string",
      pattern: "^[A-Za-z]{2}$",
    }),
    limit: doc(
      `Results per page: default ${DEFAULT_LIMIT} (also for 0), at most ${MAX_LIMIT} (larger counts as ${MAX_LIMIT}).`,
      { type: "integer", minimum: 0 },
    ),
    skip: doc(
      `Results to skip: 0 to ${maxSkip} (\`NPPES_API_MAX_SKIP\`, default ${DEFAULT_MAX_SKIP}).`,
      { type: "integer", minimum: 0, maximum: maxSkip },
    ),
    pretty: doc("Any value: indented JSON."),
  });
}
