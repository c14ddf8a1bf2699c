/**
 * The FHIR directory's index paths on a demo database, against brute force.
 *
 * `near` sorted by distance without a full sort (`lib/search/nearest.ts`):
 * on random points over a demo database, walking every page by cursor, and
 * by offset, gives the same set in the same order as a brute-force sort of
 * every located provider, the same total, and the same first page as the
 * engine's sorted path (taken when facets are asked for). Then the FHIR
 * `Location?near=` answer over the same store.
 *
 * `_lastUpdated`: the id lists (month lists or a column pass,
 * `extra_filters.ts`), the histogram counts and the walk
 * (`updated_browse.ts`), and the engine's pages either way, equal the
 * providers whose day is in the set.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { type NearMatch, searchQuery } from "../lib/search/query.ts";
import { distance } from "../lib/geo/zip.ts";
import { FLAG } from "../lib/index/fields.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { seededRandom, type TestApp, testApp } from "./_utils.ts";
import { dateCondition, inDays, union } from "../lib/fhir/date_search.ts";
import { updatedIds } from "../lib/search/extra_filters.ts";
import { countUpdated } from "../lib/search/updated_browse.ts";
import type { DatabaseSync } from "node:sqlite";
import { readLocationColumns } from "../lib/store/location_columns.ts";
import { foldText } from "../lib/text/fold.ts";
import { renderContext } from "../lib/fhir/directory.ts";
import { GROUP_CODES } from "../lib/fhir/resources.ts";
import type { Provider } from "../lib/provider.ts";
import { npi } from "./_fixtures.ts";

const dir = await Deno.makeTempDir();
const path = `${dir}/near.db`;
buildDemoDatabase({ path, records: 6_000, seed: 11 });
const store = openSearchableStore(path);
const index = store.index;

/** Every provider within the radius passing the flags, sorted by (distance, id). */
function bruteForce(near: NearMatch, mask: number, value: number): { id: number; d: number }[] {
  const out: { id: number; d: number }[] = [];
  for (let id = 1; id <= index.size; id++) {
    if ((index.flags[id]! & mask) !== value) continue;
    const lat = index.lat[id]!, lon = index.lon[id]!;
    if (Number.isNaN(lat)) continue;
    const d = distance(near.lat, near.lon, lat, lon, near.unit);
    if (d <= near.radius) out.push({ id, d });
  }
  return out.sort((a, b) => a.d - b.d || a.id - b.id);
}

/** A random point near a random located provider, a radius, a unit, and flags. */
function randomCase(random: () => number) {
  let id = 1 + Math.floor(random() * index.size);
  while (Number.isNaN(index.lat[id]!)) id = 1 + Math.floor(random() * index.size);
  const near: NearMatch = {
    lat: index.lat[id]! + (random() - 0.5) * 0.4,
    lon: index.lon[id]! + (random() - 0.5) * 0.4,
    radius: [1, 5, 10, 25, 80, 300][Math.floor(random() * 6)]!,
    unit: random() < 0.5 ? "km" : "mi",
  };
  const entity = random() < 0.3 ? 1 : random() < 0.5 ? 2 : null;
  const includeDeactivated = random() < 0.3;
  return { near, entity: entity as 1 | 2 | null, includeDeactivated };
}

