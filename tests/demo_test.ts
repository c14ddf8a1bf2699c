import { assert, assertEquals, assertNotEquals, assertThrows } from "@std/assert";
import { allZips, lookupZip } from "../lib/geo/zip.ts";
import { isValidNpi } from "../lib/npi.ts";
import {
  ENDPOINT_COLUMNS,
  LAYOUTS,
  NPI_COL,
  NPIDATA_COLUMNS,
  OTHERNAME_COLUMNS,
  PL_COLUMNS,
  taxonomyColumns,
} from "../lib/nppes/columns.ts";
import { formatNppesRow } from "../lib/nppes/csv_write.ts";
import { DEACTIVATED_HEADER, formatDemoRow, writeDemoCsv } from "../lib/demo/csv.ts";
import {
  DEMO_DEFAULT_SEED,
  DEMO_GENERATOR_VERSION,
  type DemoBundle,
  generateDemo,
} from "../lib/demo/generate.ts";
import { NpiSpace } from "../lib/demo/npi_space.ts";
import { Rng, WeightedTable } from "../lib/demo/prng.ts";
import { CITY_POPULATION_2020, ZipPool } from "../lib/demo/places.ts";
import {
  INDIVIDUAL_SPECIALTIES,
  ORGANIZATION_SPECIALTIES,
  RELATED_ORG_TAXONOMIES,
  RELATED_TAXONOMIES,
} from "../lib/demo/specialties.ts";

const TAXONOMY_SHAPE = /^[0-9]{3}[0-9A-Z]{6}X$/;
const DATE_SHAPE = /^(0[1-9]|1[0-2])\/(0[1-9]|[12][0-9]|3[01])\/20(0[5-9]|1[0-9]|2[0-6])$/;
const TAXONOMY_COLS = Array.from({ length: 15 }, (_, i) => taxonomyColumns(i));

/** One shared sample: 20,000 bundles with the default seed. */
const SAMPLE_SIZE = 20_000;
let sampleCache: DemoBundle[] | null = null;
function sample(): DemoBundle[] {
  sampleCache ??= [...generateDemo({ records: SAMPLE_SIZE })];
  return sampleCache;
}

function isDeactivatedRow(main: readonly string[]): boolean {
  return main[NPI_COL.entityType] === "";
}

function toDays(mmddyyyy: string): number {
  const [m, d, y] = mmddyyyy.split("/").map(Number);
  return Date.UTC(y!, m! - 1, d!) / 86_400_000;
}

Deno.test("[demo] same seed gives identical rows, another seed different ones", () => {
  const a = [...generateDemo({ records: 500, seed: 7 })];
  const b = [...generateDemo({ records: 500, seed: 7 })];
  const c = [...generateDemo({ records: 500, seed: 8 })];
  assertEquals(a, b);
  assertNotEquals(a[0]!.main, c[0]!.main);
  const sameNpi = a.filter((x, i) => x.main[0] === c[i]!.main[0]).length;
  assertEquals(sameNpi, 0);
});

Deno.test("[demo] the first K bundles of a larger run equal a smaller run", () => {
  const small = [...generateDemo({ records: 300 })];
  const large = [...generateDemo({ records: 3000, seed: DEMO_DEFAULT_SEED })];
  assertEquals(large.slice(0, 300), small);
  assert(Number.isInteger(DEMO_GENERATOR_VERSION) && DEMO_GENERATOR_VERSION >= 1);
});

Deno.test("[demo] generates exactly the records asked for, and rejects bad counts", () => {
  assertEquals([...generateDemo({ records: 0 })].length, 0);
  assertEquals([...generateDemo({ records: 37 })].length, 37);
  assertThrows(() => [...generateDemo({ records: -1 })], RangeError);
  assertThrows(() => [...generateDemo({ records: 1.5 })], RangeError);
  assertThrows(() => [...generateDemo({ records: 1, seed: 0.5 })], RangeError);
});

Deno.test("[demo] every row has the exact layout width, strings only, no double quotes", () => {
  for (const b of sample()) {
    assertEquals(b.main.length, NPIDATA_COLUMNS.length);
    for (const r of b.otherNames) assertEquals(r.length, OTHERNAME_COLUMNS.length);
    for (const r of b.locations) assertEquals(r.length, PL_COLUMNS.length);
    for (const r of b.endpoints) assertEquals(r.length, ENDPOINT_COLUMNS.length);
    for (const row of [b.main, ...b.otherNames, ...b.locations, ...b.endpoints]) {
      for (const v of row) {
        assert(typeof v === "string" && !v.includes('"') && !/[\r\n]/.test(v), `bad value ${v}`);
      }
      assertEquals(row[0], b.main[0]);
    }
  }
});

