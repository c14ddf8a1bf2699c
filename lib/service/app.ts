/**
 * The application: the route table behind the wrappers, as one handler.
 *
 * @module
 */
import { compose, type Handler, RequestContext, type Wrapper } from "../http/handler.ts";
import { createRouter, type Route } from "../http/router.ts";
import { requestIdFor } from "../http/request_id.ts";
import {
  withCompression,
  withErrors,
  withLogging,
  withRateLimit,
  withRequestMetrics,
  withResponseHeaders,
  withTimeout,
  withUrlLimit,
} from "../http/wrappers.ts";
import { createRateLimiter } from "../http/rate_limit.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { healthResponse, isHealthPath } from "../http/health.ts";
import type { Metrics } from "./metrics.ts";
import { fhirErrorResponse } from "../fhir/outcome.ts";

/** The handler `Deno.serve` calls. */
export type ServeHandler = (
  request: Request,
  info?: Deno.ServeHandlerInfo,
) => Response | Promise<Response>;

/** What the application is made from. */
export interface AppOptions {
  config: Config;
  log: Logger;
  /** The service's metrics, fed by every request (the `/metrics` route serves them). */
  metrics: Metrics;
}

/** A composed application. */
export interface App {
  handler: ServeHandler;
  routes: readonly Route[];
  /** The metrics this application feeds and serves at `/metrics`. */
  metrics: Metrics;
}

/** The client key for rate limiting: the trusted proxy header's first address, else the socket's. */
export function clientKey(
  header: string | null,
): (request: Request, remoteAddr: string | null) => string {
  return (request, remoteAddr) => {
    if (header) {
      const forwarded = request.headers.get(header)?.split(",")[0]?.trim();
      if (forwarded) return forwarded.slice(0, 64);
    }
    return remoteAddr ?? "unknown";
  };
}

/**
 * Builds the application once from a route table: router and wrappers.
 * The table comes from the caller (`routes/mod.ts` in `main.ts`; tests may
 * pass their own), so this layer never imports the routes.
 *
 * @example
 * ```ts
 * const metrics = new Metrics(dataset);
 * const app = createApp({ config, log, metrics }, createRoutes({ dataset, metrics }));
 * const response = await app.handler(new Request("http://localhost/health"));
 * ```
 */
export function createApp(options: AppOptions, routes: Route[]): App {
  const { config, log, metrics } = options;
  const router = createRouter(routes);
  const wrappers: Wrapper[] = [withResponseHeaders(), withLogging(log)];
  wrappers.push(
    withRequestMetrics((...args) => metrics.request(...args)),
    withCompression({
      minBytes: config.compressionMinBytes,
      onEncoded: (...args) => metrics.encoded(...args),
    }),
    withErrors(log, fhirErrorResponse),
    withUrlLimit(),
  );
  if (config.rateLimitPerMinute > 0) {
    wrappers.push(withRateLimit(createRateLimiter({ perMinute: config.rateLimitPerMinute }), {
      exempt: (path) =>
        isHealthPath(path) || path === "/ready" || path === "/metrics" ||
        path.startsWith("/static/"),
      clientKey: clientKey(config.trustProxyHeader),
    }));
  }
  wrappers.push(withTimeout(config.requestTimeoutMs));
  const inner: Handler = compose(wrappers, router.handler);

  const healthLane = routes.some((route) => route.path === "/health");

  function handler(request: Request, info?: Deno.ServeHandlerInfo): Response | Promise<Response> {
    if (healthLane) {
      const fast = health(request);
      if (fast) return fast;
    }
    const remote = info?.remoteAddr;
    const ctx = new RequestContext(
      request.url,
      requestIdFor(request),
      remote && "hostname" in remote ? remote.hostname : null,
    );
    return inner(request, ctx);
  }

  /**
   * `GET /health` without the route table and wrappers: the same response
   * (headers and request id) and log line, for a fraction of the cost, since
   * load balancers call it constantly. Anything else about the request
   * (other methods, a query, a long URL) takes the full path.
   */
  function health(request: Request): Response | null {
    const url = request.url;
    if (!url.endsWith("/health")) return null;
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
    if (!isHealthPath(path) || request.method !== "GET") return null;
    const started = performance.now();
    const requestId = requestIdFor(request);
    const response = healthResponse(requestId);
    const ms = performance.now() - started;
    log.request({
      requestId,
      method: "GET",
      path,
      status: 200,
      durationMs: Math.round(ms * 100) / 100,
    });
    metrics.request(path, "GET", 200, ms / 1000);
    return response;
  }

  return { handler, routes, metrics };
}
