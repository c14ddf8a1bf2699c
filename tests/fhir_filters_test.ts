/**
 * FHIR `_lastUpdated` (date prefixes, precisions, repetitions, with other
 * parameters, exact totals through paging), Organization `type` and
 * `partof`, Endpoint searches without an owner (`connection-type`,
 * `status`), against fixture records whose update dates, parents, types and
 * endpoints are known, compared with a brute-force answer.
 *
 * @module
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import { type TestApp, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { npi, row, writeCsv } from "./_fixtures.ts";
import {
  ENDPOINT_COLUMNS,
  NPIDATA_COLUMNS,
  OTHERNAME_COLUMNS,
  PL_COLUMNS,
} from "../lib/nppes/columns.ts";
import { runImport } from "../lib/import/importer.ts";
import {
  dateCondition,
  DateValueError,
  inDays,
  intersect,
  union,
  valueRange,
} from "../lib/fhir/date_search.ts";
import { dayNumber, monthColumn, monthTerm } from "../lib/index/updated.ts";
import { validate } from "./_fhir_validator.ts";
import { DatabaseSync } from "node:sqlite";
import { endpointNames, endpointSource } from "../lib/fhir/endpoint_search.ts";

type Resource =
  & { resourceType: string; id: string; meta?: { lastUpdated?: string } }
  & Record<
    string,
    unknown
  >;
interface Bundle {
  total: number;
  link: { relation: string; url: string }[];
  entry?: { resource: Resource; search: { mode: string } }[];
}

/** One fixture provider: what the brute force knows of it. */
interface Fixture {
  npi: string;
  kind: "person" | "org";
  updated: string | null;
  state: string;
  group: boolean;
  parent: string | null;
  active: boolean;
  /** NPPES endpoint types of its endpoint rows, in order. */
  endpoints: string[];
}

const ENDPOINT_TYPES = ["FHIR", "DIRECT", "REST", "SOAP", ""];
/** The connectionType code each NPPES type is rendered with. */
const RENDERED: Record<string, string> = {
  FHIR: "hl7-fhir-rest",
  DIRECT: "direct-project",
  REST: "rest-non-fhir",
  SOAP: "SOAP",
  "": "OTHERS",
};

const STATES = ["MD", "IL", "WA", "TX"];

/** The description and affiliation name of endpoint row `i` of fixture `k` (Endpoint.name). */
function endpointLabel(k: number, i: number): { description: string; affiliation: string } {
  switch ((k + i) % 4) {
    case 0:
      return { description: "Referral Inbox", affiliation: "" };
    case 1:
      return { description: `Réferral-Desk O'Neil ${k % 3}`, affiliation: "LAKESIDE PARTNERS" };
    case 2:
      return { description: "", affiliation: `LAKESIDE PARTNERS ${k % 2}` };
    default:
      return { description: "", affiliation: "" };
  }
}
const PARENT = npi("200000001");
const PARENT_NAME = "LAKESIDE HEALTH SYSTEM";

/** Deterministic dates from 2006 to 2025, several on the same days and months. */
function dateOf(k: number): string | null {
  if (k % 17 === 5) return null;
  const year = 2006 + (k * 7) % 20;
  const month = 1 + (k * 5) % 12;
  const day = 1 + (k * 11) % 28;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (let k = 0; k < 120; k++) {
    const kind = k % 3 === 0 ? "org" : "person";
    out.push({
      npi: npi(String(150000000 + k)),
      kind,
      updated: dateOf(k),
      state: STATES[k % STATES.length]!,
      group: kind === "org" && k % 5 < 2,
      parent: kind === "org" && k % 9 === 3 ? PARENT : null,
      active: k % 13 !== 7,
      endpoints: k % 4 === 1
        ? Array.from({ length: 1 + (k >> 2) % 3 }, (_, i) => ENDPOINT_TYPES[(k + i) % 5]!)
        : [],
    });
  }
  out.push({
    npi: PARENT,
    kind: "org",
    updated: "2024-02-29",
    state: "IL",
    group: false,
    parent: null,
    active: true,
    endpoints: ["FHIR"],
  });
  return out;
}

function nppesDate(iso: string | null): string {
  if (!iso) return "";
  const [y, m, d] = iso.split("-");
  return `${m}/${d}/${y}`;
}

