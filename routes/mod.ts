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
import { fhirRoutes } from "./fhir.ts";
import type { Dataset } from "../lib/dataset.ts";

/** What routes need from the application. */
export interface RouteDeps {
  /** The dataset being served. */
  dataset: Dataset;
}

/** Builds the route table once, at start-up. */
export function createRoutes(deps: RouteDeps): Route[] {
  const table: Route[] = [
    ...healthRoutes,
    searchRoute(deps.dataset),
    providerRoute(deps.dataset),
    datasetRoute(deps.dataset),
    specialtiesRoute(deps.dataset),
    ...fhirRoutes(deps.dataset),
    ...webRoutes(),
    openApiRoute(() => table),
  ];
  return table;
}