Deno.test("[near] cursor and offset pages equal a brute-force sort, on random points", () => {
  const random = seededRandom(2026);
  let nonEmpty = 0;
  for (let round = 0; round < 60; round++) {
    const { near, entity, includeDeactivated } = randomCase(random);
    let mask = includeDeactivated ? 0 : FLAG.active, value = mask;
    if (entity === 1) (mask |= FLAG.individual), (value |= FLAG.individual);
    if (entity === 2) (mask |= FLAG.organization), (value |= FLAG.organization);
    const expected = bruteForce(near, mask, value);
    const limit = 1 + Math.floor(random() * 40);
    const base = { near, entity, includeDeactivated, sort: "distance" as const, limit };
    // By cursor, to the end.
    const walked: { id: number; d: number }[] = [];
    let cursor = null;
    for (let pages = 0; pages < 10_000; pages++) {
      const page = store.search(searchQuery({ ...base, cursor }));
      assertEquals(page.total, expected.length, JSON.stringify(near));
      for (const h of page.hits) walked.push({ id: h.id, d: h.distance! });
      if (!page.next) break;
      cursor = page.next;
    }
    assertEquals(walked.map((w) => w.id), expected.map((e) => e.id), JSON.stringify(near));
    walked.forEach((w, k) => assertEquals(w.d, Math.round(expected[k]!.d * 10) / 10));
    // By offset.
    const offset = Math.floor(random() * Math.max(1, expected.length));
    const byOffset = store.search(searchQuery({ ...base, offset }));
    assertEquals(
      byOffset.hits.map((h) => h.id),
      expected.slice(offset, offset + limit).map((e) => e.id),
    );
    // The sorted path (facets) agrees on the first page and the total.
    const sorted = store.search(searchQuery({ ...base, facets: ["state"] }));
    assertEquals(sorted.total, expected.length);
    assertEquals(sorted.hits.map((h) => h.id), expected.slice(0, limit).map((e) => e.id));
    if (expected.length > limit) nonEmpty++;
  }
  assert(nonEmpty >= 10, `only ${nonEmpty} cases had several pages`);
});

/** Every active provider's primary and secondary locations: key, Location id, state. */
interface Place {
  key: number[];
  id: string;
  state: string;
  city: string;
  zip: string;
  lat: number;
  lon: number;
}

function allLocations(): Place[] {
  const db = (store as unknown as { db: DatabaseSync }).db;
  const secondary = readLocationColumns(db)!;
  const npiOf = new Map<number, string>();
  for (const row of db.prepare("SELECT id, npi FROM provider").iterate()) {
    const { id, npi } = row as { id: number; npi: number };
    npiOf.set(id, String(npi));
  }
  const out: Place[] = [];
  for (let id = 1; id <= index.size; id++) {
    if (!(index.flags[id]! & FLAG.active)) continue;
    const p = store.getProvidersById([id])[0]!.provider;
    if (!p.practice_location) continue;
    out.push({
      key: [id, 0],
      id: `${npiOf.get(id)}-0`,
      state: index.states[index.state[id]!]!,
      city: foldText(p.practice_location.city ?? "").toUpperCase(),
      zip: (p.practice_location.postal_code ?? "").slice(0, 5),
      lat: index.lat[id]!,
      lon: index.lon[id]!,
    });
  }
  for (let k = 0; k < secondary.ids.length; k++) {
    const id = secondary.ids[k]!;
    if (!(index.flags[id]! & FLAG.active)) continue;
    out.push({
      key: [id, secondary.positions[k]!],
      id: `${npiOf.get(id)}-${secondary.positions[k]}`,
      state: secondary.states[secondary.state[k]!]!,
      city: secondary.cities[secondary.city[k]!]!,
      zip: secondary.zip5[k] ? String(secondary.zip5[k]! - 1).padStart(5, "0") : "",
      lat: secondary.lat[k]!,
      lon: secondary.lon[k]!,
    });
  }
  return out;
}

function byKey(a: { key: number[] }, b: { key: number[] }): number {
  for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
  return 0;
}

async function walkLocations(app: TestApp, first: string) {
  let url: string | null = first;
  const ids: string[] = [], distances: number[] = [];
  let total = -1;
  while (url) {
    const response = await app.request(url);
    assertEquals(response.status, 200);
    const bundle = await response.json() as {
      total: number;
      link: { relation: string; url: string }[];
      entry?: {
        resource: { id: string };
        search: { mode: string; extension?: { valueDistance: { value: number } }[] };
      }[];
    };
    if (total === -1) total = bundle.total;
    assertEquals(bundle.total, total, "the same total on every page");
    for (const e of bundle.entry ?? []) {
      if (e.search.mode !== "match") continue;
      ids.push(e.resource.id);
      const d = e.search.extension?.[0]?.valueDistance.value;
      if (d !== undefined) distances.push(d);
    }
    const next = bundle.link.find((l) => l.relation === "next")?.url;
    url = next ? next.replace("http://localhost", "") : null;
  }
  return { total, ids, distances };
}