async function database(dir: string, all: Fixture[]): Promise<string> {
  const c = NPIDATA_COLUMNS;
  const rows = all.map((f, k) =>
    row(c, {
      "NPI": f.npi,
      "Entity Type Code": f.kind === "person" ? "1" : "2",
      ...(f.kind === "person"
        ? {
          "Provider Last Name (Legal Name)": `TESTER${String.fromCharCode(65 + k % 26)}`,
          "Provider First Name": "ALEX",
        }
        : {
          "Provider Organization Name (Legal Business Name)": f.npi === PARENT
            ? PARENT_NAME
            : `CLINIC ${k} OF ${f.state}`,
          "Is Organization Subpart": f.parent ? "Y" : "N",
          "Parent Organization LBN": f.parent ? PARENT_NAME : "",
        }),
      "Provider First Line Business Practice Location Address": `${k + 1} MAIN ST`,
      "Provider Business Practice Location Address City Name": "SPRINGFIELD",
      "Provider Business Practice Location Address State Name": f.state,
      "Provider Business Practice Location Address Postal Code": "62701",
      "Provider Business Practice Location Address Telephone Number": "2175550100",
      "Last Update Date": nppesDate(f.updated),
      "Provider Enumeration Date": "01/01/2006",
      "Healthcare Provider Taxonomy Code_1": f.group
        ? "193200000X"
        : f.kind === "org"
        ? "282N00000X"
        : "207R00000X",
      "Healthcare Provider Primary Taxonomy Switch_1": "Y",
      "NPI Deactivation Date": f.active ? "" : "06/15/2020",
    })
  );
  const endpoints = all.flatMap((f, k) =>
    f.endpoints.map((type, i) =>
      row(ENDPOINT_COLUMNS, {
        "Endpoint Description": endpointLabel(k, i).description,
        "Affiliation Legal Business Name": endpointLabel(k, i).affiliation,
        "NPI": f.npi,
        "Endpoint Type": type,
        "Endpoint Type Description": type ? `${type} endpoint` : "",
        "Endpoint": `https://example.org/${f.npi}/${i}`,
        "Affiliation": "N",
        "Use Code": "OTHER",
      })
    )
  );
  const files = {
    npi: `${dir}/npidata.csv`,
    othername: `${dir}/othername.csv`,
    pl: `${dir}/pl.csv`,
    endpoint: `${dir}/endpoint.csv`,
  };
  await writeCsv(files.npi, c, rows);
  await writeCsv(files.othername, OTHERNAME_COLUMNS, []);
  await writeCsv(files.pl, PL_COLUMNS, []);
  await writeCsv(files.endpoint, ENDPOINT_COLUMNS, endpoints);
  const progress = { start() {}, update() {}, finish() {}, note() {} };
  await runImport({ db: `${dir}/filters.db`, ...files, progress });
  return `${dir}/filters.db`;
}

const ALL = fixtures();
const dir = await Deno.makeTempDir();
const store = openSearchableStore(await database(dir, ALL));
const app: TestApp = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });

async function fhir<T>(path: string, status = 200): Promise<T> {
  const response = await app.request(path);
  const text = await response.text();
  assertEquals(response.status, status, `${path}: ${text}`);
  return JSON.parse(text) as T;
}

/** Walks a search through its `next` links: the matches' ids, checking `total` on every page. */
async function walk(
  path: string,
): Promise<{ total: number; ids: string[]; resources: Resource[] }> {
  let url: string | null = path;
  const ids: string[] = [], resources: Resource[] = [];
  let total = -1;
  while (url) {
    const bundle: Bundle = await fhir<Bundle>(url);
    if (total === -1) total = bundle.total;
    assertEquals(bundle.total, total, `${path}: total on every page`);
    for (const e of bundle.entry ?? []) {
      if (e.search.mode !== "match") continue;
      ids.push(e.resource.id);
      resources.push(e.resource);
    }
    const next = bundle.link.find((l) => l.relation === "next")?.url;
    url = next ? next.replace("http://localhost", "") : null;
  }
  assertEquals(ids.length, total, `${path}: total counts every match`);
  return { total, ids, resources };
}

const ms = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

/** Brute force: whether a record's update instant meets one prefixed value. */
function meets(updated: string | null, raw: string): boolean {
  if (!updated) return false;
  const t = ms(updated);
  const prefix = /^[a-z]{2}/.test(raw) ? raw.slice(0, 2) : "eq";
  const [lo, hi] = valueRange(/^[a-z]{2}/.test(raw) ? raw.slice(2) : raw);
  switch (prefix) {
    case "eq":
      return lo <= t && t < hi;
    case "ne":
      return !(lo <= t && t < hi);
    case "gt":
    case "sa":
      return t >= hi;
    case "ge":
      return t >= lo;
    case "lt":
    case "eb":
      return t < lo;
    case "le":
      return t < hi;
  }
  throw new Error(`no brute force for ${prefix}`);
}

