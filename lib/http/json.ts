/**
 * JSON response helpers.
 *
 * @module
 */

import { COMMON_HEADERS } from "./wrappers.ts";

/** Media type of JSON bodies. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * A JSON response with the service's content type.
 *
 * @example
 * ```ts
 * jsonResponse({ status: "ok" }).headers.get("content-type"); // "application/json; charset=utf-8"
 * ```
 */
export function jsonResponse(
  body: unknown,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { ...COMMON_HEADERS, "Content-Type": JSON_CONTENT_TYPE, ...init.headers },
  });
}

/**
 * A response whose body is JSON text already serialised.
 *
 * @example
 * ```ts
 * jsonText('{"status":"ok"}').status; // 200
 * ```
 */
export function jsonText(
  text: string,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(text, {
    status: init.status ?? 200,
    headers: { ...COMMON_HEADERS, "Content-Type": JSON_CONTENT_TYPE, ...init.headers },
  });
}
