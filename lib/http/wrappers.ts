/**
 * The cross-cutting wrappers, each a plain `(next) => handler` function:
 * response headers, logging, compression, errors, request limits and rate
 * limiting.
 *
 * @module
 */
import type { Handler, RequestContext, Wrapper } from "./handler.ts";
import { HttpError, problemResponse, UnavailableError } from "./errors.ts";
import type { Logger } from "../log.ts";
import { REQUEST_ID_HEADER } from "./request_id.ts";
import { STATUS_CODE } from "./status.ts";
import type { RateLimiter } from "./rate_limit.ts";
import { clock, DeadlineError } from "../deadline.ts";
import {
  addVary,
  compress,
  type Encoding,
  isCompressible,
  negotiateEncoding,
  streamEncoding,
} from "./compression.ts";
import { knownBody } from "./body.ts";
import { ByteLru } from "../lru.ts";

/**
 * Headers every response carries (JSON responses are made with them
 * already, so the wrapper only adds the request id): public data for any
 * origin, and no content sniffing.
 */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "X-Request-ID, Retry-After",
  "X-Content-Type-Options": "nosniff",
};

/** The Content-Security-Policy of HTML pages: the service's own origin only. */
export const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/** Headers HTML pages carry besides the common ones. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": HTML_CSP,
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

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
 * Applies `fn` to a handler's result: at once when the handler answered
 * synchronously, after it settles otherwise. Keeps fast routes free of
 * promise overhead through the whole wrapper chain.
 */
function then(
  result: Response | Promise<Response>,
  fn: (response: Response) => Response | Promise<Response>,
): Response | Promise<Response> {
  return result instanceof Promise ? result.then(fn) : fn(result);
}

/**
 * Gives every response its `X-Request-ID`, the CORS and security headers,
 * and a Content-Security-Policy on HTML.
 */
export function withResponseHeaders(): Wrapper {
  return function responseHeaders(next: Handler): Handler {
    return (request, ctx) =>
      then(next(request, ctx), (response) => {
        if (response.headers.has("x-content-type-options")) {
          // Made with COMMON_HEADERS already (jsonResponse): only the id may be missing.
          return response.headers.has(REQUEST_ID_HEADER)
            ? response
            : withHeaders(response, { [REQUEST_ID_HEADER]: ctx.requestId });
        }
        const headers: Record<string, string> = {
          ...COMMON_HEADERS,
          [REQUEST_ID_HEADER]: ctx.requestId,
        };
        if (response.headers.get("content-type")?.startsWith("text/html")) {
          Object.assign(headers, PAGE_HEADERS);
        }
        return withHeaders(response, headers);
      });
  };
}

/** Writes one JSON log line per request: time, request id, method, path, status, duration. */
export function withLogging(log: Logger): Wrapper {
  return function logging(next: Handler): Handler {
    return (request, ctx) => {
      const started = performance.now();
      return then(next(request, ctx), (response) => {
        log.request({
          requestId: ctx.requestId,
          method: request.method.slice(0, 16),
          path: ctx.pathname.slice(0, 512),
          status: response.status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        });
        return response;
      });
    };
  };
}

/**
 * Reports every request to `record` once answered: the matched route's
 * pattern (`unmatched` when none), method, status and seconds taken.
 */
export function withRequestMetrics(
  record: (route: string, method: string, status: number, seconds: number) => void,
): Wrapper {
  return function requestMetrics(next: Handler): Handler {
    return (request, ctx) => {
      const started = performance.now();
      return then(next(request, ctx), (response) => {
        record(
          ctx.route ?? "unmatched",
          request.method,
          response.status,
          (performance.now() - started) / 1000,
        );
        return response;
      });
    };
  };
}

/**
 * Another rendering of errors for some paths (the FHIR endpoint answers
 * with OperationOutcome): a response, or `null` for the problem document.
 */
