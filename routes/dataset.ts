/**
 * `GET /v1/dataset`: what is being served.
 *
 * @module
 */
import { endpoint, type Route } from "../lib/http/router.ts";
import { defineQuery } from "../lib/http/params.ts";
import { jsonResponse } from "../lib/http/json.ts";
import { ref } from "../lib/api/schemas.ts";
import type { Dataset } from "../lib/service/dataset.ts";

/** The dataset route over `dataset`. */
export function datasetRoute(dataset: Dataset): Route {
  return {
    path: "/v1/dataset",
    methods: {
      GET: endpoint({
        operationId: "getDataset",
        summary: "What is being served",
        description:
          "Source (`nppes` or `demo`), whether it is synthetic, record counts, when it was built " +
          "and from which files, the taxonomy code set and ZIP dataset used.",
        tags: ["meta"],
        query: defineQuery({}),
        responses: { "200": { description: "The dataset", schema: ref("Dataset") } },
      }, () => jsonResponse(dataset.store().dataset())),
    },
  };
}
