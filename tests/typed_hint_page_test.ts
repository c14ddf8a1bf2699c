/**
 * The first page of a search of one word and a hint typed last (`jennifer
 * pa`), ranked from the whole names typed alone (`typedHintTop` in
 * `engine.ts`), against the page ranked on every match: built from the
 * names of a demo dataset, at page sizes the whole names fill and ones
 * they do not.
 */
import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore, type SearchableSqliteStore } from "../lib/search/searcher.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { hintKinds } from "../lib/search/hint_words.ts";
import { assertJson, testApp } from "./_utils.ts";
import { boxNpis, type BoxPerson, searchBoxFixtureDatabase } from "./_search_fixtures.ts";
import { pagesAgree } from "./_pages.ts";

/** First name and the surname's first two letters, where those are a hint word (`mary pa`). */
function typedHintQueries(store: SearchableSqliteStore, size: number): string[] {
  const ids = Array.from({ length: size }, (_, i) => i + 1);
  const seen = new Set<string>();
  for (const { provider } of store.getProvidersById(ids)) {
    const first = provider.individual?.first_name?.toLowerCase();
    const start = provider.individual?.last_name?.toLowerCase().slice(0, 2);
    if (!first || !start || !/^[a-z]+$/.test(first) || !/^[a-z]{2}$/.test(start)) continue;
    if (hintKinds(start) !== 0) seen.add(`${first} ${start}`);
  }
  return [...seen].sort();
}

/**
 * Runs `check` against a fresh store of `path` and an app serving it: its
 * result cache holds no listed set of an earlier check's queries, which
 * would answer their first pages instead of the shortcut.
 */
async function withStore(
  path: string,
  check: (app: ReturnType<typeof testApp>, store: SearchableSqliteStore) => Promise<void>,
): Promise<void> {
  const store = openSearchableStore(path);
  try {
    await check(testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } }), store);
  } finally {
    store.close();
  }
}

Deno.test("[typed hint page] a first page of a name and a typed hint is the listed set's", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/demo.db`;
  buildDemoDatabase({ path, records: 3000, seed: 11 });
  try {
    let queries: string[] = [];
    await withStore(path, (_, store) => {
      queries = typedHintQueries(store, 3000);
      return Promise.resolve();
    });
    assert(queries.length >= 40, `the demo has names to type (${queries.length})`);
    await t.step("one result a page: the whole names typed fill it", async () => {
      await withStore(path, async (app, store) => {
        const asked = queries.map((q) => `q=${encodeURIComponent(q)}&limit=1`);
        const topOnly = await pagesAgree(app, store, asked);
        assert(topOnly >= queries.length / 4, `many pages from the whole names (${topOnly})`);
      });
    });
    await t.step("pages further down, and pages the whole names do not fill", async () => {
      for (const page of ["limit=2&offset=1", "limit=10", "limit=3&include_deactivated=true"]) {
        await withStore(path, async (app, store) => {
          await pagesAgree(app, store, queries.map((q) => `q=${encodeURIComponent(q)}&${page}`));
        });
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Where the Anhs practise (no rule here is about places). */
const AUSTIN = { city: "AUSTIN", state: "TX", zip: "78701", codes: ["207R00000X"] };

/**
 * Anhs for `anh do`: Anh Do (the whole name, typed and as it is), Anh
 * Dodson and Anh Doan (whole names typed), Anh Tran (formerly Anh Do: the
 * whole name only as a former one, her legal given name matching), Anhs
 * the hint does not fit, and Linh Anh (a surname, a level better than the
 * given names, but a credential other than `do`: a tier lower); beside
 * them others, so that the Anhs are few enough for names typed to be
 * looked for among them.
 */
const ANHS: Record<string, BoxPerson> = {
  ...Object.fromEntries(
    Array.from({ length: 64 }, (_, i) => [
      `other${i}`,
      { first: "BERT", last: `KAY${String.fromCharCode(65 + (i % 26), 65 + (i >> 4))}`, ...AUSTIN },
    ]),
  ),
  anhAbel: { first: "ANH", last: "ABEL", ...AUSTIN },
  anhDo: { first: "ANH", last: "DO", ...AUSTIN },
  anhDoan: { first: "ANH", last: "DOAN", ...AUSTIN },
  anhDodson: { first: "ANH", last: "DODSON", ...AUSTIN },
  anhLe: { first: "ANH", last: "LE", ...AUSTIN },
  anhTran: { first: "ANH", last: "TRAN", former: ["DO", "ANH"], ...AUSTIN },
  anhVu: { first: "ANH", last: "VU", ...AUSTIN },
  linhAnh: { first: "LINH", last: "ANH", credential: "RN", ...AUSTIN },
};

Deno.test("[typed hint page] a whole name as a former name ranks above the names typed", async () => {
  const dir = await Deno.makeTempDir();
  const path = await searchBoxFixtureDatabase(dir, ANHS);
  const keyOf = Object.fromEntries(Object.entries(boxNpis(ANHS)).map(([k, v]) => [v, k]));
  try {
    for (const limit of [1, 2, 3, 4, 5]) {
      await withStore(path, async (app, store) => {
        const topOnly = await pagesAgree(app, store, [`q=anh%20do&limit=${limit}`]);
        // Four rank above the given name's level (two whole names, two names typed): the page
        // is found among them up to four results. Linh Anh's level is better, her tier worse.
        assertEquals(topOnly, limit <= 4 ? 1 : 0, `limit ${limit}`);
      });
    }
    await withStore(path, async (app) => {
      const body = await assertJson<{ results: { npi: string }[] }>(
        await app.request("/v1/providers/search?q=anh%20do&limit=5"),
      );
      // Her former name is the whole query: promoted with the legal one, above the names typed.
      assertEquals(body.results.map((r) => keyOf[r.npi]), [
        "anhDo",
        "anhTran",
        "anhDoan",
        "anhDodson",
        "anhAbel",
      ]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
