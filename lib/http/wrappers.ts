/**
 * The cross-cutting wrappers, each a plain `(next) => handler` function:
 * response headers, logging, errors, request limits and rate limiting.
 *
 * @module
 */
import type { Handler, Wrapper } from "./handler.ts";
import { HttpError, problemResponse, UnavailableError } from "./errors.ts";
import type { Logger } from "../log.ts";
import { REQUEST_ID_HEADER } from "./request_id.ts";
import { STATUS_CODE } from "./status.ts";
import type { RateLimiter } from "./rate_limit.ts";

/** Headers every response carries. */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "X-Request-ID, Retry-After",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

/** The Content-Security-Policy of HTML pages: the service's own origin only. */
export const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

function withHeaders(response: Response, headers: Record<string, string>): Response {
  try {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  } catch {
    // Immutable headers (a fetched response): copy into a new response.
    const copy = new Response(response.body, response);
    for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value);
    return copy;
  }
}

/**
 * Gives every response its `X-Request-ID`, the CORS and security headers,
 * and a Content-Security-Policy on HTML.
 */
export function withResponseHeaders(): Wrapper {
  return function responseHeaders(next: Handler): Handler {
    return async (request, ctx) => {
      const response = await next(request, ctx);
      const headers: Record<string, string> = {
        ...COMMON_HEADERS,
        [REQUEST_ID_HEADER]: ctx.requestId,
      };
      if (response.headers.get("content-type")?.startsWith("text/html")) {
        headers["Content-Security-Policy"] = HTML_CSP;
      }
      return withHeaders(response, headers);
    };
  };
}

/** Writes one JSON log line per request: time, request id, method, path, status, duration. */
export function withLogging(log: Logger): Wrapper {
  return function logging(next: Handler): Handler {
    return async (request, ctx) => {
      const started = performance.now();
      const response = await next(request, ctx);
      log.info("request", {
        request_id: ctx.requestId,
        method: request.method.slice(0, 16),
        path: ctx.url.pathname.slice(0, 512),
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
      });
      return response;
    };
  };
}

/**
 * Turns thrown errors into problem responses: an {@linkcode HttpError} as
 * itself, anything else as a 500 that shows no internals (the cause is
 * logged with the request id).
 */
export function withErrors(log: Logger): Wrapper {
  return function errors(next: Handler): Handler {
    return async (request, ctx) => {
      try {
        return await next(request, ctx);
      } catch (error) {
        if (error instanceof HttpError) return problemResponse(error, ctx.requestId);
        log.error("unhandled error", {
          request_id: ctx.requestId,
          path: ctx.url.pathname.slice(0, 512),
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          stack: error instanceof Error ? error.stack : undefined,
        });
        return problemResponse(
          new HttpError(
            STATUS_CODE.InternalServerError,
            "The server failed to answer this request: try again, and report the request id if it persists",
            { type: "internal" },
          ),
          ctx.requestId,
        );
      }
    };
  };
}

/** The longest URL (path and query) accepted, in bytes. */
export const MAX_URL_BYTES = 8192;

/** Answers 414 for URLs over {@linkcode MAX_URL_BYTES}. */
export function withUrlLimit(maxBytes = MAX_URL_BYTES): Wrapper {
  return function urlLimit(next: Handler): Handler {
    return (request, ctx) => {
      const length = ctx.url.pathname.length + ctx.url.search.length;
      if (length > maxBytes) {
        throw new HttpError(
          STATUS_CODE.URITooLong,
          `The URL is ${length} bytes long, over the limit of ${maxBytes}: shorten the query`,
          { type: "uri-too-long" },
        );
      }
      return next(request, ctx);
    };
  };
}

/**
 * Answers 503 when the handler has not answered within `timeoutMs`, and
 * aborts the request's signal so the work behind it stops.
 */
export function withTimeout(timeoutMs: number): Wrapper {
  return function timeout(next: Handler): Handler {
    return (request, ctx) => {
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort(new DOMException("Request timed out", "TimeoutError"));
          reject(
            new UnavailableError(
              `The request took longer than ${timeoutMs} ms and was abandoned: narrow the query or try again`,
              1,
              "timeout",
            ),
          );
        }, timeoutMs);
      });
      const work = Promise.resolve().then(() =>
        next(request, { ...ctx, signal: controller.signal })
      );
      return Promise.race([work, expired]).finally(() => {
        clearTimeout(timer);
        work.catch(() => {}); // an abandoned handler's late failure is not unhandled
      });
    };
  };
}

/**
 * Rate limits by client key; `exempt` paths (health) are never limited.
 * Over the limit: 429 with `Retry-After`.
 */
export function withRateLimit(
  limiter: RateLimiter,
  options: {
    exempt: (pathname: string) => boolean;
    clientKey: (request: Request, remoteAddr: string | null) => string;
  },
): Wrapper {
  return function rateLimit(next: Handler): Handler {
    return (request, ctx) => {
      if (!options.exempt(ctx.url.pathname)) {
        const result = limiter.take(options.clientKey(request, ctx.remoteAddr));
        if (!result.ok) {
          throw new HttpError(
            STATUS_CODE.TooManyRequests,
            `Too many requests from this client: wait ${result.retryAfterSeconds} s and try again`,
            { headers: { "Retry-After": String(result.retryAfterSeconds) }, type: "rate-limited" },
          );
        }
      }
      return next(request, ctx);
    };
  };
}
