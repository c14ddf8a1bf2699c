/**
 * The FHIR search parameters of each resource type, in one table that both
 * parses requests and writes the CapabilityStatement, so what the server
 * claims is what it does. A search maps onto the native engine's
 * {@linkcode SearchQuery}: each FHIR resource found by search stands for one
 * NPPES record (a Practitioner, its PractitionerRole, an Organization, or
 * the primary practice Location of a record; secondary Locations and
 * Endpoints are found in columns of their own: `location_search.ts`,
 * `endpoint_search.ts`).
 *
 * Rules: a comma inside one value is OR; different parameters are AND; a
 * parameter may appear once (except `_include`, `_revinclude` and
 * `_lastUpdated`, whose repetitions are AND); an
 * unknown parameter, modifier or chain is a 400.
 *
 * @module
 */
import { isValidNpi } from "../npi.ts";
import { foldText, nameKey } from "../text/fold.ts";
import { STATE_CODES } from "../search/params.ts";
import type { AddressMatch, NameMatch, NearMatch, PostalMatch } from "../search/query.ts";
import { TAXONOMY_CODE_PATTERN } from "../taxonomy/nucc.ts";
import { ID_FORMS, type ParsedId, parseReference, type ResourceType } from "./ids.ts";
import {
  GROUP_CODES,
  NPI_SYSTEM,
  NPPES_ENDPOINT_TYPE_SYSTEM,
  NUCC_SYSTEM,
  ORG_TYPE_SYSTEM,
} from "./resources.ts";
import type { CodingToken } from "./endpoint_search.ts";
import { dateCondition, DateValueError, type DaySet, intersect, union } from "./date_search.ts";
import type { ParameterError } from "../http/errors.ts";

/** What the parameters of one search ask the engine for. */
export interface FhirQuery {
  /** NPIs the result must be among (the intersection of every id-like parameter). */
  npis: string[] | null;
  /** The exact ids `_id` asks for (Endpoint searches keep only these). */
  ids: string[] | null;
  lastNames: NameMatch[] | null;
  firstNames: NameMatch[] | null;
  organizationNames: NameMatch[] | null;
  anyNames: NameMatch[] | null;
  taxonomyCodes: string[] | null;
  /** Specialty words to resolve (`specialty:text`). */
  specialtyWords: string[] | null;
  cities: string[] | null;
  states: string[] | null;
  postal: PostalMatch | null;
  addresses: AddressMatch[] | null;
  near: (NearMatch & { fhirUnit: DistanceUnit }) | null;
  sex: "M" | "F" | null;
  /** `true`, `false`, or `null` for either. */
  active: boolean | null;
  /** Days of last update (`_lastUpdated`, every repetition ANDed); `null` for any. */
  updated: DaySet | null;
  /** Plan-Net organization types (`type`): a group practice or a facility; `null` for any. */
  orgTypes: ("prvgrp" | "fac")[] | null;
  /** Organizations whose subparts are asked for (`partof`), by NPI; `null` for no filter. */
  partOf: string[] | null;
  /** Organization `endpoint.organization`: the organizations named, kept when they have endpoints. */
  endpointOwners: string[] | null;
  /** Endpoint `connection-type` tokens (any); `null` for any type. */
  connectionTypes: CodingToken[] | null;
  /** Endpoint `status` values (any); `null` for either. */
  statuses: ("active" | "off")[] | null;
  /** Endpoint `name` matches (of the rendered `Endpoint.name`); `null` for any. */
  endpointNames: NameMatch[] | null;
  /** Some parameter can match nothing (an unknown identifier system, `organization` on a role…). */
  none: boolean;
}

/** Units `near` accepts, as UCUM codes. */
export type DistanceUnit = "km" | "m" | "[mi_i]";

/** A search parameter: its FHIR description and how it narrows the query. */
export interface SearchParamSpec {
  /** The name, as in the query string (chains and `_has` included). */
  name: string;
  type: "token" | "string" | "reference" | "special" | "date";
  /** The canonical SearchParameter it implements. */
  definition: string;
  /** Modifiers accepted besides none. */
  modifiers?: readonly string[];
  /** Whether the parameter may be repeated (the repetitions are ANDed). */
  repeatable?: boolean;
  documentation: string;
  /** Narrows `q` by the comma-separated `values`; throws `Error` with a message for bad input. */
  apply(q: FhirQuery, values: string[], modifier: string | null): void;
}

const R4 = "http://hl7.org/fhir/SearchParameter";
const PN = "http://hl7.org/fhir/us/davinci-pdex-plan-net/SearchParameter";

/** Bad input for a parameter; the message says what is expected. */
export class FhirParamIssue extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FhirParamIssue";
  }
}

/** An empty query: no filter. */
export function emptyQuery(): FhirQuery {
  return {
    npis: null,
    ids: null,
    lastNames: null,
    firstNames: null,
    organizationNames: null,
    anyNames: null,
    taxonomyCodes: null,
    specialtyWords: null,
    cities: null,
    states: null,
    postal: null,
    addresses: null,
    near: null,
    sex: null,
    active: null,
    updated: null,
    orgTypes: null,
    partOf: null,
    endpointOwners: null,
    connectionTypes: null,
    statuses: null,
    endpointNames: null,
    none: false,
  };
}

/** Keeps only NPIs in both lists (`null` is "any"). */
function restrictNpis(q: FhirQuery, npis: string[]): void {
  q.npis = q.npis === null ? [...new Set(npis)] : q.npis.filter((n) => npis.includes(n));
  if (q.npis.length === 0) q.none = true;
}

function nameMatches(values: string[], modifier: string | null): NameMatch[] {
  return values.map((raw) => {
    if (raw.length > 100) throw new FhirParamIssue("must be at most 100 characters");
    const key = nameKey(raw);
    if (key === "") throw new FhirParamIssue(`'${raw.slice(0, 20)}' has no letters or digits`);
    if (modifier !== "exact" && key.length < 2) {
      throw new FhirParamIssue(
        `'${raw}' is too short to match as a prefix: give 2 or more letters, or use ':exact'`,
      );
    }
    return { key, prefix: modifier !== "exact" };
  });
}

