/**
 * Errors of the FHIR endpoint as `OperationOutcome` resources: the same
 * typed {@linkcode HttpError}s the rest of the service throws, rendered the
 * FHIR way for paths under `/fhir`.
 *
 * @module
 */
import { HttpError } from "../http/errors.ts";
import { jsonText } from "../http/json.ts";
import type { RequestContext } from "../http/handler.ts";

/** Media type of FHIR JSON. */
export const FHIR_CONTENT_TYPE = "application/fhir+json; charset=utf-8";

/** Whether a path belongs to the FHIR endpoint. */
export function isFhirPath(pathname: string): boolean {
  return pathname === "/fhir" || pathname.startsWith("/fhir/");
}

/** The FHIR issue type of an HTTP status. */
function issueCode(error: HttpError): string {
  switch (error.status) {
    case 400:
      return error.type === "not-supported" ? "not-supported" : "invalid";
    case 404:
      return "not-found";
    case 405:
      return "not-supported";
    case 410:
      return "deleted";
    case 414:
      return "too-long";
    case 429:
      return "throttled";
    case 503:
      return error.type === "timeout" ? "timeout" : "transient";
    default:
      return error.status >= 500 ? "exception" : "processing";
  }
}

/**
 * The OperationOutcome of an error: one issue per invalid parameter (with
 * its name in `expression`), else one issue with the message.
 *
 * @example
 * ```ts
 * operationOutcome(new HttpError(404, "No Practitioner has id '1234567893'"));
 * // { resourceType: "OperationOutcome", issue: [{ severity: "error", code: "not-found", diagnostics: "No Practitioner…" }] }
 * ```
 */
export function operationOutcome(error: HttpError): Record<string, unknown> {
  const code = issueCode(error);
  const issue = error.errors?.length
    ? error.errors.map((e) => ({
      severity: "error",
      code: /not supported|^unknown or unsupported/.test(e.message) ? "not-supported" : code,
      diagnostics: `${e.parameter}: ${e.message}`,
      expression: [e.parameter],
    }))
    : [{ severity: "error", code, diagnostics: error.message }];
  return { resourceType: "OperationOutcome", issue };
}

/**
 * Renders an error under `/fhir` as an OperationOutcome response (status,
 * `Retry-After` and `Allow` kept); `null` for other paths, which keep the
 * RFC 9457 problem documents.
 */
export function fhirErrorResponse(error: HttpError, ctx: RequestContext): Response | null {
  if (!isFhirPath(ctx.pathname)) return null;
  return jsonText(JSON.stringify(operationOutcome(error)), {
    status: error.status,
    headers: { ...error.headers, "Content-Type": FHIR_CONTENT_TYPE },
  });
}
