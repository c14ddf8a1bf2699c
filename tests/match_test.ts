/**
 * Roster matching: the normalising and verdict rules, the decision rules,
 * precision on damaged rosters with known answers, and `POST /v1/match`
 * (formats, order, summary, limits and bad input).
 *
 * @module
 */
import { deactivatedStub } from "../lib/store/prepare.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { assertProblem, type TestApp, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { NPIS, searchFixtureDatabase } from "./_search_fixtures.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { personName, phone, street, zip } from "../lib/match/normalize.ts";
import { prepareRow } from "../lib/match/prepare.ts";
import { judge } from "../lib/match/verdicts.ts";
import { classify, decide } from "../lib/match/classify.ts";
import { type MatchResult, matchRows, RosterMatcher } from "../lib/match/matcher.ts";
import { blocks } from "../lib/match/candidates.ts";
import { readRoster, RosterError } from "../lib/match/roster_parse.ts";
import { damagedRoster, scoreRoster } from "../lib/match/synthetic_roster.ts";
import { buildSpecialtyIndex, resolveSpecialty } from "../lib/taxonomy/resolve.ts";
import type { Provider } from "../lib/provider.ts";
import type { SearchableSqliteStore as SqliteStore } from "../lib/search/searcher.ts";

function person(values: Record<string, string>) {
  return prepareRow({ row: 1, line: 2, id: "r1", values }, () => null);
}

function provider(patch: Partial<Provider> & { first?: string; last?: string }): Provider {
  return {
    // Every field empty, then this provider's.
    ...deactivatedStub("1234567893"),
    npi: "1234567893",
    entity_type: "individual",
    status: "active",
    name: "X",
    individual: {
      prefix: null,
      first_name: patch.first ?? "ROBERT",
      middle_name: null,
      last_name: patch.last ?? "SMITH",
      suffix: null,
      credential: "M.D.",
      sex: "M",
      sole_proprietor: false,
    },
    taxonomies: [{
      code: "207RC0000X",
      description: null,
      primary: true,
      license: null,
      state: null,
      group: null,
    }],
    practice_location: {
      line1: "403 PERMIAN WAY STE D",
      line2: null,
      city: "SAINT LOUIS",
      state: "MO",
      postal_code: "631013226",
      country_code: "US",
      phone: "3145550100",
      fax: null,
      lat: null,
      lon: null,
    },
    ...patch,
  };
}

Deno.test("[match] names: credentials, suffixes, titles, reversal, parentheses, diacritics", () => {
  const a = personName({ last_name: "Smith Jr., M.D.", first_name: "Dr. Robert J" });
  assertEquals([a.first, a.middle, a.lastKey, a.suffix], ["robert", "j", "smith", "jr"]);
  assertEquals(a.credentials, ["md"]);
  const b = personName({ last_name: "ÁLVAREZ-O'NEIL, Cynthia (Cindi) C(arolyn)" });
  assertEquals([b.first, b.middle, b.lastKey], ["cynthia", "carolyn", "alvarezoneil"]);
  // DO and MA are surnames too: kept when they are the surname.
  assertEquals(personName({ last_name: "Do", first_name: "Anh" }).lastKey, "do");
  assertEquals(personName({ last_name: "Nguyen DO", first_name: "Anh" }).lastKey, "nguyen");
});

Deno.test("[match] addresses: suites and units apart, USPS abbreviations, ZIP+4, phones", () => {
  assertEquals(street("403 Permian Way, Suite D").key, "403 permian way");
  assertEquals(street("403 PERMIAN WAY STE D").unit, "ste d");
  assertEquals(street("49 Jesse Hill Jr Dr SE # 307").key, "49 jesse hill jr dr se");
  assertEquals(street("12 North Main Street", "SUITE 103").unit, "ste 103");
  assertEquals(street("12 North Main Street").key, "12 n main st");
  assertEquals(zip("30180-3226"), { zip5: "30180", zip9: "301803226" });
  assertEquals(zip("2108"), { zip5: "02108", zip9: null });
  assertEquals(zip("ABCDE"), null);
  assertEquals(phone("+1 (314) 555-0100 x12"), "3145550100");
});

