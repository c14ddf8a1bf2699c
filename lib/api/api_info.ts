/**
 * The API's name, version and summary, shown in the OpenAPI document.
 *
 * @module
 */
import type { ApiInfo } from "./openapi.ts";

/** Title, version and description of the Provider Search API. */
export const API_INFO: ApiInfo = {
  title: "Provider Search API",
  version: "1.0.0",
  description:
    "Ranked, typo-tolerant, geographic and faceted search over the US national provider " +
    "registry (NPPES). Errors are RFC 9457 problem details with the request id; every response carries " +
    "`X-Request-ID`. Comma lists inside one parameter are OR, different parameters are AND.",
};
