/**
 * NPPES-format fixture files for the import, store and route tests, written
 * with the same writer CMS's format rules describe.
 *
 * @module
 */
import { writeDemoCsv } from "../lib/demo/csv.ts";
import type { ImportFiles } from "../scripts/processes.ts";
import {
  ENDPOINT_COLUMNS,
  NPIDATA_COLUMNS,
  OTHERNAME_COLUMNS,
  PL_COLUMNS,
} from "../lib/nppes/columns.ts";
import { formatNppesRow } from "../lib/nppes/csv_write.ts";
import { npiCheckDigit } from "../lib/npi.ts";
import { runImport } from "../lib/import/importer.ts";
import { DatabaseSync } from "node:sqlite";
import { type PartNames, PARTS_META_KEY } from "../lib/store/parts.ts";

/** A valid NPI from its first nine digits. */
export function npi(first9: string): string {
  return first9 + npiCheckDigit(first9);
}

/** A row of `columns` with the named cells set and the rest empty. */
export function row(columns: readonly string[], values: Record<string, string>): string[] {
  const fields = columns.map(() => "");
  for (const [name, value] of Object.entries(values)) {
    const i = columns.indexOf(name);
    if (i < 0) throw new Error(`No column '${name}'`);
    fields[i] = value;
  }
  return fields;
}

/** NPIs of the fixture providers. */
export const NPI = {
  enkeshafi: "1003000126",
  memorial: npi("123456789"),
  obrien: npi("100000001"),
  nakamura: npi("100000002"),
  gone: npi("100000003"),
  smithDentist: npi("100000004"),
  pharmacy: npi("100000005"),
} as const;

function taxonomy(
  slot: number,
  code: string,
  primary: boolean,
  license = "",
  state = "",
): Record<string, string> {
  return {
    [`Healthcare Provider Taxonomy Code_${slot}`]: code,
    [`Provider License Number_${slot}`]: license,
    [`Provider License Number State Code_${slot}`]: state,
    [`Healthcare Provider Primary Taxonomy Switch_${slot}`]: primary ? "Y" : "N",
  };
}

function practice(
  line1: string,
  city: string,
  state: string,
  postal: string,
  phone = "",
): Record<string, string> {
  return {
    "Provider First Line Business Practice Location Address": line1,
    "Provider Business Practice Location Address City Name": city,
    "Provider Business Practice Location Address State Name": state,
    "Provider Business Practice Location Address Postal Code": postal,
    "Provider Business Practice Location Address Country Code (If outside U.S.)": "US",
    "Provider Business Practice Location Address Telephone Number": phone,
  };
}

/** The main-file rows of the fixture. */
export function mainRows(): string[][] {
  const c = NPIDATA_COLUMNS;
  return [
    row(c, {
      "NPI": NPI.enkeshafi,
      "Entity Type Code": "1",
      "Provider Last Name (Legal Name)": "ENKESHAFI",
      "Provider First Name": "ARDALAN",
      "Provider Credential Text": "M.D.",
      "Provider Other Last Name": "SHAFI",
      "Provider Other First Name": "ARDALAN",
      "Provider Other Last Name Type Code": "1",
      "Provider First Line Business Mailing Address": "900 SENECA ST",
      "Provider Business Mailing Address City Name": "BETHESDA",
      "Provider Business Mailing Address State Name": "MD",
      "Provider Business Mailing Address Postal Code": "20817",
      "Provider Business Mailing Address Country Code (If outside U.S.)": "US",
      ...practice("6410 ROCKLEDGE DR STE 304", "BETHESDA", "MD", "208171841", "4436026207"),
      "Provider Enumeration Date": "08/31/2007",
      "Last Update Date": "05/28/2025",
      "Provider Sex Code": "M",
      ...taxonomy(1, "207RH0003X", true, "D0012345", "MD"),
      ...taxonomy(2, "207R00000X", false, "D0012345", "MD"),
      "Other Provider Identifier_1": "12345",
      "Other Provider Identifier Type Code_1": "05",
      "Other Provider Identifier State_1": "MD",
      "Is Sole Proprietor": "N",
    }),
    row(c, {
      "NPI": NPI.memorial,
      "Entity Type Code": "2",
      "Provider Organization Name (Legal Business Name)": "SPRINGFIELD MEMORIAL HOSPITAL",
      ...practice("800 N RUTLEDGE ST", "SPRINGFIELD", "IL", "62781", "2175443000"),
      "Provider Enumeration Date": "05/23/2005",
      "Last Update Date": "01/02/2024",
      "Authorized Official Last Name": "JONES",
      "Authorized Official First Name": "MARY",
      "Authorized Official Title or Position": "CEO",
      "Authorized Official Telephone Number": "2175443001",
      ...taxonomy(1, "282N00000X", true),
      "Is Organization Subpart": "N",
    }),
    row(c, {
      "NPI": NPI.obrien,
      "Entity Type Code": "1",
      "Provider Last Name (Legal Name)": "O'BRIEN",
      "Provider First Name": "KATHLEEN",
      "Provider Credential Text": "NP",
      ...practice("1 MAIN ST", "BOSTON", "MA", "02108"),
      "Provider Sex Code": "F",
      ...taxonomy(1, "363LF0000X", true, "NP123", "MA"),
      "Provider Enumeration Date": "2/3/2010",
    }),
    row(c, {
      "NPI": NPI.nakamura,
      "Entity Type Code": "1",
      "Provider Last Name (Legal Name)": "NAKAMURA-JONES",
      "Provider First Name": "KENJI",
      ...practice("20 PIKE ST", "SEATTLE", "WA", "98101"),
      "Provider Sex Code": "M",
      ...taxonomy(1, "207RC0000X", true),
    }),
    row(c, { "NPI": NPI.gone, "NPI Deactivation Date": "06/15/2020" }),
    row(c, {
      "NPI": NPI.smithDentist,
      "Entity Type Code": "1",
      "Provider Last Name (Legal Name)": "SMITH",
      "Provider First Name": "JOHN",
      "Provider Credential Text": "DDS",
      ...practice("5 ELM ST", "SPRINGFIELD", "IL", "627020000"),
      "Provider Sex Code": "M",
      ...taxonomy(1, "122300000X", true),
    }),
    row(c, {
      "NPI": NPI.pharmacy,
      "Entity Type Code": "2",
      "Provider Organization Name (Legal Business Name)": "SPRINGFIELD DRUG CO",
      ...practice("10 OAK ST", "SPRINGFIELD", "IL", "62701"),
      ...taxonomy(1, "3336C0003X", true),
    }),
  ];
}