Deno.test("[match] verdicts: nicknames agree, ghost pairs conflict, missing is unknown", () => {
  const p = provider({});
  const bob = judge(
    person({ first_name: "Bob", last_name: "Smith", address: "403 Permian Way Suite D" }),
    p,
  );
  assertEquals(bob.verdicts.first_name, "agrees");
  assertEquals(bob.evidence.first_name, "nickname");
  assertEquals(bob.verdicts.address, "agrees");
  assertEquals(bob.verdicts.phone, "unknown");
  assertEquals(bob.verdicts.postal_code, "unknown");
  for (const [a, b] of [["Jane", "JOAN"], ["Danielle", "DANIEL"], ["Robert", "WILLIAM"]]) {
    const v = judge(person({ first_name: a!, last_name: "Smith" }), provider({ first: b! }));
    assertEquals(v.verdicts.first_name, "conflicts", `${a} vs ${b}`);
  }
  const zip9 = judge(person({ last_name: "Smith", postal_code: "63101-3226" }), p);
  assertEquals([zip9.verdicts.postal_code, zip9.evidence.postal_code], ["agrees", "zip9"]);
  const zip5 = judge(person({ last_name: "Smith", postal_code: "63101" }), p);
  assertEquals([zip5.verdicts.postal_code, zip5.evidence.postal_code], ["agrees", "zip5"]);
  const city = judge(person({ last_name: "Smith", city: "St. Louis" }), p);
  assertEquals(city.verdicts.city, "agrees");
  const md = judge(person({ last_name: "Smith", credential: "DO" }), p);
  assertEquals(md.verdicts.credential, "conflicts");
});

Deno.test("[match] verdicts: former names and the maiden name in the middle slot", () => {
  const married = provider({
    last: "JONES",
    first: "JANE",
    other_names: [{ type: "former_name", name: "JANE SMITH" }],
  });
  const maiden = judge(person({ first_name: "Jane", last_name: "Smith" }), married);
  assertEquals([maiden.verdicts.name, maiden.evidence.name], ["agrees", "former_name"]);
  const middle = judge(
    person({ first_name: "Jane", middle_name: "Smith", last_name: "Jones" }),
    { ...married, individual: { ...married.individual!, middle_name: "ANN" } },
  );
  assertEquals(middle.verdicts.middle_name, "unknown");
  assertEquals(middle.evidence.middle_name, "surname_in_middle");
});

Deno.test("[match] classes: exactly one top-class candidate, typos and ties go to review", () => {
  const row = person({
    first_name: "Robert",
    last_name: "Smith",
    address: "403 Permian Way",
    postal_code: "63101",
  });
  const a = classify("1", judge(row, provider({})), true);
  assertEquals(a.evidenceClass, 2);
  assertEquals(decide([a]), { status: "matched", reason: "unique_best_evidence" });
  const b = classify("2", judge(row, provider({ npi: "2" })), true);
  assertEquals(decide([a, b]).reason, "ambiguous_tied_evidence");
  const typo = classify("3", judge(row, provider({ last: "SMIHT" })), true);
  assertEquals(typo.evidenceClass, 5);
  assertEquals(decide([typo]), { status: "review", reason: "fuzzy_only_evidence" });
  const junior = classify(
    "4",
    judge(person({ first_name: "Robert", last_name: "Smith Jr", address: "403 Permian Way" }), {
      ...provider({}),
      individual: { ...provider({}).individual!, suffix: "SR" },
    }),
    true,
  );
  assertEquals(decide([junior]), { status: "review", reason: "suffix_conflict" });
  assertEquals(decide([]), { status: "unmatched", reason: "no_candidate" });
  // The same name in the same ZIP at another street (a chain's branch, a namesake) is no evidence.
  const elsewhere = classify(
    "5",
    judge(
      person({
        first_name: "Robert",
        last_name: "Smith",
        address: "16 Health Park St",
        postal_code: "63101",
      }),
      provider({}),
    ),
    true,
  );
  assertEquals(elsewhere.evidenceClass, 6);
  assertEquals(decide([elsewhere]), { status: "review", reason: "address_conflict" });
  // The benchmark roster's one wrong match at 9.7 million: the same house number and "AVE" in
  // another state is not the same address (a street type or direction tells nothing apart).
  const namesake = judge(
    person({ first_name: "Rachel", last_name: "Hall", address: "5281 Pine Ave", city: "Warwick" }),
    {
      ...provider({}),
      practice_location: {
        ...provider({}).practice_location!,
        line1: "5281 7TH AVE",
        city: "RESTON",
        state: "VA",
        postal_code: "20195",
      },
    },
  );
  assertEquals(namesake.verdicts.address, "conflicts");
  const sameCity = judge(
    person({
      first_name: "Robert",
      last_name: "Smith",
      address: "403 Permian Road",
      city: "St Louis",
    }),
    provider({}),
  );
  assertEquals([sameCity.verdicts.address, sameCity.evidence.address], [
    "agrees",
    "number_and_street_word",
  ]);
});