Deno.test("[fhir-filters] date values: every precision, zones, and clear errors", () => {
  assertEquals(valueRange("2024"), [ms("2024-01-01"), ms("2025-01-01")]);
  assertEquals(valueRange("2024-02"), [ms("2024-02-01"), ms("2024-03-01")]);
  assertEquals(valueRange("2024-02-29"), [ms("2024-02-29"), ms("2024-03-01")]);
  assertEquals(valueRange("2024-02-29T10:30"), [
    Date.UTC(2024, 1, 29, 10, 30),
    Date.UTC(2024, 1, 29, 10, 31),
  ]);
  assertEquals(valueRange("2024-02-29T10:30:15Z"), [
    Date.UTC(2024, 1, 29, 10, 30, 15),
    Date.UTC(2024, 1, 29, 10, 30, 16),
  ]);
  assertEquals(valueRange("2024-02-29T10:30:15.5+02:00"), [
    Date.UTC(2024, 1, 29, 8, 30, 15, 500),
    Date.UTC(2024, 1, 29, 8, 30, 15, 600),
  ]);
  for (const bad of ["2023-02-29", "2024-13", "24-01-01", "2024-01-01T25:00", "2024/01/01", "x"]) {
    assertThrows(() => valueRange(bad), DateValueError);
  }
  assertThrows(() => dateCondition("xx2024"), DateValueError, "not a date prefix");
  // Days whose midnight is in the range: a time after midnight starts the next day.
  const may1 = dayNumber("2024-05-01");
  assertEquals(dateCondition("ge2024-05-01T00:00:00Z"), [[may1, 65536]]);
  assertEquals(dateCondition("ge2024-05-01T00:00:01Z"), [[may1 + 1, 65536]]);
  assertEquals(dateCondition("gt2024-05-01"), [[may1 + 1, 65536]]);
  assertEquals(dateCondition("sa2024-05"), dateCondition("ge2024-06-01"));
  assertEquals(dateCondition("eb2024-05"), dateCondition("lt2024-05-01"));
  assertEquals(dateCondition("le2024-05-01"), [[1, may1 + 1]]);
  assertEquals(dateCondition("ne2024-05-01"), [[1, may1], [may1 + 1, 65536]]);
  // `ap`: the value's range widened by a tenth of its distance from now, each side.
  const now = Date.UTC(2026, 0, 1);
  const [from, to] = dateCondition("ap2016-01-01", now)[0]!;
  assert(from < may1 && from >= dayNumber("2015-01-01") - 1 && to <= dayNumber("2017-01-02"));
  assert(inDays(dayNumber("2015-03-01"), [[from, to]]));
  assertEquals(union([[[1, 5]], [[3, 9]], [[20, 21]]]), [[1, 9], [20, 21]]);
  assertEquals(intersect([[1, 10], [12, 20]], [[5, 14]]), [[5, 10], [12, 14]]);
  assertEquals(inDays(0, [[0, 10]]), false, "no date matches no condition");
  assertEquals(monthTerm(monthColumn(Uint16Array.of(dayNumber("2024-02-29")))[0]!), "2024-02");
});

Deno.test("[fhir-filters] _lastUpdated: each prefix and precision matches the brute force", async () => {
  const values = [
    "2016",
    "ge2020-01-01",
    "gt2020-01",
    "lt2010",
    "le2010-06-15",
    "eq2013-04",
    "ne2013",
    "sa2024",
    "eb2008-03-01",
    "ge2019-03-04T12:00:00Z",
    "2021-07-08",
    "ge2025-06",
  ];
  for (const type of ["Practitioner", "Organization", "PractitionerRole"] as const) {
    const kind = type === "Organization" ? "org" : "person";
    for (const value of values) {
      const { ids, resources } = await walk(
        `/fhir/${type}?_lastUpdated=${encodeURIComponent(value)}&_count=7`,
      );
      const expected = ALL.filter((f) => f.kind === kind && meets(f.updated, value))
        .map((f) => f.npi);
      assertEquals(ids.sort(), expected.sort(), `${type} ${value}`);
      for (const r of resources) {
        // meta.lastUpdated is what the filter matched.
        const f = ALL.find((x) => x.npi === r.id)!;
        assertEquals(r.meta?.lastUpdated, `${f.updated}T00:00:00Z`);
        assert(meets(r.meta!.lastUpdated!.slice(0, 10), value));
      }
    }
  }
});

