/**
 * `GET /v1/providers/export`: the whole result set of a search, streamed as
 * NDJSON or CSV in the search's order.
 *
 * @module
 */
import { endpoint, type Route } from "../lib/http/router.ts";
import { choice, defineQuery } from "../lib/http/params.ts";
import { ref } from "../lib/api/schemas.ts";
import type { Dataset } from "../lib/service/dataset.ts";
import type { Config } from "../lib/config.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { pageFinder } from "../lib/search/page_finder.ts";
import { type ExportFormat, prepareExport } from "../lib/export/stream.ts";
import { EXPORT_COLUMNS } from "../lib/store/flat_records.ts";
import { datasetRelease } from "../lib/match/output.ts";
import { clock } from "../lib/deadline.ts";
import { COMMON_HEADERS } from "../lib/http/wrappers.ts";
import { streamEncoding } from "../lib/http/compression.ts";
import { specialtyIndex } from "./specialties.ts";

const {
  limit: _limit,
  offset: _offset,
  cursor: _cursor,
  facets: _facets,
  ...FILTERS
} = SEARCH_PARAMS.params;

/** The export's parameters: every filter and sort of the search, and the format. */
export const EXPORT_PARAMS = defineQuery({
  ...FILTERS,
  format: choice({
    description:
      "`ndjson` (default: one provider record a line, the same record as `GET /v1/providers/{npi}`) or " +
      "`csv` (the flat columns listed in the operation's description). Without it, `Accept: text/csv` " +
      "chooses CSV.",
    values: ["ndjson", "csv"],
  }),
});

/** Common headers of streamed answers, exposing their own headers to browsers. */
export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  ...COMMON_HEADERS,
  "Access-Control-Expose-Headers":
    "X-Request-ID, Retry-After, X-Total-Count, Dataset-Release, Content-Disposition",
};

/** Records a page of the export reads at once. */
export const EXPORT_PAGE_SIZE = 500;

/** The export route over `dataset`. */
export function exportRoute(dataset: Dataset, config: Config): Route {
  return {
    path: "/v1/providers/export",
    methods: {
      GET: endpoint({
        operationId: "exportProviders",
        summary: "Export every provider a search finds",
        description:
          "Takes every filter and `sort` of `/v1/providers/search` (not `limit`, `offset`, `cursor`, " +
          "`facets`) and streams the whole result set, in the search's order, with no page limit: NDJSON " +
          "(default) or CSV (`format=csv` or `Accept: text/csv`). The body is written as the client reads it " +
          "(memory stays flat whatever the size). `X-Total-Count` gives the number of records up front; a " +
          "stream that stops early (the `STREAM_TIMEOUT_MS` limit, default 10 minutes, or a dataset reload) " +
          "is cut off without its final chunk, so clients see a transfer error, never a silently short file. " +
          "Each export counts as one request for `RATE_LIMIT_PER_MINUTE`. CSV columns: " +
          EXPORT_COLUMNS.map((c) => `\`${c.name}\` (${c.meaning})`).join(", ") + ".",
        tags: ["providers"],
        query: EXPORT_PARAMS,
        responses: {
          "200": {
            description: "Every record, NDJSON or CSV",
            contentType: "application/x-ndjson",
            schema: ref("Provider"),
            headers: {
              "Content-Disposition": {
                description: "attachment; filename=providers-<release>.<ndjson|csv>",
                schema: { type: "string" },
              },
              "X-Total-Count": {
                description: "Records in the export",
                schema: { type: "integer" },
              },
              "Dataset-Release": {
                description: "The dataset release exported (see `/v1/dataset`)",
                schema: { type: "string" },
              },
            },
          },
        },
      }, async (request, ctx, params) => {
        const store = dataset.store();
        const pool = dataset.pool();
        const format: ExportFormat = params.format ??
          (/\btext\/csv\b/i.test(request.headers.get("accept") ?? "") ? "csv" : "ndjson");
        const query = toSearchQuery(
          { ...params, limit: EXPORT_PAGE_SIZE, offset: 0, cursor: undefined, facets: undefined },
          {
            specialties: specialtyIndex(store),
            cursorScope: { query: "export", release: dataset.release().id },
            url: ctx.url.searchParams,
          },
        );
        const release = datasetRelease(store.dataset());
        // gzip is written here, a piece per half page on the thread that renders it; a client
        // taking only brotli gets it from the compression wrapper, as other streams do.
        const gzip = streamEncoding(request.headers.get("accept-encoding")) === "gzip";
        const { total, body } = await prepareExport(query, {
          find: pageFinder(store, pool),
          text: (ids, f) => store.exportText(ids, f),
          render: pool
            ? (ids, f, gzipLevel, watch) => pool.renderRecords({ ids, format: f, gzipLevel }, watch)
            : undefined,
        }, {
          format,
          gzip,
          pageSize: EXPORT_PAGE_SIZE,
          deadline: clock() + config.streamTimeoutMs,
          pageTimeoutMs: config.requestTimeoutMs,
          signal: request.signal,
        });
        const file = `providers-${release.replace(/[^A-Za-z0-9.-]+/g, "_")}.${format}`;
        return new Response(body, {
          headers: {
            "Content-Type": format === "csv"
              ? "text/csv; charset=utf-8; header=present"
              : "application/x-ndjson; charset=utf-8",
            "Content-Disposition": `attachment; filename="${file}"`,
            "X-Total-Count": String(total),
            "Dataset-Release": release,
            "Cache-Control": "no-store",
            ...(gzip ? { "Content-Encoding": "gzip", "Vary": "Accept-Encoding" } : {}),
            ...STREAM_HEADERS,
          },
        });
      }),
    },
  };
}