Deno.test("[near] FHIR Location searches: primary and secondary locations, in order, to the end", async () => {
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  const locations = allLocations();
  assert(locations.some((l) => !l.id.endsWith("-0")), "the demo has secondary locations");
  const random = seededRandom(7);
  for (let round = 0; round < 8; round++) {
    const { near } = randomCase(random);
    const km = near.unit === "km" ? near.radius : near.radius * 1.609344;
    const lat = Number(near.lat.toFixed(4)), lon = Number(near.lon.toFixed(4));
    const want = locations.flatMap((l) => {
      if (Number.isNaN(l.lat)) return [];
      const d = distance(lat, lon, l.lat, l.lon, "km");
      return d <= km ? [{ ...l, key: [d, ...l.key], d }] : [];
    }).sort(byKey);
    const got = await walkLocations(
      app,
      `/fhir/Location?near=${lat}|${lon}|${km}|km&_count=${1 + round * 5}`,
    );
    assertEquals(got.total, want.length);
    assertEquals(got.ids, want.map((w) => w.id), `near ${lat},${lon} ${km} km`);
    got.distances.forEach((d, k) => assert(Math.abs(d - want[k]!.d) < 0.002));
  }
  const secondaries = locations.filter((l) => !l.id.endsWith("-0"));
  const some = secondaries[Math.floor(secondaries.length / 2)]!;
  const cases: [string, (l: Place) => boolean][] = [
    ["address-state=CA", (l) => l.state === "CA"],
    ["address-state=TX,NY", (l) => l.state === "TX" || l.state === "NY"],
    [`address-postalcode=${some.zip.slice(0, 3)}`, (l) => l.zip.startsWith(some.zip.slice(0, 3))],
    [`address-postalcode=${some.zip}`, (l) => l.zip === some.zip],
    [`address-city=${encodeURIComponent(some.city)}`, (l) => l.city === some.city],
    [
      `address=${encodeURIComponent(some.city.slice(0, 3))}`,
      (l) => l.city.startsWith(some.city.slice(0, 3)) || l.state === some.city.slice(0, 3),
    ],
  ];
  // Every location (no filter), and an organization's (by owner).
  const orgOwner = locations.find((l) =>
    !l.id.endsWith("-0") && store.getProvider(l.id.slice(0, 10))?.entity_type === "organization"
  )!;
  cases.push(["", () => true]);
  cases.push([
    `organization=Organization/${orgOwner.id.slice(0, 10)}`,
    (l) => l.id.startsWith(orgOwner.id.slice(0, 10)),
  ]);
  for (const [query, keep] of cases) {
    const want = locations.filter(keep).sort(byKey);
    assert(want.some((w) => !w.id.endsWith("-0")), `${query} finds secondary locations`);
    const got = await walkLocations(app, `/fhir/Location?${query}${query ? "&" : ""}_count=23`);
    assertEquals(got.total, want.length, query);
    assertEquals(got.ids, want.map((w) => w.id), query);
  }
});