Deno.test("[fhir-filters] _lastUpdated: repeats are AND, commas OR, with other parameters", async () => {
  const between = await walk(
    "/fhir/Practitioner?_lastUpdated=ge2012-01-01&_lastUpdated=lt2018-01-01&_count=5",
  );
  assertEquals(
    between.ids.sort(),
    ALL.filter((f) =>
      f.kind === "person" && meets(f.updated, "ge2012-01-01") && meets(f.updated, "lt2018-01-01")
    ).map((f) => f.npi).sort(),
  );
  const either = await walk("/fhir/Practitioner?_lastUpdated=2009,2023&_count=4");
  assertEquals(
    either.ids.sort(),
    ALL.filter((f) => f.kind === "person" && (meets(f.updated, "2009") || meets(f.updated, "2023")))
      .map((f) => f.npi).sort(),
  );
  const inState = await walk(
    "/fhir/Practitioner?address-state=WA&_lastUpdated=ge2015&_lastUpdated=ne2020&_count=3",
  );
  assertEquals(
    inState.ids.sort(),
    ALL.filter((f) =>
      f.kind === "person" && f.state === "WA" && meets(f.updated, "ge2015") &&
      meets(f.updated, "ne2020")
    ).map((f) => f.npi).sort(),
  );
  const named = await walk("/fhir/Practitioner?family=testerb&_lastUpdated=lt2030");
  assert(named.total > 0);
  const none = await fhir<Bundle>(
    "/fhir/Practitioner?_lastUpdated=ge2020&_lastUpdated=lt2019",
  );
  assertEquals(none.total, 0);
  // Locations and Endpoints by id take it too; a Location search as well.
  const withDate = ALL.find((f) => f.kind === "person" && f.updated)!;
  const byId = await fhir<Bundle>(
    `/fhir/Location?_id=${withDate.npi}-0&_lastUpdated=${withDate.updated}`,
  );
  assertEquals(byId.total, 1);
  const notThen = await fhir<Bundle>(
    `/fhir/Location?_id=${withDate.npi}-0&_lastUpdated=ne${withDate.updated}`,
  );
  assertEquals(notThen.total, 0);
  const locations = await walk("/fhir/Location?address-state=IL&_lastUpdated=ge2018&_count=9");
  assertEquals(
    locations.ids.sort(),
    ALL.filter((f) => f.active && f.state === "IL" && meets(f.updated, "ge2018"))
      .map((f) => `${f.npi}-0`).sort(),
  );
});

Deno.test("[fhir-filters] bad _lastUpdated values are 400 OperationOutcomes naming the parameter", async () => {
  for (const bad of ["xx2020", "2020-13", "20200101", "ge", "2020-02-30", "ge2020-01-01T10"]) {
    const body = await fhir<
      { resourceType: string; issue: { diagnostics: string; expression?: string[] }[] }
    >(`/fhir/Practitioner?_lastUpdated=${bad}`, 400);
    assertEquals(body.resourceType, "OperationOutcome");
    assert(body.issue[0]!.expression?.[0]?.includes("_lastUpdated"), JSON.stringify(body));
  }
});

Deno.test("[fhir-filters] Organization type: prvgrp and fac as rendered", async () => {
  const orgs = ALL.filter((f) => f.kind === "org");
  for (
    const [value, want] of [
      ["prvgrp", orgs.filter((f) => f.group)],
      ["fac", orgs.filter((f) => !f.group)],
      [
        "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS|fac",
        orgs.filter((f) => !f.group),
      ],
      ["prvgrp,fac", orgs],
      ["payer", []],
      ["http://example.org|fac", []],
    ] as const
  ) {
    const { ids, resources } = await walk(
      `/fhir/Organization?type=${encodeURIComponent(value)}&_count=6`,
    );
    assertEquals(ids.sort(), want.map((f) => f.npi).sort(), value);
    for (const r of resources) {
      const code = (r.type as { coding: { code: string }[] }[])[0]!.coding[0]!.code;
      assert(value.includes(code), `${r.id} is ${code}`);
    }
  }
  const both = await walk("/fhir/Organization?type=fac&address-state=TX&_lastUpdated=ge2012");
  assertEquals(
    both.ids.sort(),
    orgs.filter((f) => !f.group && f.state === "TX" && meets(f.updated, "ge2012"))
      .map((f) => f.npi).sort(),
  );
});

Deno.test("[fhir-filters] Organization partof: the subparts whose partOf names the parent", async () => {
  const children = ALL.filter((f) => f.parent === PARENT).map((f) => f.npi).sort();
  assert(children.length >= 3);
  const found = await walk(`/fhir/Organization?partof=Organization/${PARENT}&_count=2`);
  assertEquals(found.ids.sort(), children);
  for (const r of found.resources) {
    assertEquals((r.partOf as { reference: string }).reference, `Organization/${PARENT}`);
    assertEquals(validate(r), []);
  }
  // With _include, the parent comes along once.
  const bundle = await fhir<Bundle>(
    `/fhir/Organization?partof=${PARENT}&_include=Organization:partof`,
  );
  const included = (bundle.entry ?? []).filter((e) => e.search.mode === "include");
  assertEquals(included.map((e) => e.resource.id), [PARENT]);
  // An organization that is nobody's parent, and a subpart: none.
  const other = ALL.find((f) => f.kind === "org" && !f.parent && f.npi !== PARENT)!;
  assertEquals((await fhir<Bundle>(`/fhir/Organization?partof=${other.npi}`)).total, 0);
  assertEquals((await fhir<Bundle>(`/fhir/Organization?partof=${children[0]}`)).total, 0);
  const recent = await walk(`/fhir/Organization?partof=${PARENT}&_lastUpdated=ge2015`);
  assertEquals(
    recent.ids.sort(),
    ALL.filter((f) => f.parent === PARENT && meets(f.updated, "ge2015")).map((f) => f.npi).sort(),
  );
  await fhir(`/fhir/Organization?partof=Practitioner/${PARENT}`, 400);
});