function npiToken(values: string[]): string[] | null {
  const npis: string[] = [];
  let foreign = false;
  for (const raw of values) {
    const bar = raw.indexOf("|");
    const system = bar === -1 ? null : raw.slice(0, bar);
    const value = bar === -1 ? raw : raw.slice(bar + 1);
    if (system !== null && system !== "" && system !== NPI_SYSTEM) {
      foreign = true; // Another system's identifiers: none are served.
      continue;
    }
    if (!/^\d{10}$/.test(value)) {
      throw new FhirParamIssue(`'${value.slice(0, 20)}' is not an NPI (10 digits)`);
    }
    if (!isValidNpi(value)) throw new FhirParamIssue(`'${value}' fails the NPI check digit`);
    npis.push(value);
  }
  return npis.length === 0 && foreign ? [] : npis;
}

function article(type: string): string {
  return /^[AEIOU]/.test(type) ? "an" : "a";
}

function referenceNpis(
  type: ResourceType,
  values: string[],
  check?: (id: ParsedId) => boolean,
): string[] {
  return values.map((raw) => {
    const id = parseReference(type, raw.trim());
    if (!id) {
      throw new FhirParamIssue(
        `'${raw.slice(0, 60)}' is not ${
          article(type)
        } ${type} reference ('${type}/{id}' or the id)`,
      );
    }
    return check && !check(id) ? "" : id.npi;
  }).filter((n) => n !== "");
}

function applyNpis(q: FhirQuery, npis: string[]): void {
  if (npis.length === 0) q.none = true;
  else restrictNpis(q, npis);
}

function tokenBoolean(values: string[]): boolean {
  if (values.length !== 1 || (values[0] !== "true" && values[0] !== "false")) {
    throw new FhirParamIssue("must be 'true' or 'false'");
  }
  return values[0] === "true";
}

function specialtyCodes(values: string[]): string[] | null {
  const codes: string[] = [];
  let foreign = false;
  for (const raw of values) {
    const bar = raw.indexOf("|");
    const system = bar === -1 ? null : raw.slice(0, bar);
    const code = (bar === -1 ? raw : raw.slice(bar + 1)).toUpperCase();
    if (system !== null && system !== "" && system !== NUCC_SYSTEM) {
      foreign = true;
      continue;
    }
    if (!TAXONOMY_CODE_PATTERN.test(code)) {
      throw new FhirParamIssue(
        `'${code.slice(0, 20)}' is not a NUCC taxonomy code (10 characters like 207RC0000X); ` +
          "use 'specialty:text' for words",
      );
    }
    codes.push(code);
  }
  return codes.length === 0 && foreign ? null : codes;
}

function applySpecialty(q: FhirQuery, values: string[], modifier: string | null): void {
  if (modifier === "text") {
    q.specialtyWords = values.map((v) => {
      if (v.length > 100) throw new FhirParamIssue("must be at most 100 characters");
      return v;
    });
    return;
  }
  const codes = specialtyCodes(values);
  if (codes === null) q.none = true;
  else q.taxonomyCodes = codes;
}

function applyCity(q: FhirQuery, values: string[]): void {
  q.cities = values.map((c) => {
    if (c.length > 60) throw new FhirParamIssue("must be at most 60 characters");
    const folded = foldText(c).toUpperCase();
    if (!folded) throw new FhirParamIssue("must contain letters");
    return folded;
  });
}

function applyState(q: FhirQuery, values: string[]): void {
  q.states = values.map((s) => {
    const code = s.trim().toUpperCase();
    if (!STATE_CODES.has(code)) {
      throw new FhirParamIssue(`'${s.slice(0, 10)}' is not a USPS state code`);
    }
    return code;
  });
}

function applyPostal(q: FhirQuery, values: string[]): void {
  const postal: PostalMatch = { zip5: [], exact: [], prefixes: [] };
  for (const raw of values) {
    const digits = raw.trim().replace("-", "");
    if (/^\d{5}$/.test(digits)) postal.zip5.push(digits);
    else if (/^\d{9}$/.test(digits)) postal.exact.push(digits);
    else if (/^\d{2,4}$/.test(digits)) postal.prefixes.push(digits); // FHIR strings match by prefix.
    else {
      throw new FhirParamIssue(
        `'${raw.slice(0, 20)}' is not a US postal code (5 or 9 digits, or a 2 to 4 digit prefix)`,
      );
    }
  }
  q.postal = postal;
}

function applyAddress(q: FhirQuery, values: string[]): void {
  q.addresses = values.map((raw) => {
    if (raw.length > 60) throw new FhirParamIssue("must be at most 60 characters");
    const folded = foldText(raw).toUpperCase();
    if (/^\d{2,5}(-?\d{4})?$/.test(raw.trim())) {
      return { city: null, state: null, zip: raw.trim().slice(0, 5) };
    }
    if (folded.replace(/ /g, "").length < 2) {
      throw new FhirParamIssue(
        `'${raw.slice(0, 20)}' is too short: give 2 or more letters or digits`,
      );
    }
    return { city: folded, state: STATE_CODES.has(folded) ? folded : null, zip: null };
  });
}

/** Kilometres per unit of `near`. */
const KM_PER: Readonly<Record<DistanceUnit, number>> = { km: 1, m: 0.001, "[mi_i]": 1.609344 };

/** The distance `near` uses when none is given, in km. */
export const DEFAULT_NEAR_KM = 50;
/** The largest `near` distance, in km. */
export const MAX_NEAR_KM = 500;

/**
 * Parses `near=lat|lon|distance|unit` (FHIR R4 Location `near`): WGS84
 * degrees; the distance defaults to {@linkcode DEFAULT_NEAR_KM} km and the
 * unit to `km`; units `km`, `m`, `mi`, `[mi_i]`, `[mi_us]`.
 *
 * @example
 * ```ts
 * parseNear("38.99|-77.10|10|km"); // { lat: 38.99, lon: -77.1, radius: 10, unit: "km", fhirUnit: "km" }
 * ```
 */
