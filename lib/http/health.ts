/**
 * The liveness answer, `{"status":"ok"}`, built once and cloned: the
 * health route and the application's fast lane for load balancers send the
 * same response.
 *
 * @module
 */
import { JSON_CONTENT_TYPE, setHeaders } from "./json.ts";
import { COMMON_HEADERS } from "./wrappers.ts";
import { REQUEST_ID_HEADER } from "./request_id.ts";
import { rememberBody } from "./body.ts";

const BODY = '{"status":"ok"}';

/** Every health response but its request id; cloned (the hottest route: cloning skips the header checks). */
const TEMPLATE = new Response(BODY);
setHeaders(TEMPLATE.headers, { ...COMMON_HEADERS, "Content-Type": JSON_CONTENT_TYPE });

/**
 * The health response for a request id.
 *
 * @example
 * ```ts
 * await healthResponse("abc").json(); // { status: "ok" }
 * ```
 */
export function healthResponse(requestId: string): Response {
  const response = TEMPLATE.clone();
  response.headers.set(REQUEST_ID_HEADER, requestId);
  return rememberBody(response, BODY);
}

/** Whether a path is a health route (exempt from rate limiting). */
export function isHealthPath(pathname: string): boolean {
  return pathname === "/health" || pathname === "/v1/health";
}
