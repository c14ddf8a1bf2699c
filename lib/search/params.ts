/**
 * The parameters of `GET /v1/providers/search`: one definition gives the
 * parser, the 400 messages and the OpenAPI document. `toSearchQuery` then
 * checks the rules that span parameters and resolves specialties and ZIPs.
 *
 * @module
 */
import {
  boolean,
  choice,
  custom,
  decimal,
  defineQuery,
  integer,
  list,
  ParamIssue,
  type ParsedQuery,
  text,
} from "../http/params.ts";
import type { ParameterError } from "../http/errors.ts";
import { HttpError, ValidationError } from "../http/errors.ts";
import { STATUS_CODE } from "../http/status.ts";
import { isValidNpi } from "../npi.ts";
import { TAXONOMY_CODE_PATTERN } from "../taxonomy/nucc.ts";
import { foldText, nameKey } from "../text/fold.ts";
import { lookupZip } from "../geo/zip.ts";
import type {
  FacetName,
  NameMatch,
  NearMatch,
  PostalMatch,
  SearchQuery,
  SortOrder,
} from "./query.ts";
import { CursorError, CursorReleaseError, type CursorScope, decodeCursor } from "./cursor.ts";
import { queryWords as splitQuery } from "./hint_words.ts";
import { resolveSpecialty, type SpecialtyIndex } from "../taxonomy/resolve.ts";

/** USPS codes NPPES uses: states, DC, territories, military, and ZZ for foreign. */
export const STATE_CODES: ReadonlySet<string> = new Set(
  ("AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND " +
    "OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM FM MH PW AA AE AP ZZ").split(
      " ",
    ),
);

const npi = custom({
  description: "NPI",
  schema: { type: "string", pattern: "^[12][0-9]{9}$" },
  parse(raw) {
    if (!/^\d{10}$/.test(raw)) throw new ParamIssue(`must be 10 digits, got '${raw.slice(0, 20)}'`);
    if (!isValidNpi(raw)) throw new ParamIssue(`'${raw}' fails the NPI check digit`);
    return Number(raw);
  },
});

function nameParam(what: string) {
  return list(
    custom({
      description: what,
      schema: { type: "string", minLength: 1, maxLength: 100 },
      parse(raw): NameMatch {
        if (raw.length > 100) throw new ParamIssue("must be at most 100 characters");
        const star = raw.indexOf("*");
        if (star >= 0 && star !== raw.length - 1) {
          throw new ParamIssue("may only end with '*' (a wildcard anywhere else is not supported)");
        }
        const key = nameKey(star >= 0 ? raw.slice(0, -1) : raw);
        if (star >= 0 && key.length < 2) {
          throw new ParamIssue("needs at least 2 letters before '*'");
        }
        if (key === "") throw new ParamIssue("must contain letters or digits");
        return { key, prefix: star >= 0 };
      },
    }),
    {
      maxItems: 20,
      description:
        `${what}: case-insensitive exact match, or a prefix when it ends in \`*\` after at least ` +
        "2 characters (the NPPES rule). Punctuation and spaces are ignored (O'BRIEN = OBRIEN). Other names " +
        "count too. A comma list is OR.",
    },
  );
}

const postal = custom({
  description: "postal code",
  schema: { type: "string", pattern: "^[0-9]{5}(-?[0-9]{4})?$|^[0-9]{2,8}\\*$" },
  parse(raw): { kind: "zip5" | "exact" | "prefix"; value: string } {
    const prefix = /^(\d{2,8})\*$/.exec(raw);
    if (prefix) return { kind: "prefix", value: prefix[1]! };
    const digits = raw.replace("-", "");
    if (/^\d{5}$/.test(digits)) return { kind: "zip5", value: digits };
    if (/^\d{9}$/.test(digits)) return { kind: "exact", value: digits };
    throw new ParamIssue(
      `must be 5 or 9 digits, or 2 to 8 digits followed by '*', got '${raw.slice(0, 20)}'`,
    );
  },
});