export function parseNear(raw: string): NearMatch & { fhirUnit: DistanceUnit } {
  const parts = raw.split("|");
  if (parts.length < 2 || parts.length > 4) {
    throw new FhirParamIssue(
      "must be 'latitude|longitude|distance|unit' (distance and unit optional)",
    );
  }
  const [latText, lonText, distText = "", unitText = ""] = parts.map((p) => p.trim());
  const number = /^[-+]?\d{1,3}(\.\d+)?$/;
  if (!number.test(latText!) || !number.test(lonText!)) {
    throw new FhirParamIssue(
      `latitude and longitude must be decimal degrees, got '${raw.slice(0, 60)}'`,
    );
  }
  const lat = Number(latText), lon = Number(lonText);
  if (lat < -90 || lat > 90) {
    throw new FhirParamIssue(`latitude must be from -90 to 90, got ${lat}`);
  }
  if (lon < -180 || lon > 180) {
    throw new FhirParamIssue(`longitude must be from -180 to 180, got ${lon}`);
  }
  const unitAliases: Record<string, DistanceUnit> = {
    "": "km",
    km: "km",
    m: "m",
    mi: "[mi_i]",
    "[mi_i]": "[mi_i]",
    "[mi_us]": "[mi_i]",
  };
  const fhirUnit = unitAliases[unitText];
  if (!fhirUnit) {
    throw new FhirParamIssue(
      `unit '${unitText.slice(0, 10)}' is not supported: use km, m, mi or [mi_i]`,
    );
  }
  let distance = DEFAULT_NEAR_KM / KM_PER[fhirUnit];
  if (distText !== "") {
    if (!/^\d+(\.\d+)?$/.test(distText)) {
      throw new FhirParamIssue(
        `distance must be a positive number, got '${distText.slice(0, 20)}'`,
      );
    }
    distance = Number(distText);
    if (!(distance > 0)) throw new FhirParamIssue("distance must be greater than 0");
  }
  const km = distance * KM_PER[fhirUnit];
  if (km > MAX_NEAR_KM) {
    throw new FhirParamIssue(
      `distance must be at most ${MAX_NEAR_KM} km, got ${Math.round(km)} km`,
    );
  }
  return fhirUnit === "[mi_i]"
    ? { lat, lon, radius: distance, unit: "mi", fhirUnit }
    : { lat, lon, radius: km, unit: "km", fhirUnit };
}

function applyNear(q: FhirQuery, values: string[]): void {
  if (values.length !== 1) throw new FhirParamIssue("takes one point (no comma list)");
  q.near = parseNear(values[0]!);
}

const identifierParam = (type: string): SearchParamSpec => ({
  name: "identifier",
  type: "token",
  definition: `${R4}/${type === "Organization" ? "Organization" : "Practitioner"}-identifier`,
  documentation:
    `The NPI: '${NPI_SYSTEM}|{npi}' or '{npi}'; a comma list is OR. Another system matches nothing.`,
  apply(q, values) {
    applyNpis(q, npiToken(values) ?? []);
  },
});

const activeParam = (definition: string): SearchParamSpec => ({
  name: "active",
  type: "token",
  definition,
  documentation:
    "'true': NPIs in use; 'false': deactivated NPIs (whose type NPPES still publishes). Without it, both.",
  apply(q, values) {
    q.active = tokenBoolean(values);
  },
});

const nameParam = (
  name: string,
  definition: string,
  what: string,
  set: (q: FhirQuery, m: NameMatch[]) => void,
): SearchParamSpec => ({
  name,
  type: "string",
  definition,
  modifiers: ["exact"],
  documentation:
    `${what}: starts with the value (2+ letters), or equals it with ':exact'; case, accents, ` +
    "spaces and punctuation ignored; other names count too. A comma list is OR.",
  apply(q, values, modifier) {
    set(q, nameMatches(values, modifier));
  },
});

const practitionerNames = (prefix: string, definitionBase: string): SearchParamSpec[] => [
  nameParam(
    `${prefix}name`,
    `${definitionBase}-name`,
    "Family or given name",
    (q, m) => (q.anyNames = m),
  ),
  nameParam(
    `${prefix}family`,
    `${R4}/individual-family`,
    "Family name",
    (q, m) => (q.lastNames = m),
  ),
  nameParam(`${prefix}given`, `${R4}/individual-given`, "Given name", (q, m) => (q.firstNames = m)),
  {
    name: `${prefix}gender`,
    type: "token",
    definition: `${R4}/individual-gender`,
    documentation: "'male' or 'female' (NPPES sex code).",
    apply(q, values) {
      if (values.length !== 1 || !["male", "female", "other", "unknown"].includes(values[0]!)) {
        throw new FhirParamIssue("must be one of male, female, other, unknown (one value)");
      }
      if (values[0] === "male") q.sex = "M";
      else if (values[0] === "female") q.sex = "F";
      else q.none = true;
    },
  },
];

const addressParams = (prefix: string, base: string, where: string): SearchParamSpec[] => [
  {
    name: `${prefix}address`,
    type: "string",
    definition: `${base}-address`,
    documentation:
      `Any part of ${where} starting with the value: the city, the state code or the ZIP ` +
      "(street lines are not indexed); a comma list is OR.",
    apply: (q, values) => applyAddress(q, values),
  },
  {
    name: `${prefix}address-city`,
    type: "string",
    definition: `${base}-address-city`,
    documentation: `City of ${where}, case-insensitive, whole name; a comma list is OR.`,
    apply: (q, values) => applyCity(q, values),
  },
  {
    name: `${prefix}address-state`,
    type: "string",
    definition: `${base}-address-state`,
    documentation: `USPS state code of ${where}; a comma list is OR.`,
    apply: (q, values) => applyState(q, values),
  },
  {
    name: `${prefix}address-postalcode`,
    type: "string",
    definition: `${base}-address-postalcode`,
    documentation:
      `Postal code of ${where}: 5 digits (also matching ZIP+4 codes), 9 digits, or a 2 to 4 digit prefix.`,
    apply: (q, values) => applyPostal(q, values),
  },
];