Deno.test("[demo] NPIs are valid, unique and not sequential", () => {
  const npis = sample().map((b) => b.main[NPI_COL.npi]!);
  assert(npis.every(isValidNpi));
  assertEquals(new Set(npis).size, npis.length);
  const ascending = npis.filter((n, i) => i > 0 && n > npis[i - 1]!).length;
  assert(ascending > npis.length * 0.4 && ascending < npis.length * 0.6);
  assert(npis.some((n) => n.startsWith("1")) && npis.some((n) => n.startsWith("2")));
  const space = new NpiSpace(DEMO_DEFAULT_SEED);
  assertEquals(space.npi(0), npis[0]);
  const far = new Set(Array.from({ length: 5000 }, (_, i) => space.npi(199_999_999 - i)));
  assertEquals(far.size, 5000);
});

Deno.test("[demo] entity and deactivation mix within tolerance", () => {
  const all = sample();
  const deactivated = all.filter((b) => isDeactivatedRow(b.main));
  const active = all.filter((b) => !isDeactivatedRow(b.main));
  const individuals = active.filter((b) => b.main[NPI_COL.entityType] === "1").length;
  const organizations = active.filter((b) => b.main[NPI_COL.entityType] === "2").length;
  assertEquals(individuals + organizations, active.length);
  const share = individuals / active.length;
  assert(share >= 0.75 && share <= 0.83, `individual share ${share}`);
  const deactivatedShare = deactivated.length / all.length;
  assert(deactivatedShare >= 0.025 && deactivatedShare <= 0.045, `deactivated ${deactivatedShare}`);
  const reactivated = active.filter((b) => b.main[NPI_COL.reactivationDate] !== "");
  assert(reactivated.length > 20 && reactivated.length < deactivated.length / 3);
  for (const b of reactivated) {
    const d = toDays(b.main[NPI_COL.deactivationDate]!);
    const r = toDays(b.main[NPI_COL.reactivationDate]!);
    assert(r > d && toDays(b.main[NPI_COL.lastUpdated]!) >= r);
  }
});

Deno.test("[demo] a deactivated row carries only the NPI and the deactivation date", () => {
  const deactivated = sample().filter((b) => isDeactivatedRow(b.main));
  assert(deactivated.length > 0);
  for (const b of deactivated) {
    const filled = b.main.map((v, i) => (v === "" ? -1 : i)).filter((i) => i >= 0);
    assertEquals(filled, [NPI_COL.npi, NPI_COL.deactivationDate]);
    assert(DATE_SHAPE.test(b.main[NPI_COL.deactivationDate]!));
    assertEquals([b.otherNames.length, b.locations.length, b.endpoints.length], [0, 0, 0]);
  }
});

Deno.test("[demo] taxonomies: real-shaped codes, one primary, a fifth with several", () => {
  let individuals = 0;
  let multi = 0;
  for (const b of sample()) {
    if (isDeactivatedRow(b.main)) continue;
    const used = TAXONOMY_COLS.filter((c) => b.main[c.code] !== "");
    assert(used.length >= 1 && used.length <= 3);
    for (const c of used) {
      assert(TAXONOMY_SHAPE.test(b.main[c.code]!), b.main[c.code]);
      assert(["Y", "N"].includes(b.main[c.primary]!));
      if (b.main[c.license] !== "") assert(/^[A-Z]{2}$/.test(b.main[c.state]!));
    }
    assertEquals(used.filter((c) => b.main[c.primary] === "Y").length, 1);
    assertEquals(new Set(used.map((c) => b.main[c.code])).size, used.length);
    if (b.main[NPI_COL.entityType] === "1") {
      individuals++;
      if (used.length > 1) multi++;
    }
  }
  const share = multi / individuals;
  assert(share >= 0.15 && share <= 0.25, `multi-taxonomy share ${share}`);
});

Deno.test("[demo] specialty tables use NUCC-shaped codes only", () => {
  const codes = [
    ...INDIVIDUAL_SPECIALTIES.map((s) => s.code),
    ...ORGANIZATION_SPECIALTIES.map((s) => s.code),
    ...Object.values(RELATED_TAXONOMIES).flat(),
    ...Object.values(RELATED_ORG_TAXONOMIES).flat(),
  ];
  for (const code of codes) assert(TAXONOMY_SHAPE.test(code), code);
  assert(new Set(codes).size >= 80);
  for (const s of INDIVIDUAL_SPECIALTIES) assert(RELATED_TAXONOMIES[s.group], s.group);
});

