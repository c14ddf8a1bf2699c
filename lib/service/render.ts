/**
 * The body of an answer for a page of search results, in the form its job
 * asks for: the native search body, or the NPI Registry API's. The pool's
 * workers find pages; the serving thread renders them with this.
 *
 * @module
 */
import type { ProviderStore } from "../store/store.ts";
import type { SearchPage } from "../search/engine.ts";
import { renderSearchBody, type SearchBody, type SearchJob } from "../search/response.ts";
import { renderRegistryBody } from "../registry_api/body.ts";

/**
 * Renders `page` for `job` with records read from `store`.
 *
 * @example
 * ```ts
 * const body = renderBody(store, job, page);
 * ```
 */
export function renderBody(store: ProviderStore, job: SearchJob, page: SearchPage): SearchBody {
  return job.format === "registry"
    ? renderRegistryBody(store, page)
    : renderSearchBody(store, job, page);
}
