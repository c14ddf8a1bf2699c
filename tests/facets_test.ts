/**
 * Facets count the whole result set: every facet of a search, browse or
 * filter answer equals the counts made from the records of its results
 * (each listed by walking its pages), on result sets larger than the
 * chunks the engine counts taxonomy codes in.
 */
import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore, type SearchableSqliteStore } from "../lib/search/searcher.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { specialtyIndex } from "../routes/specialties.ts";
import { encodeCursor } from "../lib/search/cursor.ts";

type Facet = { value: string; count: number }[];

/** A provider's facet values, as its JSON record gives them. */
interface Values {
  state: string | null;
  city: string | null;
  taxonomy: string[];
  sex: string | null;
  entity_type: string;
}

function valuesOf(json: string): Values {
  const r = JSON.parse(json);
  return {
    state: r.practice_location?.state ?? null,
    city: r.practice_location?.city ?? null,
    taxonomy: [...new Set((r.taxonomies as { code: string }[]).map((t) => t.code))],
    sex: r.individual?.sex ?? null,
    entity_type: r.entity_type,
  };
}

/** The first 20 values by count, then value: a facet as the service lists it. */
function topOf(counts: Map<string, number>, size = 20): Facet {
  return [...counts].map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
    .slice(0, size);
}

/** Every result id of `params`, page by page, and the first page's facets. */
function walk(store: SearchableSqliteStore, params: string) {
  const specialties = specialtyIndex(store);
  const ids: number[] = [];
  let facets: Record<string, Facet> | undefined;
  let cursor: string | null = null;
  do {
    const path = `/v1/providers/search?${params}&limit=100${cursor ? `&cursor=${cursor}` : ""}`;
    const url = new URL(path, "http://x").searchParams;
    const cursorScope = { query: params, release: "" };
    const query = toSearchQuery(SEARCH_PARAMS.parse(url), { specialties, cursorScope, url });
    const page = store.search(query);
    facets ??= page.facets as Record<string, Facet>;
    ids.push(...page.hits.map((h) => h.id));
    cursor = page.next ? encodeURIComponent(encodeCursor(page.next, cursorScope)) : null;
  } while (cursor);
  return { ids, facets: facets! };
}

Deno.test("[facets] every facet equals the counts of the results' records", () => {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records: 12_000, seed: 21 });
  const store = openSearchableStore(db);
  try {
    const all = "facets=state,city,taxonomy,sex,entity_type";
    for (const params of [all, `state=CA&${all}`, `q=health&${all}`, `q=smith&${all}`]) {
      const { ids, facets } = walk(store, params);
      assertEquals(new Set(ids).size, ids.length, `${params}: no result twice`);
      if (params === all) assert(ids.length > 4096 * 2, `${ids.length} results span chunks`);
      const counts = {
        state: new Map<string, number>(),
        city: new Map<string, number>(),
        taxonomy: new Map<string, number>(),
        sex: new Map<string, number>(),
        entity_type: new Map<string, number>(),
      };
      const add = (map: Map<string, number>, value: string | null) => {
        if (value) map.set(value, (map.get(value) ?? 0) + 1);
      };
      for (const json of store.providerJsonById(ids)) {
        const v = valuesOf(json);
        add(counts.state, v.state);
        add(counts.city, v.city);
        for (const code of v.taxonomy) add(counts.taxonomy, code);
        add(counts.sex, v.sex);
        add(counts.entity_type, v.entity_type);
      }
      assertEquals(facets.state, topOf(counts.state), `${params}: state`);
      assertEquals(facets.city, topOf(counts.city), `${params}: city`);
      assertEquals(facets.taxonomy, topOf(counts.taxonomy), `${params}: taxonomy`);
      assertEquals(facets.sex, topOf(counts.sex), `${params}: sex`);
      assertEquals(facets.entity_type, topOf(counts.entity_type), `${params}: entity type`);
    }
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