Deno.test("[match] the roster reader: CSV and NDJSON, aliases, limits naming the row", async () => {
  const read = async (text: string, format: "csv" | "ndjson", maxRows = 10, maxBytes = 1e6) => {
    const rows = [];
    for await (const r of readRoster(new Blob([text]).stream(), format, { maxRows, maxBytes })) {
      rows.push(r);
    }
    return rows;
  };
  const csv = await read("\uFEFFid,Last Name,zip\nr1,Smith,10001\n\n,Jones,\n", "csv");
  assertEquals(csv.map((r) => [r.id, r.values.last_name, r.values.postal_code]), [
    ["r1", "Smith", "10001"],
    ["2", "Jones", undefined],
  ]);
  const nd = await read('{"id":"a","last_name":"Smith","npi":1234567893}\n', "ndjson");
  assertEquals(nd[0]?.values.npi, "1234567893");
  const fails = async (
    text: string,
    format: "csv" | "ndjson",
    maxRows = 10,
    maxBytes = 1e6,
  ): Promise<RosterError> => {
    try {
      await read(text, format, maxRows, maxBytes);
    } catch (error) {
      if (error instanceof RosterError) return error;
      throw error;
    }
    throw new Error("no error");
  };
  const unknown = await fails("id,zipp\n1,2\n", "csv");
  assertEquals([unknown.status, unknown.where.field], [400, "zipp"]);
  assertMatch(unknown.message, /did you mean 'zip'/);
  const rows = await fails("last_name\na\nb\nc\n", "csv", 2);
  assertEquals([rows.status, rows.where.row], [413, 3]);
  assertEquals((await fails("last_name\n" + "a\n".repeat(100), "csv", 1000, 50)).status, 413);
  const json = await fails('{"last_name":"a"}\n{oops\n', "ndjson");
  assertEquals([json.status, json.where.row, json.where.line], [400, 2, 2]);
  const nested = await fails('{"last_name":{"x":1}}\n', "ndjson");
  assertEquals(nested.where.field, "last_name");
  const quote = await fails('last_name\n"unclosed\n', "csv");
  assertEquals(quote.status, 400);
});

// Precision over damaged rosters built from a synthetic registry with namesakes.

const dir = await Deno.makeTempDir();
const demoPath = `${dir}/demo.db`;
buildDemoDatabase({ path: demoPath, records: 6000, seed: 11 });
const demo: SqliteStore = openSearchableStore(demoPath);

function matcherOver(store: SqliteStore): RosterMatcher {
  const specialties = buildSpecialtyIndex(store.taxonomy());
  return new RosterMatcher({
    find: (q) => store.search(q),
    records: (ids) => store.getProvidersById(ids),
    resolveSpecialty: (words) => {
      const r = resolveSpecialty(specialties, words);
      return r.ok ? r.codes : null;
    },
  });
}

for (const seed of [1, 2]) {
  Deno.test(`[match] precision: every 'matched' on a damaged roster is right (seed ${seed})`, async () => {
    const providers = demo.getProvidersById(
      Array.from({ length: 700 }, (_, i) => 1 + ((i * 37 + seed * 101) % 6000)),
    ).map((x) => x.provider).filter((p) => p.status === "active");
    const roster = damagedRoster(providers, seed);
    const results: MatchResult[] = [];
    for await (const r of matchRows(roster.map((x) => x.row), matcherOver(demo))) results.push(r);
    const score = scoreRoster(roster, results);
    console.log(
      `  seed ${seed}: precision ${score.precision.toFixed(4)}, recall ${
        score.recall.toFixed(3)
      } ` +
        `(${score.right}/${roster.filter((r) => r.expected).length}); matched by damage ${
          JSON.stringify(score.byDamage)
        }`,
    );
    assertEquals(score.wrong, [], "no wrong 'matched'");
    assertEquals(results.map((r) => r.id), roster.map((r) => r.row.id), "input order");
    // The damage the rules are built to absorb is matched; the rest goes to review.
    for (const kind of ["clean", "nickname", "maiden_name", "suite_and_zip4", "formatting"]) {
      const [m, n] = score.byDamage[kind]!.split("/").map(Number);
      assert(m! >= n! * 0.9, `${kind}: ${score.byDamage[kind]}`);
    }
    // Nobody who is not in the registry is matched; a roster NPI that names someone else is reviewed.
    for (const kind of ["not_in_registry", "wrong_npi"]) {
      assertEquals(score.byDamage[kind]!.split("/")[0], "0", kind);
    }
    assert(score.recall > 0.6, `recall ${score.recall}`);
  });
}

