/**
 * The body of a search response, built from a validated query: the one
 * implementation behind `GET /v1/providers/search`, whether the search runs
 * on the serving thread or in a search worker.
 *
 * @module
 */
import type { ProviderStore } from "../store/store.ts";
import type { SearchableStore } from "./searcher.ts";
import type { SearchQuery } from "./query.ts";
import type { SearchPage } from "./engine.ts";
import { type CursorScope, encodeCursor } from "./cursor.ts";
import { clock, type Watch } from "../deadline.ts";

/**
 * A finished response body: JSON text, or its UTF-8 bytes when it was
 * written as bytes (the NPI Registry API's pages of up to 200 records are:
 * a string that long would be a large object on the V8 heap, mapped for it
 * alone and kept until a full collection). Bytes a worker writes fill their
 * buffer alone, so that it can hand the buffer over; bytes answered from
 * the body cache or split by a route may be a view.
 */
export type SearchBody = string | Uint8Array<ArrayBuffer>;

const utf8 = new TextDecoder();

/**
 * The text of a body (bytes decoded).
 *
 * @example
 * ```ts
 * bodyText(new TextEncoder().encode('{"total":0}')); // '{"total":0}'
 * ```
 */
export function bodyText(body: SearchBody): string {
  return typeof body === "string" ? body : utf8.decode(body);
}

/**
 * A search to answer: everything the body needs, as plain data (it crosses
 * to a worker by structured clone).
 */
export interface SearchJob {
  /** The validated query. */
  query: SearchQuery;
  /** What the next page's cursor is bound to (the query's fingerprint and the dataset release). */
  cursorScope: CursorScope;
  /** When the request started, on `clock()`: `took_ms` counts from here. */
  startedAt: number;
  /**
   * The body's form: this API's (default), or `registry` for the NPI
   * Registry API's, which the service renders (`lib/service/render.ts`
   * chooses; `lib/registry_api/render.ts` writes it).
   */
  format?: "search" | "registry";
  /**
   * Read the hits' stored records on the search worker, with the page, when
   * there are {@linkcode RECORDS_WITH_PAGE} or more (`SearchPage.records`):
   * the serving thread, which renders the page, then decodes and writes
   * them without reading them, and a large page's cost is shared by the two
   * threads. A shorter page is written whole on a worker that can write its
   * form (`renderBodiesWith` in `search_worker.ts`; the service's can), else
   * rendered on the serving thread. For renderers that decode every record
   * (the NPI Registry API's pages of up to 200), not for this API's, whose
   * record texts are cached on the serving thread. A job asked for as a
   * page (`SearchPool.page`: the FHIR directory's) gets its records with
   * every page that has hits, since its caller decodes them all.
   */
  recordsWithPage?: boolean;
}

/**
 * Hits from which a page's records are read on the search worker and
 * handed over with it, to be decoded and written on the serving thread (see
 * {@linkcode SearchJob.recordsWithPage}); below, the worker writes the page
 * whole where it can. Either way the page's work is shared by the threads:
 * a page of 200 written whole on the worker made the worker what `/api/`
 * searches by place waited for (the benchmarks guide's twenty-fifth round).
 */
export const RECORDS_WITH_PAGE = 50;

/**
 * Runs `job` on `store` and returns the JSON text of the response: `total`,
 * `limit`, `offset`, `next_cursor`, `results` (the cached record texts with
 * `distance` and `score` spliced in), `facets` when asked, and `took_ms`.
 * Throws what the search throws when `watch` says stop.
 *
 * @example
 * ```ts
 * const body = searchResponseBody(store, { query, cursorScope, startedAt: clock() });
 * ```
 */
export function searchResponseBody(
  store: SearchableStore,
  job: SearchJob,
  watch: Watch = {},
): string {
  return renderSearchBody(store, job, store.search(job.query, watch));
}

/**
 * The body of a search response for a page already found: its records read
 * from `store` (a search worker finds pages, the serving thread renders
 * them, so both cores work on a search).
 *
 * @example
 * ```ts
 * const body = renderSearchBody(store, job, page);
 * ```
 */
export function renderSearchBody(store: ProviderStore, job: SearchJob, page: SearchPage): string {
  const { query, cursorScope } = job;
  const records = store.providerJsonById(page.hits.map((h) => h.id));
  // Each result is the cached record text with distance and score spliced in before its closing brace.
  const results = records.map((text, i) => {
    const hit = page.hits[i]!;
    let extra = "";
    if (hit.distance !== undefined) extra += `,"distance":${hit.distance}`;
    if (hit.score !== undefined) extra += `,"score":${hit.score}`;
    return extra ? `${text.slice(0, -1)}${extra}}` : text;
  });
  const head = JSON.stringify({
    total: page.total,
    limit: query.limit,
    offset: page.offset,
    next_cursor: page.next ? encodeCursor(page.next, cursorScope) : null,
  });
  const facets = page.facets ? `,"facets":${JSON.stringify(page.facets)}` : "";
  const took = Math.round((clock() - job.startedAt) * 100) / 100;
  return `${head.slice(0, -1)},"results":[${results.join(",")}]${facets},"took_ms":${took}}`;
}