Deno.test("[demo] nurse practitioners, dentists and nurses in realistic shares", () => {
  const individuals = sample().filter((b) => b.main[NPI_COL.entityType] === "1");
  const primary = (b: DemoBundle): string =>
    b.main[TAXONOMY_COLS.find((c) => b.main[c.primary] === "Y")!.code]!;
  const share = (prefix: string): number =>
    individuals.filter((b) => primary(b).startsWith(prefix)).length / individuals.length;
  const np = share("363L");
  assert(np >= 0.08 && np <= 0.13, `NP share ${np}`);
  const dentists = share("1223");
  assert(dentists >= 0.03 && dentists <= 0.055, `dentist share ${dentists}`);
  const nurses = individuals.filter((b) => /^(363L|163W)/.test(primary(b)));
  const female = nurses.filter((b) => b.main[NPI_COL.sex] === "F").length / nurses.length;
  assert(female > 0.8, `nurses female ${female}`);
  assert(individuals.every((b) => ["M", "F"].includes(b.main[NPI_COL.sex]!)));
  const orgs = sample().filter((b) => b.main[NPI_COL.entityType] === "2");
  const pharmacies = orgs.filter((b) => b.main[TAXONOMY_COLS[0]!.code]!.startsWith("3336"));
  assert(pharmacies.length / orgs.length > 0.05);
});

