/**
 * `GET /openapi.json`: the OpenAPI 3.1 document, generated from the route
 * table the router serves.
 *
 * @module
 */
import type { Route } from "../lib/http/router.ts";
import { buildOpenApi } from "../lib/api/openapi.ts";
import { API_INFO } from "../lib/api/api_info.ts";
import { jsonText } from "../lib/http/json.ts";
import {
  CACHE_HEADERS_DOC,
  cacheControl,
  type CachePolicy,
  etagMatches,
  NOT_MODIFIED,
  NOT_MODIFIED_DOC,
  shortHash,
} from "../lib/http/cache.ts";
import { COMMON_HEADERS } from "../lib/http/wrappers.ts";

/**
 * The route serving the document of `table()` (read once, on first request),
 * with a strong `ETag` of its text and `policy`'s `Cache-Control`.
 */
export function openApiRoute(table: () => readonly Route[], policy: CachePolicy): Route {
  let document: { body: string; etag: string } | null = null;
  const control = cacheControl(policy);
  return {
    path: "/openapi.json",
    methods: {
      GET: {
        handler(request) {
          if (!document) {
            const body = JSON.stringify(buildOpenApi(table(), API_INFO));
            document = { body, etag: `"${shortHash(body)}"` };
          }
          const headers = {
            "Cache-Control": control,
            "ETag": document.etag,
            "Vary": "Accept-Encoding",
          };
          if (etagMatches(request.headers.get("if-none-match"), document.etag)) {
            return new Response(null, {
              status: NOT_MODIFIED,
              headers: { ...COMMON_HEADERS, ...headers },
            });
          }
          return jsonText(document.body, { headers });
        },
        operation: {
          operationId: "openapi",
          summary: "This API's OpenAPI 3.1 document",
          tags: ["meta"],
          responses: {
            "200": {
              description: "The document",
              schema: { type: "object" },
              headers: CACHE_HEADERS_DOC,
            },
            "304": NOT_MODIFIED_DOC,
          },
        },
      },
    },
  };
}
