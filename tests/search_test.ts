import { assert, assertEquals, assertMatch } from "@std/assert";
import { assertJson, assertProblem, type TestApp, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { NPIS, PEOPLE, searchFixtureDatabase } from "./_search_fixtures.ts";
import { distance, lookupZip } from "../lib/geo/zip.ts";
import type { Provider } from "../lib/provider.ts";

type Result = Provider & { distance?: number; score?: number };
interface Body {
  total: number;
  limit: number;
  offset: number;
  next_cursor: string | null;
  results: Result[];
  facets?: Record<string, { value: string; count: number }[]>;
  took_ms: number;
}

const dir = await Deno.makeTempDir();
const store = openSearchableStore(await searchFixtureDatabase(dir));
const app: TestApp = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
const nameOf = Object.fromEntries(Object.entries(NPIS).map(([k, v]) => [v, k]));

async function search(query: string): Promise<Body> {
  return await assertJson<Body>(await app.request(`/v1/providers/search?${query}`));
}

/** The fixture keys of a search's results, in order. */
async function keys(query: string): Promise<string[]> {
  return (await search(query)).results.map((r) => nameOf[r.npi] ?? r.npi);
}

/** Asserts that no result matches every word: all are fallback matches (score below 10). */
function assertFallbackOnly(body: Body, message: string): void {
  assert(body.results.every((r) => r.score! < 10), message);
}

async function badParameters(query: string): Promise<Record<string, string>> {
  const body = await assertProblem(await app.request(`/v1/providers/search?${query}`), 400);
  return Object.fromEntries((body.errors ?? []).map((e) => [e.parameter, e.message]));
}

Deno.test("[search] no parameters lists active providers by name", async () => {
  const body = await search("");
  assertEquals(body.total, 14);
  assertEquals(body.limit, 10);
  assertEquals(body.offset, 0);
  assertEquals(body.results.length, 10);
  assert(body.next_cursor);
  assertEquals(body.results.every((r) => r.status === "active"), true);
  assertEquals(body.results[0]?.individual?.last_name, "BAKER");
  assertEquals(body.results.some((r) => "score" in r || "distance" in r), false);
  assertEquals(typeof body.took_ms, "number");
});

Deno.test("[search] ranking: the exact surname first, then prefixes, then typos", async () => {
  const order = await keys("q=smith&limit=20");
  assertEquals(order.slice(0, 2).sort(), ["johnSmith", "marySmith"]);
  assert(
    order.indexOf("dentalOrg") > 1,
    "an organization named SMITH ... after people named SMITH",
  );
  assert(
    order.indexOf("smithJohnson") > order.indexOf("marySmith"),
    "first name SMITH after surname SMITH",
  );
  assert(
    order.indexOf("johnFortSmith") > order.indexOf("smithJohnson"),
    "city FORT SMITH after names",
  );
  assert(
    order.indexOf("smithson") > order.indexOf("johnFortSmith"),
    "prefix SMITHSON after exact words",
  );
  assert(order.indexOf("smyth") > order.indexOf("smithson"), "typo SMYTH last");
  assert(!order.includes("gone"), "deactivated excluded by default");
  const body = await search("q=smith&limit=20");
  const scores = body.results.map((r) => r.score!);
  assertEquals(scores, [...scores].sort((a, b) => b - a));
  assertEquals(body.results[0]?.score, 120);
});

Deno.test("[search] ranking: a full-name match above a split match", async () => {
  const order = await keys("q=john%20smith");
  assertEquals(order[0], "johnSmith");
  assert(
    order.includes("dentalOrg"),
    "SMITH FAMILY DENTAL, DBA JOHN STREET DENTAL, matches both words",
  );
  assert(order.indexOf("dentalOrg") > order.indexOf("johnSmith"));
  assert(order.includes("johnFortSmith"), "JOHN in FORT SMITH matches both words");
  assert(
    order.indexOf("johnFortSmith") > order.indexOf("dentalOrg"),
    "name + city after name + other name",
  );
});

Deno.test("[search] ranking: a primary specialty above a secondary one", async () => {
  const order = await keys("q=cardiovascular&limit=20");
  assert(order.includes("smithJohnson"), "secondary cardiology is found");
  for (const primary of ["marySmith", "nakamura", "hoboken", "newark"]) {
    assert(
      order.indexOf(primary) < order.indexOf("smithJohnson"),
      `${primary} before the secondary match`,
    );
  }
});

Deno.test("[search] specialty words and synonyms in q", async () => {
  const cardio = await keys("q=cardiologist&limit=20");
  assertEquals(cardio.sort(), ["hoboken", "marySmith", "nakamura", "newark", "smithJohnson"]);
  const heart = await keys("q=heart%20doctor&limit=20");
  assertEquals(heart.sort(), cardio.sort());
  const dentist = await keys("q=dentist&limit=20");
  assertEquals(dentist.sort(), ["dentalOrg", "smithson"]);
});

Deno.test("[search] punctuation and case are folded", async (t) => {
  for (const q of ["O'BRIEN", "obrien", "o%20brien", "OBrien", "o-brien"]) {
    await t.step(q, async () => assertEquals((await keys(`q=${q}`))[0], "obrien"));
  }
  for (const q of ["NAKAMURA-JONES", "nakamura%20jones", "nakamurajones", "Nakamura"]) {
    await t.step(q, async () => assertEquals((await keys(`q=${q}`))[0], "nakamura"));
  }
});

Deno.test("[search] typo tolerance: 1 edit from 5 letters, 2 from 9, none below", async () => {
  assertEquals(
    (await keys("q=smiht")).slice(0, 2).sort(),
    ["johnSmith", "marySmith"],
    "whole surname via a typo first",
  );
  assertEquals(await keys("q=enkeshafy"), ["enkeshafi"], "1 edit in 9 letters");
  assertEquals(await keys("q=enkashafy"), ["enkeshafi"], "2 edits in 9 letters");
  assertEquals(await keys("q=enkashafyy"), [], "3 edits are too many");
  // A 4-letter word gets no typo budget: nothing matches both words, so the
  // results are the fallback (see tests/search_box_test.ts), scored below 10.
  assertFallbackOnly(await search("q=smiyh%20maty"), "a 4-letter word gets no typo budget");
  assertEquals(await keys("q=ryvera"), ["hoboken", "newark"]);
});

Deno.test("[search] the last word is a prefix (search as you type)", async () => {
  assertEquals(await keys("q=enkesh"), ["enkeshafi"]);
  assertEquals(await keys("q=kathleen%20o"), ["obrien"]);
  assertEquals((await keys("q=springf")).sort(), ["hospital"]);
  assertEquals(await keys("q=ardalan%20enkesh"), ["enkeshafi"]);
  // Nothing matches every word: only the fallback (a word left out) answers, scored below 10.
  assertFallbackOnly(await search("q=enkesh%20ardalan"), "a word before the last is not a prefix");
  assertFallbackOnly(await search("q=ardal%20enkeshafi"), "only the last word is a prefix");
});

Deno.test("[search] organization other names (DBA) are searched", async () => {
  assertEquals(await keys("q=memorial%20medical%20center"), ["hospital"]);
  assertEquals(await keys("organization_name=memorial%20medical%20center"), ["hospital"]);
});

Deno.test("[search] user input never reaches FTS5 or SQL syntax", async (t) => {
  const hostile = [
    '"',
    "'",
    'smith" OR "*',
    "NEAR(smith john)",
    "*",
    "smith*",
    "-smith",
    "^smith",
    "{surname}: smith",
    "smith AND NOT john",
    "'; DROP TABLE provider; --",
    "%00",
    "(",
    ")",
    "a:b",
    "\u0000",
    "😀",
    "ß",
    "İ",
  ];
  for (const q of hostile) {
    await t.step(JSON.stringify(q), async () => {
      const response = await app.request(`/v1/providers/search?q=${encodeURIComponent(q)}`);
      assertEquals(response.status, 200, await response.clone().text());
      await response.body?.cancel();
    });
  }
  assertEquals((await search("q=*")).total, 0);
  assertEquals((await keys("q=smith*"))[0], (await keys("q=smith"))[0]);
});

Deno.test("[search] structured filters", async (t) => {
  await t.step("npi, with a comma list", async () => {
    assertEquals(await keys(`npi=${NPIS.obrien}`), ["obrien"]);
    assertEquals((await keys(`npi=${NPIS.obrien},${NPIS.hospital}`)).sort(), [
      "hospital",
      "obrien",
    ]);
    assertEquals(await keys(`npi=${NPIS.gone}`), [], "deactivated hidden by default");
    assertEquals(await keys(`npi=${NPIS.gone}&include_deactivated=true`), ["gone"]);
  });
  await t.step("names: exact, prefix, folded, other names", async () => {
    assertEquals((await keys("last_name=smith")).sort(), ["johnSmith", "marySmith"]);
    assertEquals(await keys("last_name=SMITH&first_name=mary"), ["marySmith"]);
    assertEquals((await keys("last_name=smi*")).sort(), ["johnSmith", "marySmith", "smithson"]);
    assertEquals(await keys("last_name=obrien"), ["obrien"]);
    assertEquals(await keys("last_name=O%27BRIEN"), ["obrien"]);
    assertEquals(await keys("last_name=nakamura-jones"), ["nakamura"]);
    assertEquals(await keys("organization_name=springfield%20memorial*"), ["hospital"]);
    assertEquals(await keys("organization_name=john%20street%20dental"), ["dentalOrg"]);
    assertEquals(await keys("last_name=smit"), [], "exact without *");
  });
  await t.step("entity_type, with NPI-1/NPI-2 aliases", async () => {
    assertEquals((await search("entity_type=organization")).total, 3);
    assertEquals((await search("entity_type=NPI-2")).total, 3);
    assertEquals((await search("entity_type=npi-1")).total, 11);
  });
  await t.step("taxonomy and specialty", async () => {
    const cardio = ["hoboken", "marySmith", "nakamura", "newark", "smithJohnson"];
    assertEquals((await keys("taxonomy=207RC0000X")).sort(), cardio);
    assertEquals(
      (await keys("taxonomy=207rc0000x,122300000X")).sort(),
      [...cardio, "smithson"].sort(),
    );
    assertEquals((await keys("specialty=cardiologist")).sort(), cardio);
    assertEquals((await keys("specialty=heart%20doctor")).sort(), cardio);
    assertEquals((await keys("specialty=dentist")).sort(), ["dentalOrg", "smithson"]);
    assertEquals(await keys("specialty=ob-gyn"), []);
    assertEquals(
      await keys("taxonomy=207RC0000X&specialty=dentist"),
      [],
      "different parameters are AND",
    );
  });
  await t.step("city, state, sex", async () => {
    assertEquals((await keys("city=boston")).sort(), ["obrien", "smithson", "smyth"]);
    assertEquals(await keys("city=Fort%20Smith"), ["johnFortSmith"]);
    assertEquals((await keys("state=ma,wa")).sort(), ["nakamura", "obrien", "smithson", "smyth"]);
    assertEquals(await keys("state=NY&sex=F"), ["marySmith"]);
  });
  await t.step("postal codes: 5 digits match ZIP+4, 9 digits exact, prefix", async () => {
    assertEquals(await keys("postal_code=11201"), ["marySmith"]);
    assertEquals(await keys("postal_code=112010001"), ["marySmith"]);
    assertEquals(await keys("postal_code=11201-0001"), ["marySmith"]);
    assertEquals(await keys("postal_code=112019999"), []);
    assertEquals((await keys("postal_code=021*")).sort(), ["obrien", "smithson", "smyth"]);
  });
});

Deno.test("[search] near: great-circle distance, exact radius, sorted, in the unit asked", async () => {
  const center = lookupZip("10001")!;
  const body = await search("near=10001&radius=15");
  const expected = Object.entries(PEOPLE)
    .filter(([key, p]) => !p.deactivated && key !== "gone")
    .map(([key, p]) => {
      const z = lookupZip(p.zip)!;
      return { key, d: distance(center.lat, center.lon, z.lat, z.lon, "mi") };
    })
    .filter((e) => e.d <= 15)
    .sort((a, b) => a.d - b.d);
  assertEquals(body.results.map((r) => nameOf[r.npi]), expected.map((e) => e.key));
  for (const [i, r] of body.results.entries()) {
    assertEquals(r.distance, Math.round(expected[i]!.d * 10) / 10);
  }
  const newark = expected.find((e) => e.key === "newark")!;
  // The radius is exact: just inside and just outside the Newark provider's distance.
  const inside = await keys(`near=10001&radius=${(newark.d + 0.001).toFixed(3)}`);
  const outside = await keys(`near=10001&radius=${(newark.d - 0.001).toFixed(3)}`);
  assert(inside.includes("newark") && !outside.includes("newark"));
  const km = await search(`near=${center.lat},${center.lon}&radius=24&unit=km&sort=distance`);
  assertEquals(km.results[0]?.distance, 0);
  assertEquals(km.results.map((r) => nameOf[r.npi]), await keys("near=10001&radius=14.9129"));
  const relevance = await keys("q=rivera&near=10001&radius=50");
  assertEquals(relevance, ["hoboken", "newark"], "relevance ties broken by distance");
});

Deno.test("[search] totals, offset and cursor paging agree", async () => {
  const all = await keys("limit=100");
  assertEquals(all.length, 14);
  const paged: string[] = [];
  for (let offset = 0; offset < 14; offset += 4) {
    paged.push(...await keys(`limit=4&offset=${offset}`));
  }
  assertEquals(paged, all);
  const walked: string[] = [];
  let cursor: string | null = null;
  do {
    const body: Body = await search(
      `limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    assertEquals(body.total, 14);
    walked.push(...body.results.map((r) => nameOf[r.npi]!));
    cursor = body.next_cursor;
  } while (cursor);
  assertEquals(walked, all);
});

Deno.test("[search] facets count the whole filtered set", async () => {
  const body = await search("facets=state,entity_type,sex,taxonomy,city&limit=1");
  assertEquals(body.results.length, 1);
  assertEquals(body.facets?.state?.slice(0, 2), [{ value: "MA", count: 3 }, {
    value: "NY",
    count: 3,
  }]);
  assertEquals(body.facets?.entity_type, [{ value: "individual", count: 11 }, {
    value: "organization",
    count: 3,
  }]);
  assertEquals(body.facets?.sex, [{ value: "M", count: 7 }, { value: "F", count: 4 }]);
  assertEquals(body.facets?.taxonomy?.[0], { value: "207RC0000X", count: 5 });
  const q = await search("q=smith&facets=state");
  const sum = q.facets!.state!.reduce((n, f) => n + f.count, 0);
  assertEquals(sum, q.total);
});

Deno.test("[search] every invalid parameter is a 400 naming it", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["q=", "q", /empty/],
    [`q=${"x".repeat(201)}`, "q", /at most 200/],
    ["npi=1234567890", "npi", /check digit/],
    ["npi=123", "npi", /10 digits/],
    ["first_name=s*", "first_name", /at least 2/],
    ["last_name=sm*th", "last_name", /only end with/],
    ["entity_type=robot", "entity_type", /individual/],
    ["taxonomy=207RC0000", "taxonomy", /NUCC taxonomy code/],
    ["specialty=cardiolgy", "specialty", /did you mean.*cardiolog/],
    ["state=XX", "state", /USPS/],
    ["postal_code=1234", "postal_code", /5 or 9 digits/],
    ["near=00000", "near", /not in the ZIP dataset/],
    ["near=91,10", "near", /latitude/],
    ["near=abc", "near", /ZIP or 'lat,lon'/],
    ["near=10001&radius=0", "radius", /greater than 0/],
    ["near=10001&radius=501", "radius", /at most 500/],
    ["near=10001&unit=ft", "unit", /'mi', 'km'/],
    ["sex=X", "sex", /'M', 'F'/],
    ["include_deactivated=yes", "include_deactivated", /'true' or 'false'/],
    ["sort=best", "sort", /'relevance'/],
    ["limit=101", "limit", /1 to 100/],
    ["offset=10001", "offset", /0 to 10000/],
    ["cursor=abc", "cursor", /not a cursor|not issued/],
    ["facets=color", "facets", /'state'/],
    ["radius=5", "radius", /needs 'near'/],
    ["unit=km", "unit", /needs 'near'/],
    ["sort=distance", "sort", /needs 'near'/],
    ["sort=relevance", "sort", /needs 'q'/],
    ["qq=smith", "qq", /did you mean 'q'/],
    ["lastname=smith", "lastname", /did you mean 'last_name'/],
    ["sex=F&entity_type=organization", "sex", /individuals only/],
  ];
  for (const [query, parameter, message] of cases) {
    await t.step(query.slice(0, 40), async () => {
      const errors = await badParameters(query);
      assert(parameter in errors, `${parameter} named in ${JSON.stringify(errors)}`);
      assertMatch(errors[parameter]!, message);
    });
  }
  await t.step("several bad parameters are all named", async () => {
    const errors = await badParameters("limit=0&state=XX&colour=red");
    assertEquals(Object.keys(errors).sort(), ["colour", "limit", "state"]);
  });
  await t.step("cursor with offset", async () => {
    const { next_cursor } = await search("limit=2");
    const errors = await badParameters(`cursor=${encodeURIComponent(next_cursor!)}&offset=2`);
    assertMatch(errors.cursor!, /offset/);
  });
  await t.step("a cursor from another query", async () => {
    const { next_cursor } = await search("limit=2");
    const errors = await badParameters(`q=smith&cursor=${encodeURIComponent(next_cursor!)}`);
    assertMatch(errors.cursor!, /not issued for this query/);
  });
  await t.step("a well-formed value that matches nothing is an empty result", async () => {
    assertEquals((await search("taxonomy=207RC0001X")).total, 0);
    assertEquals((await search("city=nowhere")).total, 0);
    assertEquals((await search("q=zzzzzzzzzz")).results, []);
  });
});

Deno.test({
  name: "[search] close the fixture",
  sanitizeResources: false,
  async fn() {
    store.close();
    await Deno.remove(dir, { recursive: true });
  },
});
