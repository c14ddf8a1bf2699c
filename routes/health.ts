/**
 * `GET /health` and `GET /v1/health`: liveness, never touching the data store.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import { ref } from "../lib/api/schemas.ts";
import type { RequestContext } from "../lib/http/handler.ts";
import { healthResponse } from "../lib/http/health.ts";

/** Answers `{"status":"ok"}`. */
export function GET(_request: Request, ctx: RequestContext): Response {
  return healthResponse(ctx.requestId);
}

function healthRoute(path: string, operationId: string): Route {
  return {
    path,
    methods: {
      GET: {
        handler: GET,
        operation: {
          operationId,
          summary: "Liveness check",
          description:
            'Always `{"status":"ok"}` while the process serves; never touches the data store, ' +
            "so it answers while a dataset is still loading. Never rate limited.",
          tags: ["health"],
          rateLimited: false,
          responses: { "200": { description: "The service is up", schema: ref("Health") } },
        },
      },
    },
  };
}

/** The two health routes. */
export const healthRoutes: Route[] = [
  healthRoute("/health", "health"),
  healthRoute("/v1/health", "healthV1"),
];
