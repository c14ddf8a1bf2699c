/**
 * `GET /v1/specialties?q=`: NUCC taxonomy codes and names, for autocomplete
 * and for discovering codes.
 *
 * @module
 */
import { endpoint, type Route } from "../lib/http/router.ts";
import { defineQuery, integer, text } from "../lib/http/params.ts";
import { jsonResponse } from "../lib/http/json.ts";
import type { Dataset } from "../lib/service/dataset.ts";
import type { ProviderStore } from "../lib/store/store.ts";
import {
  buildSpecialtyIndex,
  searchSpecialties,
  type SpecialtyIndex,
} from "../lib/taxonomy/resolve.ts";

const query = defineQuery({
  q: text({
    description:
      "Words or a code prefix to look for (any word of the name may be a prefix); all codes when absent",
    maxLength: 100,
    example: "cardio",
  }),
  limit: integer({ description: "Most entries to return", min: 1, max: 1000, default: 50 }),
});

const indexes = new WeakMap<ProviderStore, SpecialtyIndex>();

/** The specialty index of a store, built once per store. */
export function specialtyIndex(store: ProviderStore): SpecialtyIndex {
  let index = indexes.get(store);
  if (!index) {
    index = buildSpecialtyIndex(store.taxonomy());
    indexes.set(store, index);
  }
  return index;
}

/** The specialties route over `dataset`. */
export function specialtiesRoute(dataset: Dataset): Route {
  return {
    path: "/v1/specialties",
    methods: {
      GET: endpoint({
        operationId: "listSpecialties",
        summary: "Taxonomy codes and names",
        description:
          "NUCC codes with their hierarchy, ranked for autocomplete: exact word matches, then word " +
          'prefixes, then substrings; synonyms ("cardiologist", "eye doctor") count.',
        tags: ["specialties"],
        query,
        responses: {
          "200": {
            description: "Matching entries",
            schema: { type: "array", items: { $ref: "#/components/schemas/Specialty" } },
          },
        },
      }, (_request, _ctx, params) => {
        const index = specialtyIndex(dataset.store());
        const entries = searchSpecialties(index, params.q ?? "", params.limit);
        return jsonResponse(entries.map((e) => ({
          code: e.code,
          description: e.display,
          grouping: e.grouping,
          classification: e.classification,
          specialization: e.specialization,
        })));
      }),
    },
  };
}