const near = custom({
  description:
    "A 5-digit ZIP (located by its centroid; a ZIP not in the ZIP dataset is a 400) or " +
    "`lat,lon` in degrees. Locates providers by their primary practice location; `radius` and `unit` " +
    "need it.",
  schema: { type: "string", pattern: "^[0-9]{5}$|^-?[0-9.]+,-?[0-9.]+$" },
  example: "20817",
  parse(raw): { lat: number; lon: number } {
    if (/^\d{5}$/.test(raw)) {
      const zip = lookupZip(raw);
      if (!zip) {
        throw new ParamIssue(
          `ZIP '${raw}' is not in the ZIP dataset: give another ZIP or 'lat,lon'`,
        );
      }
      return { lat: zip.lat, lon: zip.lon };
    }
    const m = /^\s*(-?\d{1,3}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/.exec(raw);
    if (!m) throw new ParamIssue(`must be a 5-digit ZIP or 'lat,lon', got '${raw.slice(0, 40)}'`);
    const lat = Number(m[1]), lon = Number(m[2]);
    if (lat < -90 || lat > 90) throw new ParamIssue(`latitude must be from -90 to 90, got ${lat}`);
    if (lon < -180 || lon > 180) {
      throw new ParamIssue(`longitude must be from -180 to 180, got ${lon}`);
    }
    return { lat, lon };
  },
});

/** The parameter definitions of the search route. */
export const SEARCH_PARAMS = defineQuery({
  q: text({
    description:
      "Free text, typed as on a form: person names, organization legal and other names (DBA, " +
      "former names), specialty words and synonyms, city and credential text; every such word " +
      "must match. Titles and credentials (`Dr.`, `M.D.`, `DO`, `PA-C`), state codes and names " +
      "(`MD`, `Maryland`), 5-digit ZIPs, 10-digit NPIs and single letters (first or middle " +
      "initials) are hints: they rank the providers they fit first and never exclude one (a " +
      "surname `Do` or `Ma` still matches); two letters typed last also fit as a name's start " +
      "(`john co`: John Cooper first) when the results are fewer than an eighth of all " +
      "providers. Ranked: whole legal name, then legal name words, " +
      "other names, specialty or city, prefix (the last word), typos; `score` 120-50, lower " +
      "(48-8) when hints other than titles do not fit. Typo tolerant (1 edit from 5 letters, 2 " +
      "from 9) for words the index does not hold; a word it holds gets its neighbours only when " +
      "the query finds fewer than 10 providers without them, and never when 50 or more " +
      "providers hold it. When nothing matches every word, the least informative words are left " +
      "out (words matching nothing, then the most common; with no name word matching, the hints " +
      "alone count) and the results score below 10. Up to 12 words; case and punctuation " +
      "folded. See docs/search.md.",
    maxLength: 200,
    example: "john smith",
  }),
  npi: list(npi, {
    maxItems: 100,
    description: "Exact NPI(s), comma list; each must pass the check digit.",
  }),
  first_name: nameParam("First name"),
  last_name: nameParam("Last name"),
  organization_name: nameParam("Organization name (legal or other name)"),
  entity_type: choice({
    description: "individual (NPI-1) or organization (NPI-2)",
    values: ["individual", "organization"],
    aliases: { "NPI-1": "individual", "NPI-2": "organization" },
  }),
  taxonomy: list(
    custom({
      description: "NUCC taxonomy code",
      schema: { type: "string", pattern: TAXONOMY_CODE_PATTERN.source },
      parse(raw) {
        const code = raw.toUpperCase();
        if (!TAXONOMY_CODE_PATTERN.test(code)) {
          throw new ParamIssue(
            `'${raw.slice(0, 20)}' is not a NUCC taxonomy code (10 characters like 207RC0000X)`,
          );
        }
        return code;
      },
    }),
    {
      maxItems: 50,
      description: "NUCC taxonomy code(s), comma list; matches any of a provider's taxonomies.",
    },
  ),
  specialty: list(text({ description: "specialty words", maxLength: 100 }), {
    maxItems: 10,
    description:
      "Specialty words (cardiology, cardiologist, heart doctor, dentist, OB-GYN, family doctor...), " +
      "resolved to taxonomy codes through NUCC names and synonyms; comma list is OR. Unknown words are a 400 " +
      "with suggestions.",
    example: "cardiologist",
  }),
  city: list(text({ description: "city", maxLength: 60 }), {
    maxItems: 20,
    description: "City of the primary practice location, case-insensitive exact; comma list.",
  }),
  state: list(
    custom({
      description: "state",
      schema: { type: "string", pattern: "^[A-Za-z]{2}$" },
      parse(raw) {
        const code = raw.toUpperCase();
        if (!STATE_CODES.has(code)) {
          throw new ParamIssue(`'${raw.slice(0, 10)}' is not a USPS state code`);
        }
        return code;
      },
    }),
    {
      maxItems: 60,
      description:
        "2-letter USPS code(s) of the primary practice location: states, DC, territories, ZZ (foreign).",
    },
  ),
  postal_code: list(postal, {
    maxItems: 50,
    description:
      "5 digits (also matches ZIP+4 codes in that ZIP), 9 digits, or a prefix ending in `*`; comma list.",
  }),
  near: near,
  radius: decimal({
    description: "With `near`: radius, greater than 0 and at most 500, in `unit`.",
    min: 0,
    exclusiveMin: true,
    max: 500,
  }),
  unit: choice({ description: "With `near`: `mi` (default) or `km`.", values: ["mi", "km"] }),
  sex: choice({
    description: "M or F (individuals only; with `entity_type=organization` it is a 400).",
    values: ["M", "F"],
  }),
  include_deactivated: boolean({ description: "Include deactivated NPIs.", default: false }),
  sort: choice({
    description:
      "`relevance` (default with `q`; needs `q`), `distance` (default with `near` and no `q`; needs " +
      "`near`), `name` (default otherwise). Ties are broken by name rank, then NPI, so pages never shuffle.",
    values: ["relevance", "distance", "name"],
  }),
  limit: integer({ description: "Results per page.", min: 1, max: 100, default: 10 }),
  offset: integer({
    description: "Results to skip; use `cursor` to go further.",
    min: 0,
    max: 10000,
    default: 0,
  }),
  cursor: text({
    description:
      "Opaque `next_cursor` of the previous page: walks any result set to its end without " +
      "duplicates or gaps. Not combined with `offset`. A cursor is bound to the dataset release " +
      "that issued it: after a new release it answers 410 (`/problems/release-changed`), and the " +
      "walk starts again without `cursor`.",
    maxLength: 512,
  }),
  facets: list(
    choice({ description: "facet", values: ["state", "taxonomy", "entity_type", "sex", "city"] }),
    {
      maxItems: 5,
      description:
        "Facet counts over the whole filtered set, top 20 values each: state, taxonomy, entity_type, " +
        "sex, city; comma list.",
    },
  ),
});

/** Parsed search parameters. */
export type SearchParams = ParsedQuery<typeof SEARCH_PARAMS.params>;

/** The identity of a query for cursors: every parameter but the paging ones. */
export function queryFingerprint(query: URLSearchParams): string {
  const entries = [...query].filter(([k]) => k !== "cursor" && k !== "offset" && k !== "limit")
    .sort();
  return JSON.stringify(entries);
}

/**
 * 410: the cursor belongs to another dataset release (the dataset was
 * updated during the walk); the problem names both releases, as
 * `cursor_release` and `current_release`.
 */
export class ReleaseChangedError extends HttpError {
  constructor(cause: CursorReleaseError) {
    super(STATUS_CODE.Gone, cause.message, {
      type: "release-changed",
      members: { cursor_release: cause.cursorRelease, current_release: cause.currentRelease },
    });
    this.name = "ReleaseChangedError";
  }
}

/**
 * Checks the cross-parameter rules and builds the engine's query. Throws
 * one {@linkcode ValidationError} naming every bad parameter.
 */
export function toSearchQuery(
  params: SearchParams,
  options: { specialties: SpecialtyIndex; cursorScope: CursorScope; url: URLSearchParams },
): SearchQuery {
  const errors: ParameterError[] = [];
  const has = (name: string) => options.url.has(name);
  if (has("radius") && !params.near) errors.push({ parameter: "radius", message: "needs 'near'" });
  if (has("unit") && !params.near) errors.push({ parameter: "unit", message: "needs 'near'" });
  if (params.sort === "distance" && !params.near) {
    errors.push({ parameter: "sort", message: "'distance' needs 'near'" });
  }
  if (params.sort === "relevance" && !params.q) {
    errors.push({ parameter: "sort", message: "'relevance' needs 'q'" });
  }
  if (has("cursor") && has("offset")) {
    errors.push({
      parameter: "cursor",
      message: "cannot be combined with 'offset': use one or the other",
    });
  }
  if (params.sex && params.entity_type === "organization") {
    errors.push({
      parameter: "sex",
      message: "applies to individuals only, but entity_type is 'organization'",
    });
  }
  let specialtyCodes: string[] | null = null;
  if (params.specialty) {
    const codes = new Set<string>();
    for (const words of params.specialty) {
      const resolved = resolveSpecialty(options.specialties, words);
      if (resolved.ok) { for (const code of resolved.codes) codes.add(code); }
      else {
        const hint = resolved.suggestions.length
          ? `: did you mean ${resolved.suggestions.map((s) => `'${s}'`).join(", ")}?`
          : ": see /v1/specialties";
        errors.push({
          parameter: "specialty",
          message: `'${words.slice(0, 60)}' is not a known specialty${hint}`,
        });
      }
    }
    specialtyCodes = [...codes].sort();
  }
  let cursor = null;
  if (params.cursor) {
    try {
      cursor = decodeCursor(params.cursor, options.cursorScope);
    } catch (error) {
      if (error instanceof CursorReleaseError) throw new ReleaseChangedError(error);
      if (!(error instanceof CursorError)) throw error;
      errors.push({ parameter: "cursor", message: error.message });
    }
  }
  if (errors.length) throw new ValidationError(errors);

  const nearMatch: NearMatch | null = params.near
    ? { ...params.near, radius: params.radius ?? 25, unit: params.unit ?? "mi" }
    : null;
  let postalMatch: PostalMatch | null = null;
  if (params.postal_code) {
    postalMatch = { zip5: [], exact: [], prefixes: [] };
    for (const p of params.postal_code) {
      (p.kind === "zip5"
        ? postalMatch.zip5
        : p.kind === "exact"
        ? postalMatch.exact
        : postalMatch.prefixes).push(p.value);
    }
  }
  const queryWords = params.q ? splitQuery(params.q) : null;
  const sort: SortOrder = params.sort ??
    (params.q ? "relevance" : params.near ? "distance" : "name");
  return {
    words: queryWords,
    npis: params.npi ?? null,
    lastNames: params.last_name ?? null,
    firstNames: params.first_name ?? null,
    organizationNames: params.organization_name ?? null,
    entity: params.entity_type === "individual"
      ? 1
      : params.entity_type === "organization"
      ? 2
      : null,
    taxonomyCodes: params.taxonomy ?? null,
    specialtyCodes,
    cities: params.city ? params.city.map((c) => foldText(c).toUpperCase()) : null,
    states: params.state ?? null,
    postal: postalMatch,
    near: nearMatch,
    sex: params.sex ?? null,
    includeDeactivated: params.include_deactivated,
    sort,
    limit: params.limit,
    offset: params.offset,
    cursor,
    facets: [...new Set(params.facets ?? [])] as FacetName[],
  };
}
