/**
 * JSON response helpers.
 *
 * @module
 */

import { COMMON_HEADERS } from "./wrappers.ts";
import { responseWithBody } from "./body.ts";

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
  return jsonText(JSON.stringify(body), init);
}

/**
 * A response whose body is JSON already serialised (text, or its UTF-8 bytes).
 *
 * @example
 * ```ts
 * jsonText('{"status":"ok"}').status; // 200
 * ```
 */
export function jsonText(
  text: string | Uint8Array<ArrayBuffer>,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const response = responseWithBody(text, { status: init.status ?? 200 });
  setHeaders(response.headers, JSON_HEADERS);
  if (init.headers) setHeaders(response.headers, init.headers);
  return response;
}

const JSON_HEADERS: Readonly<Record<string, string>> = {
  ...COMMON_HEADERS,
  "Content-Type": JSON_CONTENT_TYPE,
};

/**
 * Sets `headers` one by one: in Deno a few times cheaper than passing them
 * to the `Response` constructor (which checks the whole init again).
 */
export function setHeaders(target: Headers, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) target.set(name, headers[name]!);
}