Deno.test("[near] FHIR Location organization chains: type and partof, on primary and secondary locations", async () => {
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  const ctx = renderContext(store);
  const owners = new Map<number, Provider>();
  const ownerOf = (l: Place) => {
    let p = owners.get(l.key[0]!);
    if (!p) owners.set(l.key[0]!, p = store.getProvidersById([l.key[0]!])[0]!.provider);
    return p;
  };
  const locations = allLocations();
  const isOrg = (l: Place) => ownerOf(l).entity_type === "organization";
  const group = (l: Place) => ownerOf(l).taxonomies.some((t) => GROUP_CODES.has(t.code));
  const parentOf = (l: Place) => (isOrg(l) ? ctx.parentOf!(ownerOf(l)) : null);
  const parent = locations.map(parentOf).find((p) => p !== null);
  assert(parent, "the demo has a subpart whose parent is found");
  const cases: [string, (l: Place) => boolean][] = [
    ["organization.type=prvgrp", (l) => isOrg(l) && group(l)],
    ["organization.type=fac", (l) => isOrg(l) && !group(l)],
    [
      "organization.type=http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS|fac,prvgrp",
      isOrg,
    ],
    ["organization.type=payer", () => false],
    [
      "organization.type=fac&address-state=CA,TX",
      (l) => isOrg(l) && !group(l) && /CA|TX/.test(l.state),
    ],
    [`organization.partof=Organization/${parent}`, (l) => parentOf(l) === parent],
    [
      `organization.partof=${parent}&organization.type=prvgrp`,
      (l) => parentOf(l) === parent && group(l),
    ],
    [`organization.partof=Organization/${npiOfTest(1)}`, () => false],
    [
      "organization.type=fac&_lastUpdated=ge2020",
      (l) => isOrg(l) && !group(l) && inDays(index.updated[l.key[0]!]!, dateCondition("ge2020")),
    ],
  ];
  for (const [query, keep] of cases) {
    const want = locations.filter(keep).sort(byKey);
    if (/^organization\.type=(prvgrp|fac)$|CodeSystem/.test(query)) {
      assert(want.some((w) => !w.id.endsWith("-0")), `${query} finds secondary locations`);
    }
    const got = await walkLocations(
      app,
      `/fhir/Location?${query}&_count=${want.length > 300 ? 97 : 9}`,
    );
    assertEquals(got.total, want.length, query);
    assertEquals(got.ids, want.map((w) => w.id), query);
  }
  // Nearest first, with the chain.
  const some = locations.find((l) => isOrg(l) && !group(l) && !Number.isNaN(l.lat))!;
  const near = await walkLocations(
    app,
    `/fhir/Location?near=${some.lat}|${some.lon}|80|km&organization.type=fac&_count=11`,
  );
  const within = locations.filter((l) =>
    isOrg(l) && !group(l) && !Number.isNaN(l.lat) &&
    distance(some.lat, some.lon, l.lat, l.lon, "km") <= 80
  );
  assertEquals(near.ids.slice().sort(), within.map((l) => l.id).sort());
});

/** A valid NPI that no demo provider has (the demo's NPIs are random). */
function npiOfTest(k: number): string {
  for (let n = 100_000_000 + k;; n++) {
    if (!store.getProvider(npi(String(n)))) return npi(String(n));
  }
}

Deno.test("[lastUpdated] FHIR Location searches: primary and secondary locations by day, walked or listed", async () => {
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  const locations = allLocations();
  const secondaryCount = readLocationColumns((store as unknown as { db: DatabaseSync }).db)!.ids
    .length;
  const day = (l: Place) => index.updated[l.key[0]!]!;
  let dense = 0, sparse = 0;
  // Wide and narrow conditions, and the days of a few secondary locations' owners (sparse, found).
  const someDays = locations.filter((l) => l.key[1] !== 0 && day(l) > 0)
    .filter((_, k, all) => k % Math.max(1, Math.floor(all.length / 3)) === 1)
    .map((l) => new Date(day(l) * 86_400_000).toISOString().slice(0, 10));
  const values = [
    "ge2025-01-01",
    "2019-05",
    "2015",
    "lt2012",
    "ne2020",
    "2010-02-03",
    "ge2026-06",
    ...someDays,
    someDays.map((d) => `eq${d}`).join(","),
  ];
  for (const value of values) {
    const set = union(value.split(",").map((v) => dateCondition(v)));
    const inSet = locations.filter((l) => inDays(day(l), set));
    const rows = inSet.filter((l) => l.key[1] !== 0).length;
    if (rows * 64 >= secondaryCount) dense++;
    else if (rows > 0) sparse++;
    const queries: [string, (l: Place) => boolean][] = [
      [`_lastUpdated=${value}`, () => true],
      [`_lastUpdated=${value}&address-state=CA,TX`, (l) => l.state === "CA" || l.state === "TX"],
      [`_lastUpdated=${value}&address-postalcode=94,10`, (l) => /^(94|10)/.test(l.zip)],
    ];
    for (const [query, keep] of queries) {
      const want = inSet.filter(keep).sort(byKey);
      const got = await walkLocations(
        app,
        `/fhir/Location?${query}&_count=${want.length > 200 ? 97 : 7}`,
      );
      assertEquals(got.total, want.length, query);
      assertEquals(got.ids, want.map((w) => w.id), query);
    }
  }
  assert(dense >= 2 && sparse >= 2, `dense ${dense}, sparse ${sparse}: both paths are tested`);
});

