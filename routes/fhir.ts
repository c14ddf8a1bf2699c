/**
 * The FHIR R4 provider directory under `/fhir`: `metadata`, read by id and
 * search for Practitioner, PractitionerRole, Organization, Location and
 * Endpoint. Thin: the work is in `lib/fhir/`. Errors become OperationOutcome
 * in the error wrapper (`lib/fhir/outcome.ts`), so rate limits and timeouts
 * are the same as everywhere else.
 *
 * @module
 */
import type { Operation, ResponseSpec, Route } from "../lib/http/router.ts";
import { NotFoundError, ValidationError } from "../lib/http/errors.ts";
import { jsonText } from "../lib/http/json.ts";
import type { Dataset } from "../lib/service/dataset.ts";
import { API_INFO } from "../lib/api/api_info.ts";
import { FHIR_CONTENT_TYPE } from "../lib/fhir/outcome.ts";
import { capabilityStatement } from "../lib/fhir/capability.ts";
import { ID_FORMS, isResourceType, RESOURCE_TYPES, type ResourceType } from "../lib/fhir/ids.ts";
import { readResource, searchResources } from "../lib/fhir/directory.ts";
import { specialtyIndex } from "./specialties.ts";
import type { RequestContext } from "../lib/http/handler.ts";

function fhirJson(body: unknown): Response {
  return jsonText(JSON.stringify(body), { headers: { "Content-Type": FHIR_CONTENT_TYPE } });
}

function outcome(description: string): ResponseSpec {
  return {
    description: `${description} (an OperationOutcome)`,
    contentType: "application/fhir+json",
    schema: { $ref: "#/components/schemas/OperationOutcome" },
  };
}

const RETRY = { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } };

/** The error responses of every FHIR operation: OperationOutcome, not problem documents. */
const ERRORS: Record<string, ResponseSpec> = {
  "405": outcome("Method not allowed; `Allow` lists the methods"),
  "414": outcome("The URL is longer than 8 KB"),
  "429": { ...outcome("Rate limited (when RATE_LIMIT_PER_MINUTE is set)"), headers: RETRY },
  "500": outcome("Unexpected failure; shows no internals"),
  "503": { ...outcome("Data loading, load shed, or the request timed out"), headers: RETRY },
};

const TYPE_PARAM = {
  description: `Resource type: ${RESOURCE_TYPES.join(", ")}`,
  schema: { type: "string", enum: [...RESOURCE_TYPES] },
  example: "Practitioner",
};

function resourceType(ctx: RequestContext): ResourceType {
  const type = ctx.params.type ?? "";
  if (!isResourceType(type)) {
    throw new NotFoundError(
      `Resource type '${type.slice(0, 40)}' is not served: use ${RESOURCE_TYPES.join(", ")}`,
    );
  }
  return type;
}

function base(ctx: RequestContext): string {
  return `${ctx.url.origin}/fhir`;
}

const SEE_METADATA =
  "What each type supports is in the CapabilityStatement at `/fhir/metadata` and " +
  "in docs/fhir.md.";

/** The FHIR routes over `dataset`. */
export function fhirRoutes(dataset: Dataset): Route[] {
  const metadata: Operation = {
    operationId: "fhirMetadata",
    summary: "FHIR CapabilityStatement",
    description: `The FHIR R4 directory's CapabilityStatement. ${SEE_METADATA}`,
    tags: ["fhir"],
    responses: {
      "200": {
        description: "The CapabilityStatement",
        contentType: "application/fhir+json",
        schema: { $ref: "#/components/schemas/FhirResource" },
      },
      ...ERRORS,
    },
  };
  const search: Operation = {
    operationId: "fhirSearch",
    summary: "FHIR search",
    description:
      "Search Practitioner, PractitionerRole, Organization, Location or Endpoint with FHIR " +
      "search parameters (`family`, `specialty`, `near`, `_lastUpdated` on every type, Organization " +
      "`type` and `partof`, Endpoint `connection-type`, `status` and `name`, `_include`…; Plan-Net " +
      "parameters on elements NPPES has no data for, such as PractitionerRole `role`, `service` and " +
      "`network` or Location `partof`, `type` and `endpoint`, are checked and match nothing); a " +
      "searchset Bundle with an exact " +
      `\`total\` and a \`next\` link while results remain. ${SEE_METADATA} Unknown parameters are a 400.`,
    tags: ["fhir"],
    pathParams: { type: TYPE_PARAM },
    responses: {
      "200": {
        description: "A searchset Bundle",
        contentType: "application/fhir+json",
        schema: { $ref: "#/components/schemas/FhirResource" },
      },
      "400": outcome("Unknown or invalid search parameters, one issue each"),
      "404": outcome("Resource type not served"),
      ...ERRORS,
    },
  };
  const read: Operation = {
    operationId: "fhirRead",
    summary: "FHIR read",
    description: `One resource by id. Ids: ${
      RESOURCE_TYPES.map((t) => `${t}: ${ID_FORMS[t]}`).join("; ")
    }.`,
    tags: ["fhir"],
    pathParams: {
      type: TYPE_PARAM,
      id: { description: "The resource id", schema: { type: "string" }, example: "1234567893" },
    },
    responses: {
      "200": {
        description: "The resource",
        contentType: "application/fhir+json",
        schema: { $ref: "#/components/schemas/FhirResource" },
      },
      "404": outcome("No such resource"),
      "410": outcome("A deactivated NPI of which NPPES publishes nothing else"),
      ...ERRORS,
    },
  };
  return [
    {
      path: "/fhir/metadata",
      methods: {
        GET: {
          operation: metadata,
          handler(_request, ctx) {
            const info = dataset.state.kind === "ready" ? dataset.store().dataset() : null;
            return fhirJson(capabilityStatement({
              base: base(ctx),
              version: API_INFO.version,
              date: info?.built_at ?? new Date().toISOString(),
            }));
          },
        },
      },
    },
    {
      path: "/fhir/:type",
      methods: {
        GET: {
          operation: search,
          async handler(_request, ctx) {
            const type = resourceType(ctx);
            const store = dataset.store();
            const bundle = await searchResources(
              {
                store,
                release: dataset.release().id,
                pool: dataset.pool(),
                specialties: specialtyIndex(store),
              },
              {
                type,
                url: ctx.url,
                base: base(ctx),
                watch: { signal: ctx.signal, deadline: ctx.deadline },
              },
            );
            return fhirJson(bundle);
          },
        },
      },
    },
    {
      path: "/fhir/:type/:id",
      methods: {
        GET: {
          operation: read,
          handler(_request, ctx) {
            const type = resourceType(ctx);
            if ([...ctx.url.searchParams.keys()].some((k) => k !== "_format")) {
              throw new ValidationError([{
                parameter: "_id",
                message: "a read takes no parameters: use a search",
              }]);
            }
            return fhirJson(readResource(dataset.store(), type, ctx.params.id ?? ""));
          },
        },
      },
    },
  ];
}
