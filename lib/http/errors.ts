/**
 * Typed HTTP errors, thrown by routes and validators and rendered once, as
 * RFC 9457 problem details, by the error wrapper.
 *
 * @module
 */
import { STATUS_CODE, statusText } from "./status.ts";

/** One invalid input, named by its parameter. */
export interface ParameterError {
  parameter: string;
  message: string;
}

/** Optional parts of an {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** Invalid parameters, for 400s. */
  errors?: ParameterError[];
  /** Extra response headers, e.g. `Allow` or `Retry-After`. */
  headers?: Record<string, string>;
  /** A problem type slug; the document's `type` becomes `/problems/<slug>`. */
  type?: string;
  /** Extension members of the problem document (RFC 9457 section 3.2), e.g. `current_release`. */
  members?: Record<string, string | number | boolean | null>;
}

/** An error that maps to an HTTP status; its message is safe to show to callers. */
export class HttpError extends Error {
  /** The HTTP status to answer with. */
  readonly status: number;
  /** Invalid parameters, when the error is about input. */
  readonly errors: ParameterError[] | undefined;
  /** Headers to add to the problem response. */
  readonly headers: Record<string, string>;
  /** Problem type slug. */
  readonly type: string;
  /** Extension members of the problem document. */
  readonly members: Record<string, string | number | boolean | null>;

  /**
   * @example
   * ```ts
   * throw new HttpError(404, "No provider has NPI '1234567893'");
   * ```
   */
  constructor(status: number, detail: string, options: HttpErrorOptions = {}) {
    super(detail);
    this.name = "HttpError";
    this.status = status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.type = options.type ?? statusText(status).toLowerCase().replaceAll(" ", "-");
    this.members = options.members ?? {};
  }
}

/** 400: the request's parameters are invalid; every bad one is listed. */
export class ValidationError extends HttpError {
  constructor(errors: ParameterError[]) {
    const names = [...new Set(errors.map((e) => `'${e.parameter}'`))].join(", ");
    super(STATUS_CODE.BadRequest, `Invalid request parameters: ${names}`, {
      errors,
      type: "invalid-parameters",
    });
    this.name = "ValidationError";
  }
}

/** 404: nothing is at this path. */
export class NotFoundError extends HttpError {
  constructor(detail: string) {
    super(STATUS_CODE.NotFound, detail, { type: "not-found" });
    this.name = "NotFoundError";
  }
}

/** 503: the data is not ready, or the service is shedding load; try again later. */
export class UnavailableError extends HttpError {
  constructor(detail: string, retryAfterSeconds: number, type = "unavailable") {
    super(STATUS_CODE.ServiceUnavailable, detail, {
      headers: { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      type,
    });
    this.name = "UnavailableError";
  }
}

/** The body of a problem response. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  request_id: string;
  errors?: ParameterError[];
  /** Extension members, by problem type. */
  [member: string]: unknown;
}

/** Media type of problem documents. */
export const PROBLEM_CONTENT_TYPE = "application/problem+json; charset=utf-8";

/**
 * Renders a problem-details response for an {@linkcode HttpError}.
 *
 * @example
 * ```ts
 * problemResponse(new NotFoundError("No route for '/x'"), "req-1").status; // 404
 * ```
 */
export function problemResponse(error: HttpError, requestId: string): Response {
  const problem: Problem = {
    type: `/problems/${error.type}`,
    title: statusText(error.status),
    status: error.status,
    detail: error.message,
    request_id: requestId,
  };
  if (error.errors) problem.errors = error.errors;
  for (const [name, value] of Object.entries(error.members)) {
    if (!(name in problem)) problem[name] = value;
  }
  return new Response(JSON.stringify(problem), {
    status: error.status,
    headers: {
      "Content-Type": PROBLEM_CONTENT_TYPE,
      "Cache-Control": "no-store",
      ...error.headers,
    },
  });
}