/** Every fixture endpoint: its id, rendered code, owner's status and update date. */
function allEndpoints() {
  return ALL.flatMap((f, k) =>
    f.endpoints.map((type, i) => ({
      name: endpointLabel(k, i).description || endpointLabel(k, i).affiliation,
      id: `${f.npi}-${i}`,
      code: RENDERED[type]!,
      status: f.active ? "active" : "off",
      updated: f.updated,
      npi: f.npi,
    }))
  );
}

Deno.test("[fhir-filters] Endpoint searches without an owner: connection-type, status, _lastUpdated", async () => {
  const every = allEndpoints();
  assert(every.some((e) => e.status === "off"), "the fixture has endpoints of deactivated NPIs");
  const cases: [string, (e: (typeof every)[number]) => boolean][] = [
    ["", () => true],
    ["connection-type=hl7-fhir-rest", (e) => e.code === "hl7-fhir-rest"],
    [
      "connection-type=http://terminology.hl7.org/CodeSystem/endpoint-connection-type|direct-project",
      (e) => e.code === "direct-project",
    ],
    [
      "connection-type=urn:nppes:endpoint-type|SOAP,OTHERS",
      (e) => ["SOAP", "OTHERS"].includes(e.code),
    ],
    ["connection-type=http://example.org|hl7-fhir-rest", () => false],
    ["status=active", (e) => e.status === "active"],
    ["status=off", (e) => e.status === "off"],
    ["status=test", () => false],
    [
      "connection-type=rest-non-fhir&status=active",
      (e) => e.code === "rest-non-fhir" && e.status === "active",
    ],
    ["_lastUpdated=ge2016", (e) => meets(e.updated, "ge2016")],
    [
      "_lastUpdated=ge2010&_lastUpdated=lt2020&connection-type=hl7-fhir-rest,direct-project",
      (e) =>
        meets(e.updated, "ge2010") && meets(e.updated, "lt2020") &&
        ["hl7-fhir-rest", "direct-project"].includes(e.code),
    ],
  ];
  for (const [query, keep] of cases) {
    const { ids, resources } = await walk(`/fhir/Endpoint?${query}${query ? "&" : ""}_count=4`);
    const want = every.filter(keep);
    assertEquals(ids.slice().sort(), want.map((e) => e.id).sort(), query);
    for (const r of resources) {
      const e = every.find((x) => x.id === r.id)!;
      assertEquals((r.connectionType as { code: string }).code, e.code);
      assertEquals(r.status, e.status);
    }
  }
  // With an owner, the same filters hold on its endpoints.
  const owner = ALL.find((f) => f.kind === "org" && f.endpoints.length >= 2)!;
  const first = RENDERED[owner.endpoints[0]!]!;
  const owned = await walk(`/fhir/Endpoint?organization=${owner.npi}&connection-type=${first}`);
  assertEquals(
    owned.ids,
    owner.endpoints.map((t, i) => [RENDERED[t], `${owner.npi}-${i}`]).filter(([c]) => c === first)
      .map(([, id]) => id!),
  );
  assertEquals((await fhir<Bundle>(`/fhir/Endpoint?status=off&_id=${owner.npi}-0`)).total, 0);
});

Deno.test("[fhir-filters] every resource of the fixture validates, deactivated ones included", async () => {
  for (const type of ["Practitioner", "PractitionerRole", "Organization", "Location", "Endpoint"]) {
    const { resources } = await walk(`/fhir/${type}?_lastUpdated=ge2000&_count=100`);
    assert(resources.length > 0, type);
    for (const r of resources) assertEquals(validate(r), [], `${type}/${r.id}`);
  }
  for (const f of ALL.filter((x) => !x.active)) {
    const location = await fhir<Resource>(`/fhir/Location/${f.npi}-0`);
    assertEquals(location.status, "inactive");
    assertEquals(validate(location), [], `Location/${f.npi}-0`);
  }
});

