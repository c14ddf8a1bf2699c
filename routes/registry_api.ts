/**
 * `GET /api/` (and `/api`): a drop-in NPI Registry API v2.1, so that clients
 * written for `https://npiregistry.cms.hhs.gov/api/` work by changing the
 * base URL. Refusals answer 200 with `{"Errors": [...]}`, as the real API
 * does and its clients expect.
 *
 * @module
 */
import type { Endpoint, Route } from "../lib/http/router.ts";
import { custom, defineQuery } from "../lib/http/params.ts";
import { jsonText } from "../lib/http/json.ts";
import { ref } from "../lib/schemas.ts";
import type { Dataset } from "../lib/dataset.ts";
import { clock } from "../lib/deadline.ts";
import { type SearchJob, searchResponseBody } from "../lib/search/response.ts";
import {
  DEFAULT_LIMIT,
  DEFAULT_MAX_SKIP,
  MAX_LIMIT,
  parseRegistryParams,
} from "../lib/registry_api/params.ts";
import { errorsBody } from "../lib/registry_api/errors.ts";
import { toRegistryQuery } from "../lib/registry_api/query.ts";
import { splitRegistryBody } from "../lib/registry_api/render.ts";
import { surnameRange } from "../lib/registry_api/name_range.ts";
import { SEARCH_UNAVAILABLE } from "./search.ts";

const WILDCARD =
  "Exact (case-insensitive), or a prefix with a trailing `*` after at least 2 characters.";

function doc(
  description: string,
  schema: Record<string, unknown> = { type: "string" },
  example?: string,
) {
  return custom({ description, schema, example, parse: (raw) => raw });
}

/** The parameters, for the OpenAPI document (the route reads them with `parseRegistryParams`). */
function registryParams(maxSkip: number) {
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
        `specialization or the display name). ${WILDCARD} Matches any of a provider's taxonomies.`,
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
    last_name: doc(`Individuals' own last name. ${WILDCARD}`),
    organization_name: doc(
      `Any organization name: legal, doing-business-as, former, other. ${WILDCARD}`,
    ),
    address_purpose: doc(
      "Which address `city`, `state`, `postal_code` and `country_code` apply to: `LOCATION` or " +
        "`PRIMARY` (the primary practice location; also the default), `MAILING`, `SECONDARY` " +
        "(secondary practice locations).",
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

const DESCRIPTION =
  "The NPI Registry API v2.1 (`https://npiregistry.cms.hhs.gov/api/`), answered from this " +
  "service's data: point a client's base URL here. Parameters combine with AND. Results are " +
  "active providers only, in name order (last, first, middle name for individuals, the legal name " +
  "for organizations; then NPI), so pages never shuffle. `result_count` is the number of results " +
  "in this page; `X-Total-Count` carries the exact total.\n\n" +
  '**Refusals answer HTTP 200** with `{"Errors": [{"description", "field", "number"}]}`, ' +
  "every failing rule at once (numbers 03 wildcard, 04 no criteria, 05 bad value, 06 NPI not 10 " +
  "digits, 07 `state` or `country_code=US` alone, 09 `enumeration_type` alone, 17 version): the " +
  "one place this service answers an error with 200, because the real API does and its clients " +
  "read `Errors` from a 200 answer. Unknown parameters are ignored, as there. Transport failures " +
  "(loading, overload, timeout, rate limit) stay problem+json with their 4xx/5xx status.";

/** The Registry API routes (`/api/` and `/api`) over `dataset`. */
export function registryApiRoutes(
  dataset: Dataset,
  options: { maxSkip?: number } = {},
): Route[] {
  const maxSkip = options.maxSkip ?? DEFAULT_MAX_SKIP;
  const endpoint: Endpoint = {
    operation: {
      operationId: "npiRegistryApi",
      summary: "NPI Registry API v2.1 (drop-in)",
      description: DESCRIPTION,
      tags: ["npi-registry-api"],
      query: registryParams(maxSkip),
      validation: "in-body",
      responses: {
        "200": {
          description:
            "Results (`result_count`, `results`), or refusals (`Errors`) — both with 200",
          schema: { oneOf: [ref("RegistryResponse"), ref("RegistryErrors")] },
          headers: {
            "X-Total-Count": {
              description: "The exact number of matches (results only)",
              schema: { type: "integer" },
            },
          },
        },
        "503": SEARCH_UNAVAILABLE,
      },
    },
    handler: (_request, ctx) => {
      const url = ctx.url.searchParams;
      const pretty = url.has("pretty");
      const parsed = parseRegistryParams(url, { maxSkip });
      if (!parsed.ok) return answer(errorsBody(parsed.errors), pretty, null);
      const store = dataset.store();
      const info = store.dataset();
      const job: SearchJob = {
        query: toRegistryQuery(parsed.request, {
          taxonomy: store.taxonomy(),
          surnameRange: (pattern) => surnameRange(store, pattern),
        }),
        cursorScope: `registry|${info.built_at}|${info.records}`,
        startedAt: clock(),
        format: "registry",
      };
      const finish = (text: string) => {
        const [total, body] = splitRegistryBody(text);
        return answer(body, pretty, total);
      };
      const pool = dataset.pool();
      if (pool) {
        const text = pool.answer(job, { signal: ctx.signal, deadline: ctx.deadline });
        return typeof text === "string" ? finish(text) : text.then(finish);
      }
      return finish(searchResponseBody(store, job, { deadline: ctx.deadline }));
    },
  };
  return [
    { path: "/api/", methods: { GET: endpoint } },
    { path: "/api", methods: { GET: endpoint } },
  ];
}

/** A 200 JSON answer, indented when `pretty`, with `X-Total-Count` when a total is known. */
function answer(body: string, pretty: boolean, total: number | null): Response {
  const text = pretty ? JSON.stringify(JSON.parse(body), null, 2) : body;
  const headers: Record<string, string> = {
    "Access-Control-Expose-Headers": "X-Request-ID, Retry-After, X-Total-Count",
  };
  if (total !== null) headers["X-Total-Count"] = String(total);
  return jsonText(text, { headers });
}
