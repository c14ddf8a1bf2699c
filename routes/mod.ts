/**
 * The route table: every path the service answers, in one list.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import { healthRoutes } from "./health.ts";
import { openApiRoute } from "./openapi.ts";

/** What routes need from the application. */
// deno-lint-ignore no-empty-interface
export interface RouteDeps {}

/** Builds the route table once, at start-up. */
export function createRoutes(_deps: RouteDeps): Route[] {
  const table: Route[] = [
    ...healthRoutes,
    openApiRoute(() => table),
  ];
  return table;
}
