/**
 * `GET /metrics`: the Prometheus text exposition of {@linkcode Metrics}.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import type { Metrics } from "../lib/service/metrics.ts";
import { NO_STORE } from "../lib/http/cache.ts";
import { responseWithBody } from "../lib/http/body.ts";

/** The metrics route over `metrics`. */
export function metricsRoute(metrics: Metrics): Route {
  return {
    path: "/metrics",
    methods: {
      GET: {
        async handler() {
          return responseWithBody(await metrics.text(), {
            headers: { "Content-Type": metrics.contentType, "Cache-Control": NO_STORE },
          });
        },
        operation: {
          operationId: "metrics",
          summary: "Prometheus metrics",
          description:
            "The Prometheus text format (0.0.4): `http_requests_total{route,method,status}`, " +
            "`http_request_duration_seconds{route,status}`, `http_cache_validations_total{result}`, " +
            "`http_responses_encoded_total{encoding}`, `http_response_body_bytes_total{stage}`, " +
            "`search_queue_depth`, `search_workers{state}`, `search_expected_wait_seconds`, " +
            "`search_queue_wait_seconds`, `search_service_seconds`, `search_shed_total{reason}`, " +
            "`search_timeouts_total{where}`, `search_abandoned_total{where}`, " +
            "`cache_lookups_total{cache,result}`, `cache_hit_ratio{cache}`, `dataset_ready`, " +
            "`dataset_info{version,source,built_at}`, `dataset_records{status}`, " +
            "`process_memory_bytes{kind}`. Never rate limited, never cached.",
          tags: ["health"],
          rateLimited: false,
          responses: {
            "200": {
              description: "The metrics",
              contentType: "text/plain; version=0.0.4",
              schema: { type: "string" },
            },
          },
        },
      },
    },
  };
}