const PRIMARY = "the primary practice location";

/** `_lastUpdated`, on every type: the NPPES last update date of the record the resource comes from. */
const lastUpdatedParam: SearchParamSpec = {
  name: "_lastUpdated",
  type: "date",
  definition: `${R4}/Resource-lastUpdated`,
  repeatable: true,
  documentation:
    "meta.lastUpdated, the NPPES last update date at midnight UTC. A date of any precision (YYYY, " +
    "YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.sss]][Z|+hh:mm], UTC without a zone) after a prefix: eq " +
    "(default), ne, gt, lt, ge, le, sa, eb, ap (10% of the distance from now). A comma list is OR; " +
    "the parameter repeated is AND (_lastUpdated=ge2024-01-01&_lastUpdated=lt2025-01-01). Records " +
    "without a date match no condition.",
  apply(q, values) {
    let days: DaySet;
    try {
      days = union(values.map((v) => dateCondition(v)));
    } catch (error) {
      if (error instanceof DateValueError) throw new FhirParamIssue(error.message);
      throw error;
    }
    q.updated = q.updated ? intersect(q.updated, days) : days;
    if (q.updated.length === 0) q.none = true;
  },
};

/** Plan-Net organization type codes the directory assigns (see `resources.ts`). */
const ORG_TYPES = ["prvgrp", "fac"] as const;

/** Organization `type` (or a chain to it): `whose` names the organization. */
const orgTypeParam = (name: string, whose: string): SearchParamSpec => ({
  name,
  type: "token",
  definition: `${PN}/organization-type`,
  documentation:
    `Plan-Net type of the ${whose} ('${ORG_TYPE_SYSTEM}|prvgrp' or 'prvgrp'): 'prvgrp' organizations ` +
    `with a group practice taxonomy (${[...GROUP_CODES].join(", ")}), 'fac' every other ` +
    "organization. Other codes and systems match nothing. A comma list is OR.",
  apply(q, values) {
    const types = new Set<"prvgrp" | "fac">();
    for (const raw of values) {
      const bar = raw.indexOf("|");
      const system = bar === -1 ? null : raw.slice(0, bar);
      const code = bar === -1 ? raw : raw.slice(bar + 1);
      if (code === "") throw new FhirParamIssue(`'${raw.slice(0, 60)}' has no code`);
      if (system !== null && system !== "" && system !== ORG_TYPE_SYSTEM) continue;
      if ((ORG_TYPES as readonly string[]).includes(code)) types.add(code as "prvgrp" | "fac");
    }
    if (types.size === 0) q.none = true;
    else q.orgTypes = [...types].sort();
  },
});

/** Organization `partof` (or a chain to it): `what` says what it finds. */
const partofParam = (name: string, what: string): SearchParamSpec => ({
  name,
  type: "reference",
  definition: `${PN}/organization-partof`,
  documentation:
    `'Organization/{npi}': ${what} (subparts whose NPPES parent name is its legal name, when it ` +
    "is the one organization of that name). A comma list is OR.",
  apply(q, values) {
    q.partOf = [...new Set(referenceNpis("Organization", values))];
  },
});

/** Checks token values (`{system}|{code}` or `{code}`; any text with `:text`). */
function checkTokens(values: string[], modifier: string | null): void {
  for (const raw of values) {
    if (raw.length > 200) throw new FhirParamIssue("must be at most 200 characters");
    if (modifier !== "text" && raw.slice(raw.indexOf("|") + 1) === "") {
      throw new FhirParamIssue(`'${raw.slice(0, 60)}' has no code`);
    }
  }
}

/** A FHIR resource id (`[A-Za-z0-9.-]{1,64}`). */
const FHIR_ID = /^[A-Za-z0-9.-]{1,64}$/;

/**
 * Checks references to a type the directory does not serve (`HealthcareService`): `{type}/{id}`,
 * an absolute URL ending so, or a bare id.
 */
function checkForeignReferences(type: string, values: string[]): void {
  for (const raw of values) {
    const slash = raw.lastIndexOf("/");
    const named = slash === -1 ? type : raw.slice(0, slash).split("/").pop();
    if (named !== type || !FHIR_ID.test(raw.slice(slash + 1))) {
      throw new FhirParamIssue(
        `'${raw.slice(0, 60)}' is not ${
          article(type)
        } ${type} reference ('${type}/{id}' or the id)`,
      );
    }
  }
}

/** How the values of a parameter on an element the directory never fills are checked. */
type ValueCheck = (values: string[], modifier: string | null) => void;

const CHECK = {
  token: checkTokens,
  address: (values: string[]) => applyAddress(emptyQuery(), values),
  name: (values: string[], modifier: string | null) => void nameMatches(values, modifier),
  reference: (type: ResourceType): ValueCheck => (values) => void referenceNpis(type, values),
  foreign: (type: string): ValueCheck => (values) => checkForeignReferences(type, values),
} as const;

/**
 * A parameter on an element the directory never fills, because NPPES has no such data
 * (`Location.partOf`, `PractitionerRole.code`, a role's network…): its values are checked as any
 * other's (a bad one is a 400) and the search matches nothing, which is what the resources hold.
 */
function neverFilled(
  spec: Omit<SearchParamSpec, "apply" | "documentation"> & { element: string; why: string },
  check: ValueCheck,
): SearchParamSpec {
  const { element, why, ...rest } = spec;
  return {
    ...rest,
    documentation:
      `Accepted and checked, but no resource of this server has ${element} (${why}): matches nothing.`,
    apply(q, values, modifier) {
      check(values, modifier);
      q.none = true;
    },
  };
}

/** Chained parameters through an element the directory never fills: `{prefix}.{name}` each. */
function neverFilledChains(
  prefix: string,
  element: string,
  why: string,
  chains: [name: string, type: SearchParamSpec["type"], definition: string, check: ValueCheck][],
): SearchParamSpec[] {
  return chains.map(([name, type, definition, check]) =>
    neverFilled({ name: `${prefix}.${name}`, type, definition, element, why }, check)
  );
}