Deno.test("[demo] surnames: SMITH leads, rare, hyphenated and apostrophe names exist", () => {
  const counts = new Map<string, number>();
  for (const b of sample()) {
    const last = b.main[NPI_COL.lastName]!;
    if (last !== "") counts.set(last, (counts.get(last) ?? 0) + 1);
  }
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  assertEquals(ranked[0]![0], "SMITH");
  const total = [...counts.values()].reduce((s, n) => s + n, 0);
  const smith = ranked[0]![1] / total;
  assert(smith > 0.005 && smith < 0.012, `SMITH share ${smith}`);
  const top = ranked.slice(0, 10).map((e) => e[0]);
  for (const name of ["JOHNSON", "WILLIAMS", "BROWN", "JONES"]) assert(top.includes(name), name);
  const singletons = ranked.filter((e) => e[1] === 1).length;
  assert(singletons > 1000, `only ${singletons} names seen once`);
  assert(ranked.some((e) => /^[A-Z']+-[A-Z']+$/.test(e[0])), "no hyphenated surname");
  assert(ranked.some((e) => e[0].startsWith("O'")), "no O' surname");
  for (const [name] of ranked) assert(/^[A-Z][A-Z' -]*[A-Z]$/.test(name), name);
});

Deno.test("[demo] names are upper case; credentials and other names are plausible", () => {
  const upper = /^[A-Z0-9 .,'&/()#-]*$/;
  let formerNames = 0;
  for (const b of sample()) {
    const m = b.main;
    for (
      const i of [
        NPI_COL.lastName,
        NPI_COL.firstName,
        NPI_COL.middleName,
        NPI_COL.credential,
        NPI_COL.orgName,
        NPI_COL.aoLastName,
        NPI_COL.aoFirstName,
        NPI_COL.aoTitle,
        NPI_COL.parentName,
      ]
    ) assert(upper.test(m[i]!), m[i]);
    if (m[NPI_COL.otherLastName] !== "") {
      formerNames++;
      assertEquals(m[NPI_COL.otherLastNameType], "1");
    }
    if (m[NPI_COL.entityType] === "2") {
      assert(m[NPI_COL.orgName] !== "" && m[NPI_COL.aoLastName] !== "");
      assert(/^[0-9]{10}$/.test(m[NPI_COL.aoPhone]!));
      assert(["Y", "N"].includes(m[NPI_COL.subpart]!));
      assertEquals(m[NPI_COL.subpart] === "Y", m[NPI_COL.parentName] !== "");
      assertEquals(m[NPI_COL.lastName], "");
    }
    if (m[NPI_COL.entityType] === "1") assertEquals(m[NPI_COL.orgName], "");
    for (const r of b.otherNames) assert(["3", "4", "5"].includes(r[2]!) && r[1] !== "");
  }
  assert(formerNames > 200);
  const orgs = sample().filter((b) => b.main[NPI_COL.entityType] === "2");
  const withOther = orgs.filter((b) => b.otherNames.length > 0).length / orgs.length;
  assert(withOther >= 0.2 && withOther <= 0.45, `orgs with other names ${withOther}`);
  const names = orgs.map((b) => b.main[NPI_COL.orgName]!);
  assert(names.includes("CVS PHARMACY INC") && names.includes("WALGREEN CO"));
  assert(names.some((n) => / HOSPITAL/.test(n)));
  assert(names.some((n) => /^ST\. /.test(n)));
});

Deno.test("[demo] addresses, phones and postal codes look like NPPES", () => {
  let active = 0;
  let resolved = 0;
  let nine = 0;
  for (const b of sample()) {
    const m = b.main;
    if (isDeactivatedRow(m)) continue;
    active++;
    const loc = NPI_COL.locLine1;
    const postal = m[loc + 4]!;
    if (m[loc + 5] === "US") {
      assert(/^[0-9]{5}([0-9]{4})?$/.test(postal), postal);
      assert(/^[0-9]{10}$/.test(m[loc + 6]!));
      if (postal.length === 9) nine++;
      const z = lookupZip(postal);
      if (z) {
        resolved++;
        assertEquals(z.state, m[loc + 3]);
        assertEquals(z.city, m[loc + 2]);
      }
    }
    assert(m[loc] !== "" && m[NPI_COL.mailLine1] !== "");
    assert(DATE_SHAPE.test(m[NPI_COL.enumerationDate]!));
    assert(DATE_SHAPE.test(m[NPI_COL.lastUpdated]!));
    assert(toDays(m[NPI_COL.lastUpdated]!) >= toDays(m[NPI_COL.enumerationDate]!));
    if (m[NPI_COL.certificationDate] !== "") assert(DATE_SHAPE.test(m[NPI_COL.certificationDate]!));
    for (const r of b.locations) assert(lookupZip(r[5]!) !== null && /^[0-9]{10}$/.test(r[7]!));
  }
  const resolvedShare = resolved / active;
  assert(resolvedShare >= 0.985 && resolvedShare < 1, `resolved ${resolvedShare}`);
  const nineShare = nine / active;
  assert(nineShare > 0.4 && nineShare < 0.8, `9-digit share ${nineShare}`);
});

Deno.test("[demo] places follow population: big states and cities get most providers", () => {
  const pool = new ZipPool();
  const ca = pool.stateShare("CA");
  assert(ca > 0.1 && ca < 0.14, `CA share ${ca}`);
  assert(pool.stateShare("WY") < 0.003);
  const states = new Map<string, number>();
  for (const b of sample()) {
    const s = b.main[NPI_COL.locLine1 + 3]!;
    if (s !== "") states.set(s, (states.get(s) ?? 0) + 1);
  }
  const ranked = [...states].sort((a, b) => b[1] - a[1]).map((e) => e[0]);
  assert(ranked.slice(0, 4).includes("CA") && ranked.slice(0, 4).includes("TX"), ranked.join());
  const places = new Set(allZips().map((z) => `${z.state}|${z.city}`));
  for (const key of Object.keys(CITY_POPULATION_2020)) {
    assert(places.has(key), `unknown city ${key}`);
  }
});

Deno.test("[demo] secondary locations, endpoints and identifiers in realistic shares", () => {
  const active = sample().filter((b) => !isDeactivatedRow(b.main));
  const withPl = active.filter((b) => b.locations.length > 0).length / active.length;
  assert(withPl >= 0.07 && withPl <= 0.15, `pl share ${withPl}`);
  assert(active.every((b) => b.locations.length <= 2));
  const withEndpoints = active.filter((b) => b.endpoints.length > 0).length / active.length;
  assert(withEndpoints >= 0.03 && withEndpoints <= 0.09, `endpoint share ${withEndpoints}`);
  for (const b of active) {
    for (const e of b.endpoints) {
      const host = e[3]!.includes("@") ? e[3]!.split("@")[1]! : new URL(e[3]!).hostname;
      assert(/\.example\.(com|org|net)$/.test(host), e[3]);
      assert(["DIRECT", "FHIR", "REST", "SOAP", "OTHERS"].includes(e[1]!));
      assert(["Y", "N"].includes(e[4]!));
    }
  }
  const identifierType = NPIDATA_COLUMNS.indexOf("Other Provider Identifier Type Code_1");
  const types = new Set(active.map((b) => b.main[identifierType]!).filter((t) => t !== ""));
  assert(types.has("05") && types.has("01"), [...types].join());
  const withIds = active.filter((b) => b.main[identifierType] !== "").length / active.length;
  assert(withIds > 0.1 && withIds < 0.4, `identifier share ${withIds}`);
});

Deno.test("[demo] formatDemoRow matches formatNppesRow exactly", () => {
  for (const b of sample().slice(0, 2000)) {
    for (const row of [b.main, ...b.otherNames, ...b.locations, ...b.endpoints]) {
      assertEquals(formatDemoRow(row), formatNppesRow(row));
    }
  }
  const quoted = ["1003000126", 'SAM"PLE', ""];
  assertEquals(formatDemoRow(quoted), formatNppesRow(quoted));
  assertEquals(formatDemoRow([]), formatNppesRow([]));
});

Deno.test("[demo] writeDemoCsv writes NPPES files with layouts and counts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "demo_csv_" });
  try {
    const records = 3000;
    const { files } = await writeDemoCsv(`${dir}/out`, { records, seed: 11 });
    assertEquals(files.map((f) => f.kind), [
      "npidata",
      "othername",
      "pl",
      "endpoint",
      "deactivated",
    ]);
    const names = files.map((f) => f.path.slice(f.path.lastIndexOf("/") + 1));
    assertEquals(names, [
      "npidata_pfile_20050523-20260810.csv",
      "othername_pfile_20050523-20260810.csv",
      "pl_pfile_20050523-20260810.csv",
      "endpoint_pfile_20050523-20260810.csv",
      "deactivated_npi_report_20260810.csv",
    ]);
    const bundles = [...generateDemo({ records, seed: 11 })];
    const expected = {
      npidata: records,
      othername: bundles.reduce((s, b) => s + b.otherNames.length, 0),
      pl: bundles.reduce((s, b) => s + b.locations.length, 0),
      endpoint: bundles.reduce((s, b) => s + b.endpoints.length, 0),
      deactivated: bundles.filter((b) => isDeactivatedRow(b.main)).length,
    };
    for (const f of files) {
      const text = await Deno.readTextFile(f.path);
      const lines = text.split("\r\n");
      assertEquals(lines.pop(), "");
      assertEquals(lines.length - 1, f.rows, f.kind);
      assertEquals(f.rows, expected[f.kind], f.kind);
      if (f.kind === "deactivated") {
        assertEquals(lines[0], DEACTIVATED_HEADER);
        for (const line of lines.slice(1)) {
          assert(/^[12][0-9]{9},[0-9]{2}\/[0-9]{2}\/[0-9]{4}$/.test(line));
        }
      } else {
        assertEquals(lines[0]! + "\r\n", formatNppesRow(LAYOUTS[f.kind]));
      }
    }
    const main = (await Deno.readTextFile(files[0]!.path)).split("\r\n");
    assertEquals(main[1]! + "\r\n", formatNppesRow(bundles[0]!.main));
    assertEquals(main[records]! + "\r\n", formatNppesRow(bundles[records - 1]!.main));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[demo] weighted tables and the PRNG are deterministic and fair", () => {
  const a = new Rng(123);
  const b = new Rng(123);
  for (let i = 0; i < 100; i++) assertEquals(a.uint32(), b.uint32());
  const table = new WeightedTable(["x", "y", "z"], [1, 2, 7]);
  const rng = new Rng(99);
  const counts = { x: 0, y: 0, z: 0 };
  for (let i = 0; i < 100_000; i++) counts[table.sample(rng) as "x" | "y" | "z"]++;
  assert(Math.abs(counts.z / 100_000 - 0.7) < 0.01);
  assert(Math.abs(counts.x / 100_000 - 0.1) < 0.01);
  assertThrows(() => new WeightedTable(["a"], [0]), RangeError);
});

Deno.test("[demo] speed: 200,000 bundles", () => {
  const start = performance.now();
  let n = 0;
  for (const _ of generateDemo({ records: 200_000 })) n++;
  const seconds = (performance.now() - start) / 1000;
  const rate = Math.round(n / seconds);
  console.log(`[demo] 200,000 bundles in ${seconds.toFixed(2)} s: ${rate} bundles/s`);
  assertEquals(n, 200_000);
  assert(rate > 20_000, `only ${rate} bundles/s`);
});
