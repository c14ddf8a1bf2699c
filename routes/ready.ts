/**
 * `GET /ready`: readiness, for load balancers and Kubernetes readiness
 * probes — 200 only when the dataset is loaded and searchable.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import { ref } from "../lib/api/schemas.ts";
import { jsonResponse } from "../lib/http/json.ts";
import { NO_STORE } from "../lib/http/cache.ts";
import { UnavailableError } from "../lib/http/errors.ts";
import type { Dataset } from "../lib/service/dataset.ts";

/** The readiness route over `dataset`. */
export function readyRoute(dataset: Dataset): Route {
  return {
    path: "/ready",
    methods: {
      GET: {
        handler() {
          if (!dataset.searchable()) {
            const state = dataset.state;
            if (state.kind !== "ready") dataset.store(); // Throws the loading / failed 503.
            throw new UnavailableError(
              "The dataset is open but no search worker is ready yet: try again shortly",
              1,
              "loading",
            );
          }
          return jsonResponse({ status: "ready", version: dataset.version() }, {
            headers: { "Cache-Control": NO_STORE },
          });
        },
        operation: {
          operationId: "ready",
          summary: "Readiness check",
          description:
            "200 only when the dataset is loaded and searchable (a store is open and a search " +
            "worker is ready); 503 with `Retry-After` while it loads, when it failed to open, or " +
            "while no search worker is up. Use it as the Kubernetes readiness probe (and `/health` " +
            "as the liveness probe). Never rate limited, never cached.",
          tags: ["health"],
          rateLimited: false,
          responses: {
            "200": { description: "Ready to answer searches", schema: ref("Ready") },
            "503": {
              description: "Not ready; the problem `type` says why (`/problems/loading`, " +
                "`/problems/no-dataset`)",
              contentType: "application/problem+json",
              schema: ref("Problem"),
              headers: {
                "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } },
              },
            },
          },
        },
      },
    },
  };
}