Deno.test("[fhir-filters] Endpoint chains on the owning organization: name, type, partof, address", async () => {
  const every = allEndpoints();
  const owner = (e: { npi: string }) => ALL.find((f) => f.npi === e.npi)!;
  const cases: [string, (e: (typeof every)[number]) => boolean][] = [
    ["organization.type=prvgrp", (e) => owner(e).kind === "org" && owner(e).group],
    ["organization.type=fac", (e) => owner(e).kind === "org" && !owner(e).group],
    [`organization.partof=Organization/${PARENT}`, (e) => owner(e).parent === PARENT],
    ["organization.name=clinic", (e) => owner(e).kind === "org" && owner(e).npi !== PARENT],
    [`organization.name:exact=${encodeURIComponent(PARENT_NAME)}`, (e) => e.npi === PARENT],
    ["organization.address=IL", (e) => owner(e).kind === "org" && owner(e).state === "IL"],
    ["organization.address=springf", (e) => owner(e).kind === "org"],
    ["organization.address=TX", () => false],
    [
      "organization.type=fac&connection-type=hl7-fhir-rest&status=active",
      (e) =>
        owner(e).kind === "org" && !owner(e).group && e.code === "hl7-fhir-rest" &&
        e.status === "active",
    ],
    ["organization.type=payer", () => false],
  ];
  for (const [query, keep] of cases) {
    const { ids } = await walk(`/fhir/Endpoint?${query}&_count=3`);
    const want = every.filter(keep);
    assert(/payer|TX/.test(query) || want.length > 0, `${query} has matches in the fixture`);
    assertEquals(ids.slice().sort(), want.map((e) => e.id).sort(), query);
  }
  // A chain with an owner and an id narrows both.
  const org = ALL.find((f) => f.kind === "org" && !f.group && f.endpoints.length >= 2)!;
  const withOwner = await walk(
    `/fhir/Endpoint?organization=${org.npi}&organization.type=fac&_count=1`,
  );
  assertEquals(withOwner.ids, org.endpoints.map((_, i) => `${org.npi}-${i}`));
  const byId = await walk(`/fhir/Endpoint?_id=${org.npi}-1&organization.type=fac`);
  assertEquals(byId.ids, [`${org.npi}-1`]);
  assertEquals((await walk(`/fhir/Endpoint?_id=${org.npi}-1&organization.type=prvgrp`)).total, 0);
});

Deno.test("[fhir-filters] Endpoint name: prefix or :exact of the rendered name, with and without an owner", async () => {
  const every = allEndpoints();
  const { resources } = await walk("/fhir/Endpoint?_count=100");
  // The name searched is the one rendered.
  for (const r of resources) assertEquals(r.name ?? "", every.find((e) => e.id === r.id)!.name);
  const key = (name: string) => name.normalize("NFD").replace(/[^A-Za-z0-9]/g, "").toUpperCase();
  const cases: [string, (e: (typeof every)[number]) => boolean][] = [
    ["name=referral", (e) => key(e.name).startsWith("REFERRAL")],
    ["name=referral inbox", (e) => e.name === "Referral Inbox"],
    ["name:exact=referral inbox", (e) => e.name === "Referral Inbox"],
    ["name:exact=referral", () => false],
    ["name=REFERRAL-DESK O NEIL 1", (e) => e.name === "Réferral-Desk O'Neil 1"],
    ["name=lakeside", (e) => e.name.startsWith("LAKESIDE")],
    [
      "name:exact=lakeside partners 0,referral inbox",
      (e) => ["LAKESIDE PARTNERS 0", "Referral Inbox"].includes(e.name),
    ],
    ["name=partners", () => false],
    ["name=lakeside&status=off", (e) => e.name.startsWith("LAKESIDE") && e.status === "off"],
    [
      "name=referral&connection-type=hl7-fhir-rest&_lastUpdated=ge2012",
      (e) =>
        key(e.name).startsWith("REFERRAL") && e.code === "hl7-fhir-rest" &&
        meets(e.updated, "ge2012"),
    ],
    [
      "name=lakeside&organization.type=fac",
      (e) =>
        e.name.startsWith("LAKESIDE") && ALL.find((f) => f.npi === e.npi)!.kind === "org" &&
        !ALL.find((f) => f.npi === e.npi)!.group,
    ],
  ];
  for (const [query, keep] of cases) {
    const want = every.filter(keep);
    assert(/:exact=referral$|partners$/.test(query) || want.length > 0, `${query} finds some`);
    const { ids } = await walk(`/fhir/Endpoint?${encodeURI(query)}&_count=3`);
    assertEquals(ids.slice().sort(), want.map((e) => e.id).sort(), query);
    // The same test on an owner's endpoints (looked up, not read from the columns).
    const owner = want[0]?.npi;
    if (owner && ALL.find((f) => f.npi === owner)!.kind === "org") {
      const owned = await walk(`/fhir/Endpoint?${encodeURI(query)}&organization=${owner}`);
      assertEquals(owned.ids, want.filter((e) => e.npi === owner).map((e) => e.id), query);
    }
  }
  // A database written before the build kept the name columns: names read from the endpoint table.
  const old = `${dir}/before-name-columns.db`;
  await Deno.copyFile(`${dir}/filters.db`, old);
  const writable = new DatabaseSync(old);
  writable.exec("DELETE FROM index_blob WHERE name LIKE 'endpoint_name_%'");
  writable.close();
  const oldStore = openSearchableStore(old);
  const withColumns = endpointSource(store)!, withoutColumns = endpointSource(oldStore)!;
  assert(withColumns.columns.names !== null && withoutColumns.columns.names === null);
  const keysOf = (n: { keys: string[]; rows: Uint32Array }) => [...n.rows].map((k) => n.keys[k]);
  assertEquals(keysOf(endpointNames(withoutColumns)), keysOf(withColumns.columns.names!));
  const oldApp = testApp({ deps: { dataset: new Dataset({ kind: "ready", store: oldStore }) } });
  for (const [query] of cases) {
    const response = await oldApp.request(`/fhir/Endpoint?${encodeURI(query)}&_count=100`);
    const bundle = await response.json() as Bundle;
    const want = await fhir<Bundle>(`/fhir/Endpoint?${encodeURI(query)}&_count=100`);
    assertEquals(bundle.entry?.map((e) => e.resource.id), want.entry?.map((e) => e.resource.id));
  }
  oldStore.close();
  for (const bad of ["name=a", "name=" + "x".repeat(101), "name=%20-%20"]) {
    const outcome = await fhir<{ issue: { expression: string[] }[] }>(`/fhir/Endpoint?${bad}`, 400);
    assertEquals(outcome.issue[0]!.expression, ["name"]);
  }
});

