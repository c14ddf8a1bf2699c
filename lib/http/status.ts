/**
 * Typed access to the HTTP status codes this service uses, taken from the
 * standard library's table (published on npm without type declarations).
 *
 * @module
 */
import { STATUS_CODE as STD_STATUS_CODE, STATUS_TEXT as STD_STATUS_TEXT } from "@std/http/status";

/** The status codes the service answers with, by name. */
export interface StatusCodes {
  readonly OK: 200;
  readonly NoContent: 204;
  readonly BadRequest: 400;
  readonly NotFound: 404;
  readonly MethodNotAllowed: 405;
  readonly RequestTimeout: 408;
  readonly Gone: 410;
  readonly ContentTooLarge: 413;
  readonly URITooLong: 414;
  readonly UnsupportedMediaType: 415;
  readonly TooManyRequests: 429;
  readonly InternalServerError: 500;
  readonly ServiceUnavailable: 503;
}

/** Status codes by name, e.g. `STATUS_CODE.NotFound` is `404`. */
export const STATUS_CODE: StatusCodes = STD_STATUS_CODE as StatusCodes;

/**
 * The standard reason phrase of a status code.
 *
 * @example
 * ```ts
 * statusText(404); // "Not Found"
 * ```
 */
export function statusText(status: number): string {
  const table = STD_STATUS_TEXT as Record<number, string | undefined>;
  return table[status] ?? "Error";
}
