/** The NPI Registry API's pure parts: parameter reading, query building, rendering helpers, record checks, the surname range. */
import { assert, assertEquals } from "@std/assert";
import { parseRegistryParams } from "../lib/registry_api/params.ts";
import {
  addressScope,
  firstNameKeys,
  taxonomyCodesFor,
  taxonomyDesc,
  toRegistryQuery,
} from "../lib/registry_api/query.ts";
import { countryName, dashedPhone, epochMillis } from "../lib/registry_api/render.ts";
import { splitRegistryBody } from "../lib/registry_api/body.ts";
import { addressMatches, passesCheck, placeMatches } from "../lib/search/record_check.ts";
import { surnameRange } from "../lib/store/name_range.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { NAME_KEY_SEPARATOR, sortKey } from "../lib/store/sort_key.ts";
import { nameIds } from "../lib/search/engine.ts";
import { FIELD } from "../lib/index/fields.ts";
import { nameKey } from "../lib/text/fold.ts";
import type { Address, Provider } from "../lib/provider.ts";
import type { PlaceMatch } from "../lib/search/query.ts";
import type { TaxonomyEntry } from "../lib/taxonomy/nucc.ts";

/** The request of a query that must be valid. */
function parse(query: string) {
  const result = parseRegistryParams(new URLSearchParams(query));
  if (!result.ok) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result;
}

Deno.test("[registry units] parameters are read case-insensitively, empty values are absent", () => {
  const result = parse(
    "version=2.1&last_name=smi*&state=md&enumeration_type=npi-1&address_purpose=mailing&city=" +
      "&use_first_name_alias=FALSE&name_purpose=provider&limit=250&skip=20&pretty",
  );
  const r = result.request;
  assertEquals(r.lastName, { text: "smi", prefix: true });
  assertEquals([r.state, r.enumerationType, r.addressPurpose], ["MD", 1, "MAILING"]);
  assertEquals([r.city, r.useFirstNameAlias, r.namePurpose], [null, false, "PROVIDER"]);
  assertEquals([r.limit, r.skip, r.pretty], [200, 20, true]);
  const zip = parse("version=2.1&postal_code=21239-2905");
  assertEquals(zip.request.postalCode, { text: "212392905", prefix: false });
});

Deno.test("[registry units] the skip cap is a parameter", () => {
  assert(!parseRegistryParams(new URLSearchParams("version=2.1&last_name=x1&skip=1001")).ok);
  assert(
    parseRegistryParams(new URLSearchParams("version=2.1&last_name=ab&skip=5000"), {
      maxSkip: 5000,
    }).ok,
  );
});

const TAXONOMY: TaxonomyEntry[] = [
  {
    code: "207RC0000X",
    display: "Cardiovascular Disease Physician",
    grouping: "Allopathic & Osteopathic Physicians",
    classification: "Internal Medicine",
    specialization: "Cardiovascular Disease",
    definition: null,
    section: "Individual",
  },
  {
    code: "207R00000X",
    display: "Internal Medicine Physician",
    grouping: "Allopathic & Osteopathic Physicians",
    classification: "Internal Medicine",
    specialization: null,
    definition: null,
    section: "Individual",
  },
];

Deno.test("[registry units] taxonomy descriptions: desc, classification, specialization, display, prefix", () => {
  assertEquals(taxonomyDesc(TAXONOMY[0]!), "Internal Medicine Cardiovascular Disease");
  assertEquals(taxonomyDesc(TAXONOMY[1]!), "Internal Medicine");
  const codes = (text: string, prefix = false) => taxonomyCodesFor(TAXONOMY, { text, prefix });
  assertEquals(codes("internal medicine"), ["207R00000X", "207RC0000X"]);
  assertEquals(codes("Internal Medicine, Cardiovascular Disease"), ["207RC0000X"]);
  assertEquals(codes("cardiovascular disease"), ["207RC0000X"]);
  assertEquals(codes("Cardiovascular Disease Physician"), ["207RC0000X"]);
  assertEquals(codes("cardio", true), ["207RC0000X"]);
  assertEquals(codes("cardio"), []);
  assertEquals(codes("207rc0000x"), ["207RC0000X"]);
});

