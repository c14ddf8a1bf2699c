/**
 * The search box (`q`) as people type into it: titles and credentials,
 * initials, places and codes, legal names before other names, typos only
 * where they help, and the fallback when nothing matches every word. One
 * test per rule, on the search-box fixtures, plus a held-out list of typed
 * queries with the provider that must come first.
 */
import { assert, assertEquals } from "@std/assert";
import { assertJson, type TestApp, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { BOX_NPIS, BOX_PEOPLE, searchBoxFixtureDatabase } from "./_search_fixtures.ts";
import type { Provider } from "../lib/provider.ts";
import { hintKinds, queryWords, stateOf } from "../lib/search/hint_words.ts";
import { HINT } from "../lib/search/hint_words.ts";
import { FIELD } from "../lib/index/fields.ts";
import { credentialTokens } from "../lib/text/credentials.ts";
import { LEVEL_SCORES, levelKeys, rankKey, scoreOfKey, SUB, TIER } from "../lib/search/scores.ts";

type Result = Provider & { score?: number };
interface Body {
  total: number;
  results: Result[];
  facets?: Record<string, { value: string; count: number }[]>;
}

const dir = await Deno.makeTempDir();
const store = openSearchableStore(await searchBoxFixtureDatabase(dir));
const app: TestApp = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
const nameOf = Object.fromEntries(Object.entries(BOX_NPIS).map(([k, v]) => [v, k]));

async function search(q: string, extra = ""): Promise<Body> {
  const url = `/v1/providers/search?q=${encodeURIComponent(q)}&limit=50${extra}`;
  return await assertJson<Body>(await app.request(url));
}

/** The fixture keys and scores of a search's results, in order. */
async function ranked(q: string): Promise<{ key: string; score: number }[]> {
  return (await search(q)).results.map((r) => ({ key: nameOf[r.npi] ?? r.npi, score: r.score! }));
}

async function keys(q: string): Promise<string[]> {
  return (await ranked(q)).map((r) => r.key);
}

function scoreOf(list: { key: string; score: number }[], key: string): number {
  const found = list.find((r) => r.key === key);
  if (!found) throw new Error(`${key} is not in the results`);
  return found.score;
}

/** Keys of the fixture providers whose primary code is `code`. */
function withCode(code: string): string[] {
  return Object.entries(BOX_PEOPLE).filter(([, p]) => p.codes[0] === code).map(([k]) => k);
}

Deno.test("[search box] the issue's table: Paul Byron Fowler, M.D., Baltimore 21239", async (t) => {
  for (
    const q of [
      "paul fowler",
      "fowler, paul",
      "paul fowler baltimore",
      "dr paul fowler md",
      "Dr. Fowler",
      "fowler md",
      "paul b fowler",
      "fowler 21239",
      "fowler baltimore md",
    ]
  ) {
    await t.step(q, async () => assertEquals((await keys(q))[0], "fowler"));
  }
});

Deno.test("[search box] titles and credentials rank, and never exclude a name", async (t) => {
  await t.step("dotted and hyphenated credentials are one word", () => {
    assertEquals(queryWords("Dr. Paul B. Fowler, M.D."), ["dr", "paul", "b", "fowler", "md"]);
    assertEquals(queryWords("li ma PA-C ph.d."), ["li", "ma", "pac", "phd"]);
    assertEquals(queryWords("nakamura-jones"), ["nakamura", "jones"], "names still split");
    assertEquals(credentialTokens("M.D., Ph.D."), ["md", "phd"]);
    assertEquals(credentialTokens("PA-C"), ["pac", "pa"]);
    assertEquals(credentialTokens("PMHNP-BC"), ["pmhnpbc", "pmhnp", "bc"]);
  });
  await t.step(
    "dr smith md: the Dr. Smith, M.D. first; a D.O. below those with none on record",
    async () => {
      const list = await ranked("dr smith md");
      assertEquals(list[0], { key: "johnSmith", score: 120 });
      assertEquals(list.length, 6, "every Smith is still found");
      assertEquals(list.at(-1)?.key, "janeSmith", "a D.O. does not fit `md`");
      assert(scoreOf(list, "janeSmith") < scoreOf(list, "bobSmith"));
    },
  );
  await t.step(
    "Dr. fits a doctorate on record (a D.O.); an RN ranks lower, same tier",
    async () => {
      const list = await keys("dr fowler");
      assertEquals(list.slice(0, 2).sort(), ["fowler", "peterFowler"]);
      assert(list.indexOf("margaretFowler") >= 2, "an RN is not a Dr.: after those who fit");
      assertEquals(scoreOf(await ranked("dr fowler"), "margaretFowler"), 120, "a title is weak");
    },
  );
  await t.step("a surname that is a state name, with title and credential", async () => {
    // WASHINGTON is a state name (a hint); the whole name still comes first.
    assertEquals((await keys("Dr. George Washington, CRNA"))[0], "washington");
  });
  await t.step("a surname that is a credential still matches as a surname", async () => {
    assertEquals((await keys("do"))[0], "anhDo");
    assertEquals(await keys("anh do"), ["anhDo"]);
    assertEquals(await keys("do anh"), ["anhDo"]);
    assertEquals((await ranked("anh do"))[0]?.score, 120, "the whole name");
    assertEquals((await keys("ma"))[0], "liMa", "Ma the surname before Massachusetts");
    assertEquals(await keys("li ma"), ["liMa"]);
    assertEquals(await keys("li ma pa-c"), ["liMa"]);
  });
  await t.step("a credential alone finds those who hold it", async () => {
    const found = await keys("facc");
    assertEquals(found, ["kowalczyk"]);
  });
});

Deno.test("[search box] a single letter is an initial, below the full word", async () => {
  assertEquals((await ranked("paul b fowler"))[0], { key: "fowler", score: 120 });
  const p = await ranked("p fowler");
  const initialled = p.slice(0, 3).map((r) => r.key).sort();
  assertEquals(initialled, ["fowler", "paulaFowler", "peterFowler"], "first initial P");
  assert(scoreOf(p, "margaretFowler") < 50, "M is not P: found, but lower");
  // A middle initial: PAULA ANN.
  assertEquals((await keys("a fowler"))[0], "paulaFowler");
  // The letter as a whole first name (J SCOTT) before J as an initial (JOHN, SCOTT J).
  const j = await keys("j scott");
  assertEquals(j[0], "jScott");
  assertEquals(j.slice(1, 3).sort(), ["johnScott", "scottScott"]);
  // First, middle initial and last: the whole name first.
  assertEquals((await keys("scott j scott"))[0], "scottScott");
  assertEquals(hintKinds("b"), HINT.initial);
});

Deno.test("[search box] an initial's bitmap holds exactly the providers of its list", () => {
  const index = store.index;
  for (const letter of ["p", "j", "a", "q"]) {
    const listed = new Set(index.list(FIELD.initial, letter));
    const bits = index.initialBits(letter);
    for (let id = 1; id <= index.size; id++) {
      const set = ((bits[id >>> 5]! >>> (id & 31)) & 1) === 1;
      assertEquals(set, listed.has(id), `${letter}: provider ${id}`);
    }
    assert(index.initialBits(letter) === bits, "made once, then kept");
  }
  assert(index.list(FIELD.initial, "p").length > 0, "the fixtures hold initials");
});

Deno.test("[search box] a level's rank key read from its tier's table is the computed key", () => {
  for (const tier of Object.values(TIER)) {
    for (const sub of Object.values(SUB)) {
      const keys = levelKeys(tier, sub);
      assertEquals(keys.length, LEVEL_SCORES.length);
      keys.forEach((key, level) =>
        assertEquals(key, rankKey(tier, level, sub), `${tier}/${sub}/${level}`)
      );
      assert(levelKeys(tier, sub) === keys, "made once, then kept");
    }
  }
});

Deno.test("[search box] hint kinds of words", () => {
  assertEquals(hintKinds("md"), HINT.credential | HINT.state);
  assertEquals(hintKinds("dr"), HINT.title);
  assertEquals(hintKinds("ms"), HINT.title | HINT.credential | HINT.state);
  assertEquals(hintKinds("maryland"), HINT.state);
  assertEquals(hintKinds("21239"), HINT.zip);
  assertEquals(hintKinds("1234567893"), HINT.npi);
  assertEquals(hintKinds("1234"), 0, "four digits are a plain word");
  assertEquals(hintKinds("fowler"), 0);
  assertEquals(queryWords("fowler 21239-1234"), ["fowler", "21239"]);
  assertEquals(queryWords("smith New York"), ["smith", "newyork"], "a two-word state is one hint");
  assertEquals(hintKinds("newyork"), HINT.state);
  assertEquals(stateOf("northcarolina"), "NC");
  assertEquals(queryWords("new smith"), ["new", "smith"], "not a state name: two words");
});

Deno.test("[search box] ZIPs, states and NPIs in the text rank those they fit first", async (t) => {
  await t.step("a ZIP", async () => {
    const list = await ranked("fowler 21239");
    assertEquals(list[0], { key: "fowler", score: 120 });
    assertEquals(list.length, 4, "the other Fowlers are still found");
    assert(list.slice(1).every((r) => r.score < 50));
    assertEquals(await keys("21239"), ["clinic", "fowler"], "a ZIP alone: who practises there");
  });
  await t.step("two places: one missed ranks above both missed", async () => {
    // Paul fits the ZIP, Peter the state; Margaret and Paula neither.
    const list = await ranked("fowler 21239 tx");
    const one = [scoreOf(list, "fowler"), scoreOf(list, "peterFowler")];
    const both = [scoreOf(list, "margaretFowler"), scoreOf(list, "paulaFowler")];
    assertEquals(one[0], one[1]);
    assert(one[0]! < 50 && both.every((s) => s < 20), `${one} ${both}`);
  });
  await t.step("a state code or name", async () => {
    for (const q of ["fowler md", "fowler maryland"]) {
      const list = await ranked(q);
      const top = list.filter((r) => r.score === 120).map((r) => r.key);
      assert(top.includes("fowler") && top.includes("margaretFowler"), q);
      assert(scoreOf(list, "peterFowler") < 50, `${q}: Texas is lower`);
    }
    const inNewYork = (await keys("fowler new york")).sort();
    assert(inNewYork.includes("fowler") && inNewYork.includes("peterFowler"), "new york is a hint");
    const al = await keys("al smith");
    assertEquals(al.slice(0, 2), ["alSmith", "bobSmith"], "Al the name, then Alabama");
  });
  await t.step("an NPI", async () => {
    assertEquals(await keys(BOX_NPIS.fowler!), ["fowler"]);
    const list = await ranked(`fowler ${BOX_NPIS.fowler}`);
    assertEquals(list[0], { key: "fowler", score: 120 });
    assert(list.slice(1).every((r) => r.score < 50));
  });
  await t.step("a city, as words already could", async () => {
    assertEquals((await keys("fowler baltimore")).sort(), ["fowler", "margaretFowler"]);
  });
});

Deno.test("[search box] legal names first, then other names, scores tell", async (t) => {
  await t.step("o'brien: the legal O'Brien above the former one", async () => {
    const list = await ranked("o'brien");
    assertEquals(list.map((r) => r.key), ["obrien", "cistason"]);
    assertEquals(list.map((r) => r.score), [120, 90]);
  });
  await t.step("smith: every legal Smith above the former Smiths", async () => {
    const list = await ranked("smith");
    const legal = ["alSmith", "bobSmith", "janeSmith", "johnSmith"];
    assertEquals(list.slice(0, 4).map((r) => r.key).sort(), legal);
    assertEquals(list.slice(4).map((r) => r.key).sort(), ["alexander", "baumann"]);
    assert(list.slice(0, 4).every((r) => r.score === 120));
    assert(list.slice(4).every((r) => r.score === 90));
  });
  await t.step("other names above city (and specialty) words", async () => {
    // PETROVA was DENVER; PAULA FOWLER practises in Denver.
    const list = await ranked("denver");
    assertEquals(list, [{ key: "petrova", score: 90 }, { key: "paulaFowler", score: 80 }]);
  });
});

Deno.test("[search box] a whole name typed, the last word unfinished, comes first", async (t) => {
  await t.step("first name, then the start of the surname", async () => {
    // Adam John Cooper sorts first and matches both words (a middle name, a surname's start);
    // John Able's former surname is a prefix of another name, lower still.
    assertEquals(await ranked("john coop"), [
      { key: "johnCooper", score: 67 },
      { key: "adamCooper", score: 65 },
      { key: "johnAble", score: 62 },
    ]);
  });
  await t.step(
    "surname, then the start of the first name; a former surname is not promoted",
    async () => {
      // John Able was John Cooper: his former surname matches, his legal one does not.
      assertEquals(await ranked("cooper, jo"), [
        { key: "johnCooper", score: 67 },
        { key: "johnAble", score: 65 },
        { key: "adamCooper", score: 65 },
      ]);
    },
  );
  await t.step("a state code or credential typed last is also a name's start", async () => {
    // `co`: Cooper's start (a whole name typed, each word in the legal name), Colin's and
    // Cooper's start (as an initial fits), Colorado (a place); the other Johns fit none, a tier
    // lower.
    const list = await ranked("john co");
    assertEquals(list.slice(0, 4), [
      { key: "johnCooper", score: 100 },
      { key: "colinAbbott", score: 95 },
      { key: "adamCooper", score: 95 },
      { key: "johnZimmer", score: 95 },
    ]);
    assertEquals(scoreOf(list, "johnSmith"), 38);
    // `pa`: Paul's and Paula's start before Pennsylvania or a PA's credential.
    assertEquals((await keys("fowler pa")).slice(0, 2), ["fowler", "paulaFowler"]);
  });
  await t.step("not looked for in as many results as a dense set holds", async () => {
    // The sixty Pats (all named Vax…) are over an eighth of the providers: `va` is Virginia only
    // there, where none of them practise, so none fits it.
    const list = await ranked("pat va");
    assertEquals(list.length, 50);
    assert(list.every((r) => r.score === 38), JSON.stringify(list.slice(0, 3)));
  });
  await t.step("a name's start elsewhere is not a whole name", async () => {
    // Colin John Abbott: `john` a middle name, `col` the start of his first name.
    assertEquals(await ranked("john col"), [{ key: "colinAbbott", score: 65 }]);
  });
});

Deno.test("[search box] typos only where they help; totals and facets count what is shown", async (t) => {
  const cardiologists = withCode("207RC0000X").sort();
  await t.step("cardiologist counts cardiologists, not audiologists or radiologists", async () => {
    const body = await search("cardiologist", "&facets=taxonomy");
    assertEquals(body.total, cardiologists.length);
    assertEquals(body.results.map((r) => nameOf[r.npi]!).sort(), cardiologists);
    assertEquals(body.facets?.taxonomy, [{ value: "207RC0000X", count: cardiologists.length }]);
  });
  await t.step("misspelt, it still finds what was meant", async () => {
    const body = await search("cardiolgist");
    assert(cardiologists.includes(nameOf[body.results[0]!.npi]!));
    const smiths = await keys("smtih");
    assertEquals(smiths.slice(0, 4).sort(), ["alSmith", "bobSmith", "janeSmith", "johnSmith"]);
    assertEquals((await keys("kowalczik"))[0], "kowalczyk");
  });
  await t.step("a known word with too few exact matches is widened, below them", async () => {
    // `quinn` (one radiologist) fills no page: its neighbour `guinn` joins, lower.
    const body = await search("quinn");
    assertEquals(body.total, 2);
    assertEquals(await ranked("quinn"), [
      { key: "radioQUINN", score: 120 },
      { key: "guinn", score: 58 },
    ]);
    // With a page's worth of exact matches (13 cardiologists), no neighbour joins (see above).
  });
});

Deno.test("[search box] nothing matches every word: the fallback, scored below 10", async (t) => {
  await t.step("a word nothing holds is left out", async () => {
    const list = await ranked("fowler zzyzx");
    assertEquals(list.map((r) => r.key).sort(), [
      "fowler",
      "margaretFowler",
      "paulaFowler",
      "peterFowler",
    ]);
    assert(list.every((r) => r.score < 10));
  });
  await t.step("the most common word is left out first", async () => {
    // No Fowler in Chicago: `chicago` (17 providers) is dropped before `fowler` (4).
    const list = await ranked("paul fowler chicago");
    assertEquals(list[0]?.key, "fowler");
    assert(list.every((r) => r.score < 10));
  });
  await t.step("no name word matches: the hints alone", async () => {
    const list = await ranked("zzyzx 21239");
    assertEquals(list.map((r) => r.key), ["clinic", "fowler"]);
    assert(list.every((r) => r.score < 10));
  });
  await t.step("a full match is never a fallback", async () => {
    assert((await ranked("paul fowler")).every((r) => r.score >= 50));
  });
});

Deno.test("[search box] scores: tiers never overlap", () => {
  const tiers = [TIER.full, TIER.oneMiss, TIER.misses, TIER.fallback];
  for (let t = 1; t < tiers.length; t++) {
    const worstAbove = scoreOfKey(rankKey(tiers[t - 1]!, 14, SUB.neutral));
    const bestBelow = scoreOfKey(rankKey(tiers[t]!, 0, SUB.name));
    assert(worstAbove > bestBelow, `tier ${t - 1} above tier ${t}`);
  }
});

Deno.test("[search box] held-out queries as people type them: who must come first", async (t) => {
  const cases: [string, string][] = [
    ["Dr. Paul B. Fowler, M.D.", "fowler"],
    ["DR PAUL FOWLER", "fowler"],
    ["fowler paul md baltimore", "fowler"],
    ["fowler p", "fowler"],
    ["fowler 21239-1234", "fowler"],
    ["peter fowler do", "peterFowler"],
    ["fowler texas", "peterFowler"],
    ["margaret fowler rn", "margaretFowler"],
    ["o brien", "obrien"],
    ["OBRIEN SIOBHAN", "obrien"],
    ["siobhan obrien np boston", "obrien"],
    ["maire cistason", "cistason"],
    ["maire o'brien", "cistason"],
    ["Dr. John Smith", "johnSmith"],
    ["smith, john md", "johnSmith"],
    ["jane smith d.o.", "janeSmith"],
    ["smith mobile", "bobSmith"],
    ["smith alabama", "bobSmith"],
    ["Anh Do MD", "anhDo"],
    ["dr do", "anhDo"],
    ["Li Ma, PA-C", "liMa"],
    ["kowalczyk cardiologist bethesda", "kowalczyk"],
    ["kowalczyk md 20817", "kowalczyk"],
    ["cardiologist bethesda", "kowalczyk"],
    ["chesapeake heart clinic", "clinic"],
    ["heart clinic baltimore", "clinic"],
    ["betty smith", "alexander"],
    ["amy u baumann", "baumann"],
    ["john coop", "johnCooper"],
    ["cooper jo", "johnCooper"],
    ["john co", "johnCooper"],
    ["fowler pa", "fowler"],
  ];
  for (const [q, first] of cases) {
    await t.step(q, async () => assertEquals((await keys(q))[0], first));
  }
});

globalThis.addEventListener("unload", () => {
  store.close();
  Deno.removeSync(dir, { recursive: true });
});
