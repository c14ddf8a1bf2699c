/**
 * `GET /fhir/metadata`: the CapabilityStatement, written from the same
 * tables that parse searches (`./search_params.ts`), so it claims exactly
 * what the server does.
 *
 * @module
 */
import { RESOURCE_TYPES } from "./ids.ts";
import { PLAN_NET_PROFILES } from "./resources.ts";
import { DEFAULT_COUNT, INCLUDES, MAX_COUNT, REVINCLUDES, SEARCH_PARAMS } from "./search_params.ts";

const RESOURCE_DOCS: Readonly<Record<string, string>> = {
  Practitioner: "Every type 1 NPI (individual). Id: the NPI.",
  PractitionerRole:
    "One per practitioner: every NUCC specialty (primary first) at every practice location. Id: the NPI.",
  Organization:
    "Every type 2 NPI. partOf names the parent of a subpart when exactly one organization has the parent's legal name " +
    "(search: partof). type: Plan-Net prvgrp (a group practice taxonomy) or fac. Id: the NPI.",
  Location:
    "Practice locations, positioned at their ZIP centroid. Id: {npi}-{n}, n = 0 the primary, 1… secondary. " +
    "Searches cover the primary and secondary practice locations of NPIs in use; every location is readable, " +
    "found by _id alone, and includable.",
  Endpoint:
    "NPPES endpoint file rows. Id: {npi}-{n}. Searches without 'organization' or '_id' list every endpoint " +
    "row in the owners' name order (connection-type, status, name, _lastUpdated filter it).",
};

/**
 * The CapabilityStatement of a server whose FHIR base is `base`.
 *
 * @example
 * ```ts
 * capabilityStatement({ base: "https://example.org/fhir", version: "1.0.0", date: "2026-08-10" });
 * ```
 */
export function capabilityStatement(options: {
  base: string;
  version: string;
  /** When the data was built (ISO date or date-time). */
  date: string;
}): Record<string, unknown> {
  const resources = RESOURCE_TYPES.map((type) => {
    const searchParam = [
      {
        name: "_id",
        definition: "http://hl7.org/fhir/SearchParameter/Resource-id",
        type: "token",
        documentation: "The resource id; a comma list is OR.",
      },
      ...SEARCH_PARAMS[type].map((p) => ({
        name: p.name,
        definition: p.definition,
        type: p.type,
        documentation: p.modifiers?.length
          ? `${p.documentation} Modifiers: ${p.modifiers.map((m) => `:${m}`).join(", ")}.`
          : p.documentation,
      })),
    ];
    const resource: Record<string, unknown> = {
      type,
      profile: `http://hl7.org/fhir/StructureDefinition/${type}`,
      supportedProfile: [PLAN_NET_PROFILES[type]],
      documentation: RESOURCE_DOCS[type],
      interaction: [{ code: "read" }, { code: "search-type" }],
      versioning: "no-version",
      readHistory: false,
      updateCreate: false,
      searchParam,
    };
    if (INCLUDES[type].length) resource.searchInclude = [...INCLUDES[type]];
    if (REVINCLUDES[type].length) resource.searchRevInclude = [...REVINCLUDES[type]];
    return resource;
  });
  return {
    resourceType: "CapabilityStatement",
    id: "provider-directory",
    url: `${options.base}/metadata`,
    version: options.version,
    name: "NppesProviderDirectory",
    title: "NPPES provider directory (FHIR R4, Plan-Net resources)",
    status: "active",
    experimental: false,
    date: options.date,
    publisher: "Provider Search API",
    description:
      "Every NPI of the NPPES registry as FHIR R4 Practitioner, PractitionerRole, Organization, Location and " +
      "Endpoint resources. Resources claim the Da Vinci PDex Plan-Net 1.2.0 profiles in meta.profile when they " +
      "meet them. Read-only, no authentication. Searches: a comma is OR, parameters are AND, an unknown " +
      `parameter is a 400 OperationOutcome; _count defaults to ${DEFAULT_COUNT} (more than ${MAX_COUNT} is served as ${MAX_COUNT}); ` +
      "total is exact; follow the 'next' link to walk a result set to its end. _lastUpdated (every type) is the " +
      "NPPES last update date at midnight UTC, meta.lastUpdated of every resource.",
    kind: "instance",
    software: { name: "provider-search-api", version: options.version },
    implementation: { description: "NPPES provider directory", url: options.base },
    fhirVersion: "4.0.1",
    format: ["json", "application/fhir+json"],
    rest: [{
      mode: "server",
      documentation:
        "Unknown search parameters, modifiers and chains are rejected with 400 (no lenient " +
        "handling). Errors are OperationOutcome resources. Deactivated NPIs of which NPPES publishes only the " +
        "date answer 410. Rate limits and timeouts are the service's own: 429 and 503 with Retry-After.",
      resource: resources,
    }],
  };
}
