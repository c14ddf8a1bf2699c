/**
 * `GET /health` and `GET /v1/health`: liveness, never touching the data store.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import { ref } from "../lib/schemas.ts";
import { JSON_CONTENT_TYPE, setHeaders } from "../lib/http/json.ts";
import { COMMON_HEADERS } from "../lib/http/wrappers.ts";
import type { RequestContext } from "../lib/http/handler.ts";
import { REQUEST_ID_HEADER } from "../lib/http/request_id.ts";
import { rememberBody } from "../lib/http/body.ts";

const BODY = '{"status":"ok"}';

/** Every health response but its request id; cloned (the hottest route: cloning skips the header checks). */
const TEMPLATE = new Response(BODY);
setHeaders(TEMPLATE.headers, { ...COMMON_HEADERS, "Content-Type": JSON_CONTENT_TYPE });

/** The health response for a request id. */
export function healthResponse(requestId: string): Response {
  const response = TEMPLATE.clone();
  response.headers.set(REQUEST_ID_HEADER, requestId);
  return rememberBody(response, BODY);
}

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

/** Whether a path is a health route (exempt from rate limiting). */
export function isHealthPath(pathname: string): boolean {
  return pathname === "/health" || pathname === "/v1/health";
}
