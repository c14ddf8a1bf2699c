/**
 * Test helper: a search's first page as a shortcut ranks it against the
 * same page ranked on the listed set.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import type { openSearchableStore } from "../lib/search/searcher.ts";
import { assertJson, type testApp } from "./_utils.ts";

interface Body {
  total: number;
  next_cursor: string | null;
  results: { npi: string; score: number }[];
  facets?: unknown;
}

/**
 * Asks each query's first page, then the same with facets (which need every
 * match: the listed set), and checks both alike; returns how many of the
 * first pages came from a shortcut that ranks the page without listing the
 * set (such pages leave the result cache untouched).
 */
export async function pagesAgree(
  app: ReturnType<typeof testApp>,
  store: ReturnType<typeof openSearchableStore>,
  queries: readonly string[],
): Promise<number> {
  let topOnly = 0;
  for (const query of queries) {
    const misses = () => store.cacheCounters().results?.misses ?? 0;
    const page = await assertJson<Body>(await app.request(`/v1/providers/search?${query}`));
    const before = misses();
    const listed = await assertJson<Body>(
      await app.request(`/v1/providers/search?${query}&facets=state`),
    );
    if (misses() > before) topOnly++;
    assertEquals(page.total, listed.total, query);
    assertEquals(page.results, listed.results, query);
    // The same position (the signature covers the whole query, facets included).
    const position = (b: Body) => {
      if (!b.next_cursor) return null;
      const text = atob(b.next_cursor.replaceAll("-", "+").replaceAll("_", "/"));
      return text.slice(0, text.lastIndexOf("."));
    };
    assertEquals(position(page), position(listed), query);
    assert(page.total > 0, `${query} finds providers`);
  }
  return topOnly;
}