Deno.test("[lastUpdated] lists, counts, walks and engine pages equal the brute force", () => {
  const days = index.updated;
  const values = ["ge2025-01-01", "2019-05", "2015", "lt2012", "ne2020", "ge2026-06", "2010-02-03"];
  for (const value of values) {
    const set = dateCondition(value);
    const all: number[] = [];
    for (let id = 1; id <= index.size; id++) if (inDays(days[id]!, set)) all.push(id);
    assertEquals([...updatedIds(set, { index })], all, value);
    for (
      const [mask, want] of [
        [0, 0],
        [FLAG.active, FLAG.active],
        [FLAG.individual, FLAG.individual],
        [FLAG.active | FLAG.organization, FLAG.active | FLAG.organization],
        [FLAG.active, 0],
      ]
    ) {
      const expected = all.filter((id) => (index.flags[id]! & mask!) === want);
      assertEquals(countUpdated(index, set, mask!, want!), expected.length, `${value} ${mask}`);
      const entity = mask! & FLAG.individual ? 1 : mask! & FLAG.organization ? 2 : null;
      const includeDeactivated = !(mask! & FLAG.active) || want === 0;
      const base = {
        entity: entity as 1 | 2 | null,
        includeDeactivated,
        deactivatedOnly: (mask! & FLAG.active) !== 0 && want === 0,
        extraFilters: [{ kind: "updated" as const, days: set }],
        limit: 37,
      };
      // Walked (dense sets) or listed (sparse ones); with an id range, always listed.
      for (const extra of [{}, { idRange: { from: 1, to: index.size + 1 } }]) {
        const walked: number[] = [];
        let cursor = null;
        for (let pages = 0; pages < 10_000; pages++) {
          const page = store.search(searchQuery({ ...base, ...extra, cursor }));
          assertEquals(page.total, expected.length, `${value} ${mask} total`);
          walked.push(...page.hits.map((h) => h.id));
          if (!page.next) break;
          cursor = page.next;
        }
        assertEquals(walked, expected, `${value} ${mask} ${JSON.stringify(extra)}`);
      }
      const offset = Math.floor(expected.length / 2);
      assertEquals(
        store.search(searchQuery({ ...base, offset })).hits.map((h) => h.id),
        expected.slice(offset, offset + 37),
      );
    }
  }
});

Deno.test("[lastUpdated] with other filters: days tested on few candidates equal the listed days", () => {
  const days = index.updated;
  const rng = seededRandom(23);
  const states = [
    ...new Set(
      Array.from(
        { length: 12 },
        () => index.states[1 + Math.floor(rng() * (index.states.length - 1))]!,
      ),
    ),
  ];
  for (const value of ["ge2025-01-01", "2015", "lt2012", "ne2020", "sa2018-03-04"]) {
    const set = dateCondition(value);
    // A state (a few hundred candidates: tested one by one) and no other filter (listed).
    for (const state of states) {
      const query = searchQuery({
        states: [state],
        extraFilters: [{ kind: "updated", days: set }],
        includeDeactivated: true,
        limit: 1000,
      });
      const expected: number[] = [];
      for (let id = 1; id <= index.size; id++) {
        if (index.states[index.state[id]!] === state && inDays(days[id]!, set)) expected.push(id);
      }
      const page = store.search(query);
      assertEquals(page.total, expected.length, `${value} ${state}`);
      assertEquals(page.hits.map((h) => h.id), expected.slice(0, 1000), `${value} ${state}`);
    }
  }
});
