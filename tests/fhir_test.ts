/**
 * The FHIR directory's answers on fixture data: reads, ids, errors as
 * OperationOutcome, every search parameter, paging to the end, `near` with
 * true distances, includes, and the same providers as the native search.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { type TestApp, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { NPIS, searchFixtureDatabase } from "./_search_fixtures.ts";
import {
  endpointRows,
  mainRows,
  NPI,
  npi,
  otherNameRows,
  plRows,
  row,
  writeCsv,
} from "./_fixtures.ts";
import {
  ENDPOINT_COLUMNS,
  NPIDATA_COLUMNS,
  OTHERNAME_COLUMNS,
  PL_COLUMNS,
} from "../lib/nppes/columns.ts";
import { runImport } from "../lib/import/importer.ts";
import { SearchPool } from "../lib/search/pool.ts";
import { renderSearchBody } from "../lib/search/response.ts";
import { distance, lookupZip } from "../lib/geo/zip.ts";
import { validate } from "./_fhir_validator.ts";

type Resource = { resourceType: string; id: string } & Record<string, unknown>;
interface Entry {
  fullUrl: string;
  resource: Resource;
  search: {
    mode: string;
    extension?: { url: string; valueDistance: { value: number; code: string; unit: string } }[];
  };
}
interface Bundle {
  resourceType: "Bundle";
  type: string;
  total: number;
  link: { relation: string; url: string }[];
  entry?: Entry[];
}
interface Outcome {
  resourceType: "OperationOutcome";
  issue: { severity: string; code: string; diagnostics: string; expression?: string[] }[];
}

const FHIR_JSON = "application/fhir+json; charset=utf-8";
const SUBPART = npi("100000009");

/** The record fixtures plus an organization subpart of the hospital. */
async function recordDatabase(dir: string): Promise<string> {
  const subpart = row(NPIDATA_COLUMNS, {
    "NPI": SUBPART,
    "Entity Type Code": "2",
    "Provider Organization Name (Legal Business Name)": "SPRINGFIELD MEMORIAL CANCER CENTER",
    "Provider First Line Business Practice Location Address": "801 N RUTLEDGE ST",
    "Provider Business Practice Location Address City Name": "SPRINGFIELD",
    "Provider Business Practice Location Address State Name": "IL",
    "Provider Business Practice Location Address Postal Code": "62781",
    "Provider Business Practice Location Address Telephone Number": "2175443100",
    "Healthcare Provider Taxonomy Code_1": "261QX0200X",
    "Healthcare Provider Primary Taxonomy Switch_1": "Y",
    "Is Organization Subpart": "Y",
    "Parent Organization LBN": "SPRINGFIELD MEMORIAL HOSPITAL",
  });
  const files = {
    npi: `${dir}/npidata.csv`,
    othername: `${dir}/othername.csv`,
    pl: `${dir}/pl.csv`,
    endpoint: `${dir}/endpoint.csv`,
  };
  await writeCsv(files.npi, NPIDATA_COLUMNS, [...mainRows(), subpart]);
  await writeCsv(files.othername, OTHERNAME_COLUMNS, otherNameRows());
  await writeCsv(files.pl, PL_COLUMNS, plRows());
  await writeCsv(files.endpoint, ENDPOINT_COLUMNS, endpointRows());
  const progress = { start() {}, update() {}, finish() {}, note() {} };
  await runImport({ db: `${dir}/records.db`, ...files, progress });
  return `${dir}/records.db`;
}

const recordsDir = await Deno.makeTempDir();
const records: TestApp = testApp({
  deps: {
    dataset: new Dataset({
      kind: "ready",
      store: openSearchableStore(await recordDatabase(recordsDir)),
    }),
  },
});
const searchDir = await Deno.makeTempDir();
const searchApp: TestApp = testApp({
  deps: {
    dataset: new Dataset({
      kind: "ready",
      store: openSearchableStore(await searchFixtureDatabase(searchDir)),
    }),
  },
});
const nameOf = Object.fromEntries(Object.entries(NPIS).map(([k, v]) => [v, k]));

