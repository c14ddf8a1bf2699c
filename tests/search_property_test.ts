/**
 * Property test: for random queries over a demo dataset, walking the cursor
 * yields exactly `total` distinct results, in the same order as offset
 * paging, sorted as the query asks.
 */
import { assert, assertEquals } from "@std/assert";
import { assertJson, seededRandom, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";

interface Body {
  total: number;
  offset: number;
  next_cursor: string | null;
  results: { npi: string; distance?: number; score?: number }[];
}

const WORDS = [
  "smith",
  "john",
  "maria",
  "nurse",
  "dental",
  "family",
  "jo",
  "mar",
  "johnsen",
  "pharmacy",
  "new",
  "medical",
];
const STATES = ["CA", "TX", "NY", "FL", "PA,OH", "IL"];
const SPECIALTIES = [
  "dentist",
  "nurse practitioner",
  "family medicine",
  "pharmacy",
  "cardiologist",
];
const ZIPS = ["10001", "60601", "90012", "77002", "33101"];

function randomQuery(next: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const params = new URLSearchParams();
  if (next() < 0.6) params.set("q", next() < 0.3 ? `${pick(WORDS)} ${pick(WORDS)}` : pick(WORDS));
  if (next() < 0.3) params.set("state", pick(STATES));
  if (next() < 0.25) params.set("specialty", pick(SPECIALTIES));
  if (next() < 0.3) {
    params.set("near", pick(ZIPS));
    params.set("radius", String(Math.round(5 + next() * 200)));
    if (next() < 0.3) params.set("unit", "km");
  }
  if (next() < 0.2) params.set("entity_type", next() < 0.5 ? "individual" : "organization");
  if (next() < 0.15) params.set("include_deactivated", "true");
  const sorts = [
    "name",
    ...(params.has("q") ? ["relevance"] : []),
    ...(params.has("near") ? ["distance"] : []),
  ];
  if (next() < 0.5) params.set("sort", pick(sorts));
  params.set("limit", String(1 + Math.floor(next() * 40)));
  return params.toString();
}

Deno.test("[search] property: the cursor walks every result exactly once, in order", async (t) => {
  const dir = await Deno.makeTempDir();
  buildDemoDatabase({ path: `${dir}/demo.db`, records: 3000, seed: 99 });
  const store = openSearchableStore(`${dir}/demo.db`);
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  const next = seededRandom(20261121);
  try {
    let nonEmpty = 0;
    for (let i = 0; i < 60; i++) {
      const query = randomQuery(next);
      await t.step(query, async () => {
        const seen: string[] = [];
        let cursor: string | null = null;
        let total = -1;
        let pages = 0;
        let previous: { distance?: number; score?: number } | undefined;
        do {
          const url: string = `/v1/providers/search?${query}${
            cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""
          }`;
          const body: Body = await assertJson<Body>(await app.request(url));
          if (total < 0) total = body.total;
          assertEquals(body.total, total, "total is stable while paging");
          assertEquals(body.offset, seen.length, "offset reports the absolute position");
          for (const r of body.results) {
            if (previous && query.includes("sort=distance")) {
              assert(r.distance! >= previous.distance!);
            }
            if (
              previous && r.score !== undefined && /sort=relevance|^(?!.*sort=).*q=/.test(query)
            ) {
              assert(r.score <= previous.score!, "relevance never increases");
            }
            previous = r;
          }
          seen.push(...body.results.map((r) => r.npi));
          cursor = body.next_cursor;
          assert(++pages <= 3100, "the walk ends");
        } while (cursor);
        assertEquals(seen.length, total, "the walk yields exactly total results");
        assertEquals(new Set(seen).size, seen.length, "no duplicates");
        if (total > 0) nonEmpty++;
        const limit = Number(new URLSearchParams(query).get("limit"));
        const offset = Math.min(total, limit * 2);
        const byOffset = await assertJson<Body>(
          await app.request(`/v1/providers/search?${query}&offset=${offset}`),
        );
        assertEquals(
          byOffset.results.map((r) => r.npi),
          seen.slice(offset, offset + limit),
          "offset paging agrees",
        );
      });
    }
    assert(nonEmpty >= 30, `most random queries match something (${nonEmpty})`);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
