/**
 * `GET /openapi.json`: the OpenAPI 3.1 document, generated from the route
 * table the router serves.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import { buildOpenApi } from "../lib/api/openapi.ts";
import { API_INFO } from "../lib/api/api_info.ts";
import { JSON_CONTENT_TYPE } from "../lib/http/json.ts";

/** The route serving the document of `table()` (read once, on first request). */
export function openApiRoute(table: () => readonly Route[]): Route {
  let body: string | null = null;
  return {
    path: "/openapi.json",
    methods: {
      GET: {
        handler() {
          body ??= JSON.stringify(buildOpenApi(table(), API_INFO));
          return new Response(body, {
            headers: { "Content-Type": JSON_CONTENT_TYPE, "Cache-Control": "public, max-age=300" },
          });
        },
        operation: {
          operationId: "openapi",
          summary: "This API's OpenAPI 3.1 document",
          tags: ["meta"],
          responses: {
            "200": { description: "The document", schema: { type: "object" } },
          },
        },
      },
    },
  };
}
