/**
 * One way to run a search page for code that reads records itself (exports,
 * roster matching): in a search worker when the dataset has a pool, else
 * on this thread.
 *
 * @module
 */
import type { Searcher } from "./searcher.ts";
import type { SearchPool } from "./pool.ts";
import type { SearchQuery } from "./query.ts";
import type { SearchPage } from "./engine.ts";
import { clock, type Watch } from "../deadline.ts";

/** Runs one search page. */
export type PageFinder = (query: SearchQuery, watch?: Watch) => SearchPage | Promise<SearchPage>;

/**
 * A page finder over a store and its pool (`null`: search in-process),
 * for one request. Its first search is admitted by the pool's wait budget
 * like any other (a request arriving under overload is refused before it
 * answers anything); the later ones are part of a request already under
 * way and are not refused by it, so an export or a roster is never cut off
 * midway because other searches queued meanwhile.
 *
 * @example
 * ```ts
 * const find = pageFinder(dataset.store(), dataset.pool());
 * const page = await find(query, { deadline });
 * ```
 */
export function pageFinder(store: Searcher, pool: SearchPool | null): PageFinder {
  if (!pool) return (query, watch = {}) => store.search(query, watch);
  // Pages found this way issue no cursors, and pool pages skip the body cache: no scope needed.
  const cursorScope = { query: "", release: "" };
  let started = false;
  return (query, watch = {}) => {
    const admitted = started;
    started = true;
    return pool.page({ query, cursorScope, startedAt: clock() }, watch, admitted);
  };
}