/** The Organization chains Plan-Net defines on references to organizations. */
function organizationChains(
  prefix: string,
  element: string,
  why: string,
): SearchParamSpec[] {
  return neverFilledChains(prefix, element, why, [
    ["name", "string", `${PN}/organization-name`, CHECK.name],
    ["address", "string", `${PN}/organization-address`, CHECK.address],
    ["partof", "reference", `${PN}/organization-partof`, CHECK.reference("Organization")],
    ["type", "token", `${PN}/organization-type`, CHECK.token],
  ]).map((p) => p.name.endsWith(".name") ? { ...p, modifiers: ["exact"] } : p);
}

const NO_ROLE_ORGANIZATION = "NPPES links no practitioner to an organization";
const NO_NETWORK = "NPPES holds no payer networks";
const NO_SERVICE = "NPPES holds no healthcare services; HealthcareService is not served";
const NO_LOCATION_PARTOF = "NPPES practice locations are not nested";
const NO_LOCATION_TYPE = "NPPES does not say what kind of place a practice location is";
const NO_LOCATION_ENDPOINT =
  "NPPES endpoints belong to the NPI, not to one of its practice locations; they are the " +
  "Organization's and PractitionerRole's endpoint";
const NO_IDENTIFIER = "NPPES gives it no identifier of its own; the NPI is its owner's";
const NO_COVERAGE = "NPPES holds no coverage areas";

