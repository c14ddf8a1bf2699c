/**
 * Request ids: an incoming `X-Request-ID` is echoed when it is safe, else a
 * fresh UUID v4 is made.
 *
 * @module
 */

const VALID_ID = /^[A-Za-z0-9._:+\/=-]{1,128}$/;

/** The header that carries the id both ways. */
export const REQUEST_ID_HEADER = "X-Request-ID";

/**
 * Whether an incoming id may be echoed: 1–128 characters from `[A-Za-z0-9._:+/=-]`.
 *
 * @example
 * ```ts
 * isValidRequestId("abc-123"); // true
 * isValidRequestId("a b"); // false
 * ```
 */
export function isValidRequestId(value: string | null): value is string {
  return value !== null && VALID_ID.test(value);
}

/**
 * The id for a request: the incoming header when valid, else a new UUID v4.
 *
 * @example
 * ```ts
 * requestIdFor(new Request("http://x/", { headers: { "X-Request-ID": "r1" } })); // "r1"
 * ```
 */
export function requestIdFor(request: Request): string {
  const incoming = request.headers.get(REQUEST_ID_HEADER);
  return isValidRequestId(incoming) ? incoming : crypto.randomUUID();
}
