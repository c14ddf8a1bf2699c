/**
 * The route table: every path the service answers, in one list.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import { healthRoutes } from "./health.ts";
import { openApiRoute } from "./openapi.ts";
import { providerRoute } from "./provider.ts";
import { searchRoute } from "./search.ts";
import { datasetRoute } from "./dataset.ts";
import { specialtiesRoute } from "./specialties.ts";
import { webRoutes } from "./web.ts";
import type { Dataset } from "../lib/dataset.ts";
import { type Config, loadConfig } from "../lib/config.ts";
import { exportRoute } from "./export.ts";
import { matchRoute } from "./match.ts";

/** What routes need from the application. */
export interface RouteDeps {
  /** The dataset being served. */
  dataset: Dataset;
  /** The service's configuration (limits of exports and matching); the defaults when absent. */
  config?: Config;
}

/** Builds the route table once, at start-up. */
export function createRoutes(deps: RouteDeps): Route[] {
  const config = deps.config ?? loadConfig({});
  const table: Route[] = [
    ...healthRoutes,
    searchRoute(deps.dataset),
    exportRoute(deps.dataset, config),
    matchRoute(deps.dataset, config),
    providerRoute(deps.dataset),
    datasetRoute(deps.dataset),
    specialtiesRoute(deps.dataset),
    ...webRoutes(),
    openApiRoute(() => table),
  ];
  return table;
}
