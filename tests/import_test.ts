import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { ImportError, runImport } from "../lib/import/importer.ts";
import type { Progress } from "../lib/import/progress.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { type PlaceMatch, searchQuery } from "../lib/search/query.ts";
import { ENDPOINT_COLUMNS, NPIDATA_COLUMNS, PL_COLUMNS } from "../lib/nppes/columns.ts";
import {
  endpointRows,
  mainRows,
  NPI,
  npi,
  plRows,
  row,
  writeCsv,
  writeFixtureFiles,
} from "./_fixtures.ts";

/** A progress reporter that keeps its notes. */
function quietProgress(): Progress & { notes: string[] } {
  const notes: string[] = [];
  return { notes, start() {}, update() {}, finish() {}, note: (line) => notes.push(line) };
}

async function importFixture(dir: string, extra: Partial<Parameters<typeof runImport>[0]> = {}) {
  const files = await writeFixtureFiles(dir);
  const progress = quietProgress();
  const summary = await runImport({ db: `${dir}/providers.db`, ...files, progress, ...extra });
  return { summary, progress, files, db: `${dir}/providers.db` };
}

Deno.test("[import] all four files: every provider with its other names, locations and endpoints", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const { summary, db } = await importFixture(dir);
    assertEquals(summary.files.map((f) => [f.kind, f.rows, f.skipped]), [
      ["npidata", 7, 0],
      ["othername", 1, 0],
      ["pl", 1, 0],
      ["endpoint", 1, 0],
    ]);
    const store = openSqliteStore(db);
    try {
      await t.step("dataset", () => {
        const info = store.dataset();
        assertEquals(info.source, "nppes");
        assertEquals(info.synthetic, false);
        assertEquals(info.records, 7);
        assertEquals(info.active, 6);
        assertEquals(info.deactivated, 1);
        assertEquals(info.files.length, 4);
        assertEquals(info.zip_dataset, "zipcodes@8.0.0");
      });
      await t.step("an individual, as the contract shows it", async () => {
        const p = store.getProvider(NPI.enkeshafi)!;
        assertEquals(p.entity_type, "individual");
        assertEquals(p.status, "active");
        assertEquals(p.name, "ARDALAN ENKESHAFI M.D.");
        assertEquals(p.individual?.sex, "M");
        assertEquals(p.individual?.sole_proprietor, false);
        assertEquals(p.taxonomies[0]?.code, "207RH0003X");
        assertEquals(p.taxonomies[0]?.primary, true);
        assertEquals(p.taxonomies[0]?.description, "Hematology & Oncology Physician");
        assertEquals(p.practice_location?.postal_code, "208171841");
        assert(Math.abs((p.practice_location?.lat ?? 0) - 39.0) < 0.2, "lat from the ZIP centroid");
        assertEquals(p.other_locations.length, 1);
        assertEquals(p.other_locations[0]?.city, "ROCKVILLE");
        assertEquals(p.other_locations[0]?.phone_extension, "12");
        assert(p.other_locations[0]?.lat !== null);
        assertEquals(p.other_names, [{ type: "former_name", name: "ARDALAN SHAFI" }]);
        assertEquals(p.identifiers, [{
          type: "medicaid",
          identifier: "12345",
          state: "MD",
          issuer: null,
        }]);
        assertEquals(p.enumeration_date, "2007-08-31");
        await t.assertSnapshot(p);
      });
      await t.step("an organization with a DBA and an endpoint", () => {
        const p = store.getProvider(NPI.memorial)!;
        assertEquals(p.entity_type, "organization");
        assertEquals(p.individual, null);
        assertEquals(p.organization?.name, "SPRINGFIELD MEMORIAL HOSPITAL");
        assertEquals(p.organization?.authorized_official?.title, "CEO");
        assertEquals(p.other_names, [{
          type: "doing_business_as",
          name: "MEMORIAL MEDICAL CENTER",
        }]);
        assertEquals(p.endpoints[0]?.endpoint, "https://fhir.example.org/r4");
        assertEquals(p.endpoints[0]?.type, "FHIR");
      });
      await t.step("a deactivated NPI is known", () => {
        const p = store.getProvider(NPI.gone)!;
        assertEquals(p.status, "deactivated");
        assertEquals(p.deactivation_date, "2020-06-15");
        assertEquals(p.entity_type, null);
      });
      await t.step("an unknown NPI is null", () => {
        assertEquals(store.getProvider(npi("199999999")), null);
      });
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] malformed rows are skipped, counted and reported with their line numbers", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = await writeFixtureFiles(dir);
    const good = mainRows();
    const short = ["1234567893", "1"]; // wrong field count
    const badNpi = row(NPIDATA_COLUMNS, { NPI: "1234567890", "Entity Type Code": "1" });
    await writeCsv(
      files.npi,
      NPIDATA_COLUMNS,
      [good[0]!, short, good[1]!, badNpi],
      '"unterminated,\n',
    );
    const progress = quietProgress();
    const summary = await runImport({ db: `${dir}/p.db`, npi: files.npi, progress });
    assertEquals(summary.files[0]?.rows, 2);
    assertEquals(summary.files[0]?.skipped, 3);
    assertMatch(progress.notes[0]!, /:3: skipped: expected 330 fields, found 2/);
    assertMatch(progress.notes[1]!, /:5: skipped: '1234567890' is not a valid NPI/);
    assertMatch(progress.notes[2]!, /:6: skipped: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] a wrong header is fatal, names the column, and leaves the served database as it was", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { db } = await importFixture(dir);
    const before = await Deno.readFile(db);
    const header = [...NPIDATA_COLUMNS];
    header[41] = "Provider Favourite Colour";
    await writeCsv(`${dir}/bad.csv`, header, mainRows());
    const error: ImportError = await assertRejects(
      () => runImport({ db, npi: `${dir}/bad.csv`, progress: quietProgress() }),
      ImportError,
    );
    assertMatch(
      error.message,
      /column 42: expected 'Provider Sex Code', found 'Provider Favourite Colour'/,
    );
    assertEquals(await Deno.readFile(db), before);
    const leftovers = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) =>
      /building|stage/.test(n)
    );
    assertEquals(leftovers, []);
    await writeCsv(`${dir}/pl_as_npi.csv`, PL_COLUMNS, []);
    const wrongKind: ImportError = await assertRejects(
      () => runImport({ db, npi: `${dir}/pl_as_npi.csv`, progress: quietProgress() }),
      ImportError,
    );
    assertMatch(wrongKind.message, /expected 330 columns for a npidata file, found 10/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] reference files: bad rows are skipped with their lines, a wrong or empty file is fatal", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const files = await writeFixtureFiles(dir);
    /** The error of an import of the fixture files with `replaced` swapped in. */
    const failedImport = (replaced: Partial<typeof files>): Promise<ImportError> =>
      assertRejects(
        () => runImport({ db: `${dir}/q.db`, ...files, ...replaced, progress: quietProgress() }),
        ImportError,
      );
    await t.step("bad rows", async () => {
      const [good] = plRows();
      await writeCsv(files.pl, PL_COLUMNS, [good!, ["1234567893", "x"], good!], '"open,\n');
      await writeCsv(files.endpoint, ENDPOINT_COLUMNS, [
        row(ENDPOINT_COLUMNS, { NPI: "1234567890", Endpoint: "https://x.example" }),
        ...endpointRows(),
      ]);
      const progress = quietProgress();
      const summary = await runImport({ db: `${dir}/p.db`, ...files, progress });
      const counts = summary.files.map((f) => [f.kind, f.rows, f.skipped]);
      const main = mainRows().length;
      const expected = [["npidata", main, 0], ["othername", 1, 0], ["pl", 2, 2], [
        "endpoint",
        1,
        1,
      ]];
      assertEquals(counts, expected);
      assertEquals(progress.notes.length, 3);
      assertMatch(progress.notes[0]!, /pl_pfile.*:3: skipped: expected 10 fields, found 2/);
      assertMatch(progress.notes[1]!, /pl_pfile.*:5: skipped: Unterminated quoted field/);
      assertMatch(
        progress.notes[2]!,
        /endpoint_pfile.*:2: skipped: '1234567890' is not a valid NPI/,
      );
      const store = openSqliteStore(`${dir}/p.db`);
      try {
        assertEquals(store.getProvider(NPI.enkeshafi)?.other_locations.length, 2);
      } finally {
        store.close();
      }
    });
    await t.step("a wrong header names the file and the option", async () => {
      await writeCsv(files.pl, PL_COLUMNS, plRows());
      await writeCsv(`${dir}/wrong.csv`, ENDPOINT_COLUMNS, endpointRows());
      const error = await failedImport({ othername: `${dir}/wrong.csv` });
      assertMatch(
        error.message,
        /'.*wrong\.csv' as a othername file: wrong header: expected 3 columns/,
      );
      assertMatch(error.message, /right one for --othername/);
    });
    await t.step("an empty file", async () => {
      await Deno.writeTextFile(`${dir}/empty.csv`, "");
      const error = await failedImport({ endpoint: `${dir}/empty.csv` });
      assertMatch(error.message, /'.*empty\.csv': the file is empty/);
      assertEquals([...Deno.readDirSync(dir)].filter((e) => e.name.startsWith("q.db")), []);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] both header spellings are accepted (Provider Gender Code, Issue_n, one-space pl)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const header = NPIDATA_COLUMNS.map((c) =>
      c === "Provider Sex Code"
        ? "Provider Gender Code"
        : c.replace(/^Other Provider Identifier Issuer_/, "Other Provider Identifier Issue_")
    );
    await writeCsv(`${dir}/old.csv`, header, mainRows());
    const plHeader = PL_COLUMNS.map((c) => c.replace("Address-  Address", "Address- Address"));
    await writeCsv(`${dir}/pl.csv`, plHeader, []);
    const summary = await runImport({
      db: `${dir}/p.db`,
      npi: `${dir}/old.csv`,
      pl: `${dir}/pl.csv`,
      progress: quietProgress(),
    });
    assertEquals(summary.files[0]?.rows, 7);
    const store = openSqliteStore(`${dir}/p.db`);
    assertEquals(store.getProvider(NPI.obrien)?.individual?.sex, "F");
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The NPIs of the active providers one address of which meets `place`, by the index. */
function npisAt(db: string, place: Partial<PlaceMatch>): string[] {
  const store = openSearchableStore(db);
  try {
    const query = searchQuery({
      places: { scope: "any", city: null, state: null, postal: null, ...place },
      includeDeactivated: false,
      limit: 100,
    });
    const page = store.search(query);
    const ids = page.hits.map((h) => h.id);
    return store.getProvidersById(ids).map((r) => r.provider.npi);
  } finally {
    store.close();
  }
}

Deno.test("[import] --update rebuilds the place fields of secondary locations", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { db } = await importFixture(dir);
    assertEquals(npisAt(db, { scope: "secondary", city: "ROCKVILLE", state: "MD" }), [
      NPI.enkeshafi,
    ]);
    // The weekly pl file replaces the NPI's locations with two others.
    const location = (line1: string, city: string, postal: string) =>
      row(PL_COLUMNS, {
        "NPI": NPI.enkeshafi,
        "Provider Secondary Practice Location Address- Address Line 1": line1,
        "Provider Secondary Practice Location Address - City Name": city,
        "Provider Secondary Practice Location Address - State Name": "MD",
        "Provider Secondary Practice Location Address - Postal Code": postal,
      });
    await writeCsv(`${dir}/weekly_pl.csv`, PL_COLUMNS, [
      location("1 A ST", "GAITHERSBURG", "20877"),
      location("2 B ST", "BETHESDA", "20814"),
    ]);
    await writeCsv(`${dir}/weekly.csv`, NPIDATA_COLUMNS, []);
    await runImport({
      db,
      npi: `${dir}/weekly.csv`,
      pl: `${dir}/weekly_pl.csv`,
      update: true,
      progress: quietProgress(),
    });
    assertEquals(npisAt(db, { scope: "secondary", city: "ROCKVILLE" }), []);
    assertEquals(npisAt(db, { city: "GAITHERSBURG", postal: { digits: "20877", prefix: false } }), [
      NPI.enkeshafi,
    ]);
    assertEquals(npisAt(db, { city: "BETHESDA", state: "MD" }), [NPI.enkeshafi]);
    // City of one location, ZIP of the other: not one address.
    assertEquals(
      npisAt(db, { city: "GAITHERSBURG", postal: { digits: "20814", prefix: false } }),
      [],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] --update upserts weekly rows and keeps the rest", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { db } = await importFixture(dir);
    const changed = mainRows()[2]!.slice();
    changed[NPIDATA_COLUMNS.indexOf("Provider Last Name (Legal Name)")] = "O'BRIEN-WALSH";
    const added = row(NPIDATA_COLUMNS, {
      NPI: npi("100000009"),
      "Entity Type Code": "1",
      "Provider Last Name (Legal Name)": "NEWCOMER",
      "Provider First Name": "ANA",
      "Healthcare Provider Taxonomy Code_1": "363L00000X",
      "Healthcare Provider Primary Taxonomy Switch_1": "Y",
    });
    await writeCsv(`${dir}/weekly.csv`, NPIDATA_COLUMNS, [changed, added]);
    await runImport({ db, npi: `${dir}/weekly.csv`, update: true, progress: quietProgress() });
    const store = openSqliteStore(db);
    try {
      assertEquals(store.dataset().records, 8);
      assertEquals(store.getProvider(NPI.obrien)?.individual?.last_name, "O'BRIEN-WALSH");
      assertEquals(store.getProvider(npi("100000009"))?.name, "ANA NEWCOMER");
      const kept = store.getProvider(NPI.enkeshafi)!;
      assertEquals(kept.other_locations.length, 1, "reference rows survive an update");
      assertEquals(store.getProvider(NPI.memorial)?.other_names.length, 1);
      assertEquals(store.dataset().files.length, 5);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] --deactivated (CSV) marks NPIs and keeps reactivations active", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { db } = await importFixture(dir);
    await Deno.writeTextFile(
      `${dir}/deactivated.csv`,
      `NPI,NPPES Deactivation Date\n${NPI.smithDentist},01/15/2026\n${
        npi("100000010")
      },02/01/2026\nnot-an-npi,01/01/2026\n`,
    );
    const progress = quietProgress();
    await runImport({ db, deactivated: `${dir}/deactivated.csv`, progress });
    assertMatch(progress.notes[0]!, /deactivated\.csv:4: skipped: 'not-an-npi' is not a valid NPI/);
    const store = openSqliteStore(db);
    try {
      const p = store.getProvider(NPI.smithDentist)!;
      assertEquals(p.status, "deactivated");
      assertEquals(p.deactivation_date, "2026-01-15");
      assertEquals(p.name, "JOHN SMITH DDS", "the record is kept");
      assertEquals(store.getProvider(npi("100000010"))?.status, "deactivated");
      assertEquals(store.dataset().active, 5);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] a reactivated NPI is active", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const back = row(NPIDATA_COLUMNS, {
      NPI: npi("100000011"),
      "Entity Type Code": "1",
      "Provider Last Name (Legal Name)": "RETURNED",
      "NPI Deactivation Date": "01/01/2019",
      "NPI Reactivation Date": "03/01/2019",
    });
    await writeCsv(`${dir}/n.csv`, NPIDATA_COLUMNS, [back]);
    await runImport({ db: `${dir}/p.db`, npi: `${dir}/n.csv`, progress: quietProgress() });
    const store = openSqliteStore(`${dir}/p.db`);
    assertEquals(store.getProvider(npi("100000011"))?.status, "active");
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] missing files and empty input are clear errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing: ImportError = await assertRejects(
      () => runImport({ db: `${dir}/p.db`, npi: `${dir}/nope.csv`, progress: quietProgress() }),
      ImportError,
    );
    assertMatch(missing.message, /Cannot read '.*nope\.csv'/);
    await Deno.writeTextFile(`${dir}/empty.csv`, "");
    const empty: ImportError = await assertRejects(
      () => runImport({ db: `${dir}/p.db`, npi: `${dir}/empty.csv`, progress: quietProgress() }),
      ImportError,
    );
    assertMatch(empty.message, /empty/);
    const noDb: ImportError = await assertRejects(
      () => runImport({ db: `${dir}/none.db`, update: true, progress: quietProgress() }),
      ImportError,
    );
    assertMatch(noDb.message, /does not exist; run a full import/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] --deactivated reads the .xlsx report as CMS publishes it", async () => {
  const { makeZip } = await import("./_zip.ts");
  const dir = await Deno.makeTempDir();
  try {
    const { db } = await importFixture(dir);
    const cell = (ref: string, text: string) =>
      `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
    const sheet = `<worksheet><sheetData>
<row r="1">${cell("A1", "NPPES Deactivated Records as of Aug 10 2026")}</row>
<row r="2">${cell("A2", "NPI")}${cell("B2", "NPPES Deactivation Date")}</row>
<row r="3">${cell("A3", NPI.pharmacy)}${cell("B3", "03/04/2026")}</row>
<row r="4">${cell("A4", NPI.nakamura)}<c r="B4"><v>45000</v></c></row>
</sheetData></worksheet>`;
    await Deno.writeFile(
      `${dir}/NPPES_Deactivated_NPI_Report_081026.xlsx`,
      await makeZip([{ name: "xl/worksheets/sheet1.xml", data: sheet }]),
    );
    const summary = await runImport({
      db,
      deactivated: `${dir}/NPPES_Deactivated_NPI_Report_081026.xlsx`,
      progress: quietProgress(),
    });
    assertEquals(summary.files[0]?.rows, 2);
    const store = openSqliteStore(db);
    try {
      assertEquals(store.getProvider(NPI.pharmacy)?.deactivation_date, "2026-03-04");
      assertEquals(store.getProvider(NPI.pharmacy)?.status, "deactivated");
      assertEquals(store.getProvider(NPI.nakamura)?.deactivation_date, "2023-03-15");
    } finally {
      store.close();
    }
    await Deno.writeTextFile(`${dir}/broken.xlsx`, "not a zip at all");
    const error: ImportError = await assertRejects(
      () => runImport({ db, deactivated: `${dir}/broken.xlsx`, progress: quietProgress() }),
      ImportError,
    );
    assertMatch(error.message, /broken\.xlsx/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[import] practice ZIPs missing from the ZIP dataset are counted once each", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const nowhere = row(NPIDATA_COLUMNS, {
      NPI: npi("100000012"),
      "Entity Type Code": "1",
      "Provider Last Name (Legal Name)": "NOWHERE",
      "Provider Business Practice Location Address Postal Code": "00001",
      "Provider Business Practice Location Address Country Code (If outside U.S.)": "US",
    });
    await writeCsv(`${dir}/n.csv`, NPIDATA_COLUMNS, [nowhere]);
    await writeCsv(`${dir}/pl.csv`, PL_COLUMNS, [
      row(PL_COLUMNS, {
        NPI: npi("100000012"),
        "Provider Secondary Practice Location Address - Postal Code": "00002",
      }),
      row(PL_COLUMNS, {
        NPI: npi("100000012"),
        "Provider Secondary Practice Location Address - Postal Code": "10001",
      }),
    ]);
    await runImport({
      db: `${dir}/p.db`,
      npi: `${dir}/n.csv`,
      pl: `${dir}/pl.csv`,
      progress: quietProgress(),
    });
    const store = openSqliteStore(`${dir}/p.db`);
    try {
      assertEquals(store.dataset().zips_not_found, 2);
      const p = store.getProvider(npi("100000012"))!;
      assertEquals(p.practice_location?.lat, null);
      assert(p.other_locations[1]?.lat !== null, "a known secondary ZIP is located");
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
