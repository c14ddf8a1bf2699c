/**
 * Builds the OpenAPI 3.1 document from the route table itself, so the
 * document cannot drift from what the router serves.
 *
 * @module
 */
import { allowedMethods, type Method, type ResponseSpec, type Route } from "../http/router.ts";
import type { JsonSchema } from "../http/params.ts";
import { COMPONENT_SCHEMAS } from "./schemas.ts";

/** Title, version and description of the API. */
export interface ApiInfo {
  title: string;
  version: string;
  description: string;
}

const REQUEST_ID_HEADER_DOC = {
  description: "The request's id: the caller's when valid, else a new UUID v4",
  schema: { type: "string" },
};

function problem(description: string, headers?: ResponseSpec["headers"]): ResponseSpec {
  return {
    description,
    contentType: "application/problem+json",
    schema: { $ref: "#/components/schemas/Problem" },
    headers,
  };
}

const RETRY_AFTER = {
  "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } },
};

function renderResponse(spec: ResponseSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { description: spec.description };
  const headers: Record<string, unknown> = {
    "X-Request-ID": REQUEST_ID_HEADER_DOC,
    ...spec.headers,
  };
  out.headers = headers;
  if (spec.schema || spec.contentType) {
    out.content = {
      [spec.contentType ?? "application/json"]: spec.schema ? { schema: spec.schema } : {},
    };
  }
  return out;
}

/** Descriptions of operation tags, shown in the document's `tags` list. */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  fhir:
    "FHIR R4 provider directory (Da Vinci PDex Plan-Net resources) under `/fhir`: Practitioner, " +
    "PractitionerRole, Organization, Location, Endpoint. Its own contract is the CapabilityStatement at " +
    "`GET /fhir/metadata` (search parameters, includes, profiles); responses are `application/fhir+json`, " +
    "errors OperationOutcome. Guide: docs/fhir.md.",
};

/**
 * Converts a `URLPattern` pathname (`/v1/providers/:npi`) to OpenAPI form
 * (`/v1/providers/{npi}`); an optional trailing slash (`/api{/}?`) is
 * documented without it.
 */
export function openApiPath(path: string): string {
  return path.replace(/\{\/\}\?$/, "").replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

/**
 * The OpenAPI 3.1 document of a route table.
 *
 * @example
 * ```ts
 * const doc = buildOpenApi(routes, { title: "Provider Search API", version: "1.0.0", description: "" });
 * ```
 */
export function buildOpenApi(routes: readonly Route[], info: ApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item: Record<string, unknown> = {};
    for (
      const [method, endpoint] of Object.entries(route.methods) as [
        Method,
        NonNullable<Route["methods"][Method]>,
      ][]
    ) {
      const op = endpoint.operation;
      const parameters: Record<string, unknown>[] = [];
      for (const [name, spec] of Object.entries(op.pathParams ?? {})) {
        parameters.push({
          name,
          in: "path",
          required: true,
          description: spec.description,
          schema: spec.schema,
          example: spec.example,
        });
      }
      for (const [name, def] of Object.entries(op.query?.params ?? {})) {
        const parameter: Record<string, unknown> = {
          name,
          in: "query",
          required: false,
          description: def.description,
          schema: def.schema,
        };
        const list = (def.schema as JsonSchema).type === "array";
        if (list) {
          parameter.style = "form";
          parameter.explode = false;
        }
        // A list's example is the list (`a,b` is only how it is written in the URL).
        if (def.example !== undefined) {
          parameter.example = list && typeof def.example === "string"
            ? def.example.split(",")
            : def.example;
        }
        parameters.push(parameter);
      }
      const validated = parameters.length > 0;
      if ("304" in op.responses) {
        parameters.push({
          name: "If-None-Match",
          in: "header",
          required: false,
          description: "An `ETag` from an earlier answer (or a list of them): a match is a `304` " +
            "without a body",
          schema: { type: "string" },
        });
      }
      const responses: Record<string, unknown> = {};
      for (const [status, spec] of Object.entries(op.responses)) {
        responses[status] = renderResponse(spec);
      }
      const defaults: Record<string, ResponseSpec> = {};
      if (validated && op.validation !== "in-body") {
        defaults["400"] = problem("Invalid or unknown parameters; `errors` names each one");
      }
      defaults["405"] = problem("Method not allowed; `Allow` lists the methods", {
        Allow: { description: "Allowed methods", schema: { type: "string" } },
      });
      defaults["414"] = problem("The URL is longer than 8 KB");
      if (op.rateLimited !== false) {
        defaults["429"] = problem("Rate limited (when RATE_LIMIT_PER_MINUTE is set)", RETRY_AFTER);
        defaults["503"] ??= problem(
          "Data not ready yet, load shed, or request timed out",
          RETRY_AFTER,
        );
      }
      defaults["500"] = problem("Unexpected failure; the body shows no internals");
      for (const [status, spec] of Object.entries(defaults)) {
        if (!(status in responses)) responses[status] = renderResponse(spec);
      }
      const operation: Record<string, unknown> = {
        operationId: op.operationId,
        summary: op.summary,
        tags: op.tags,
        responses,
      };
      if (op.description) operation.description = op.description;
      if (parameters.length > 0) operation.parameters = parameters;
      if (op.requestBody) operation.requestBody = op.requestBody;
      item[method.toLowerCase()] = operation;
    }
    item.description = `Allowed methods: ${allowedMethods(route)}`;
    paths[openApiPath(route.path)] = item;
  }
  const tags = [
    ...new Set(routes.flatMap((r) => Object.values(r.methods).flatMap((e) => e.operation.tags))),
  ]
    .filter((name) => TAG_DESCRIPTIONS[name])
    .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));
  return {
    openapi: "3.1.0",
    info: { ...info, license: { name: "MIT", identifier: "MIT" } },
    servers: [{ url: "/" }],
    // A public API: no operation needs credentials (rate limits are per client address).
    security: [],
    tags,
    paths,
    components: { schemas: COMPONENT_SCHEMAS },
  };
}