Deno.test("[registry units] first names: nicknames both ways unless off or a wildcard", () => {
  const keys = (text: string, alias: boolean, prefix = false) =>
    firstNameKeys({ text, prefix }, alias).map((m) => m.key);
  assert(keys("Bob", true).includes("robert"));
  assert(keys("Robert", true).includes("bob"));
  assertEquals(keys("Bob", false), ["bob"]);
  assertEquals(keys("bo", true, true), ["bo"]);
});

Deno.test("[registry units] the engine query: AO and country are record checks, addresses places", () => {
  const result = parse(
    "version=2.1&name_purpose=AO&last_name=katkowsky&city=atlanta&address_purpose=MAILING",
  );
  const query = toRegistryQuery(result.request, { taxonomy: TAXONOMY });
  assertEquals([query.entity, query.lastNames, query.cities, query.ownLastName], [
    2,
    null,
    null,
    null,
  ]);
  assertEquals(query.check?.official?.last, { key: "katkowsky", prefix: false });
  assertEquals(query.check?.address, null);
  assertEquals(query.places, { scope: "mailing", city: "ATLANTA", state: null, postal: null });
  assertEquals([query.includeDeactivated, query.sort], [false, "name"]);
  const any = parse("version=2.1&city=atl*&state=ga&postal_code=303*");
  const q = toRegistryQuery(any.request, { taxonomy: TAXONOMY });
  assertEquals([q.cities, q.states, q.postal, q.check], [null, null, null, null]);
  assertEquals(q.places, {
    scope: "any",
    city: "ATL*",
    state: "GA",
    postal: { digits: "303", prefix: true },
  });
  const country = parse("version=2.1&city=salem&country_code=us&address_purpose=SECONDARY");
  const c = toRegistryQuery(country.request, { taxonomy: TAXONOMY });
  assertEquals(c.places?.scope, "secondary");
  assertEquals(c.check?.address, {
    scope: "secondary",
    city: { key: "salem", prefix: false },
    state: null,
    postal: null,
    country: "US",
  });
  assertEquals(
    toRegistryQuery(parse("version=2.1&last_name=x").request, { taxonomy: TAXONOMY })
      .places,
    null,
  );
  assertEquals(
    [null, "LOCATION", "PRIMARY", "MAILING", "SECONDARY"].map((p) =>
      addressScope(p as Parameters<typeof addressScope>[0])
    ),
    ["any", "primary", "primary", "mailing", "secondary"],
  );
});

Deno.test("[registry units] place matches compare as the index does, one address at a time", () => {
  const at = (city: string, state: string, postal: string) =>
    ({ city, state, postal_code: postal }) as Address;
  const place: PlaceMatch = { scope: "any", city: "ST LOUIS", state: "MO", postal: null };
  assert(placeMatches(at("St. Louis", "mo", "63101"), place));
  assert(!placeMatches(at("St. Louis Park", "MN", "55416"), place));
  assert(
    placeMatches(at("St. Louis Park", "MN", "55416"), { ...place, city: "ST LOUIS*", state: null }),
  );
  assert(!placeMatches(null, place));
  const zip = (digits: string, prefix = false) => ({
    ...place,
    city: null,
    state: null,
    postal: { digits, prefix },
  });
  assert(placeMatches(at("X", "MO", "631011234"), zip("63101")));
  assert(placeMatches(at("X", "MO", "63101-1234"), zip("631011234")));
  assert(!placeMatches(at("X", "MO", "63101"), zip("631011234")));
  assert(placeMatches(at("X", "MO", "631011234"), zip("6310112", true)));
  const provider = {
    practice_location: at("DENVER", "CO", "80207"),
    mailing_address: at("DENVER", "CO", "80207"),
    other_locations: [at("SALEM", "OR", "973011234"), at("SALEM", "MA", "01970")],
  } as unknown as Provider;
  const check = (p: Partial<PlaceMatch>) => ({
    address: null,
    official: null,
    place: { ...place, city: null, state: null, postal: null, ...p },
  });
  assert(passesCheck(provider, check({ state: "OR", postal: { digits: "97301", prefix: false } })));
  assert(
    !passesCheck(provider, check({ state: "OR", postal: { digits: "01970", prefix: false } })),
  );
  assert(!passesCheck(provider, check({ scope: "primary", city: "SALEM" })));
  assert(passesCheck(provider, check({ scope: "secondary", city: "SALEM", state: "MA" })));
  assert(passesCheck(provider, check({ scope: "mailing", city: "DENVER" })));
});