/** Fixture rows of the three reference files. */
export function otherNameRows(): string[][] {
  return [
    row(OTHERNAME_COLUMNS, {
      "NPI": NPI.memorial,
      "Provider Other Organization Name": "MEMORIAL MEDICAL CENTER",
      "Provider Other Organization Name Type Code": "3",
    }),
  ];
}

/** Secondary practice locations. */
export function plRows(): string[][] {
  return [
    row(PL_COLUMNS, {
      "NPI": NPI.enkeshafi,
      "Provider Secondary Practice Location Address- Address Line 1": "10 CENTER DR",
      "Provider Secondary Practice Location Address - City Name": "ROCKVILLE",
      "Provider Secondary Practice Location Address - State Name": "MD",
      "Provider Secondary Practice Location Address - Postal Code": "20850",
      "Provider Secondary Practice Location Address - Telephone Extension": "12",
    }),
  ];
}

/** Endpoints. */
export function endpointRows(): string[][] {
  return [
    row(ENDPOINT_COLUMNS, {
      "NPI": NPI.memorial,
      "Endpoint Type": "FHIR",
      "Endpoint Type Description": "FHIR URL",
      "Endpoint": "https://fhir.example.org/r4",
      "Affiliation": "N",
      "Use Code": "OTHER",
    }),
  ];
}

/** Writes a CSV file of `header` and `rows`, NPPES style; `extra` lines are appended raw. */
export async function writeCsv(
  path: string,
  header: readonly string[],
  rows: string[][],
  extra = "",
): Promise<void> {
  await Deno.writeTextFile(path, [header, ...rows].map(formatNppesRow).join("") + extra);
}

/** Writes the four fixture files into `dir`; returns their paths. */
export async function writeFixtureFiles(
  dir: string,
): Promise<{ npi: string; othername: string; pl: string; endpoint: string }> {
  const paths = {
    npi: `${dir}/npidata_pfile_20050523-20260810.csv`,
    othername: `${dir}/othername_pfile_20050523-20260810.csv`,
    pl: `${dir}/pl_pfile_20050523-20260810.csv`,
    endpoint: `${dir}/endpoint_pfile_20050523-20260810.csv`,
  };
  await writeCsv(paths.npi, NPIDATA_COLUMNS, mainRows());
  await writeCsv(paths.othername, OTHERNAME_COLUMNS, otherNameRows());
  await writeCsv(paths.pl, PL_COLUMNS, plRows());
  await writeCsv(paths.endpoint, ENDPOINT_COLUMNS, endpointRows());
  return paths;
}

/** Imports the fixture files into `dir/providers.db` and returns its path. */
export async function fixtureDatabase(dir: string): Promise<string> {
  const files = await writeFixtureFiles(dir);
  const progress = { start() {}, update() {}, finish() {}, note() {} };
  await runImport({ db: `${dir}/providers.db`, ...files, progress });
  return `${dir}/providers.db`;
}

/**
 * NPPES-format demo files of `records` providers in `dir`, as the importer
 * takes them (`deno task import` arguments by kind).
 */
export async function demoImportFiles(
  dir: string,
  records: number,
  seed: number,
): Promise<ImportFiles> {
  const { files } = await writeDemoCsv(dir, { records, seed });
  const byKind = Object.fromEntries(files.map((f) => [f.kind, f.path]));
  return {
    npidata: byKind.npidata!,
    othername: byKind.othername,
    pl: byKind.pl,
    endpoint: byKind.endpoint,
  };
}

/** Rewrites the parts a database's meta names (as an older build, naming fewer, left them). */
export function writePartNames(db: string, parts: PartNames): void {
  const main = new DatabaseSync(db);
  try {
    main.prepare("UPDATE meta SET value = ? WHERE key = ?").run(
      JSON.stringify(parts),
      PARTS_META_KEY,
    );
  } finally {
    main.close();
  }
}
