/**
 * `GET /v1/providers/search`: ranked, typo-tolerant, geographic, faceted search.
 *
 * @module
 */
import { endpoint, type Route } from "../lib/http/router.ts";
import { jsonText } from "../lib/http/json.ts";
import { ref } from "../lib/schemas.ts";
import type { Dataset } from "../lib/dataset.ts";
import { queryFingerprint, SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { encodeCursor } from "../lib/search/cursor.ts";
import { specialtyIndex } from "./specialties.ts";

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
          "specialty or city; also in another specialty; the last word as a prefix; typo variants. Within a tier, " +
          "results follow name order. Location filters and distance use the primary practice location; distance " +
          "is great-circle from the ZIP centroid or point given, filtered exactly at the radius.",
        tags: ["providers"],
        query: SEARCH_PARAMS,
        responses: { "200": { description: "A page of results", schema: ref("SearchResponse") } },
      }, (_request, ctx, params) => {
        const started = performance.now();
        const store = dataset.store();
        const info = store.dataset();
        const cursorScope = `${
          queryFingerprint(ctx.url.searchParams)
        }|${info.built_at}|${info.records}`;
        const query = toSearchQuery(params, {
          specialties: specialtyIndex(store),
          cursorScope,
          url: ctx.url.searchParams,
        });
        const page = store.search(query, ctx.signal);
        const records = store.providerJsonById(page.hits.map((h) => h.id));
        // Each result is the cached record text with distance and score spliced in before its closing brace.
        const results = records.map((text, i) => {
          const hit = page.hits[i]!;
          let extra = "";
          if (hit.distance !== undefined) extra += `,"distance":${hit.distance}`;
          if (hit.score !== undefined) extra += `,"score":${hit.score}`;
          return extra ? `${text.slice(0, -1)}${extra}}` : text;
        });
        const head = JSON.stringify({
          total: page.total,
          limit: query.limit,
          offset: page.offset,
          next_cursor: page.next ? encodeCursor(page.next, cursorScope) : null,
        });
        const facets = page.facets ? `,"facets":${JSON.stringify(page.facets)}` : "";
        const took = Math.round((performance.now() - started) * 100) / 100;
        const body = `${head.slice(0, -1)},"results":[${
          results.join(",")
        }]${facets},"took_ms":${took}}`;
        return jsonText(body);
      }),
    },
  };
}