Deno.test("[registry units] rendering helpers", () => {
  assertEquals(countryName("US"), "United States");
  assertEquals(countryName("DE"), "Germany");
  assertEquals(countryName("UM"), "United States Minor Outlying Islands");
  assertEquals(countryName("AA"), "Unknown Country Name for AA");
  assertEquals(dashedPhone("4105325258"), "410-532-5258");
  assertEquals(dashedPhone("12345"), "12345");
  assertEquals(epochMillis("2007-02-15"), "1171497600000");
  assertEquals(epochMillis(null), null);
  // Counted from the digits, every day of 1600–2400 and the days past a month's end: as Date.parse.
  const parsed = (date: string) => {
    const ms = Date.parse(`${date}T00:00:00Z`);
    return Number.isNaN(ms) ? null : String(ms);
  };
  for (let year = 1600; year <= 2400; year++) {
    for (let month = 1; month <= 12; month++) {
      for (let day = 1; day <= 31; day++) {
        const date = `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
        if (epochMillis(date) !== parsed(date)) assertEquals(epochMillis(date), parsed(date), date);
      }
    }
  }
  for (const date of ["0000-01-01", "0001-02-29", "9999-12-31", "2023-13-01", "2023-00-10"]) {
    assertEquals(epochMillis(date), parsed(date), date);
  }
  for (const date of ["2023-02-00", "2023-02-32", "2023-1-01", "2023/01/01", "20230101", "x"]) {
    assertEquals(epochMillis(date), parsed(date), date);
  }
  const utf8 = (text: string) => new TextEncoder().encode(text);
  assertEquals(splitRegistryBody(utf8('7\n{"result_count":0}')), [7, utf8('{"result_count":0}')]);
  assertEquals(splitRegistryBody(utf8('-1\n{"Errors":[]}')), [null, utf8('{"Errors":[]}')]);
  assertEquals(splitRegistryBody('12\n{"result_count":0}'), [12, '{"result_count":0}']);
});

Deno.test("[registry units] record checks: address scopes, ZIP+4, prefixes, officials", () => {
  const address = (city: string, state: string, postal: string): Address => ({
    line1: null,
    line2: null,
    city,
    state,
    postal_code: postal,
    country_code: "US",
    phone: null,
    fax: null,
  });
  const check = {
    scope: "mailing" as const,
    city: { key: "baltimore", prefix: false },
    state: "MD",
    postal: { digits: "21239", prefix: false },
    country: "US",
  };
  assert(addressMatches(address("Baltimore", "md", "212392905"), check));
  assert(!addressMatches(address("Baltimore", "MD", "21240"), check));
  assert(
    addressMatches(address("BALTIMORE", "MD", "21239"), {
      ...check,
      postal: { digits: "2123", prefix: true },
    }),
  );
  assert(!addressMatches(null, check));
  const provider = {
    mailing_address: address("BALTIMORE", "MD", "212392905"),
    practice_location: null,
    other_locations: [],
    organization: {
      name: "X",
      subpart: null,
      parent_name: null,
      authorized_official: {
        prefix: null,
        first_name: "STEVEN",
        middle_name: null,
        last_name: "KATKOWSKY",
        suffix: null,
        credential: null,
        title: null,
        phone: null,
      },
    },
  } as unknown as Provider;
  assert(passesCheck(provider, { address: check, official: null }));
  assert(!passesCheck(provider, { address: { ...check, scope: "primary" }, official: null }));
  assert(passesCheck(provider, { address: { ...check, scope: "any" }, official: null }));
  const official = (first: string) => ({
    address: null,
    official: { first: [{ key: first, prefix: false }], last: { key: "katkowsky", prefix: false } },
  });
  assert(passesCheck(provider, official("steven")));
  assert(!passesCheck(provider, official("steve")));
});

Deno.test("[registry units] the surname range holds exactly the active providers with that own surname", async () => {
  const { registryFixtureDatabase } = await import("./_registry_fixtures.ts");
  const dir = await Deno.makeTempDir();
  const store = openSqliteStore(await registryFixtureDatabase(dir), { lazyIndex: true });
  try {
    const active = store.dataset().active;
    const keys = Array.from(
      { length: active },
      (_, i) => sortKey(store.getProvidersById([i + 1])[0]!.provider),
    );
    for (
      const [text, prefix] of [["looper", false], ["LOO", true], ["fowler", false], [
        "nobody",
        false,
      ], ["b", true]] as const
    ) {
      const { from, to } = surnameRange(store, { text, prefix });
      const expected = keys.flatMap((k, i) =>
        (prefix ? k.startsWith(text.toLowerCase()) : k === text.toLowerCase() ||
            k.startsWith(`${text.toLowerCase()}${NAME_KEY_SEPARATOR}`))
          ? [i + 1]
          : []
      );
      const got = Array.from({ length: to - from }, (_, i) => from + i);
      assertEquals(got, expected, `${text}${prefix ? "*" : ""}`);
    }
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[registry units] the surname range is read off the name's list: the same range, fewer records", async () => {
  const { registryFixtureDatabase } = await import("./_registry_fixtures.ts");
  const dir = await Deno.makeTempDir();
  const opened = openSqliteStore(await registryFixtureDatabase(dir), { lazyIndex: true });
  /** The store seen through a copy that counts the records it reads (each copy keeps its own keys). */
  const counting = () => {
    const copy = { ...opened, reads: 0 };
    copy.getProvidersById = (ids, stored) => {
      copy.reads += ids.length;
      return opened.getProvidersById(ids, stored);
    };
    return copy;
  };
  try {
    const cases = [["looper", false], ["LOO", true], ["fowler", false], ["fowler-brandt", false], [
      "nobody",
      false,
    ], ["b", true]] as const;
    for (const [text, prefix] of cases) {
      const pattern = { text, prefix };
      const plain = counting(), listed = counting(), unlisted = counting();
      const expected = surnameRange(plain, pattern);
      const list = nameIds(opened.index, FIELD.lastKey, [{ key: nameKey(text), prefix }]);
      const label = `${text}${prefix ? "*" : ""}`;
      assertEquals(surnameRange(listed, pattern, () => list), expected, label);
      // A list that does not hold the range leaves the binary search to find it.
      assertEquals(surnameRange(unlisted, pattern, () => Uint32Array.of(2, 3, 5)), expected, label);
      // A whole surname's providers are one run of its list (a prefix's range also holds the
      // organizations whose names start with it, which the last-name keys do not list).
      if (!prefix && expected.to - expected.from > 1) {
        assert(listed.reads < plain.reads / 2, `${label}: ${listed.reads} against ${plain.reads}`);
      }
    }
  } finally {
    opened.close();
    await Deno.remove(dir, { recursive: true });
  }
});
