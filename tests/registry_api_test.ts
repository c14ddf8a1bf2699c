import { assert, assertEquals, assertMatch } from "@std/assert";
import { assertJson, type TestApp, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { LOOPERS, REG, registryFixtureDatabase } from "./_registry_fixtures.ts";
import {
  example1,
  example2,
  example3,
  extraA,
  extraB,
  extraC,
  extraD,
} from "./_registry_examples.ts";
import { loadConfig } from "../lib/config.ts";
import { SearchPool } from "../lib/search/pool.ts";
import { RECORDS_WITH_PAGE } from "../lib/search/response.ts";
import { renderBody } from "../lib/service/render.ts";
import { SEARCH_WORKER_URL } from "../lib/service/startup.ts";

type Json = Record<string, unknown>;
interface Results {
  result_count: number;
  results: Json[];
}
interface Errors {
  Errors: { description: string; field: string; number: string }[];
}

const dir = await Deno.makeTempDir();
const path = await registryFixtureDatabase(dir);
const store = openSearchableStore(path);
const app: TestApp = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
const nameOf = Object.fromEntries(Object.entries(REG).map(([k, v]) => [v, k]));

async function api(query: string): Promise<{ body: Json; total: string | null }> {
  const response = await app.request(`/api/?${query}`);
  const total = response.headers.get("x-total-count");
  return { body: await assertJson<Json>(response), total };
}

async function results(query: string): Promise<Results & { total: number }> {
  const { body, total } = await api(`version=2.1&${query}`);
  assert(!("Errors" in body), `unexpected errors: ${JSON.stringify(body)}`);
  return { ...(body as unknown as Results), total: Number(total) };
}

/** The fixture names of a search's results, in order. */
async function found(query: string): Promise<string[]> {
  return (await results(query)).results.map((r) => nameOf[r.number as string] ?? "other");
}

async function errors(query: string): Promise<string[]> {
  const { body, total } = await api(query);
  assertEquals(total, null);
  assertEquals(Object.keys(body), ["Errors"]);
  return (body as unknown as Errors).Errors.map((e) => `${e.number} ${e.field}`);
}

/** Milliseconds of the day an epoch (seconds or milliseconds, number or string) falls on. */
function dayMillis(epoch: unknown): string {
  const n = Number(epoch);
  const ms = String(epoch).length >= 13 ? n : n * 1000;
  return String(Math.floor(ms / 86_400_000) * 86_400_000);
}

function byPurpose(list: unknown): Json[] {
  return [...(list as Json[])].sort((a, b) =>
    String(a.address_purpose).localeCompare(String(b.address_purpose))
  );
}

/**
 * A documented result in the API's current form, the one this service
 * follows: `number` and epochs as strings (epochs in milliseconds; the files
 * give dates, so the day), `sex` for `gender`, no `basic.name`, no empty
 * `address_2`, the v2 arrays present, `taxonomy_group` on taxonomies,
 * identifier type 01 described "Other (non-Medicare)", the official's phone
 * as digits; addresses ordered by purpose.
 */
function currentForm(old: Json): Json {
  const out: Json = structuredClone(old);
  out.number = String(old.number);
  out.created_epoch = dayMillis(old.created_epoch);
  out.last_updated_epoch = dayMillis(old.last_updated_epoch);
  const basic = out.basic as Json;
  delete basic.name;
  if ("gender" in basic) {
    basic.sex = basic.gender;
    delete basic.gender;
  }
  if (typeof basic.authorized_official_telephone_number === "string") {
    basic.authorized_official_telephone_number = basic.authorized_official_telephone_number
      .replace(/-/g, "");
  }
  out.addresses = byPurpose(
    (out.addresses as Json[]).map((a) => {
      if (a.address_2 === "") delete a.address_2;
      return a;
    }),
  );
  out.practiceLocations = ((out.practiceLocations ?? []) as Json[]).map((l) => {
    delete l.update_date;
    return l;
  });
  out.endpoints ??= [];
  out.other_names ??= [];
  out.taxonomies = (out.taxonomies as Json[]).map((t) => ({ taxonomy_group: "", ...t }));
  out.identifiers = (out.identifiers as Json[]).map((i) =>
    i.code === "01" && i.desc === "Other" ? { ...i, desc: "Other (non-Medicare)" } : i
  );
  return out;
}

function ours(result: Json): Json {
  return { ...result, addresses: byPurpose(result.addresses) };
}

async function lookup(number: string): Promise<Json> {
  const body = await results(`number=${number}`);
  assertEquals(body.result_count, 1);
  return body.results[0]!;
}

Deno.test("[registry] the documented example responses, reproduced from fixture records", async (t) => {
  await t.step("Example 1: one individual, field for field", async () => {
    const body = await results(`number=${REG.fowler}`);
    assertEquals(Object.keys(body).sort(), ["result_count", "results", "total"]);
    assertEquals(body.result_count, 1);
    const expected = (example1.results as Json[]).map(currentForm);
    assertEquals(body.results.map(ours), expected);
  });
  await t.step(
    "Example 2: two individuals with FGN, AA, UM and spelled-out state quirks",
    async () => {
      const body = await results("city=ATLANTA&enumeration_type=NPI-1");
      assertEquals(body.result_count, example2.result_count);
      const key = (r: Json) => String(r.number);
      const expected = (example2.results as Json[]).map(currentForm).sort((a, b) =>
        key(a).localeCompare(key(b))
      );
      assertEquals(body.results.map(ours).sort((a, b) => key(a).localeCompare(key(b))), expected);
    },
  );
  await t.step("Example 3: enumeration_type alone is error 09, with HTTP 200", async () => {
    const response = await app.request("/api/?version=2.1&enumeration_type=NPI-1");
    const body = await assertJson<Errors>(response);
    const documented = (example3 as unknown as Errors).Errors;
    assertEquals(body.Errors.length, documented.length);
    assertEquals(Object.keys(body.Errors[0]!).sort(), Object.keys(documented[0]!).sort());
    assertEquals(body.Errors[0]!.field, documented[0]!.field);
    assertEquals(body.Errors[0]!.number, documented[0]!.number);
    assertEquals(
      body.Errors[0]!.description.toLowerCase(),
      documented[0]!.description.toLowerCase(),
    );
  });
  await t.step(
    "Extra A: practiceLocations (without update_date, which the files lack)",
    async () => {
      assertEquals(ours(await lookup(REG.steinberg)), currentForm(extraA));
    },
  );
  await t.step("Extra B: an organization with its authorized official", async () => {
    const expected = currentForm(extraB);
    // NUCC has since renamed 251K00000X's classification; desc follows the dataset's code set.
    (expected.taxonomies as Json[])[0]!.desc = "Public Health or Welfare Agency";
    assertEquals(ours(await lookup(REG.sandySprings)), expected);
  });
  await t.step("Extra C: the current format, exactly (epochs to the day)", async () => {
    const body = await results(`number=${REG.inova}`);
    const expected = structuredClone(extraC) as unknown as Results;
    const result = expected.results[0]!;
    result.created_epoch = dayMillis(result.created_epoch);
    result.last_updated_epoch = dayMillis(result.last_updated_epoch);
    result.addresses = byPurpose(result.addresses);
    assertEquals(body.result_count, expected.result_count);
    assertEquals(body.results.map(ours), expected.results);
    assertMatch(body.results[0]!.created_epoch as string, /^\d{13}$/);
  });
  await t.step("Extra D: an endpoint element", async () => {
    const result = await lookup(REG.endpointOwner);
    assertEquals(result.endpoints, [extraD]);
  });
});

Deno.test("[registry] name rules", async (t) => {
  await t.step("last_name is exact and case-insensitive, own name only", async () => {
    assertEquals(await found("last_name=fowler"), ["fowler"]);
    assertEquals(await found("last_name=FOWL"), []);
    assertEquals(
      await found("last_name=smithers"),
      [],
      "a former surname is not a last_name match",
    );
    assertEquals(await found("last_name=doe"), ["formerName"]);
    assertEquals(
      await found("last_name=fowler&state=MT"),
      [],
      "a longer own surname (FOWLER-BRANDT, once FOWLER) is not a last_name match",
    );
    assertEquals(await found("last_name=fowler-brandt"), ["fowlerBrandt"]);
    assertEquals(await found("last_name=fowler brandt"), ["fowlerBrandt"]);
  });
  await t.step("a trailing * after two characters is a prefix", async () => {
    assertEquals(await found("last_name=fow*"), ["fowler", "fowlerBrandt"]);
    assertEquals(await found("first_name=kel*&last_name=spr*"), ["sprang"]);
  });
  await t.step(
    "use_first_name_alias: default True finds nicknames; False the name only",
    async () => {
      assertEquals(await found("first_name=bob&last_name=browning"), ["robert"]);
      assertEquals(await found("first_name=BOB&last_name=browning&use_first_name_alias=True"), [
        "robert",
      ]);
      assertEquals(await found("first_name=bob&last_name=browning&use_first_name_alias=False"), []);
      assertEquals(
        await found("first_name=robert&last_name=browning&use_first_name_alias=false"),
        ["robert"],
      );
      assertEquals(await found("first_name=rob*&last_name=browning").then((r) => r.sort()), [
        "robert",
        "roberta",
      ]);
    },
  );
  await t.step("organization_name searches every organization name", async () => {
    assertEquals(await found("organization_name=acme holdings llc"), ["pinnacle"]);
    assertEquals(await found("organization_name=PINNACLE CARE"), ["pinnacle"]);
    assertEquals(await found("organization_name=PINN"), []);
    assertEquals(await found("organization_name=PINN*"), ["pinnacle"]);
    const body = await results("organization_name=PINN*");
    assertEquals(body.results[0]!.other_names, [
      { organization_name: "PINNACLE CARE", code: "3", type: "Doing Business As" },
    ]);
  });
  await t.step("name_purpose=AO searches authorized officials, with nicknames", async () => {
    assertEquals(await found("last_name=katkowsky"), []);
    assertEquals(await found("name_purpose=AO&last_name=katkowsky"), ["pinnacle", "sandySprings"]);
    assertEquals(await found("name_purpose=AO&first_name=steve&last_name=katkowsky"), [
      "sandySprings",
    ]);
    assertEquals(
      await found(
        "name_purpose=ao&first_name=steve&last_name=katkowsky&use_first_name_alias=False",
      ),
      [],
    );
    assertEquals(await found("name_purpose=Provider&first_name=paul&last_name=fowler"), ["fowler"]);
  });
  await t.step("individual other names come back split into parts", async () => {
    const result = await lookup(REG.formerName);
    assertEquals(result.other_names, [
      { type: "Former Name", code: "1", first_name: "JANE", last_name: "SMITHERS" },
    ]);
  });
});

Deno.test("[registry] address and taxonomy rules", async (t) => {
  await t.step("city and state: any address by default", async () => {
    // Name order: ACME HOLDINGS LLC (legal name of "pinnacle"), BARNES, SANDY SPRINGS, SPRANG.
    // SPRANG's practice state is spelled GEORGIA; her mailing address is ATLANTA, GA.
    assertEquals(await found("city=atlanta&state=ga"), [
      "pinnacle",
      "barnes",
      "sandySprings",
      "sprang",
    ]);
    assertEquals(await found("city=atl*&state=GA&enumeration_type=NPI-2"), [
      "pinnacle",
      "sandySprings",
    ]);
    // Steinberg's mailing address, and his secondary location.
    assertEquals(await found("city=larchmont"), ["steinberg"]);
    assertEquals(await found("city=new york city&state=NY"), ["steinberg"]);
  });
  await t.step("address_purpose LOCATION and PRIMARY: the primary practice location", async () => {
    assertEquals(await found("city=new york&state=ny&address_purpose=LOCATION"), [
      "endpointOwner",
      "steinberg",
    ]);
    assertEquals(await found("city=atlanta&state=ga&address_purpose=PRIMARY"), [
      "pinnacle",
      "barnes",
      "sandySprings",
    ]);
    assertEquals(await found("city=larchmont&address_purpose=primary"), []);
  });
  await t.step("address_purpose MAILING: the mailing address", async () => {
    assertEquals(await found("city=larchmont&address_purpose=MAILING"), ["steinberg"]);
    assertEquals(await found("state=AL&city=atlanta&address_purpose=MAILING"), ["sandySprings"]);
    assertEquals(await found("postal_code=20854&address_purpose=MAILING"), ["inova"]);
  });
  await t.step("address_purpose SECONDARY: secondary practice locations", async () => {
    assertEquals(await found("city=new york city&address_purpose=SECONDARY"), ["steinberg"]);
    assertEquals(await found("city=new york&address_purpose=SECONDARY"), []);
  });
  await t.step("postal_code: 5 digits match ZIP+4; 9 digits exact; prefixes", async () => {
    assertEquals(await found("postal_code=21239"), ["fowler"]);
    assertEquals(await found("postal_code=212392905"), ["fowler"]);
    assertEquals(await found("postal_code=21239-2905"), ["fowler"]);
    assertEquals(await found("postal_code=212392906"), []);
    assertEquals(await found("postal_code=2123*"), ["fowler"]);
    assertEquals(await found("postal_code=2123929*"), ["fowler"]);
  });
  await t.step("country_code: alone when not US; with address_purpose", async () => {
    assertEquals(await found("country_code=AA"), ["sprang"]);
    assertEquals(await found("country_code=um&address_purpose=MAILING"), ["barnes"]);
    assertEquals(await found("country_code=US&last_name=barnes"), ["barnes"]);
  });
  await t.step(
    "taxonomy_description: description, classification, specialization, prefix",
    async () => {
      assertEquals(await found("taxonomy_description=Specialist"), ["fowler"]);
      assertEquals(await found("taxonomy_description=psychologist clinical"), ["sprang"]);
      assertEquals(await found("taxonomy_description=UROL*"), ["barnes"]);
      assertEquals(await found("taxonomy_description=Medical Oncology"), ["steinberg"]);
      assertEquals(await found("taxonomy_description=no such specialty"), []);
    },
  );
  await t.step("taxonomies carry desc and taxonomy_group", async () => {
    const result = await lookup(REG.fowler);
    assertEquals(result.taxonomies, [{
      code: "174400000X",
      taxonomy_group: "",
      desc: "Specialist",
      state: "MD",
      license: "DOO44314",
      primary: true,
    }]);
  });
});

/** The fixture names of a search's results and its exact total (`X-Total-Count`). */
async function foundWithTotal(query: string): Promise<[string[], number]> {
  const body = await results(query);
  assertEquals(body.result_count, body.results.length);
  return [body.results.map((r) => nameOf[r.number as string] ?? "other"), body.total];
}

Deno.test("[registry] addresses other than the primary practice location", async (t) => {
  // POSTMAN: practice DENVER CO 80205, mailing PORTLAND ME 04101-1234.
  // BRANCHWORKS CLINIC: practice (and mailing) DENVER CO 80206, a secondary location BOISE ID 83702.
  // TRAVELER: practice (and mailing) DENVER CO 80207, secondary locations SALEM OR 97301-1234 and
  // SALEM MA 01970.
  await t.step("without address_purpose: the mailing address counts", async () => {
    assertEquals(await foundWithTotal("city=portland&state=ME"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("city=PORT*&state=me"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("postal_code=04101"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("postal_code=0410*"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("postal_code=041011234"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("postal_code=04101-1234&city=portland"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("postal_code=04101123*"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("postal_code=041019999"), [[], 0]);
    // The primary location still counts: all three practise in Denver.
    assertEquals(await foundWithTotal("city=denver&state=CO&postal_code=8020*&last_name=postman"), [
      ["mailAway"],
      1,
    ]);
  });
  await t.step("without address_purpose: every secondary location counts", async () => {
    assertEquals(await foundWithTotal("city=boise&state=ID"), [["boise"], 1]);
    assertEquals(await foundWithTotal("postal_code=83702"), [["boise"], 1]);
    assertEquals(await foundWithTotal("organization_name=branchworks*&state=id"), [["boise"], 1]);
    assertEquals(await foundWithTotal("city=salem&state=OR"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("city=salem&state=MA"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("city=salem"), [["twoSalems"], 1], "found once");
    assertEquals(await foundWithTotal("postal_code=973011234"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("postal_code=97301&state=OR&city=salem"), [["twoSalems"], 1]);
  });
  await t.step("city, state and ZIP must all be of one and the same address", async () => {
    // Practice in Denver, mailing address in Maine.
    assertEquals(await foundWithTotal("city=denver&state=ME"), [[], 0]);
    assertEquals(await foundWithTotal("city=portland&state=CO"), [[], 0]);
    assertEquals(await foundWithTotal("postal_code=80205&state=ME"), [[], 0]);
    // Primary location and a secondary one.
    assertEquals(await foundWithTotal("city=denver&state=ID"), [[], 0]);
    assertEquals(await foundWithTotal("city=boise&postal_code=80206"), [[], 0]);
    // Two secondary locations: Salem, Oregon and Salem, Massachusetts.
    assertEquals(await foundWithTotal("state=OR&postal_code=01970"), [[], 0]);
    assertEquals(await foundWithTotal("state=MA&postal_code=97301"), [[], 0]);
    assertEquals(await foundWithTotal("state=MA&postal_code=01970&city=salem"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("state=MA&postal_code=973011234"), [[], 0]);
    assertEquals(await foundWithTotal("city=sal*&state=OR"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("city=sal*&state=MA&postal_code=97301"), [[], 0]);
    assertEquals(await foundWithTotal("city=salem&state=ID"), [[], 0]);
    assertEquals(await foundWithTotal("state=OR&postal_code=973011234"), [["twoSalems"], 1]);
  });
  await t.step("prefixes read against the few providers a name leaves", async () => {
    // A ZIP or city prefix with a surname: the prefix's lists are read against the surname's ids.
    assertEquals(await foundWithTotal("postal_code=0410*&last_name=postman"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("postal_code=0410*&last_name=traveler"), [[], 0]);
    assertEquals(await foundWithTotal("postal_code=97*&last_name=traveler"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("city=sal*&state=MA&last_name=traveler"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("city=sal*&state=ME&last_name=traveler"), [[], 0]);
    assertEquals(await foundWithTotal("city=port*&last_name=postman"), [["mailAway"], 1]);
  });
  await t.step("LOCATION and PRIMARY: the primary location only", async () => {
    for (const purpose of ["LOCATION", "PRIMARY"]) {
      const q = `address_purpose=${purpose}`;
      assertEquals(await foundWithTotal(`city=portland&state=ME&${q}`), [[], 0]);
      assertEquals(await foundWithTotal(`city=boise&${q}`), [[], 0]);
      assertEquals(await foundWithTotal(`city=salem&${q}`), [[], 0]);
      assertEquals(await foundWithTotal(`postal_code=80205&state=CO&${q}`), [["mailAway"], 1]);
      assertEquals(await foundWithTotal(`postal_code=80206&${q}`), [["boise"], 1]);
    }
  });
  await t.step("MAILING: the mailing address only", async () => {
    const q = "address_purpose=MAILING";
    assertEquals(await foundWithTotal(`city=portland&state=ME&${q}`), [["mailAway"], 1]);
    assertEquals(await foundWithTotal(`postal_code=041011234&${q}`), [["mailAway"], 1]);
    assertEquals(await foundWithTotal(`postal_code=041019999&${q}`), [[], 0]);
    assertEquals(await foundWithTotal(`city=denver&last_name=postman&${q}`), [[], 0]);
    assertEquals(await foundWithTotal(`city=boise&${q}`), [[], 0]);
    // BRANCHWORKS' and TRAVELER's mailing addresses are their Denver practices.
    assertEquals(await foundWithTotal(`city=denver&postal_code=8020*&${q}`), [
      ["boise", "twoSalems"],
      2,
    ]);
  });
  await t.step("SECONDARY: the secondary locations only", async () => {
    const q = "address_purpose=SECONDARY";
    assertEquals(await foundWithTotal(`city=boise&state=ID&${q}`), [["boise"], 1]);
    assertEquals(await foundWithTotal(`city=salem&state=or&${q}`), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal(`state=OR&postal_code=01970&${q}`), [[], 0]);
    assertEquals(await foundWithTotal(`city=portland&${q}`), [[], 0]);
    assertEquals(await foundWithTotal(`city=denver&${q}`), [[], 0]);
  });
  await t.step("totals are exact across pages", async () => {
    // Everyone practising in Denver by any address: the 3 CO nickname fixtures and the 3 above.
    const [all, total] = await foundWithTotal("city=denver&limit=200");
    assertEquals(total, 6);
    assertEquals(all.length, 6);
    const first = await results("city=denver&limit=4");
    const rest = await results("city=denver&limit=4&skip=4");
    assertEquals([first.total, rest.total], [6, 6]);
    assertEquals([first.result_count, rest.result_count], [4, 2]);
    assertEquals(
      [...first.results, ...rest.results].map((r) => r.number),
      (await results("city=denver&limit=200")).results.map((r) => r.number),
    );
    // A doubtful candidate (two secondary locations) is counted only once it is confirmed.
    assertEquals((await results("state=OR&postal_code=01970&limit=1")).total, 0);
    assertEquals((await results("city=salem&state=OR&limit=1")).total, 1);
  });
  await t.step("country_code applies to the same address as the other criteria", async () => {
    assertEquals(await foundWithTotal("city=portland&country_code=US"), [["mailAway"], 1]);
    assertEquals(await foundWithTotal("city=salem&state=MA&country_code=US"), [["twoSalems"], 1]);
    assertEquals(await foundWithTotal("city=portland&country_code=CA"), [[], 0]);
  });
});

Deno.test("[registry] deactivated NPIs are not returned", async () => {
  assertEquals(await found(`number=${REG.fowlerGone}`), []);
  assertEquals(await found("last_name=fowler&state=MD"), ["fowler"]);
  assertEquals((await results("postal_code=21239")).total, 1);
});

Deno.test("[registry] number: exact; a Luhn-invalid 10-digit number is simply not found", async () => {
  assertEquals(await found(`number=${REG.barnes}`), ["barnes"]);
  assertEquals(await found("number=1234567890"), []);
});

Deno.test("[registry] errors: HTTP 200, known numbers, several at once", async (t) => {
  await t.step("17 version missing or unsupported", async () => {
    assertEquals(await errors("last_name=fowler"), ["17 version"]);
    assertEquals(await errors("version=2.0&last_name=fowler"), ["17 version"]);
  });
  await t.step("04 no criteria (paging and flags are not criteria)", async () => {
    assertEquals(await errors("version=2.1"), ["04 generic"]);
    assertEquals(await errors("version=2.1&limit=5&skip=5&pretty=on&use_first_name_alias=True"), [
      "04 generic",
    ]);
    assertEquals(await errors("version=2.1&address_purpose=MAILING&name_purpose=AO"), [
      "04 generic",
    ]);
    assertEquals(await errors("version=2.1&last_name=&city="), ["04 generic"]);
  });
  await t.step("03 wildcard with fewer than two characters", async () => {
    assertEquals(await errors("version=2.1&first_name=J*"), ["03 first_name"]);
    assertEquals(await errors("version=2.1&last_name=*"), ["03 last_name"]);
    assertEquals(await errors("version=2.1&postal_code=2*"), ["03 postal_code"]);
  });
  await t.step("05 special characters, wrong lengths, unknown values", async () => {
    assertEquals(await errors("version=2.1&enumeration_type=NPI-3&last_name=fowler"), [
      "05 enumeration_type",
    ]);
    assertEquals(await errors("version=2.1&last_name=fo!wler"), ["05 last_name"]);
    assertEquals(await errors("version=2.1&last_name=M*ll"), ["05 last_name"]);
    assertEquals(await errors("version=2.1&state=XX&city=atlanta"), ["05 state"]);
    assertEquals(await errors("version=2.1&country_code=USA"), ["05 country_code"]);
    assertEquals(await errors("version=2.1&postal_code=1234"), ["05 postal_code"]);
    assertEquals(await errors("version=2.1&last_name=fowler&limit=ten"), ["05 limit"]);
    assertEquals(await errors("version=2.1&last_name=fowler&skip=1001"), ["05 skip"]);
    assertEquals(await errors("version=2.1&last_name=fowler&skip=-1"), ["05 skip"]);
    assertEquals(await errors("version=2.1&last_name=fowler&address_purpose=HOME"), [
      "05 address_purpose",
    ]);
    assertEquals(await errors("version=2.1&last_name=fowler&name_purpose=X"), ["05 name_purpose"]);
    assertEquals(await errors("version=2.1&last_name=fowler&use_first_name_alias=maybe"), [
      "05 use_first_name_alias",
    ]);
  });
  await t.step("allowed special characters are accepted", async () => {
    assertEquals(await found('organization_name=A@B %26 C\'s (#1), "x"; y/z: w-v.'), []);
  });
  await t.step("06 number not 10 digits", async () => {
    assertEquals(await errors("version=2.1&number=12345"), ["06 number"]);
    assertEquals(await errors("version=2.1&number=12345678901"), ["06 number"]);
  });
  await t.step("07 state alone; 09 enumeration_type alone; both together", async () => {
    assertEquals(await errors("version=2.1&state=OH"), ["07 state"]);
    assertEquals(await errors("version=2.1&state=OH&country_code=US"), ["07 state"]);
    assertEquals(await errors("version=2.1&enumeration_type=NPI-2"), ["09 enumeration_type"]);
    assertEquals(await errors("version=2.1&country_code=US"), ["07 country_code"]);
    const response = await app.request(
      "/api/?version=2.1&state=OH&enumeration_type=NPI-2&limit=20",
    );
    assertEquals(
      await response.text(),
      '{"Errors":[{"description":"Field state requires additional search criteria","field":"state","number":"07"},' +
        '{"description":"Enumeration_type requires additional search criteria","field":"enumeration_type","number":"09"}]}',
    );
  });
  await t.step("several rules at once", async () => {
    assertEquals(await errors("first_name=J*&number=12&enumeration_type=x"), [
      "17 version",
      "06 number",
      "05 enumeration_type",
      "03 first_name",
    ]);
  });
  await t.step("unknown parameters are ignored, as the real API does", async () => {
    assertEquals(await found("last_name=fowler&callback=x&foo=bar"), ["fowler"]);
  });
});

Deno.test("[registry] limit, skip, order, totals", async (t) => {
  await t.step("limit: default 10, 0 means 10, above 200 counts as 200", async () => {
    assertEquals((await results("last_name=looper")).result_count, 10);
    assertEquals((await results("last_name=looper&limit=0")).result_count, 10);
    assertEquals((await results("last_name=looper&limit=3")).result_count, 3);
    assertEquals((await results("last_name=looper&limit=500")).result_count, 200);
  });
  await t.step("X-Total-Count is the exact total; result_count the page", async () => {
    const body = await results("last_name=looper&state=KS&limit=7&skip=1000");
    assertEquals(body.total, LOOPERS);
    assertEquals(body.result_count, 7);
  });
  await t.step("registry order: by name, stable across pages", async () => {
    const all = (await results("last_name=looper&limit=200")).results;
    const names = all.map((r) => (r.basic as Json).first_name as string);
    assertEquals(names, [...names].sort());
    const page2 = (await results("last_name=looper&limit=100&skip=100")).results;
    assertEquals(page2.map((r) => r.number), all.slice(100, 200).map((r) => r.number));
  });
  await t.step("empty result: result_count 0 and no results", async () => {
    const { body, total } = await api("version=2.1&last_name=nobody");
    assertEquals(body, { result_count: 0, results: [] });
    assertEquals(total, "0");
  });
});

Deno.test("[registry] /api and /api/, pretty, headers, HEAD", async (t) => {
  await t.step("both paths answer the same", async () => {
    const a = await (await app.request(`/api?version=2.1&number=${REG.fowler}`)).text();
    const b = await (await app.request(`/api/?version=2.1&number=${REG.fowler}`)).text();
    assertEquals(a, b);
  });
  await t.step("pretty indents, same content", async () => {
    const response = await app.request(`/api/?version=2.1&number=${REG.fowler}&pretty=on`);
    const text = await response.text();
    assert(text.includes('\n  "result_count": 1,'));
    const plain = await (await app.request(`/api/?version=2.1&number=${REG.fowler}`)).text();
    assertEquals(JSON.parse(text), JSON.parse(plain));
    assert(!plain.includes("\n"));
  });
  await t.step("JSON content type, request id, CORS exposes X-Total-Count", async () => {
    const response = await app.request(`/api/?version=2.1&number=${REG.fowler}`);
    assertEquals(response.headers.get("content-type"), "application/json; charset=utf-8");
    assertMatch(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    assertMatch(response.headers.get("access-control-expose-headers") ?? "", /X-Total-Count/);
    assertEquals(response.headers.get("x-total-count"), "1");
    await response.body?.cancel();
  });
  await t.step("HEAD answers the headers", async () => {
    const response = await app.request(`/api/?version=2.1&number=${REG.fowler}`, {
      method: "HEAD",
    });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("x-total-count"), "1");
  });
});

Deno.test("[registry] NPPES_API_MAX_SKIP lifts the skip cap", async (t) => {
  const lifted = testApp({
    config: { registryMaxSkip: 5000 },
    deps: { dataset: new Dataset({ kind: "ready", store }) },
  });
  await t.step("skip past 1000 is answered", async () => {
    const response = await lifted.request("/api/?version=2.1&last_name=looper&limit=200&skip=1400");
    const body = await assertJson<Results>(response);
    assertEquals(body.result_count, LOOPERS - 1400);
    assertEquals(response.headers.get("x-total-count"), String(LOOPERS));
  });
  await t.step("and above the configured cap it is error 05", async () => {
    const response = await lifted.request("/api/?version=2.1&last_name=looper&skip=5001");
    const body = await assertJson<Errors>(response);
    assertEquals(body.Errors.map((e) => `${e.number} ${e.field}`), ["05 skip"]);
    assert(body.Errors[0]!.description.includes("5000"));
  });
  await t.step("the variable is validated", () => {
    assertEquals(loadConfig({}).registryMaxSkip, 1000);
    assertEquals(loadConfig({ NPPES_API_MAX_SKIP: "100000" }).registryMaxSkip, 100000);
    for (const bad of ["-1", "lots", "1e9", "999999999999"]) {
      let message = "";
      try {
        loadConfig({ NPPES_API_MAX_SKIP: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      assertMatch(message, /NPPES_API_MAX_SKIP must be an integer/);
    }
  });
});

Deno.test("[registry] the OpenAPI document describes /api with 200-with-Errors and no 400", async () => {
  const doc = await assertJson<Json>(await app.request("/openapi.json"));
  const paths = doc.paths as Record<string, Record<string, Json>>;
  assert(!("/api/" in paths), "one path, documented without the trailing slash it also answers");
  for (const path of ["/api"]) {
    const get = paths[path]!.get!;
    const responses = get.responses as Record<string, Json>;
    assert(!("400" in responses), "refusals are 200, not 400");
    assert(JSON.stringify(responses["200"]).includes("RegistryErrors"));
    assert(JSON.stringify(responses["200"]).includes("X-Total-Count"));
    assertMatch(get.description as string, /answer.* 200/i);
    const names = (get.parameters as Json[]).map((p) => p.name);
    assertEquals(names.length, 17);
  }
});

Deno.test("[registry] record checks over too many candidates are refused with an Errors answer", async () => {
  const small = openSearchableStore(`${dir}/registry.db`, { maxRecordChecks: 100 });
  try {
    const limited = testApp({ deps: { dataset: new Dataset({ kind: "ready", store: small }) } });
    const response = await limited.request("/api/?version=2.1&city=wichita&country_code=US");
    assertEquals(response.headers.get("x-total-count"), null);
    const body = await assertJson<Errors>(response);
    assertEquals(body.Errors.map((e) => `${e.number} ${e.field}`), ["04 generic"]);
    assertMatch(body.Errors[0]!.description, /^Too broad: \d+ providers would be checked/);
    // Narrowed by an indexed criterion, the same check is answered.
    const narrowed = await limited.request(
      "/api/?version=2.1&city=wichita&country_code=US&last_name=looper&first_name=faaaa",
    );
    assertEquals((await assertJson<Results>(narrowed)).result_count, 1);
    // Address matches over every address (mailing, secondary locations) are on the index: not
    // refused, however many candidates.
    const anyAddress = await limited.request("/api/?version=2.1&city=wichita&limit=1");
    assertEquals(anyAddress.headers.get("x-total-count"), String(LOOPERS));
    await anyAddress.body?.cancel();
  } finally {
    small.close();
  }
});

for (
  const [workers, workerUrl] of [
    ["the search module's workers", undefined],
    ["the service's workers", SEARCH_WORKER_URL],
  ] as const
) {
  // The service's workers write a short page whole; the search module's alone cannot write this form.
  const shortHere = workerUrl === undefined;
  Deno.test(`[registry] pages through ${workers}: the same answers, each written where it should be`, async () => {
    const pooled = openSearchableStore(path, { lazyIndex: true });
    /** Per page rendered here: how many stored records came with it (null: none). */
    const handed: (number | null)[] = [];
    const pool = await SearchPool.start({
      path,
      workers: 1,
      queue: 8,
      workerUrl,
      render: (job, page) => {
        handed.push(page.records?.length ?? null);
        return renderBody(pooled, job, page);
      },
    });
    const dataset = new Dataset();
    dataset.ready(pooled, pool);
    const viaPool = testApp({ deps: { dataset } });
    try {
      for (
        const [query, count, withRecords] of [
          ["last_name=looper&limit=200", 200, true],
          ["last_name=looper&limit=200&skip=1000", 200, true],
          [`last_name=looper&limit=${RECORDS_WITH_PAGE}&skip=50`, RECORDS_WITH_PAGE, true],
          [`last_name=looper&limit=${RECORDS_WITH_PAGE - 1}`, RECORDS_WITH_PAGE - 1, false],
          ["last_name=looper&limit=10", 10, false],
          ["city=denver&limit=200", 6, false],
        ] as const
      ) {
        handed.length = 0;
        const url = `/api/?version=2.1&${query}`;
        const [pooledAnswer, here] = [await viaPool.request(url), await app.request(url)];
        const body = await pooledAnswer.text();
        assertEquals(body, await here.text(), query);
        assertEquals(
          pooledAnswer.headers.get("x-total-count"),
          here.headers.get("x-total-count"),
          query,
        );
        assertEquals((JSON.parse(body) as Results).result_count, count, query);
        assertEquals(handed, withRecords ? [count] : shortHere ? [null] : [], query);
      }
      // This API's own pages are rendered on the serving thread, whichever the workers.
      handed.length = 0;
      const native = await viaPool.request("/v1/providers/search?q=looper&limit=5");
      assertEquals((await assertJson<Results>(native)).results.length, 5);
      assertEquals(handed, [null]);
    } finally {
      await dataset.close();
    }
  });
}

Deno.test("[registry] stored records handed over as JSON decode to the records read here", () => {
  const ids = Array.from({ length: LOOPERS + Object.keys(REG).length }, (_, i) => i + 1);
  const stored = store.storedRecords(ids);
  assert(stored.some((row) => row.sides !== 0), "the fixture has records with rows of other files");
  // As the mailbox carries them from the worker: through JSON text.
  const handed = JSON.parse(JSON.stringify(stored)) as typeof stored;
  assertEquals(store.getProvidersById(ids, handed), store.getProvidersById(ids));
  // What is decoded is what was handed, not read again.
  assertEquals(store.getProvidersById(ids, handed.slice(0, 3)).map((p) => p.id), [1, 2, 3]);
});

Deno.test({
  name: "[registry] teardown",
  fn: async () => {
    store.close();
    await Deno.remove(dir, { recursive: true });
  },
});