/**
 * Plan-Net parameters on elements NPPES has no data for: every resource of the fixture lacks the
 * element, so each search (alone, or with parameters that match) finds nothing, and bad values are
 * still 400s.
 */
const NEVER_FILLED: [type: string, query: string, bad: string][] = [
  ["Location", "partof=Location/" + npi("150000000") + "-0", "partof=Organization/1"],
  ["Location", "partof.type=HOSP", "partof.type=http://x|"],
  ["Location", "partof.address=springfield", "partof.address=s"],
  ["Location", "partof.organization=Organization/" + PARENT, "partof.organization=x"],
  ["Location", "endpoint=Endpoint/" + npi("150000001") + "-0", "endpoint=Endpoint/12"],
  ["Location", "endpoint.organization=" + PARENT, "endpoint.organization=Location/1"],
  ["Location", "type=HOSP", "type=|"],
  ["Location", "type:text=hospital", "type:exact=x"],
  ["Location", "identifier=" + npi("150000000"), "identifier=urn:x|"],
  ["PractitionerRole", "role=ph", "role=x|"],
  ["PractitionerRole", "role:text=physician", "role:contains=x"],
  ["PractitionerRole", "service=HealthcareService/abc-1", "service=HealthcareService/a b"],
  ["PractitionerRole", "service.service-category=outpat", "service.service-category=x|"],
  ["PractitionerRole", "service.organization=" + PARENT, "service.organization=nope"],
  ["PractitionerRole", "service.location=" + npi("150000001") + "-0", "service.location=1"],
  ["PractitionerRole", "network=Organization/" + PARENT, "network=Practitioner/" + PARENT],
  ["PractitionerRole", "network.name=lakeside", "network.name=l"],
  ["PractitionerRole", "network.address=IL", "network.address=I"],
  ["PractitionerRole", "network.partof=" + PARENT, "network.partof=12"],
  ["PractitionerRole", "network.type=ntwk", "network.type=x|"],
  ["PractitionerRole", "organization.name:exact=clinic 0 of md", "organization.name=c"],
  ["PractitionerRole", "organization.address=springfield", "organization.address=s"],
  ["PractitionerRole", "organization.partof=" + PARENT, "organization.partof=abc"],
  ["PractitionerRole", "organization.type=prvgrp", "organization.type=|"],
  ["PractitionerRole", "location.organization=" + PARENT, "location.organization=1"],
  ["PractitionerRole", "location.type=HOSP", "location.type=x|"],
  ["PractitionerRole", "endpoint.organization=" + PARENT, "endpoint.organization=1"],
  ["PractitionerRole", "identifier=" + npi("150000001"), "identifier=|"],
  [
    "Practitioner",
    "_has:PractitionerRole:practitioner:role=ph",
    "_has:PractitionerRole:practitioner:role=|",
  ],
  [
    "Practitioner",
    "_has:PractitionerRole:practitioner:network=" + PARENT,
    "_has:PractitionerRole:practitioner:network=x",
  ],
  ["Organization", "coverage-area=Location/" + npi("150000000") + "-0", "coverage-area=Location/x"],
  ["Endpoint", "identifier=" + npi("150000001") + "-0", "identifier=x|"],
];

