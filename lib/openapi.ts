/**
 * Builds the OpenAPI 3.1 document from the route table itself, so the
 * document cannot drift from what the router serves.
 *
 * @module
 */
import { allowedMethods, type Method, type ResponseSpec, type Route } from "./http/router.ts";
import type { JsonSchema } from "./http/params.ts";
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

/** Converts a `URLPattern` pathname (`/v1/providers/:npi`) to OpenAPI form (`/v1/providers/{npi}`). */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
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
        if ((def.schema as JsonSchema).type === "array") {
          parameter.style = "form";
          parameter.explode = false;
        }
        if (def.example !== undefined) parameter.example = def.example;
        parameters.push(parameter);
      }
      const responses: Record<string, unknown> = {};
      for (const [status, spec] of Object.entries(op.responses)) {
        responses[status] = renderResponse(spec);
      }
      const defaults: Record<string, ResponseSpec> = {};
      if (parameters.length > 0) {
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
  return {
    openapi: "3.1.0",
    info: { ...info, license: { name: "MIT", identifier: "MIT" } },
    servers: [{ url: "/" }],
    paths,
    components: { schemas: COMPONENT_SCHEMAS },
  };
}