/** The search parameters of each resource type (besides `_id`, `_count`, `_include`, `_revinclude`). */
export const SEARCH_PARAMS: Readonly<Record<ResourceType, readonly SearchParamSpec[]>> = withAll([
  lastUpdatedParam,
], {
  Practitioner: [
    identifierParam("Practitioner"),
    ...practitionerNames("", `${R4}/Practitioner`),
    activeParam(`${R4}/Practitioner-active`),
    ...addressParams("", `${R4}/individual`, PRIMARY),
    {
      name: "_has:PractitionerRole:practitioner:location",
      type: "reference",
      definition: `${R4}/PractitionerRole-location`,
      documentation:
        "Practitioners whose role is at this location ('Location/{npi}-{n}'; reverse chain).",
      apply: (q, values) => applyNpis(q, referenceNpis("Location", values)),
    },
    {
      name: "_has:PractitionerRole:practitioner:specialty",
      type: "token",
      definition: `${R4}/PractitionerRole-specialty`,
      documentation: "Practitioners whose role has this NUCC specialty code (reverse chain).",
      apply: (q, values) => applySpecialty(q, values, null),
    },
    neverFilled({
      name: "_has:PractitionerRole:practitioner:role",
      type: "token",
      definition: `${PN}/practitionerrole-role`,
      element: "PractitionerRole.code",
      why: "NPPES gives a practitioner's specialties, not a role code",
    }, CHECK.token),
    neverFilled({
      name: "_has:PractitionerRole:practitioner:network",
      type: "reference",
      definition: `${PN}/practitionerrole-network`,
      element: "a PractitionerRole network-reference",
      why: NO_NETWORK,
    }, CHECK.reference("Organization")),
  ],
  PractitionerRole: [
    {
      name: "practitioner",
      type: "reference",
      definition: `${R4}/PractitionerRole-practitioner`,
      documentation: "'Practitioner/{npi}'; a comma list is OR.",
      apply: (q, values) => applyNpis(q, referenceNpis("Practitioner", values)),
    },
    ...practitionerNames("practitioner.", `${R4}/Practitioner`),
    { ...identifierParam("Practitioner"), name: "practitioner.identifier" },
    {
      name: "specialty",
      type: "token",
      definition: `${R4}/PractitionerRole-specialty`,
      modifiers: ["text"],
      documentation:
        `NUCC code ('${NUCC_SYSTEM}|207RC0000X' or '207RC0000X'), any of the role's specialties; ` +
        "with ':text', specialty words (cardiologist, family doctor…) resolved as the native API does. A comma list is OR.",
      apply: applySpecialty,
    },
    {
      name: "location",
      type: "reference",
      definition: `${R4}/PractitionerRole-location`,
      documentation: "'Location/{npi}-{n}': roles at that location; a comma list is OR.",
      apply: (q, values) => applyNpis(q, referenceNpis("Location", values)),
    },
    ...addressParams("location.", `${PN}/location`, `the role's ${PRIMARY}`),
    {
      name: "location.near",
      type: "special",
      definition: `${R4}/Location-near`,
      documentation:
        "Chained 'near' of the role's primary practice location, as Location 'near': roles " +
        "within the distance, nearest first; included Locations carry their distance in search.extension.",
      apply: (q, values) => applyNear(q, values),
    },
    {
      name: "endpoint",
      type: "reference",
      definition: `${PN}/practitionerrole-endpoint`,
      documentation: "'Endpoint/{npi}-{n}': roles with that endpoint.",
      apply: (q, values) => applyNpis(q, referenceNpis("Endpoint", values)),
    },
    {
      name: "organization",
      type: "reference",
      definition: `${R4}/PractitionerRole-organization`,
      documentation:
        "Accepted, but NPPES links no practitioner to an organization: matches nothing.",
      apply(q, values) {
        referenceNpis("Organization", values);
        q.none = true;
      },
    },
    ...organizationChains("organization", "PractitionerRole.organization", NO_ROLE_ORGANIZATION),
    activeParam(`${R4}/PractitionerRole-active`),
    neverFilled({
      name: "role",
      type: "token",
      definition: `${PN}/practitionerrole-role`,
      modifiers: ["text"],
      element: "PractitionerRole.code",
      why:
        "NPPES gives a practitioner's specialties (search them with 'specialty'), not a role code",
    }, CHECK.token),
    neverFilled({
      name: "service",
      type: "reference",
      definition: `${PN}/practitionerrole-service`,
      element: "PractitionerRole.healthcareService",
      why: NO_SERVICE,
    }, CHECK.foreign("HealthcareService")),
    ...neverFilledChains("service", "PractitionerRole.healthcareService", NO_SERVICE, [
      ["service-category", "token", `${PN}/healthcareservice-service-category`, CHECK.token],
      [
        "organization",
        "reference",
        `${PN}/healthcareservice-organization`,
        CHECK.reference("Organization"),
      ],
      ["location", "reference", `${PN}/healthcareservice-location`, CHECK.reference("Location")],
    ]),
    neverFilled({
      name: "network",
      type: "reference",
      definition: `${PN}/practitionerrole-network`,
      element: "a network-reference extension",
      why: NO_NETWORK,
    }, CHECK.reference("Organization")),
    ...organizationChains("network", "a network-reference extension", NO_NETWORK),
    neverFilled({
      name: "location.organization",
      type: "reference",
      definition: `${PN}/location-organization`,
      element: "a practitioner's Location with a managingOrganization",
      why: "a practitioner's practice locations are its own; only an organization's name it",
    }, CHECK.reference("Organization")),
    neverFilled({
      name: "location.type",
      type: "token",
      definition: `${PN}/location-type`,
      modifiers: ["text"],
      element: "Location.type",
      why: NO_LOCATION_TYPE,
    }, CHECK.token),
    neverFilled({
      name: "endpoint.organization",
      type: "reference",
      definition: `${PN}/endpoint-organization`,
      element: "a practitioner's Endpoint with a managingOrganization",
      why: "a practitioner's endpoints are its own; only an organization's name it",
    }, CHECK.reference("Organization")),
    neverFilled({
      name: "identifier",
      type: "token",
      definition: `${R4}/PractitionerRole-identifier`,
      element: "PractitionerRole.identifier",
      why: `${NO_IDENTIFIER} (search it with 'practitioner.identifier')`,
    }, CHECK.token),
  ],
  Organization: [
    identifierParam("Organization"),
    nameParam(
      "name",
      `${PN}/organization-name`,
      "Legal or other name",
      (q, m) => (q.organizationNames = m),
    ),
    activeParam(`${R4}/Organization-active`),
    ...addressParams("", `${R4}/Organization`, PRIMARY),
    {
      name: "endpoint",
      type: "reference",
      definition: `${PN}/organization-endpoint`,
      documentation: "'Endpoint/{npi}-{n}': the organization with that endpoint.",
      apply: (q, values) => applyNpis(q, referenceNpis("Endpoint", values)),
    },
    orgTypeParam("type", "organization"),
    partofParam("partof", "the organization's subparts, those whose partOf names it"),
    {
      name: "endpoint.organization",
      type: "reference",
      definition: `${PN}/endpoint-organization`,
      documentation:
        "'Organization/{npi}': organizations with an endpoint managed by that organization; an " +
        "organization's endpoints are its own, so this is the named organization when it has " +
        "endpoints. A comma list is OR.",
      apply(q, values) {
        q.endpointOwners = [...new Set(referenceNpis("Organization", values))];
        if (q.endpointOwners.length === 0) q.none = true;
      },
    },
    neverFilled({
      name: "coverage-area",
      type: "reference",
      definition: `${PN}/organization-coverage-area`,
      element: "a coverage-area extension",
      why: NO_COVERAGE,
    }, CHECK.reference("Location")),
  ],
  Location: [
    ...addressParams(
      "",
      `${PN}/location`,
      "the location (primary and secondary practice locations)",
    ),
    {
      name: "near",
      type: "special",
      definition: `${R4}/Location-near`,
      documentation:
        "'latitude|longitude|distance|unit' (WGS84; unit km (default), m, mi or [mi_i]; distance " +
        `default ${DEFAULT_NEAR_KM} km, at most ${MAX_NEAR_KM} km). Great-circle distance from the ZIP centroid of each ` +
        "location; results sorted nearest first, each entry's search.extension location-distance giving it.",
      apply: (q, values) => applyNear(q, values),
    },
    {
      name: "organization",
      type: "reference",
      definition: `${PN}/location-organization`,
      documentation: "'Organization/{npi}': the organization's practice locations.",
      apply(q, values) {
        applyNpis(q, referenceNpis("Organization", values));
      },
    },
    nameParam(
      "organization.name",
      `${PN}/organization-name`,
      "Managing organization's name",
      (q, m) => (q.organizationNames = m),
    ),
    orgTypeParam("organization.type", "managing organization"),
    partofParam("organization.partof", "the practice locations of the organization's subparts"),
    neverFilled({
      name: "partof",
      type: "reference",
      definition: `${PN}/location-partof`,
      element: "Location.partOf",
      why: NO_LOCATION_PARTOF,
    }, CHECK.reference("Location")),
    ...neverFilledChains("partof", "Location.partOf", NO_LOCATION_PARTOF, [
      ["type", "token", `${PN}/location-type`, CHECK.token],
      ["address", "string", `${PN}/location-address`, CHECK.address],
      ["organization", "reference", `${PN}/location-organization`, CHECK.reference("Organization")],
    ]),
    neverFilled({
      name: "endpoint",
      type: "reference",
      definition: `${PN}/location-endpoint`,
      element: "Location.endpoint",
      why: NO_LOCATION_ENDPOINT,
    }, CHECK.reference("Endpoint")),
    neverFilled({
      name: "endpoint.organization",
      type: "reference",
      definition: `${PN}/endpoint-organization`,
      element: "Location.endpoint",
      why: NO_LOCATION_ENDPOINT,
    }, CHECK.reference("Organization")),
    neverFilled({
      name: "type",
      type: "token",
      definition: `${PN}/location-type`,
      modifiers: ["text"],
      element: "Location.type",
      why: NO_LOCATION_TYPE,
    }, CHECK.token),
    neverFilled({
      name: "identifier",
      type: "token",
      definition: `${R4}/Location-identifier`,
      element: "Location.identifier",
      why: `${NO_IDENTIFIER} (search its locations with 'organization' or '_id')`,
    }, CHECK.token),
  ],
  Endpoint: [
    {
      name: "name",
      type: "string",
      definition: `${R4}/Endpoint-name`,
      modifiers: ["exact"],
      documentation:
        "Endpoint.name (NPPES's endpoint description, else its affiliation's name): the whole " +
        "name starts with the value (2+ letters), or equals it with ':exact'; case, accents, spaces " +
        "and punctuation ignored. A comma list is OR.",
      apply(q, values, modifier) {
        q.endpointNames = nameMatches(values, modifier);
      },
    },
    neverFilled({
      name: "identifier",
      type: "token",
      definition: `${R4}/Endpoint-identifier`,
      element: "Endpoint.identifier",
      why: `${NO_IDENTIFIER} (search by owner with 'organization' or by id with '_id')`,
    }, CHECK.token),
    {
      name: "organization",
      type: "reference",
      definition: `${PN}/endpoint-organization`,
      documentation: "'Organization/{npi}': the organization's endpoints; a comma list is OR.",
      apply: (q, values) => applyNpis(q, referenceNpis("Organization", values)),
    },
    nameParam(
      "organization.name",
      `${PN}/organization-name`,
      "The owning organization's legal or other name",
      (q, m) => (q.organizationNames = m),
    ),
    orgTypeParam("organization.type", "owning organization"),
    partofParam("organization.partof", "endpoints of the organization's subparts"),
    {
      ...addressParams(
        "organization.",
        `${R4}/Organization`,
        "the owning organization's " + PRIMARY,
      )[0]!,
    },
    {
      name: "connection-type",
      type: "token",
      definition: `${R4}/Endpoint-connection-type`,
      documentation:
        "Endpoint.connectionType as rendered: 'hl7-fhir-rest' (NPPES FHIR), 'direct-project' (DIRECT) " +
        "of http://terminology.hl7.org/CodeSystem/endpoint-connection-type, 'rest-non-fhir' (REST) of " +
        `Plan-Net's EndpointConnectionTypeCS, or the NPPES code (SOAP, CONNECT, WEB, OTHERS) of ` +
        `${NPPES_ENDPOINT_TYPE_SYSTEM}; '{system}|{code}' or '{code}'. A comma list is OR.`,
      apply(q, values) {
        q.connectionTypes = values.map((raw) => {
          const bar = raw.indexOf("|");
          const code = bar === -1 ? raw : raw.slice(bar + 1);
          if (code === "") throw new FhirParamIssue(`'${raw.slice(0, 60)}' has no code`);
          return { system: bar === -1 ? null : raw.slice(0, bar) || null, code };
        });
      },
    },
    {
      name: "status",
      type: "token",
      definition: `${R4}/Endpoint-status`,
      documentation:
        "'active' (the owner's NPI is in use) or 'off' (deactivated); the other codes match nothing. " +
        "A comma list is OR.",
      apply(q, values) {
        const known = ["active", "suspended", "error", "off", "entered-in-error", "test"];
        const bad = values.find((v) => !known.includes(v));
        if (bad) throw new FhirParamIssue(`'${bad.slice(0, 30)}' is not ${known.join(", ")}`);
        const statuses = values.filter((v): v is "active" | "off" => v === "active" || v === "off");
        if (statuses.length === 0) q.none = true;
        else q.statuses = [...new Set(statuses)];
      },
    },
  ],
});