Deno.test("[fhir-filters] Plan-Net parameters on elements NPPES never fills match nothing, as the resources hold", async () => {
  // The elements are absent from every resource the fixture produces.
  const absent: Record<string, (r: Resource) => unknown> = {
    Location: (r) => r.partOf ?? r.endpoint ?? r.type ?? r.identifier,
    PractitionerRole: (r) =>
      r.code ?? r.healthcareService ?? r.organization ?? r.identifier ??
        (r.extension as { url: string }[] | undefined)?.find((e) => e.url.includes("network")),
    Organization: (r) =>
      (r.extension as { url: string }[] | undefined)?.find((e) => e.url.includes("location")),
    Endpoint: (r) => r.identifier,
  };
  for (const [type, has] of Object.entries(absent)) {
    const { resources } = await walk(`/fhir/${type}?_count=100`);
    assert(resources.length > 0, type);
    for (const r of resources) assertEquals(has(r), undefined, `${type}/${r.id}`);
  }
  // Practitioner roles' locations name no managing organization, their endpoints no organization.
  const roles = await fhir<Bundle>(
    "/fhir/PractitionerRole?_count=100&_include=PractitionerRole:location&_include=PractitionerRole:endpoint",
  );
  const included = (roles.entry ?? []).filter((e) => e.search.mode === "include");
  assert(roles.total <= 100 && included.some((e) => e.resource.resourceType === "Endpoint"));
  for (const e of included) assertEquals(e.resource.managingOrganization, undefined);
  for (const [type, query, bad] of NEVER_FILLED) {
    for (const q of [query, `${query}&_lastUpdated=ge2000`]) {
      const bundle = await fhir<Bundle>(`/fhir/${type}?${q}`);
      assertEquals([bundle.total, bundle.entry ?? []], [0, []], `${type}?${q}`);
    }
    const outcome = await fhir<{ issue: { code: string; expression: string[] }[] }>(
      `/fhir/${type}?${bad}`,
      400,
    );
    assertEquals(outcome.issue.map((i) => i.expression[0]), [bad.split("=")[0]], `${type}?${bad}`);
  }
  // The includes Plan-Net defines on them are accepted and include nothing.
  for (
    const [type, query] of [
      ["Location", "_include=Location:partof&_include=Location:endpoint:Endpoint"],
      ["PractitionerRole", "_include=PractitionerRole:service&_include=PractitionerRole:network"],
      ["Organization", "_include=Organization:coverage-area&_revinclude=PractitionerRole:network"],
    ]
  ) {
    const bundle = await fhir<Bundle>(`/fhir/${type}?${query}&_count=100`);
    assert(bundle.total > 0, `${type}?${query}`);
    assert((bundle.entry ?? []).every((e) => e.search.mode === "match"), `${type}?${query}`);
  }
  // The metadata says so for each.
  const cs = await fhir<
    {
      rest: {
        resource: { type: string; searchParam: { name: string; documentation: string }[] }[];
      }[];
    }
  >("/fhir/metadata");
  for (const [type, query] of NEVER_FILLED) {
    const name = query.split("=")[0]!.split(":").slice(0, query.startsWith("_has") ? 4 : 1).join(
      ":",
    );
    const param = cs.rest[0]!.resource.find((r) => r.type === type)!.searchParam
      .find((p) => p.name === name);
    assert(param?.documentation.includes("matches nothing"), `${type} ${name}`);
  }
});

Deno.test("[fhir-filters] Organization endpoint.organization: the organizations named that manage endpoints", async () => {
  const orgs = ALL.filter((f) => f.kind === "org");
  const withEndpoints = orgs.filter((f) => f.endpoints.length > 0);
  const without = orgs.filter((f) => f.endpoints.length === 0);
  const person = ALL.find((f) => f.kind === "person" && f.endpoints.length > 0)!;
  assert(withEndpoints.length >= 2 && without.length > 0);
  const named = [withEndpoints[0]!, without[0]!, withEndpoints[1]!, person];
  const query = named.map((f) => `Organization/${f.npi}`).join(",");
  const got = await walk(`/fhir/Organization?endpoint.organization=${query}&_count=1`);
  assertEquals(
    got.ids.slice().sort(),
    named.filter((f) => f.kind === "org" && f.endpoints.length > 0).map((f) => f.npi).sort(),
  );
  // As the resources hold: each found organization has endpoints, and they name it.
  for (const id of got.ids) {
    const endpoints = await walk(`/fhir/Endpoint?organization=Organization/${id}`);
    assert(endpoints.total > 0);
    for (const e of endpoints.resources) {
      assertEquals(
        (e.managingOrganization as { reference: string }).reference,
        `Organization/${id}`,
      );
    }
  }
  const first = withEndpoints[0]!;
  const other = first.group ? "fac" : "prvgrp";
  assertEquals(
    (await walk(`/fhir/Organization?endpoint.organization=${first.npi}&type=${other}`)).total,
    0,
  );
  assertEquals(
    (await walk(`/fhir/Organization?endpoint.organization=${first.npi}&_id=${first.npi}`)).ids,
    [first.npi],
  );
  await fhir(`/fhir/Organization?endpoint.organization=Endpoint/${first.npi}-0`, 400);
});