// The HTTP route over the search fixtures.

const fixtures = openSearchableStore(await searchFixtureDatabase(dir));
const app: TestApp = testApp({
  deps: { dataset: new Dataset({ kind: "ready", store: fixtures }) },
  config: { matchMaxRows: 5, matchMaxBytes: 2000 },
});

async function post(body: string, type = "text/csv", query = ""): Promise<Response> {
  return await app.request(`/v1/match${query}`, {
    method: "POST",
    headers: { "Content-Type": type },
    body,
  });
}

/** An answer line: a row's result, or the summary. */
type Line = MatchResult & {
  summary?: Record<string, number>;
  complete?: boolean;
  matcher_version?: string;
  dataset_release?: string;
};

async function lines(response: Response): Promise<Line[]> {
  assertEquals(response.status, 200, await response.clone().text());
  assertEquals(response.headers.get("content-type"), "application/x-ndjson; charset=utf-8");
  assert(response.headers.get("dataset-release"));
  assert(response.headers.get("x-request-id"));
  const text = await response.text();
  assert(text.endsWith("\n"));
  return text.trimEnd().split("\n").map((l) => JSON.parse(l));
}

Deno.test("[match] POST /v1/match answers every row in order, then the summary", async () => {
  const out = await lines(
    await post(
      "id,npi,first_name,last_name,address,city,state,postal_code\n" +
        "a,,Johnny,Smith MD,1 Main Street,New York,NY,10001-1234\n" +
        "b,,Kathleen,O'Brien,1 Main St,Boston,MA,02108\n" +
        "c,,Nobody,Zzyzx,,,NY,10001\n" +
        "d,,,,1 Main St,,,\n" +
        `e,${NPIS.gone},Old,Smith,,,,\n`,
    ),
  );
  assertEquals(out.map((l) => l.id), ["a", "b", "c", "d", "e", undefined]);
  const [a, b, c, d, e, summary] = out;
  assertEquals([a!.status, a!.reason], ["matched", "unique_best_evidence"]);
  assertEquals(a!.best?.npi, NPIS.johnSmith);
  const verdicts = a!.candidates[0]!.verdicts;
  assertEquals(verdicts.first_name, "agrees");
  assertEquals(verdicts.phone, "unknown", "missing never agrees");
  assertEquals(a!.stripped, ["md"]);
  assertEquals([b!.status, b!.best?.npi], ["matched", NPIS.obrien]);
  assertEquals([c!.status, c!.reason, c!.best], ["unmatched", "no_candidate", null]);
  assertEquals([d!.status, d!.reason], ["invalid", "missing_required_name"]);
  assertEquals([e!.status, e!.reason], ["review", "npi_deactivated"]);
  assert(e!.warnings.includes("npi_deactivated"));
  assertEquals(summary!.summary, { rows: 5, matched: 2, review: 1, unmatched: 1, invalid: 1 });
  assertEquals(summary!.complete, true);
  assertEquals(summary!.matcher_version, "1.0.0");
  assertMatch(String(summary!.dataset_release), /^nppes-\d{8}-/);
});

