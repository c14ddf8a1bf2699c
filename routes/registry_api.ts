/**
 * `GET /api/` (and `/api`): a drop-in NPI Registry API v2.1, so that clients
 * written for `https://npiregistry.cms.hhs.gov/api/` work by changing the
 * base URL. Refusals answer 200 with `{"Errors": [...]}`, as the real API
 * does and its clients expect.
 *
 * @module
 */
import type { Endpoint, Route } from "../lib/http/router.ts";
import { jsonText } from "../lib/http/json.ts";
import { ref } from "../lib/api/schemas.ts";
import type { Dataset } from "../lib/service/dataset.ts";
import { clock } from "../lib/deadline.ts";
import { bodyText, type SearchBody, type SearchJob } from "../lib/search/response.ts";
import { renderRegistryBody } from "../lib/registry_api/body.ts";
import {
  DEFAULT_MAX_SKIP,
  parseRegistryParams,
  registryParamDocs,
} from "../lib/registry_api/params.ts";
import { errorsBody } from "../lib/registry_api/errors.ts";
import { toRegistryQuery } from "../lib/registry_api/query.ts";
import { splitRegistryBody } from "../lib/registry_api/body.ts";
import { SEARCH_UNAVAILABLE } from "./search.ts";

const DESCRIPTION =
  "The NPI Registry API v2.1 (`https://npiregistry.cms.hhs.gov/api/`), answered from this " +
  "service's data: point a client's base URL here (`/api/`, as at CMS; `/api` answers the same). Parameters combine with AND. Results are " +
  "active providers only, in name order (last, first, middle name for individuals, the legal name " +
  "for organizations; then NPI), so pages never shuffle. `result_count` is the number of results " +
  "in this page; `X-Total-Count` carries the exact total.\n\n" +
  '**Refusals answer HTTP 200** with `{"Errors": [{"description", "field", "number"}]}`, ' +
  "every failing rule at once (numbers 03 wildcard, 04 no criteria, 05 bad value, 06 NPI not 10 " +
  "digits, 07 `state` or `country_code=US` alone, 09 `enumeration_type` alone, 17 version): the " +
  "one place this service answers an error with 200, because the real API does and its clients " +
  "read `Errors` from a 200 answer. Unknown parameters are ignored, as there. Transport failures " +
  "(loading, overload, timeout, rate limit) stay problem+json with their 4xx/5xx status.";

/** The Registry API route (`/api/`, also `/api`) over `dataset`. */
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
      query: registryParamDocs(maxSkip),
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
      const job: SearchJob = {
        query: toRegistryQuery(parsed.request, { taxonomy: store.taxonomy() }),
        // Registry answers have no cursors; the scope keeps their cached bodies apart from searches.
        cursorScope: { query: "registry", release: dataset.release().id },
        startedAt: clock(),
        format: "registry",
        // Its pages of up to 200 records are read on the search worker: decoding and writing
        // them here is then what the serving thread does.
        recordsWithPage: true,
      };
      const finish = (written: SearchBody) => {
        const [total, body] = splitRegistryBody(written);
        return answer(body, pretty, total);
      };
      const pool = dataset.pool();
      if (pool) {
        const written = pool.answer(job, { signal: ctx.signal, deadline: ctx.deadline });
        return written instanceof Promise ? written.then(finish) : finish(written);
      }
      return finish(renderRegistryBody(store, store.search(job.query, { deadline: ctx.deadline })));
    },
  };
  // One route for `/api/` (what clients call, as at CMS) and `/api`; documented as `/api`.
  return [{ path: "/api{/}?", methods: { GET: endpoint } }];
}

/** A 200 JSON answer, indented when `pretty`, with `X-Total-Count` when a total is known. */
function answer(body: SearchBody, pretty: boolean, total: number | null): Response {
  const text = pretty ? JSON.stringify(JSON.parse(bodyText(body)), null, 2) : body;
  const headers: Record<string, string> = {
    "Access-Control-Expose-Headers": "X-Request-ID, Retry-After, X-Total-Count",
  };
  if (total !== null) headers["X-Total-Count"] = String(total);
  return jsonText(text, { headers });
}