async function fhir<T>(app: TestApp, path: string, status = 200): Promise<T> {
  const response = await app.request(path);
  const text = await response.text();
  assertEquals(response.status, status, text);
  assertEquals(response.headers.get("content-type"), FHIR_JSON);
  assertMatch(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  return JSON.parse(text) as T;
}

async function outcome(app: TestApp, path: string, status: number): Promise<Outcome> {
  const body = await fhir<Outcome>(app, path, status);
  assertEquals(body.resourceType, "OperationOutcome");
  assertEquals(validate({ ...body, id: "oo" }), []);
  return body;
}

/** Walks a search to its end through `next` links; returns the matches' fixture names. */
async function walk(path: string): Promise<{ total: number; keys: string[]; pages: number }> {
  let url: string | null = path;
  const keys: string[] = [];
  let total = -1, pages = 0;
  while (url) {
    const bundle: Bundle = await fhir<Bundle>(searchApp, url);
    if (total === -1) total = bundle.total;
    assertEquals(bundle.total, total);
    pages++;
    for (const e of bundle.entry ?? []) {
      if (e.search.mode === "match") keys.push(nameOf[e.resource.id.slice(0, 10)] ?? e.resource.id);
    }
    const next = bundle.link.find((l) => l.relation === "next")?.url;
    url = next ? next.replace("http://localhost", "") : null;
  }
  return { total, keys, pages };
}

async function matches(path: string): Promise<string[]> {
  const { total, keys } = await walk(path);
  assertEquals(keys.length, total, "total counts every match");
  return keys;
}

/** The native API's answer, as fixture names. */
async function native(query: string): Promise<string[]> {
  const response = await searchApp.request(`/v1/providers/search?limit=100&${query}`);
  const body = await response.json() as { results: { npi: string }[] };
  return body.results.map((r) => nameOf[r.npi] ?? r.npi);
}

Deno.test("[fhir] metadata is a CapabilityStatement of the five types", async () => {
  const cs = await fhir<Resource & { rest: { resource: Record<string, unknown>[] }[] }>(
    records,
    "/fhir/metadata",
  );
  assertEquals(cs.resourceType, "CapabilityStatement");
  assertEquals(cs.fhirVersion, "4.0.1");
  assertEquals(validate(cs), []);
  const resources = cs.rest[0]!.resource;
  assertEquals(resources.map((r) => r.type), [
    "Practitioner",
    "PractitionerRole",
    "Organization",
    "Location",
    "Endpoint",
  ]);
  for (const r of resources) {
    assertEquals(r.interaction, [{ code: "read" }, { code: "search-type" }]);
    assert((r.supportedProfile as string[])[0]!.includes("davinci-pdex-plan-net"));
  }
  const location = resources.find((r) => r.type === "Location")!;
  const names = (location.searchParam as { name: string }[]).map((p) => p.name);
  assert(names.includes("near") && names.includes("address-city") && names.includes("_id"));
  assertEquals(
    resources.find((r) => r.type === "PractitionerRole")!.searchInclude,
    [
      "PractitionerRole:practitioner",
      "PractitionerRole:location",
      "PractitionerRole:endpoint",
      "PractitionerRole:organization",
      "PractitionerRole:service",
      "PractitionerRole:network",
    ],
  );
});

Deno.test("[fhir] metadata lists every search parameter and include Plan-Net's CapabilityStatement requires", async () => {
  const planNet = JSON.parse(
    await Deno.readTextFile(
      new URL("../vendor/plan-net/CapabilityStatement-plan-net.json", import.meta.url),
    ),
  ) as { rest: { resource: Record<string, unknown>[] }[] };
  const cs = await fhir<{ rest: { resource: Record<string, unknown>[] }[] }>(
    records,
    "/fhir/metadata",
  );
  type Param = { name: string; definition: string };
  const served = ["Practitioner", "PractitionerRole", "Organization", "Location", "Endpoint"];
  let checked = 0;
  for (const wanted of planNet.rest[0]!.resource.filter((r) => served.includes(r.type as string))) {
    const ours = cs.rest[0]!.resource.find((r) => r.type === wanted.type)!;
    const names = (ours.searchParam as Param[]).map((p) => p.name);
    for (const p of wanted.searchParam as Param[]) {
      assert(names.includes(p.name), `${wanted.type} lacks '${p.name}'`);
      checked++;
    }
    for (const include of (wanted.searchInclude as string[] | undefined) ?? []) {
      assert((ours.searchInclude as string[]).includes(include), `${wanted.type} lacks ${include}`);
      checked++;
    }
    // Reverse includes from the served types (HealthcareService, InsurancePlan… are not served).
    for (const rev of (wanted.searchRevInclude as string[] | undefined) ?? []) {
      if (!served.includes(rev.split(":")[0]!)) continue;
      assert((ours.searchRevInclude as string[]).includes(rev), `${wanted.type} lacks ${rev}`);
      checked++;
    }
  }
  assert(checked >= 40, `only ${checked} requirements checked`);
});

Deno.test("[fhir] read: a practitioner, its role, locations; ids are NPIs", async (t) => {
  const practitioner = await fhir<Resource>(records, `/fhir/Practitioner/${NPI.enkeshafi}`);
  await t.assertSnapshot(practitioner);
  assertEquals(validate(practitioner), []);
  const role = await fhir<Resource>(records, `/fhir/PractitionerRole/${NPI.enkeshafi}`);
  assertEquals(validate(role), []);
  assertEquals(role.practitioner, {
    reference: `Practitioner/${NPI.enkeshafi}`,
    display: "ARDALAN ENKESHAFI M.D.",
  });
  assertEquals(role.location, [
    { reference: `Location/${NPI.enkeshafi}-0` },
    { reference: `Location/${NPI.enkeshafi}-1` },
  ]);
  assertEquals(
    (role.specialty as { coding: { code: string; display: string }[] }[]).map((s) => s.coding[0]),
    [
      {
        system: "http://nucc.org/provider-taxonomy",
        code: "207RH0003X",
        display: "Hematology & Oncology Physician",
      },
      {
        system: "http://nucc.org/provider-taxonomy",
        code: "207R00000X",
        display: "Internal Medicine Physician",
      },
    ],
  );
  const secondary = await fhir<Resource>(records, `/fhir/Location/${NPI.enkeshafi}-1`);
  assertEquals((secondary.address as { city: string }).city, "ROCKVILLE");
  const rockville = lookupZip("20850")!;
  assertEquals(secondary.position, { longitude: rockville.lon, latitude: rockville.lat });
  assertEquals(validate(secondary), []);
});

Deno.test("[fhir] read: an organization with its endpoint and a subpart's partOf", async (t) => {
  const org = await fhir<Resource>(records, `/fhir/Organization/${NPI.memorial}`);
  await t.assertSnapshot(org);
  assertEquals(validate(org), []);
  const endpoint = await fhir<Resource>(records, `/fhir/Endpoint/${NPI.memorial}-0`);
  assertEquals(validate(endpoint), []);
  assertEquals(endpoint.address, "https://fhir.example.org/r4");
  assertEquals((endpoint.connectionType as { code: string }).code, "hl7-fhir-rest");
  assertEquals(endpoint.managingOrganization, {
    reference: `Organization/${NPI.memorial}`,
    display: "SPRINGFIELD MEMORIAL HOSPITAL",
  });
  const subpart = await fhir<Resource>(records, `/fhir/Organization/${SUBPART}`);
  assertEquals(subpart.partOf, {
    reference: `Organization/${NPI.memorial}`,
    display: "SPRINGFIELD MEMORIAL HOSPITAL",
  });
  const bundle = await fhir<Bundle>(
    records,
    `/fhir/Organization?_id=${SUBPART}&_include=Organization:partof`,
  );
  assertEquals(bundle.entry!.map((e) => [e.resource.id, e.search.mode]), [
    [SUBPART, "match"],
    [NPI.memorial, "include"],
  ]);
});

Deno.test("[fhir] read errors: 404 with the id form, 410 for a bare deactivated NPI", async () => {
  const wrongType = await outcome(records, `/fhir/Organization/${NPI.enkeshafi}`, 404);
  assertMatch(wrongType.issue[0]!.diagnostics, /is an individual, see Practitioner\//);
  assertEquals(wrongType.issue[0]!.code, "not-found");
  const malformed = await outcome(records, "/fhir/Practitioner/123", 404);
  assertMatch(malformed.issue[0]!.diagnostics, /NPI \(10 digits\)/);
  await outcome(records, `/fhir/Location/${NPI.enkeshafi}-2`, 404);
  await outcome(records, `/fhir/Location/${NPI.enkeshafi}`, 404);
  const gone = await outcome(records, `/fhir/Practitioner/${NPI.gone}`, 410);
  assertEquals(gone.issue[0]!.code, "deleted");
  assertMatch(gone.issue[0]!.diagnostics, /deactivated on 2020-06-15/);
  await outcome(records, "/fhir/Patient/1", 404);
  const unknownType = await outcome(records, "/fhir/Patient?name=x", 404);
  assertMatch(unknownType.issue[0]!.diagnostics, /Practitioner, PractitionerRole/);
});

Deno.test("[fhir] methods, rate limits and request ids are the service's", async () => {
  const post = await records.request("/fhir/Practitioner", { method: "POST", body: "{}" });
  assertEquals(post.status, 405);
  assertEquals(post.headers.get("content-type"), FHIR_JSON);
  assertEquals(post.headers.get("allow"), "GET, HEAD, OPTIONS");
  assertEquals((await post.json()).issue[0].code, "not-supported");
  const head = await records.request(`/fhir/Practitioner/${NPI.enkeshafi}`, { method: "HEAD" });
  assertEquals([head.status, head.headers.get("content-type"), await head.text()], [
    200,
    FHIR_JSON,
    "",
  ]);
  const options = await records.request("/fhir/Location", { method: "OPTIONS" });
  assertEquals([options.status, options.headers.get("allow")], [204, "GET, HEAD, OPTIONS"]);
  const mine = await records.request("/fhir/metadata", { headers: { "X-Request-ID": "my-id-1" } });
  assertEquals(mine.headers.get("x-request-id"), "my-id-1");
  await mine.body?.cancel();
  const limited = testApp({
    config: { rateLimitPerMinute: 1 },
    deps: { dataset: new Dataset() },
  });
  await (await limited.request("/fhir/metadata")).body?.cancel();
  const refused = await limited.request("/fhir/metadata");
  assertEquals(refused.status, 429);
  assertEquals(refused.headers.get("content-type"), FHIR_JSON);
  assert(refused.headers.get("retry-after"));
  assertEquals((await refused.json()).issue[0].code, "throttled");
  const loading = await testApp({ deps: { dataset: new Dataset() } }).request("/fhir/Practitioner");
  assertEquals(loading.status, 503);
  assertEquals((await loading.json()).issue[0].code, "transient");
});

Deno.test("[fhir] a search that outlives REQUEST_TIMEOUT_MS in a search worker is a 503 OperationOutcome", async () => {
  const path = `${recordsDir}/records.db`;
  const store = openSearchableStore(path, { lazyIndex: true });
  const pool = await SearchPool.start({
    path,
    workers: 1,
    queue: 4,
    workerDelayMs: 400,
    render: (job, page) => renderSearchBody(store, job, page),
  });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  try {
    const slow = testApp({ config: { requestTimeoutMs: 50 }, deps: { dataset } });
    const body = await outcome(slow, "/fhir/Practitioner?family=enkeshafi", 503);
    assertEquals(body.issue[0]!.code, "timeout");
    const patient = testApp({ config: { requestTimeoutMs: 5000 }, deps: { dataset } });
    const found = await fhir<Bundle>(patient, "/fhir/Practitioner?family=enkeshafi");
    assertEquals(found.total, 1, "through the worker's page");
  } finally {
    await dataset.close();
  }
});

Deno.test("[fhir] searches through a search worker: the same bundles, the hits' records read there", async () => {
  const path = `${recordsDir}/records.db`;
  const store = openSearchableStore(path, { lazyIndex: true });
  /** The ids whose records the serving thread read itself, per search. */
  const readHere: number[] = [];
  const getProvidersById = store.getProvidersById.bind(store);
  store.getProvidersById = (ids, stored) => {
    if (!stored) readHere.push(...ids);
    return getProvidersById(ids, stored);
  };
  const getProvider = store.getProvider.bind(store);
  store.getProvider = (npi) => {
    readHere.push(Number(npi));
    return getProvider(npi);
  };
  const pool = await SearchPool.start({
    path,
    workers: 1,
    queue: 4,
    render: (job, page) => renderSearchBody(store, job, page),
  });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  const pooled = testApp({ deps: { dataset } });
  /** A bundle without its time of writing. */
  const bare = async (app: TestApp, url: string) =>
    (await (await app.request(url)).text()).replace(/"lastUpdated":"[^"]+"/, "");
  try {
    for (
      const url of [
        "/fhir/Practitioner?family=smith",
        `/fhir/Practitioner?_id=${NPI.enkeshafi}&_revinclude=PractitionerRole:practitioner`,
        "/fhir/PractitionerRole?specialty=207RC0000X&_include=PractitionerRole:practitioner",
        "/fhir/Organization?name=memorial",
        "/fhir/Location?address-state=MD",
        "/fhir/Location?near=40.7128|-74.006|500|km&_count=3",
        "/fhir/Location?address-city=boston",
      ]
    ) {
      readHere.length = 0;
      const answer = await bare(pooled, url);
      assertEquals(answer, await bare(records, url), url);
      const bundle = JSON.parse(answer) as Bundle;
      assert(bundle.total > 0, `${url}: ${bundle.total}`);
      // Only a secondary location's owner that is not among the engine's hits is read here (an
      // include of a match's own resources reads nothing).
      const secondaries = (bundle.entry ?? []).filter((e) =>
        e.resource.resourceType === "Location" && !e.resource.id.endsWith("-0")
      );
      assert(readHere.length <= secondaries.length, `${url}: ${readHere.length} read here`);
    }
  } finally {
    await dataset.close();
  }
});

Deno.test("[fhir] _include and _revinclude: a practitioner with roles and locations in one request", async () => {
  const bundle = await fhir<Bundle>(
    records,
    `/fhir/Practitioner?_id=${NPI.enkeshafi}&_revinclude=PractitionerRole:practitioner` +
      "&_include:iterate=PractitionerRole:location",
  );
  assertEquals(bundle.total, 1);
  assertEquals(
    bundle.entry!.map((e) => `${e.search.mode} ${e.resource.resourceType}/${e.resource.id}`),
    [
      `match Practitioner/${NPI.enkeshafi}`,
      `include PractitionerRole/${NPI.enkeshafi}`,
      `include Location/${NPI.enkeshafi}-0`,
      `include Location/${NPI.enkeshafi}-1`,
    ],
  );
  const roles = await fhir<Bundle>(
    records,
    `/fhir/PractitionerRole?practitioner=Practitioner/${NPI.enkeshafi}` +
      "&_include=PractitionerRole:practitioner&_include=PractitionerRole:location",
  );
  assertEquals(roles.entry!.map((e) => e.resource.resourceType), [
    "PractitionerRole",
    "Practitioner",
    "Location",
    "Location",
  ]);
  const org = await fhir<Bundle>(
    records,
    `/fhir/Organization?identifier=http://hl7.org/fhir/sid/us-npi|${NPI.memorial}` +
      "&_revinclude=Endpoint:organization&_revinclude=Location:organization",
  );
  assertEquals(org.entry!.map((e) => `${e.resource.resourceType}/${e.resource.id}`), [
    `Organization/${NPI.memorial}`,
    `Endpoint/${NPI.memorial}-0`,
    `Location/${NPI.memorial}-0`,
  ]);
  const endpoints = await fhir<Bundle>(
    records,
    `/fhir/Endpoint?organization=Organization/${NPI.memorial}&_include=Endpoint:organization`,
  );
  assertEquals(endpoints.total, 1);
  assertEquals(endpoints.entry!.length, 2);
  const located = await fhir<Bundle>(
    records,
    `/fhir/Location?_id=${NPI.memorial}-0&_include=Location:organization&_revinclude=PractitionerRole:location`,
  );
  assertEquals(located.entry!.map((e) => e.resource.resourceType), ["Location", "Organization"]);
  const secondary = await fhir<Bundle>(
    records,
    `/fhir/Location?_id=${NPI.enkeshafi}-1,${NPI.enkeshafi}-0&_revinclude=PractitionerRole:location`,
  );
  assertEquals(secondary.total, 2, "_id alone finds secondary locations too");
  assertEquals(secondary.entry!.map((e) => `${e.search.mode} ${e.resource.id}`), [
    `match ${NPI.enkeshafi}-0`,
    `match ${NPI.enkeshafi}-1`,
    `include ${NPI.enkeshafi}`,
  ]);
  const filtered = await fhir<Bundle>(
    records,
    `/fhir/Location?_id=${NPI.enkeshafi}-1,${NPI.enkeshafi}-0&address-state=MD`,
  );
  // Searches cover secondary practice locations too.
  assertEquals(filtered.entry!.map((e) => e.resource.id), [
    `${NPI.enkeshafi}-0`,
    `${NPI.enkeshafi}-1`,
  ]);
  const rockville = await fhir<Bundle>(records, "/fhir/Location?address-city=rockville");
  assertEquals(rockville.entry!.map((e) => e.resource.id), [`${NPI.enkeshafi}-1`]);
  const both = await fhir<Bundle>(records, "/fhir/Location?address-state=MD&_count=1");
  assertEquals(both.total, 2);
  assertEquals(both.entry!.map((e) => e.resource.id), [`${NPI.enkeshafi}-0`]);
});

Deno.test("[fhir] Practitioner names: prefix, :exact, family or given, active", async () => {
  // In name order, as the native search: last name, then first.
  assertEquals(await matches("/fhir/Practitioner?family=smith"), [
    "johnSmith",
    "marySmith",
    "smithson",
    "gone",
  ]);
  assertEquals(
    await matches("/fhir/Practitioner?family=smith"),
    await native("last_name=smith*&entity_type=individual&include_deactivated=true"),
  );
  assertEquals(await matches("/fhir/Practitioner?family:exact=SMITH"), [
    "johnSmith",
    "marySmith",
    "gone",
  ]);
  assertEquals(await matches("/fhir/Practitioner?family:exact=smith&active=true"), [
    "johnSmith",
    "marySmith",
  ]);
  assertEquals(await matches("/fhir/Practitioner?family=smith&active=false"), ["gone"]);
  assertEquals(await matches("/fhir/Practitioner?given=john"), ["johnFortSmith", "johnSmith"]);
  assertEquals(
    await matches("/fhir/Practitioner?name=smith"),
    ["smithJohnson", "johnSmith", "marySmith", "smithson", "gone"],
  );
  assertEquals(await matches("/fhir/Practitioner?family=o'brien,nakamura"), ["nakamura", "obrien"]);
  assertEquals(await matches("/fhir/Practitioner?gender=female&address-state=NJ"), ["hoboken"]);
  assertEquals(
    await matches(`/fhir/Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|${NPIS.obrien}`),
    ["obrien"],
  );
  assertEquals(await matches("/fhir/Practitioner?identifier=urn:oid:1.2.3|123"), []);
  assertEquals(
    await matches(`/fhir/Practitioner?_id=${NPIS.hospital}`),
    [],
    "an organization's NPI",
  );
});

Deno.test("[fhir] specialties on PractitionerRole and the reverse chain on Practitioner", async () => {
  const cardiology = ["smithJohnson", "nakamura", "hoboken", "newark", "marySmith"];
  assertEquals(await matches("/fhir/PractitionerRole?specialty=207RC0000X"), cardiology);
  assertEquals(
    await matches("/fhir/PractitionerRole?specialty=http://nucc.org/provider-taxonomy|207RC0000X"),
    await native("taxonomy=207RC0000X&entity_type=individual&include_deactivated=true"),
  );
  assertEquals(
    await matches("/fhir/Practitioner?_has:PractitionerRole:practitioner:specialty=207RC0000X"),
    cardiology,
  );
  assertEquals(
    await matches("/fhir/PractitionerRole?specialty:text=cardiologist"),
    await native("specialty=cardiologist&entity_type=individual&include_deactivated=true"),
  );
  assertEquals(
    await matches("/fhir/PractitionerRole?specialty=207RC0000X&location.address-state=NJ"),
    ["hoboken", "newark"],
  );
  assertEquals(await matches("/fhir/PractitionerRole?practitioner.family=rivera"), [
    "hoboken",
    "newark",
  ]);
  assertEquals(
    await matches("/fhir/PractitionerRole?organization=Organization/" + NPIS.hospital),
    [],
  );
});

Deno.test("[fhir] Organization and Location searches", async () => {
  assertEquals(await matches("/fhir/Organization?name=springfield"), ["hospital"]);
  assertEquals(
    await matches("/fhir/Organization?name=memorial"),
    ["hospital"],
    "other names count",
  );
  assertEquals(await matches("/fhir/Organization?address-state=NY"), ["pharmacy"]);
  assertEquals(await matches("/fhir/Location?address-city=boston"), [
    "obrien",
    "smithson",
    "smyth",
  ]);
  assertEquals(
    await matches("/fhir/Location?address-city=boston"),
    await native("city=boston"),
  );
  assertEquals(await matches("/fhir/Location?address-postalcode=11201"), ["marySmith"]);
  // `address`: the city, state or ZIP starts with the value.
  assertEquals(await matches("/fhir/Location?address=bost"), await native("city=boston"));
  assertEquals(await matches("/fhir/Location?address=MA"), await native("state=MA"));
  assertEquals(await matches("/fhir/Location?address=021"), await native("postal_code=021*"));
  assertEquals(await matches("/fhir/Organization?address=new york"), ["pharmacy"]);
  assertEquals(await matches("/fhir/Location?address=fort,dallas"), [
    "johnFortSmith",
    "smithJohnson",
  ]);
  assertEquals(await matches(`/fhir/Location?organization=Organization/${NPIS.dentalOrg}`), [
    "dentalOrg",
  ]);
  assertEquals(await matches("/fhir/Location?organization.name=new york drug"), ["pharmacy"]);
});

Deno.test("[fhir] Location near: true distances, nearest first, same as the native search", async () => {
  const [lat, lon] = [40.7128, -74.006];
  const bundle = await fhir<Bundle>(
    searchApp,
    `/fhir/Location?near=${lat}|${lon}|20|km&_count=100`,
  );
  const distances = bundle.entry!.map((e) => {
    const ext = e.search.extension![0]!;
    assertEquals(ext.url, "http://hl7.org/fhir/StructureDefinition/location-distance");
    assertEquals(ext.valueDistance.code, "km");
    const p = e.resource.position as { latitude: number; longitude: number };
    const km = distance(lat, lon, p.latitude, p.longitude, "km");
    assert(Math.abs(ext.valueDistance.value - km) < 0.001);
    assert(km <= 20);
    return ext.valueDistance.value;
  });
  assertEquals(distances, [...distances].sort((a, b) => a - b));
  assertEquals(bundle.total, distances.length);
  assertEquals(
    bundle.entry!.map((e) => nameOf[e.resource.id.slice(0, 10)]),
    await native(`near=${lat},${lon}&radius=20&unit=km`),
  );
  const miles = await fhir<Bundle>(searchApp, `/fhir/Location?near=${lat}|${lon}|12.4|mi`);
  assertEquals(miles.total, bundle.total);
  assertEquals(miles.entry![0]!.search.extension![0]!.valueDistance.code, "[mi_i]");
  const metres = await fhir<Bundle>(searchApp, `/fhir/Location?near=${lat}|${lon}|20000|m`);
  assertEquals(metres.total, bundle.total);
  assertEquals(
    Math.round(metres.entry![0]!.search.extension![0]!.valueDistance.value / 1000),
    Math.round(distances[0]!),
  );
  // Cardiologists within 20 km, nearest first, with their locations and distances.
  const roles = await fhir<Bundle>(
    searchApp,
    `/fhir/PractitionerRole?specialty=207RC0000X&location.near=${lat}|${lon}|20|km` +
      "&_include=PractitionerRole:location",
  );
  const matched = roles.entry!.filter((e) => e.search.mode === "match");
  assertEquals(
    matched.map((e) => nameOf[e.resource.id]),
    await native(`taxonomy=207RC0000X&near=${lat},${lon}&radius=20&unit=km`),
  );
  assertEquals(matched.map((e) => nameOf[e.resource.id]), ["marySmith", "hoboken", "newark"]);
  const included = roles.entry!.filter((e) => e.search.mode === "include");
  assertEquals(included.map((e) => e.resource.resourceType), ["Location", "Location", "Location"]);
  assert(included.every((e) => e.search.extension![0]!.valueDistance.value <= 20));
  const defaulted = await fhir<Bundle>(searchApp, `/fhir/Location?near=${lat}|${lon}`);
  assert(defaulted.total >= bundle.total, "50 km by default");
});

Deno.test("[fhir] paging: next links walk to the end; _count=0 is the total only", async () => {
  const all = await walk("/fhir/Practitioner?_count=2");
  assertEquals(all.total, 12);
  assertEquals(all.keys.length, 12);
  assertEquals(new Set(all.keys).size, 12);
  assertEquals(all.pages, 6);
  assertEquals(all.keys, (await walk("/fhir/Practitioner?_count=100")).keys);
  const capped = await fhir<Bundle>(searchApp, "/fhir/Practitioner?_count=1000");
  assertEquals(capped.entry!.length, 12, "more than 100 is served as 100");
  const count = await fhir<Bundle>(searchApp, "/fhir/Practitioner?_count=0");
  assertEquals(count.total, 12);
  assertEquals(count.entry, undefined);
  const near = await walk("/fhir/Location?near=40.7128|-74.006|500|km&_count=3");
  assertEquals(near.keys.length, near.total);
});

Deno.test("[fhir] bad searches: one 400 OperationOutcome issue per bad parameter", async () => {
  const unknown = await outcome(
    searchApp,
    "/fhir/Practitioner?family=smith&colour=blue&_sort=name",
    400,
  );
  assertEquals(unknown.issue.map((i) => [i.code, i.expression]), [
    ["not-supported", ["colour"]],
    ["not-supported", ["_sort"]],
  ]);
  const cases: [string, RegExp][] = [
    [
      "/fhir/Practitioner?family:contains=mit",
      /modifier ':contains' is not supported \(only ':exact'\)/,
    ],
    ["/fhir/Practitioner?family=smith&family=jones", /appears twice/],
    ["/fhir/Practitioner?family=s", /too short/],
    ["/fhir/Practitioner?identifier=123", /not an NPI/],
    [
      "/fhir/Practitioner?near=40|-74|10|km",
      /unknown or unsupported search parameter on Practitioner/,
    ],
    ["/fhir/Practitioner?active=yes", /'true' or 'false'/],
    ["/fhir/Practitioner?_count=-1", /whole number/],
    ["/fhir/Practitioner?_cursor=abc", /cursor/],
    ["/fhir/Practitioner?_include=PractitionerRole:location", /not supported on Practitioner/],
    ["/fhir/PractitionerRole?specialty=cardiology", /specialty:text/],
    ["/fhir/PractitionerRole?specialty:text=xyzzyology", /not a known specialty/],
    ["/fhir/PractitionerRole?location=Practitioner/1", /not a Location reference/],
    ["/fhir/Location?near=91|0|10|km", /latitude must be from -90 to 90/],
    ["/fhir/Location?near=40|-74|10|parsec", /unit 'parsec' is not supported/],
    ["/fhir/Location?near=40|-74|900|km", /at most 500 km/],
    ["/fhir/Location?address-state=XX", /not a USPS state code/],
    ["/fhir/Endpoint?status=retired", /'retired' is not active, suspended/],
    ["/fhir/Practitioner?_format=xml", /only JSON/],
    ["/fhir/Practitioner?_id=", /has no value/],
    ["/fhir/Endpoint?_id=abc", /'abc' is not an Endpoint id: Endpoint ids are \{npi\}-\{n\}/],
    ["/fhir/Practitioner?gender=male,female", /one value/],
  ];
  for (const [path, message] of cases) {
    const body = await outcome(searchApp, path, 400);
    assertMatch(body.issue.map((i) => i.diagnostics).join("; "), message, path);
  }
  const cursor = (await fhir<Bundle>(searchApp, "/fhir/Practitioner?_count=1")).link[1]!.url;
  const reused = cursor.replace("http://localhost", "").replace(
    "_count=1",
    "_count=1&family=smith",
  );
  await outcome(searchApp, reused, 400);
});