/** Adds `common` to the parameters of every type. */
function withAll(
  common: readonly SearchParamSpec[],
  byType: Record<ResourceType, SearchParamSpec[]>,
): Record<ResourceType, readonly SearchParamSpec[]> {
  for (const list of Object.values(byType)) list.push(...common);
  return byType;
}

/** `_include` values of each type. */
export const INCLUDES: Readonly<Record<ResourceType, readonly string[]>> = {
  Practitioner: [],
  PractitionerRole: [
    "PractitionerRole:practitioner",
    "PractitionerRole:location",
    "PractitionerRole:endpoint",
    "PractitionerRole:organization",
    "PractitionerRole:service",
    "PractitionerRole:network",
  ],
  Organization: ["Organization:endpoint", "Organization:partof", "Organization:coverage-area"],
  Location: ["Location:organization", "Location:endpoint", "Location:partof"],
  Endpoint: ["Endpoint:organization"],
};

/** `_revinclude` values of each type. */
export const REVINCLUDES: Readonly<Record<ResourceType, readonly string[]>> = {
  Practitioner: ["PractitionerRole:practitioner"],
  PractitionerRole: [],
  Organization: [
    "Endpoint:organization",
    "Location:organization",
    "PractitionerRole:organization",
    "PractitionerRole:network",
  ],
  Location: ["PractitionerRole:location"],
  Endpoint: [],
};

/** The default page size (the native search's default `limit`). */
export const DEFAULT_COUNT = 10;
/** The largest `_count`. */
export const MAX_COUNT = 100;

/** One `_include` or `_revinclude`: its name and whether it iterates. */
export interface IncludeSpec {
  value: string;
  iterate: boolean;
}

/** A parsed search request. */
export interface ParsedSearch {
  type: ResourceType;
  query: FhirQuery;
  /** Page size (`_count`); 0 asks for the total only. */
  count: number;
  cursor: string | null;
  includes: IncludeSpec[];
  revincludes: IncludeSpec[];
}

/** Parameters that shape the result but do not filter it. */
const RESULT_PARAMS: ReadonlySet<string> = new Set([
  "_count",
  "_cursor",
  "_include",
  "_revinclude",
  "_total",
  "_format",
]);

/**
 * Whether `_id` (with `_lastUpdated` at most) is the only filter of a search (so it can be answered by
 * looking the ids up, which finds secondary Locations too).
 */
export function onlyIds(params: URLSearchParams): boolean {
  let ids = false;
  for (const key of params.keys()) {
    const base = key.split(":")[0]!;
    if (key === "_id") ids = true;
    else if (!RESULT_PARAMS.has(base) && key !== "_lastUpdated") return false;
  }
  return ids;
}

/** A search's parameters are invalid; every bad one is listed. */
export class FhirSearchError extends Error {
  constructor(readonly errors: ParameterError[]) {
    super(errors.map((e) => `${e.parameter}: ${e.message}`).join("; "));
    this.name = "FhirSearchError";
  }
}

