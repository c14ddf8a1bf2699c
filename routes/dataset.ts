/**
 * `GET /v1/dataset`: what is being served.
 *
 * @module
 */
import { endpoint, type Route } from "../lib/http/router.ts";
import { defineQuery } from "../lib/http/params.ts";
import { jsonResponse } from "../lib/http/json.ts";
import { ref } from "../lib/api/schemas.ts";
import { type Dataset, RELEASE_HEADER } from "../lib/service/dataset.ts";

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
          "and from which files, the taxonomy code set and ZIP dataset used, and the release: its id " +
          "(which binds paging cursors), and, when the database came with its release manifest, " +
          "the manifest's time, the file's size and SHA-256.",
        tags: ["meta"],
        query: defineQuery({}),
        responses: {
          "200": {
            description: "The dataset",
            schema: ref("Dataset"),
            headers: {
              [RELEASE_HEADER]: {
                description: "The release id, as in the body's `release.id`",
                schema: { type: "string" },
              },
            },
          },
        },
      }, () => {
        const info = dataset.store().dataset();
        const release = dataset.release();
        return jsonResponse({ ...info, release }, { headers: { [RELEASE_HEADER]: release.id } });
      }),
    },
  };
}
