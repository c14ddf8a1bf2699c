/**
 * The first page of one word widened by typo variants whose union is
 * dense (`worstLevelTop` in `engine.ts`: `burse`, a variant of which is
 * `nurse`, a specialty word most of the dataset holds), ranked among the
 * matches better than the union's worst level, against the page ranked on
 * every match.
 */
import { assert, assertEquals } from "@std/assert";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { assertJson, testApp } from "./_utils.ts";
import { type BoxPerson, searchBoxFixtureDatabase } from "./_search_fixtures.ts";
import { pagesAgree } from "./_pages.ts";

const NURSE = "163W00000X";
const INTERNAL = "207R00000X";
const RENO = { city: "RENO", state: "NV", zip: "89501" };

/** A filler name no typo of `burse` reaches: two letters after `VAX`. */
function filler(i: number): string {
  return `VAX${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`;
}

/**
 * Nurses most of them (the typo codes' level, the union's worst), and a few
 * named one edit from `burse`: whole surnames Burke (promoted as a
 * variant's whole name, one of them a nurse), Burke in a compound surname,
 * as a first name and as a former surname, an organization named Burke and
 * one with it among other words.
 */
const PEOPLE: Record<string, BoxPerson> = {
  ...Object.fromEntries(
    Array.from({ length: 48 }, (_, i) => [
      `nurse${i}`,
      { first: "PAT", last: filler(i), ...RENO, codes: [NURSE] },
    ]),
  ),
  ...Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [
      `other${i}`,
      { first: "LEE", last: filler(100 + i), ...RENO, codes: [INTERNAL] },
    ]),
  ),
  ...Object.fromEntries(
    ["ANN", "BEN", "CARL", "DORA", "ERIC", "FAY"].map((first) => [
      `burke${first}`,
      { first, last: "BURKE", ...RENO, codes: [INTERNAL] },
    ]),
  ),
  burkeNurse: { first: "ZOE", last: "BURKE", ...RENO, codes: [NURSE] },
  burkeAdams: { first: "KIM", last: "BURKE-ADAMS", ...RENO, codes: [INTERNAL] },
  adamsBurke: { first: "JO", last: "ADAMS BURKE", ...RENO, codes: [INTERNAL] },
  firstBurke: { first: "BURKE", last: "ABBOTT", ...RENO, codes: [INTERNAL] },
  formerBurke: { first: "EVA", last: "ZANE", former: ["BURKE", "EVA"], ...RENO, codes: [INTERNAL] },
  burkeOrg: { org: "BURKE", ...RENO, codes: ["261QP2300X"] },
  burkeClinic: { org: "BURKE FAMILY CLINIC", ...RENO, codes: ["261QP2300X"] },
};

/** The providers named like a variant of `burse`, the nurse among them counted once. */
const NAMED = 13;

/**
 * How many of `queries`' first pages came from a shortcut, each asked of a
 * fresh store (whose result cache holds no listed set of an earlier one),
 * checked against the listed set's page.
 */
async function shortcutPages(path: string, queries: readonly string[]): Promise<number> {
  let shortcut = 0;
  for (const query of queries) {
    const store = openSearchableStore(path);
    try {
      const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
      shortcut += await pagesAgree(app, store, [query]);
    } finally {
      store.close();
    }
  }
  return shortcut;
}

Deno.test("[worst level page] one word's typo variants: a page from the better levels is the listed set's", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const path = await searchBoxFixtureDatabase(dir, PEOPLE);
    await t.step("the query is of that kind: mostly nurses, a few names", async () => {
      const store = openSearchableStore(path);
      try {
        const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
        const body = await assertJson<{ total: number; results: { score: number }[] }>(
          await app.request("/v1/providers/search?q=burse&limit=100"),
        );
        // Every nurse (by the variant `nurse`), and those named like a variant above them all.
        assertEquals(body.total, 48 + NAMED);
        const scores = body.results.map((r) => r.score);
        assert(scores[NAMED - 1]! > scores[NAMED]!, `the named rank above the nurses: ${scores}`);
        assert(scores[0]! > scores[NAMED - 1]!, `whole surnames rank first: ${scores}`);
      } finally {
        store.close();
      }
    });
    await t.step("pages the better levels fill come from them, and agree", async () => {
      const sizes = [1, 3, 7, 11];
      const queries = sizes.map((n) => `q=burse&limit=${n}`);
      assertEquals(await shortcutPages(path, queries), sizes.length);
    });
    await t.step("pages past the better levels are listed, and agree", async () => {
      assertEquals(await shortcutPages(path, ["q=burse&limit=20", "q=burse&limit=60"]), 0);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