export type ErrorRenderer = (error: HttpError, ctx: RequestContext) => Response | null;

/**
 * Turns thrown errors into problem responses: an {@linkcode HttpError} as
 * itself, anything else as a 500 that shows no internals (the cause is
 * logged with the request id). `renderer` may answer some paths its own way.
 */
export function withErrors(log: Logger, renderer?: ErrorRenderer): Wrapper {
  return function errors(next: Handler): Handler {
    return (request, ctx) => {
      const answer = (error: HttpError): Response =>
        renderer?.(error, ctx) ?? problemResponse(error, ctx.requestId);
      const render = (error: unknown): Response => {
        if (error instanceof HttpError) return answer(error);
        log.error("unhandled error", {
          request_id: ctx.requestId,
          path: ctx.pathname.slice(0, 512),
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          stack: error instanceof Error ? error.stack : undefined,
        });
        return answer(
          new HttpError(
            STATUS_CODE.InternalServerError,
            "The server failed to answer this request: try again, and report the request id if it persists",
            { type: "internal" },
          ),
        );
      };
      try {
        const result = next(request, ctx);
        return result instanceof Promise ? result.catch(render) : result;
      } catch (error) {
        return render(error);
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
      const length = ctx.targetLength;
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
 * aborts the request's signal so the work behind it stops. It also sets the
 * request's `deadline`, which long work checks itself; work that stops
 * there throws {@linkcode DeadlineError}, answered with the same 503.
 * Handlers that answer synchronously cost nothing; pending ones are watched
 * by one shared sweeper instead of a timer each.
 */
export function withTimeout(timeoutMs: number): Wrapper {
  const timedOut = () =>
    new UnavailableError(
      `The request took longer than ${timeoutMs} ms and was abandoned: narrow the query or try again`,
      1,
      "timeout",
    );
  const pending = new Set<{ deadline: number; ctx: RequestContext; expire: () => void }>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  const sweep = () => {
    const now = performance.now();
    for (const entry of pending) {
      if (entry.deadline <= now) {
        pending.delete(entry);
        entry.ctx.abort(new DOMException("Request timed out", "TimeoutError"));
        entry.expire();
      }
    }
    if (pending.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const interval = Math.max(5, Math.min(100, Math.floor(timeoutMs / 4)));
  return function timeout(next: Handler): Handler {
    return (request, ctx) => {
      ctx.deadline = clock() + timeoutMs;
      let result: Response | Promise<Response>;
      try {
        result = next(request, ctx);
      } catch (error) {
        throw error instanceof DeadlineError ? timedOut() : error;
      }
      if (!(result instanceof Promise)) return result;
      return new Promise<Response>((resolve, reject) => {
        const entry = {
          deadline: performance.now() + timeoutMs,
          ctx,
          expire: () => reject(timedOut()),
        };
        pending.add(entry);
        if (sweeper === undefined) {
          const timer = setInterval(sweep, interval);
          Deno.unrefTimer(timer);
          sweeper = timer;
        }
        result.then(
          (response) => {
            if (pending.delete(entry)) resolve(response);
            else response.body?.cancel().catch(() => {});
          },
          (error) => {
            if (pending.delete(entry)) reject(error instanceof DeadlineError ? timedOut() : error);
          },
        );
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
      if (!options.exempt(ctx.pathname)) {
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

/** Options of {@linkcode withCompression}. */
export interface CompressionOptions {
  /** Smallest body compressed, in bytes; smaller ones go out as they are. */
  minBytes: number;
  /** Bytes of compressed bodies kept for responses with a strong `ETag` (files). Default 8 MB. */
  cacheBytes?: number;
  /** Called once per answer with the coding used (`identity` when none), for metrics. */
  onEncoded?: (encoding: Encoding | "identity", bytesIn: number, bytesOut: number) => void;
}

const encoder = new TextEncoder();

/**
 * Compresses a streamed body (exports, roster matching, files) as it
 * flows, so backpressure and flat memory hold: never read whole. gzip when
 * the client takes it (brotli streams cost several times more CPU a byte),
 * else brotli. The sizes are not known, so they are reported as 0.
 */
function compressStream(
  request: Request,
  response: Response,
  options: CompressionOptions,
): Response {
  addVary(response.headers, "Accept-Encoding");
  const encoding = streamEncoding(request.headers.get("accept-encoding"));
  if (encoding === null || response.body === null) return response;
  options.onEncoded?.(encoding, 0, 0);
  const headers = new Headers(response.headers);
  headers.set("Content-Encoding", encoding);
  headers.delete("Content-Length");
  const etag = headers.get("etag");
  if (etag !== null && !etag.startsWith("W/")) headers.set("ETag", `W/${etag}`);
  // Deno names brotli "brotli" in CompressionStream (the standard's list has only gzip and deflate).
  const format = (encoding === "gzip" ? "gzip" : "brotli") as CompressionFormat;
  return new Response(response.body.pipeThrough(new CompressionStream(format)), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * Compresses answers with gzip or brotli, as the client's `Accept-Encoding`
 * prefers, when their media type is compressible (JSON, NDJSON, CSV, HTML,
 * scripts, styles) and their body is at least `minBytes`. Such answers say
 * `Vary: Accept-Encoding` whether compressed or not, so shared caches keep
 * one copy per coding; a strong `ETag` becomes weak when the body is
 * compressed (the bytes differ, the representation does not), and the
 * compressed bytes of a strong-`ETag` answer (a file) are kept and reused.
 * Bodies made by `jsonText`/`responseWithBody` are compressed without a
 * promise; others are read first.
 */
export function withCompression(options: CompressionOptions): Wrapper {
  const cache = new ByteLru<Uint8Array<ArrayBuffer>>(
    options.cacheBytes ?? 8 * 1024 * 1024,
    (bytes) => bytes.byteLength,
  );
  const finish = (
    request: Request,
    response: Response,
    body: string | Uint8Array,
  ): Response => {
    // A string's UTF-8 length is from its length to three times that: encode only when in doubt.
    let bytes = typeof body === "string"
      ? (body.length >= options.minBytes || body.length * 3 < options.minBytes
        ? undefined
        : encoder.encode(body))
      : body;
    const size = bytes?.byteLength ?? (body as string).length;
    if (size < options.minBytes) {
      options.onEncoded?.("identity", size, size);
      return response;
    }
    addVary(response.headers, "Accept-Encoding");
    const encoding = negotiateEncoding(request.headers.get("accept-encoding"));
    if (!encoding) {
      options.onEncoded?.("identity", size, size);
      return response;
    }
    bytes ??= encoder.encode(body as string);
    const etag = response.headers.get("etag");
    const strong = etag !== null && !etag.startsWith("W/");
    const key = strong ? `${encoding}:${etag}` : "";
    let packed = strong ? cache.get(key) : undefined;
    if (packed === undefined) {
      packed = compress(bytes, encoding);
      if (strong) cache.set(key, packed);
    }
    options.onEncoded?.(encoding, bytes.byteLength, packed.byteLength);
    const headers = new Headers(response.headers);
    headers.set("Content-Encoding", encoding);
    headers.delete("Content-Length");
    if (strong) headers.set("ETag", `W/${etag}`);
    return new Response(packed, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
  return function compression(next: Handler): Handler {
    return (request, ctx) =>
      then(next(request, ctx), (response): Response | Promise<Response> => {
        // A body made here is known without touching `response.body` (which makes a stream).
        const known = knownBody(response);
        if (
          (known === undefined && response.body === null) ||
          !isCompressible(response.headers.get("content-type")) ||
          response.headers.has("content-encoding")
        ) {
          return response;
        }
        if (known !== undefined) return finish(request, response, known);
        return compressStream(request, response, options);
      });
  };
}
