/**
 * The application: the route table behind the wrappers, as one handler.
 *
 * @module
 */
import { compose, type Handler, RequestContext, type Wrapper } from "./http/handler.ts";
import { createRouter, type Route } from "./http/router.ts";
import { requestIdFor } from "./http/request_id.ts";
import {
  withErrors,
  withLogging,
  withRateLimit,
  withResponseHeaders,
  withTimeout,
  withUrlLimit,
} from "./http/wrappers.ts";
import { createRateLimiter } from "./http/rate_limit.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import { createRoutes, type RouteDeps } from "../routes/mod.ts";
import { healthResponse, isHealthPath } from "../routes/health.ts";
import { fhirErrorResponse } from "./fhir/outcome.ts";

/** The handler `Deno.serve` calls. */
export type ServeHandler = (
  request: Request,
  info?: Deno.ServeHandlerInfo,
) => Response | Promise<Response>;

/** What the application is made from. */
export interface AppOptions extends RouteDeps {
  config: Config;
  log: Logger;
}

/** A composed application. */
export interface App {
  handler: ServeHandler;
  routes: readonly Route[];
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
 * Builds the application once: route table, router and wrappers. Tests may
 * pass a table of their own.
 *
 * @example
 * ```ts
 * const app = createApp({ config: loadConfig({}), log: silentLogger });
 * const response = await app.handler(new Request("http://localhost/health"));
 * ```
 */
export function createApp(options: AppOptions, routes: Route[] = createRoutes(options)): App {
  const { config, log } = options;
  const router = createRouter(routes);
  const wrappers: Wrapper[] = [
    withResponseHeaders(),
    withLogging(log),
    withErrors(log, fhirErrorResponse),
    withUrlLimit(),
  ];
  if (config.rateLimitPerMinute > 0) {
    wrappers.push(withRateLimit(createRateLimiter({ perMinute: config.rateLimitPerMinute }), {
      exempt: (path) => isHealthPath(path) || path.startsWith("/static/"),
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
    log.request({
      requestId,
      method: "GET",
      path,
      status: 200,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
    return response;
  }

  return { handler, routes };
}
