/**
 * `GET /v1/providers/search`: ranked, typo-tolerant, geographic, faceted search.
 *
 * @module
 */
import { endpoint, type ResponseSpec, type Route } from "../lib/http/router.ts";
import { jsonText } from "../lib/http/json.ts";
import { ref } from "../lib/api/schemas.ts";
import { type Dataset, RELEASE_HEADER } from "../lib/service/dataset.ts";
import { queryFingerprint, SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { type SearchBody, type SearchJob, searchResponseBody } from "../lib/search/response.ts";
import { clock } from "../lib/deadline.ts";
import { specialtyIndex } from "./specialties.ts";

/** The search route's 503s: what each `type` means and what to do. */
export const SEARCH_UNAVAILABLE: ResponseSpec = {
  description: "Unavailable; retry after `Retry-After` seconds. The problem `type` says why: " +
    "`/problems/loading` (the dataset is being built or opened), `/problems/overloaded` (every " +
    "search worker is busy and `SEARCH_QUEUE` searches already wait, or the expected wait for a " +
    "worker is over `SEARCH_MAX_WAIT_MS`, or an admitted search could no longer start within it: " +
    "load is shed rather than queued without bound), " +
    "`/problems/timeout` (the search ran or waited longer than " +
    "`REQUEST_TIMEOUT_MS` and was abandoned: narrow the query), `/problems/worker-failed` (the " +
    "worker running it failed and was replaced).",
  contentType: "application/problem+json",
  schema: { $ref: "#/components/schemas/Problem" },
  headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } },
};

/** The search route over `dataset`. */
export function searchRoute(dataset: Dataset): Route {
  return {
    path: "/v1/providers/search",
    methods: {
      GET: endpoint({
        operationId: "searchProviders",
        summary: "Search providers",
        description:
          "All parameters are optional; with none, active providers are listed by name. Different " +
          "parameters combine with AND; a comma list inside one parameter is OR. A parameter that makes no sense " +
          "alone is a 400 (`radius` or `unit` without `near`, `sort=distance` without `near`, `sort=relevance` " +
          "without `q`, `cursor` with `offset`). `total` is exact. Relevance tiers, best first: every word in the " +
          "name (one word: in the surname or organization name); in the name or other names; also in the primary " +
          "specialty or city; also in another specialty; the last word as a prefix (first the whole legal name so " +
          "typed: `john coop` puts John Cooper before Adam John Cooper); typo variants (for a word the " +
          "vocabulary lacks, unless it is the last word and starts longer words; for every word only when the " +
          "words as typed find fewer than 10). Within a tier, " +
          "results follow name order. Location filters and distance use the primary practice location; distance " +
          "is great-circle from the ZIP centroid or point given, filtered exactly at the radius.",
        tags: ["providers"],
        query: SEARCH_PARAMS,
        responses: {
          "200": {
            description: "A page of results",
            schema: ref("SearchResponse"),
            headers: {
              [RELEASE_HEADER]: {
                description: "The dataset release that answered (see `GET /v1/dataset`)",
                schema: { type: "string" },
              },
            },
          },
          "410": {
            description:
              "`cursor` was issued on another dataset release (the dataset was updated " +
              "during the walk; problem type `/problems/release-changed`, with `cursor_release` " +
              "and `current_release`): start the walk again without `cursor`.",
            contentType: "application/problem+json",
            schema: { $ref: "#/components/schemas/Problem" },
          },
          "503": SEARCH_UNAVAILABLE,
        },
      }, (request, ctx, params) => {
        const startedAt = clock();
        const store = dataset.store();
        const pool = dataset.pool();
        const release = dataset.release().id;
        const cursorScope = { query: queryFingerprint(ctx.url.searchParams), release };
        const query = toSearchQuery(params, {
          specialties: specialtyIndex(store),
          cursorScope,
          url: ctx.url.searchParams,
        });
        const job: SearchJob = { query, cursorScope, startedAt };
        // The release that answers, read with the store: a swap meanwhile does not change it.
        const respond = (body: SearchBody) =>
          jsonText(body, { headers: { [RELEASE_HEADER]: release } });
        if (pool) {
          // Stops at the deadline (ctx.signal) or when the client goes away (request.signal: it
          // aborts only then, as deno.json opts into Deno's no-legacy-abort behaviour).
          const signal = AbortSignal.any([ctx.signal, request.signal]);
          const body = pool.answer(job, { signal, deadline: ctx.deadline });
          return body instanceof Promise ? body.then(respond) : respond(body);
        }
        return respond(searchResponseBody(store, job, { deadline: ctx.deadline }));
      }),
    },
  };
}
