/**
 * JSON Schemas of the response bodies, referenced from the OpenAPI document.
 *
 * @module
 */
import type { JsonSchema } from "../http/params.ts";

const nullableString: JsonSchema = { type: ["string", "null"] };
const nullableBoolean: JsonSchema = { type: ["boolean", "null"] };
const nullableNumber: JsonSchema = { type: ["number", "null"] };
const date: JsonSchema = { type: ["string", "null"], format: "date" };

function object(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  const schema: JsonSchema = {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
  if (description) schema.description = description;
  return schema;
}

function nullable(schema: JsonSchema): JsonSchema {
  return { oneOf: [schema, { type: "null" }] };
}

const address = object({
  line1: nullableString,
  line2: nullableString,
  city: nullableString,
  state: nullableString,
  postal_code: nullableString,
  country_code: nullableString,
  phone: nullableString,
  fax: nullableString,
}, "A postal address");

const location = object({
  ...(address.properties as Record<string, JsonSchema>),
  lat: nullableNumber,
  lon: nullableNumber,
}, "A practice address with its ZIP centroid (null when the ZIP is unknown)");

const otherLocation = object({
  ...(location.properties as Record<string, JsonSchema>),
  phone_extension: nullableString,
}, "A secondary practice location");

const person = {
  prefix: nullableString,
  first_name: nullableString,
  middle_name: nullableString,
  last_name: nullableString,
  suffix: nullableString,
  credential: nullableString,
};

const str: JsonSchema = { type: "string" };

/** An NPI Registry API address (keys present only when filled). */
const registryAddress: JsonSchema = {
  type: "object",
  properties: {
    country_code: str,
    country_name: str,
    address_purpose: { enum: ["LOCATION", "MAILING"] },
    address_type: { enum: ["DOM", "FGN"] },
    address_1: str,
    address_2: str,
    city: str,
    state: str,
    postal_code: str,
    telephone_number: { type: "string", description: "xxx-xxx-xxxx" },
    fax_number: { type: "string", description: "xxx-xxx-xxxx" },
  },
  required: ["country_code", "country_name", "address_purpose", "address_type"],
};

/** One result of the NPI Registry API v2.1 (its current form). */
const registryResult: JsonSchema = {
  type: "object",
  description:
    "A provider as the NPI Registry API v2.1 shows it: `number` and the epochs (milliseconds) as " +
    "strings; `basic` keys present only when filled (`sex`, not the older `gender`).",
  properties: {
    enumeration_type: { enum: ["NPI-1", "NPI-2"] },
    number: { type: "string", pattern: "^[0-9]{10}$" },
    last_updated_epoch: { type: "string", pattern: "^[0-9]+$" },
    created_epoch: { type: "string", pattern: "^[0-9]+$" },
    basic: { type: "object", additionalProperties: { type: "string" } },
    other_names: { type: "array", items: { type: "object" } },
    addresses: { type: "array", items: registryAddress },
    practiceLocations: { type: "array", items: { type: "object" } },
    taxonomies: {
      type: "array",
      items: {
        type: "object",
        properties: {
          code: str,
          taxonomy_group: str,
          desc: str,
          state: str,
          license: str,
          primary: { type: "boolean" },
        },
        required: ["code", "taxonomy_group", "desc", "state", "license", "primary"],
      },
    },
    identifiers: { type: "array", items: { type: "object" } },
    endpoints: { type: "array", items: { type: "object" } },
  },
  required: [
    "enumeration_type",
    "number",
    "basic",
    "other_names",
    "addresses",
    "practiceLocations",
    "taxonomies",
    "identifiers",
    "endpoints",
  ],
};

/** Component schemas by name. */
export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  OperationOutcome: {
    type: "object",
    description: "FHIR R4 OperationOutcome: the errors of the /fhir endpoint",
    required: ["resourceType", "issue"],
    properties: {
      resourceType: { const: "OperationOutcome" },
      issue: {
        type: "array",
        items: {
          type: "object",
          required: ["severity", "code"],
          properties: {
            severity: { type: "string" },
            code: { type: "string" },
            diagnostics: { type: "string" },
            expression: { type: "array", items: { type: "string" } },
          },
        },
      },
    },
  },
  FhirResource: {
    type: "object",
    description:
      "A FHIR R4 resource (Bundle, CapabilityStatement, Practitioner…); see /fhir/metadata",
    required: ["resourceType"],
    properties: { resourceType: { type: "string" } },
  },
  Problem: {
    type: "object",
    description: "RFC 9457 problem details",
    properties: {
      type: { type: "string" },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string" },
      request_id: { type: "string" },
      errors: {
        type: "array",
        items: object({ parameter: { type: "string" }, message: { type: "string" } }),
      },
      cursor_release: {
        type: "string",
        description: "`/problems/release-changed`: the release the cursor was issued on",
      },
      current_release: {
        type: "string",
        description: "`/problems/release-changed`: the release served now",
      },
    },
    required: ["type", "title", "status", "detail", "request_id"],
  },
  Health: object({ status: { const: "ok" } }, 'Liveness: always exactly {"status":"ok"}'),
  Ready: object(
    { status: { const: "ready" }, version: { type: "string" } },
    "Readiness: the dataset is loaded and searchable; `version` names it (as in every `ETag`)",
  ),
  Provider: object({
    npi: { type: "string", pattern: "^[0-9]{10}$" },
    entity_type: { enum: ["individual", "organization", null] },
    status: { enum: ["active", "deactivated"] },
    name: { type: "string" },
    individual: nullable(object({
      ...person,
      sex: { enum: ["M", "F", null] },
      sole_proprietor: nullableBoolean,
    })),
    organization: nullable(object({
      name: nullableString,
      subpart: nullableBoolean,
      parent_name: nullableString,
      authorized_official: nullable(object({
        ...person,
        title: nullableString,
        phone: nullableString,
      })),
    })),
    other_names: {
      type: "array",
      items: object({
        type: {
          enum: [
            "former_name",
            "professional_name",
            "doing_business_as",
            "former_legal_business_name",
            "other_name",
          ],
        },
        name: { type: "string" },
      }),
    },
    taxonomies: {
      type: "array",
      items: object({
        code: { type: "string" },
        description: nullableString,
        primary: { type: "boolean" },
        license: nullableString,
        state: nullableString,
        group: nullableString,
      }),
    },
    practice_location: nullable(location),
    mailing_address: nullable(address),
    other_locations: { type: "array", items: otherLocation },
    identifiers: {
      type: "array",
      items: object({
        type: { type: "string" },
        identifier: { type: "string" },
        state: nullableString,
        issuer: nullableString,
      }),
    },
    endpoints: {
      type: "array",
      items: object({
        type: nullableString,
        type_description: nullableString,
        endpoint: { type: "string" },
        description: nullableString,
        affiliation: nullableBoolean,
        affiliation_name: nullableString,
        use: nullableString,
        use_description: nullableString,
        content_type: nullableString,
        content_description: nullableString,
        address: nullable(address),
      }),
    },
    replacement_npi: nullableString,
    enumeration_date: date,
    last_updated: date,
    certification_date: date,
    deactivation_date: date,
    reactivation_date: date,
  }, "A provider record (NPPES facts, normalised)"),
  SearchResult: {
    allOf: [
      { $ref: "#/components/schemas/Provider" },
      {
        type: "object",
        properties: {
          distance: {
            type: "number",
            description: "Present with `near`: distance in `unit`, rounded to 0.1",
          },
          score: {
            type: "number",
            description:
              "Present with `q`: relevance, higher is better — 120-50 for results matching every " +
              "word and hint, 48-8 when hints (title, credential, state, ZIP, NPI, initial) do " +
              "not fit, 6-3 for fallback results that leave words of `q` out",
          },
        },
      },
    ],
  },
  FacetValue: object({ value: { type: "string" }, count: { type: "integer" } }),
  SearchResponse: object({
    total: { type: "integer", description: "Exact number of matches" },
    limit: { type: "integer" },
    offset: { type: "integer" },
    next_cursor: {
      type: ["string", "null"],
      description: "Pass as `cursor` for the next page; null on the last",
    },
    results: { type: "array", items: { $ref: "#/components/schemas/SearchResult" } },
    facets: {
      type: "object",
      additionalProperties: { type: "array", items: { $ref: "#/components/schemas/FacetValue" } },
      description:
        "Present when `facets` is asked for: top 20 values per facet over the whole filtered set",
    },
    took_ms: { type: "number" },
  }),
  Specialty: object({
    code: { type: "string" },
    description: { type: "string" },
    grouping: nullableString,
    classification: nullableString,
    specialization: nullableString,
  }),
  RegistryResponse: object({
    result_count: { type: "integer", description: "Results in this page (not the total)" },
    results: { type: "array", items: registryResult },
  }, "NPI Registry API v2.1 results"),
  RegistryErrors: object({
    Errors: {
      type: "array",
      minItems: 1,
      items: object({
        description: str,
        field: { type: "string", description: "The parameter, or `generic`" },
        number: { type: "string", pattern: "^[0-9]{2}$" },
      }),
    },
  }, "NPI Registry API refusals, answered with HTTP 200"),
  MatchProvider: {
    type: "object",
    description: "A registry provider as a match answer shows it",
    properties: {
      npi: { type: "string" },
      entity_type: { enum: ["individual", "organization", null] },
      status: { enum: ["active", "deactivated"] },
      name: { type: "string" },
      address: nullable(object({
        line1: nullableString,
        line2: nullableString,
        city: nullableString,
        state: nullableString,
        postal_code: nullableString,
      })),
      evidence_class: {
        type: "integer",
        minimum: 1,
        maximum: 8,
        description: "Ordered evidence class, 1 strongest (see docs/matching.md)",
      },
      score: { type: "number", description: "0–1, orders candidates; never decides" },
      verdicts: {
        type: "object",
        description:
          "Per field (npi, name, first_name, middle_name, suffix, credential, address, city, state, " +
          "postal_code, phone, specialty): agrees, conflicts or unknown. Candidates only.",
        additionalProperties: { enum: ["agrees", "conflicts", "unknown"] },
      },
      evidence: {
        type: "object",
        description:
          "How an agreeing field agrees: exact, nickname, former_name, component, typo, initial, zip9, street...",
        additionalProperties: { type: "string" },
      },
      location: {
        type: ["string", "null"],
        description: "Which location agreed best: practice_location or other_locations[i]",
      },
    },
    required: ["npi", "entity_type", "status", "name", "address", "evidence_class", "score"],
  },
  MatchResult: {
    type: "object",
    description:
      "One line of a match answer: a row's decision; the last line is instead a summary " +
      "(`summary`, `complete`, `error`?, `dataset_release`, `dataset_built_at`, `matcher_version`, " +
      "`accept_class`, `nicknames`).",
    properties: {
      id: { type: "string" },
      row: { type: "integer" },
      status: { enum: ["matched", "review", "unmatched", "invalid"] },
      reason: { type: "string", description: "Stable reason code (docs/matching.md)" },
      warnings: { type: "array", items: { type: "string" } },
      best: nullable({ $ref: "#/components/schemas/MatchProvider" }),
      candidates: { type: "array", items: { $ref: "#/components/schemas/MatchProvider" } },
      errors: {
        type: "array",
        items: object({ field: { type: "string" }, message: { type: "string" } }),
      },
      stripped: { type: "array", items: { type: "string" } },
    },
    required: ["id", "row", "status", "reason", "warnings", "best", "candidates"],
  },
  Dataset: {
    type: "object",
    properties: {
      source: { enum: ["nppes", "demo"] },
      synthetic: { type: "boolean" },
      records: { type: "integer" },
      active: { type: "integer" },
      deactivated: { type: "integer" },
      built_at: { type: "string", format: "date-time" },
      schema_version: { type: "integer" },
      files: { type: "array", items: { type: "object" } },
      taxonomy_source: { type: "string" },
      zip_dataset: { type: "string" },
      zips_not_found: { type: "integer" },
      release: {
        type: "object",
        description: "The release being served. `id` binds paging cursors; the other fields come " +
          "from the release manifest beside the database (`<db>.release.json`) and are null " +
          "without one.",
        properties: {
          id: { type: "string", example: "nppes-20260810-20260811T101512345Z" },
          source_date: {
            type: ["string", "null"],
            format: "date",
            description: "The latest date in the source files' names",
          },
          format_version: { type: ["integer", "null"] },
          created_at: { type: ["string", "null"], format: "date-time" },
          sha256: {
            type: ["string", "null"],
            pattern: "^[0-9a-f]{64}$",
            description: "The main file's SHA-256 (the manifest lists its part files with theirs)",
          },
          bytes: { type: ["integer", "null"], description: "The main file's size" },
        },
        required: ["id", "source_date", "format_version", "created_at", "sha256", "bytes"],
      },
    },
    required: ["source", "synthetic", "records", "active", "built_at", "files", "release"],
  },
};

/** `{ $ref }` to a component schema. */
export function ref(name: keyof typeof COMPONENT_SCHEMAS & string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}
