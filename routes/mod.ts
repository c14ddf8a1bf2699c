/**
 * The route table: every path the service answers, in one list.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import type { Wrapper } from "../lib/http/handler.ts";
import { healthRoutes } from "./health.ts";
import { openApiRoute } from "./openapi.ts";
import { providerRoute } from "./provider.ts";
import { searchRoute } from "./search.ts";
import { datasetRoute } from "./dataset.ts";
import { specialtiesRoute } from "./specialties.ts";
import { webRoutes } from "./web.ts";
import { readyRoute } from "./ready.ts";
import { metricsRoute } from "./metrics.ts";
import type { Dataset } from "../lib/service/dataset.ts";
import type { CachePolicy } from "../lib/http/cache.ts";
import { documentCaching, withDataCache } from "../lib/http/cache.ts";
import type { Metrics } from "../lib/service/metrics.ts";
import { registryApiRoutes } from "./registry_api.ts";
import type { Config } from "../lib/config.ts";
import { fhirRoutes } from "./fhir.ts";
import { exportRoute } from "./export.ts";
import { matchRoute } from "./match.ts";
import { loadConfig } from "../lib/config.ts";

/** What routes need from the application. */
export interface RouteDeps {
  /** The dataset being served. */
  dataset: Dataset;
  /** How long data answers may be cached (default: 300 s, stale for 3600 s). */
  cache?: CachePolicy;
  /** The service's metrics, served at `/metrics` (none: no `/metrics` route). */
  metrics?: Metrics;
  /** The configuration (routes read their settings from it; defaults when absent). */
  config?: Config;
}

/** The default {@linkcode CachePolicy}: the defaults of `CACHE_MAX_AGE_SECONDS` and `CACHE_STALE_SECONDS`. */
export const DEFAULT_CACHE_POLICY: CachePolicy = { maxAgeSeconds: 300, staleSeconds: 3600 };

/** A route whose `GET` is cached by `wrap` ({@linkcode withDataCache}), and documented so. */
function cachedGet(route: Route, wrap: Wrapper): Route {
  const get = route.methods.GET;
  if (!get) return route;
  const GET = { handler: wrap(get.handler), operation: documentCaching(get.operation) };
  return { ...route, methods: { ...route.methods, GET } };
}

/** Builds the route table once, at start-up. */
export function createRoutes(deps: RouteDeps): Route[] {
  const policy = deps.cache ?? DEFAULT_CACHE_POLICY;
  const cached = withDataCache({
    version: () => deps.dataset.version(),
    policy,
    onLookup: deps.metrics ? (result) => deps.metrics!.conditional(result) : undefined,
  });
  const config = deps.config ?? loadConfig({});
  const table: Route[] = [
    ...healthRoutes,
    readyRoute(deps.dataset),
    ...(deps.metrics ? [metricsRoute(deps.metrics)] : []),
    cachedGet(searchRoute(deps.dataset), cached),
    exportRoute(deps.dataset, config),
    matchRoute(deps.dataset, config),
    cachedGet(providerRoute(deps.dataset), cached),
    cachedGet(datasetRoute(deps.dataset), cached),
    cachedGet(specialtiesRoute(deps.dataset), cached),
    ...registryApiRoutes(deps.dataset, { maxSkip: deps.config?.registryMaxSkip }),
    ...fhirRoutes(deps.dataset),
    ...webRoutes(),
    openApiRoute(() => table, policy),
  ];
  return table;
}