Deno.test("[match] one NPI is matched to one row; NPI checks are reported", async () => {
  const out = await lines(
    await post(
      [
        '{"id":"x","first_name":"Mary","last_name":"Smith","postal_code":"11201"}',
        '{"id":"y","first_name":"Mary","last_name":"Smith","postal_code":"11201"}',
        `{"id":"z","npi":"${NPIS.hospital}","first_name":"Mary","last_name":"Smith"}`,
        '{"id":"w","npi":"1234567890","organization_name":"Springfield Memorial Hospital Inc","state":"IL","postal_code":"62701"}',
      ].join("\n"),
      "application/x-ndjson",
    ),
  );
  assertEquals([out[0]!.status, out[1]!.status], ["matched", "review"]);
  assertEquals(out[1]!.reason, "ambiguous_contested_candidate");
  assert(out[2]!.warnings.includes("npi_type_mismatch"));
  assert(out[2]!.warnings.includes("npi_name_conflict"));
  assertEquals(out[2]!.status, "review");
  assertEquals([out[3]!.status, out[3]!.best?.npi], [
    "matched",
    NPIS.hospital,
  ]);
  assert(out[3]!.warnings.includes("npi_check_digit_invalid"));
});

Deno.test("[match] CSV answers, and bad input as 400/413/415 problems naming row and field", async () => {
  const csv = await post(
    "last_name,first_name,postal_code\nSmith,John,10001\n",
    "text/csv",
    "?format=csv",
  );
  assertEquals(csv.status, 200);
  assertEquals(csv.headers.get("content-type"), "text/csv; charset=utf-8; header=present");
  const rows = (await csv.text()).trimEnd().split("\r\n");
  assertEquals(rows.length, 2);
  assert(rows[0]!.startsWith("id,row,status,reason,"));
  assert(rows[1]!.startsWith("1,1,matched,unique_best_evidence,,"));

  const unknown = await assertProblem(await post("last_name,zipcod\nSmith,1\n"), 400);
  assertEquals(unknown.errors?.[0]?.parameter, "header: zipcod");
  const badJson = await assertProblem(
    await post('{"last_name":"a"}\n{"last_name":\n', "application/x-ndjson"),
    400,
  );
  assertEquals(badJson.errors?.[0]?.parameter, "row 2");
  const tooMany = await assertProblem(await post("last_name\na\nb\nc\nd\ne\nf\n"), 413);
  assertMatch(String(tooMany.detail), /Row 6 .* limit of 5 rows/);
  await assertProblem(await post(`last_name\n${"a\n".repeat(1500)}`), 413);
  const tooLong = await assertProblem(await post(`last_name\n${"a".repeat(400)}\n`), 400);
  assertEquals(tooLong.errors?.[0]?.parameter, "row 1: last_name");
  await assertProblem(await post("last_name\nSmith\n", "application/json"), 415);
  await assertProblem(await post(""), 400);
  await assertProblem(await post("last_name\n"), 400);
  const params = await assertProblem(
    await post("last_name\nSmith\n", "text/csv", "?max_candidates=50"),
    400,
  );
  assertEquals(params.errors?.[0]?.parameter, "max_candidates");
  const state = await lines(await post("last_name,state,postal_code\nSmith,XX,ABC\n"));
  assertEquals(state[0]!.status, "invalid");
  assertEquals(
    (state[0]!.errors ?? []).map((e) => e.field),
    ["state", "postal_code"],
  );
});

Deno.test("[match] blocking: specific searches first, broad ones skipped once strong", async () => {
  const row = person({
    first_name: "Bob",
    last_name: "Smith",
    state: "MO",
    postal_code: "63101",
    npi: "1234567893",
  });
  const plan = blocks(row).map((b) => `${b.name}:${b.skip}`);
  assertEquals(plan.slice(0, 4), [
    "npi:never",
    "name_zip:never",
    "surname_zip:found",
    "name_state:strong",
  ]);
  const nameZip = blocks(row)[1]!.query;
  assert(nameZip.firstNames!.some((f) => f.key === "robert"), "nicknames searched");
  assertEquals(nameZip.postal?.zip5, ["63101"]);
  // A ZIP search that returns fewer namesakes than it holds: no match on what was read.
  const p = provider({ first: "ROBERT" });
  const matcher = new RosterMatcher({
    find: (q) => ({ total: q.postal ? 500 : 1, hits: [{ id: 1 }], next: null, offset: 0 }),
    records: () => [{ id: 1, provider: p }],
    resolveSpecialty: () => null,
  });
  const result = await matcher.evaluate({
    row: 1,
    line: 2,
    id: "r1",
    values: {
      first_name: "Robert",
      last_name: "Smith",
      address: "403 Permian Way",
      postal_code: "63101",
    },
  });
  assertEquals([result.status, result.reason], ["review", "too_many_candidates"]);
  assert(result.warnings.includes("candidates_truncated"));
});