function splitValues(raw: string): string[] {
  // FHIR escapes a literal comma as '\,'.
  const out: string[] = [];
  let current = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\" && raw[i + 1] === ",") {
      current += ",";
      i++;
    } else if (c === ",") {
      out.push(current);
      current = "";
    } else current += c;
  }
  out.push(current);
  return out.map((v) => v.trim()).filter((v) => v !== "");
}

/**
 * Parses the query string of `GET /fhir/{type}`. Throws
 * {@linkcode FhirSearchError} naming every unknown or invalid parameter.
 *
 * @example
 * ```ts
 * const search = parseSearch("Practitioner", new URLSearchParams("family=smith&_count=5"));
 * search.query.lastNames; // [{ key: "smith", prefix: true }]
 * ```
 */
export function parseSearch(type: ResourceType, params: URLSearchParams): ParsedSearch {
  const errors: ParameterError[] = [];
  const query = emptyQuery();
  const specs = new Map(SEARCH_PARAMS[type].map((s) => [s.name, s]));
  const seen = new Set<string>();
  const out: ParsedSearch = {
    type,
    query,
    count: DEFAULT_COUNT,
    cursor: null,
    includes: [],
    revincludes: [],
  };
  for (const [key, raw] of params) {
    const fail = (message: string) => errors.push({ parameter: key.slice(0, 80), message });
    const colon = key.indexOf(":", key.startsWith("_has:") ? key.length : 0);
    const base = colon === -1 ? key : key.slice(0, colon);
    const modifier = colon === -1 ? null : key.slice(colon + 1);
    if (base === "_include" || base === "_revinclude") {
      if (modifier !== null && modifier !== "iterate" && modifier !== "recurse") {
        fail(`modifier ':${modifier.slice(0, 20)}' is not supported (only ':iterate')`);
        continue;
      }
      const allowed = (base === "_include" ? INCLUDES : REVINCLUDES)[type];
      const value = raw.trim();
      // A target type may be named last (PractitionerRole:location:Location).
      const [source, path, target] = value.split(":");
      const name = `${source}:${path}`;
      const iterate = modifier !== null;
      const ok = allowed.includes(name) ||
        (iterate && (INCLUDES[source as ResourceType] ?? []).includes(name));
      if (
        !ok || value.split(":").length > 3 || (target !== undefined && !targetMatches(name, target))
      ) {
        fail(
          `'${value.slice(0, 60)}' is not supported on ${type}` +
            (allowed.length ? `: use ${allowed.join(", ")}` : ": this type has none"),
        );
        continue;
      }
      (base === "_include" ? out.includes : out.revincludes).push({ value: name, iterate });
      continue;
    }
    if (seen.has(key) && !specs.get(base)?.repeatable) {
      fail("appears twice: give one value list (a comma list is OR)");
      continue;
    }
    seen.add(key);
    if (key === "_count") {
      // More than the page limit is served as the limit (FHIR lets servers page smaller).
      if (!/^\d{1,9}$/.test(raw)) fail(`must be a whole number (pages hold at most ${MAX_COUNT})`);
      else out.count = Math.min(MAX_COUNT, Number(raw));
      continue;
    }
    if (key === "_cursor") {
      if (raw.length > 512 || !/^[A-Za-z0-9_-]+$/.test(raw)) {
        fail("is not a cursor from a 'next' link");
      } else out.cursor = raw;
      continue;
    }
    if (key === "_total") {
      if (!["none", "estimate", "accurate"].includes(raw)) {
        fail("must be none, estimate or accurate");
      }
      continue;
    }
    if (key === "_format") {
      if (!["json", "application/json", "application/fhir+json"].includes(raw)) {
        fail("only JSON is served: json, application/json or application/fhir+json");
      }
      continue;
    }
    if (key === "_id") {
      const values = splitValues(raw);
      if (values.length === 0 || values.length > 100) {
        fail(values.length ? "lists more than 100 values" : "has no value");
        continue;
      }
      try {
        applyNpis(query, referenceNpis(type, values));
        query.ids = values.map((v) => v.slice(v.lastIndexOf("/") + 1));
      } catch (error) {
        if (!(error instanceof FhirParamIssue)) throw error;
        fail(
          error.message.replace(
            `${article(type)} ${type} reference ('${type}/{id}' or the id)`,
            `${article(type)} ${type} id: ${type} ids are ${ID_FORMS[type]}`,
          ),
        );
      }
      continue;
    }
    const spec = specs.get(base);
    if (!spec) {
      fail(
        `unknown or unsupported search parameter on ${type}: see /fhir/metadata for the list`,
      );
      continue;
    }
    if (modifier !== null && !(spec.modifiers ?? []).includes(modifier)) {
      fail(
        `modifier ':${modifier.slice(0, 20)}' is not supported` +
          (spec.modifiers?.length
            ? ` (only ${spec.modifiers.map((m) => `':${m}'`).join(", ")})`
            : ""),
      );
      continue;
    }
    const values = splitValues(raw);
    if (values.length === 0) {
      fail("has no value");
      continue;
    }
    if (values.length > 100) {
      fail("lists more than 100 values");
      continue;
    }
    try {
      spec.apply(query, values, modifier);
    } catch (error) {
      if (!(error instanceof FhirParamIssue)) throw error;
      fail(error.message);
    }
  }
  if (errors.length) throw new FhirSearchError(errors);
  return out;
}

const TARGETS: Readonly<Record<string, string>> = {
  "PractitionerRole:practitioner": "Practitioner",
  "PractitionerRole:location": "Location",
  "PractitionerRole:endpoint": "Endpoint",
  "PractitionerRole:organization": "Organization",
  "Organization:endpoint": "Endpoint",
  "Organization:partof": "Organization",
  "Location:organization": "Organization",
  "Endpoint:organization": "Organization",
  "PractitionerRole:service": "HealthcareService",
  "PractitionerRole:network": "Organization",
  "Organization:coverage-area": "Location",
  "Location:endpoint": "Endpoint",
  "Location:partof": "Location",
};

function targetMatches(name: string, target: string): boolean {
  return TARGETS[name] === target;
}
