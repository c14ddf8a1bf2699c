/**
 * A small NPPES-format dataset built for search tests: every ranking,
 * folding, filter and distance rule has providers that tell right from wrong.
 *
 * @module
 */
import { NPIDATA_COLUMNS, OTHERNAME_COLUMNS } from "../lib/nppes/columns.ts";
import { npi, row, writeCsv } from "./_fixtures.ts";
import { runImport } from "../lib/import/importer.ts";

interface Person {
  first?: string;
  last?: string;
  org?: string;
  sex?: "M" | "F";
  city: string;
  state: string;
  zip: string;
  codes: string[];
  deactivated?: boolean;
}

/** The providers, by a short name used in the tests. */
export const PEOPLE: Record<string, Person> = {
  johnSmith: {
    first: "JOHN",
    last: "SMITH",
    sex: "M",
    city: "NEW YORK",
    state: "NY",
    zip: "10001",
    codes: ["207Q00000X"],
  },
  marySmith: {
    first: "MARY",
    last: "SMITH",
    sex: "F",
    city: "BROOKLYN",
    state: "NY",
    zip: "112010001",
    codes: ["207RC0000X"],
  },
  smithson: {
    first: "ALAN",
    last: "SMITHSON",
    sex: "M",
    city: "BOSTON",
    state: "MA",
    zip: "02108",
    codes: ["122300000X"],
  },
  smyth: {
    first: "ROSE",
    last: "SMYTH",
    sex: "F",
    city: "BOSTON",
    state: "MA",
    zip: "02110",
    codes: ["363LF0000X"],
  },
  johnFortSmith: {
    first: "JOHN",
    last: "BAKER",
    sex: "M",
    city: "FORT SMITH",
    state: "AR",
    zip: "72901",
    codes: ["207Q00000X"],
  },
  smithJohnson: {
    first: "SMITH",
    last: "JOHNSON",
    sex: "M",
    city: "DALLAS",
    state: "TX",
    zip: "75201",
    codes: ["207R00000X", "207RC0000X"],
  },
  obrien: {
    first: "KATHLEEN",
    last: "O'BRIEN",
    sex: "F",
    city: "BOSTON",
    state: "MA",
    zip: "02108",
    codes: ["363LF0000X"],
  },
  nakamura: {
    first: "KENJI",
    last: "NAKAMURA-JONES",
    sex: "M",
    city: "SEATTLE",
    state: "WA",
    zip: "98101",
    codes: ["207RC0000X"],
  },
  enkeshafi: {
    first: "ARDALAN",
    last: "ENKESHAFI",
    sex: "M",
    city: "BETHESDA",
    state: "MD",
    zip: "20817",
    codes: ["207RH0003X"],
  },
  dentalOrg: {
    org: "SMITH FAMILY DENTAL PLLC",
    city: "AUSTIN",
    state: "TX",
    zip: "78701",
    codes: ["1223G0001X"],
  },
  hospital: {
    org: "SPRINGFIELD MEMORIAL HOSPITAL",
    city: "SPRINGFIELD",
    state: "IL",
    zip: "62701",
    codes: ["282N00000X"],
  },
  pharmacy: {
    org: "NEW YORK DRUG CO",
    city: "NEW YORK",
    state: "NY",
    zip: "10002",
    codes: ["3336C0003X"],
  },
  gone: {
    first: "OLD",
    last: "SMITH",
    sex: "M",
    city: "NEW YORK",
    state: "NY",
    zip: "10001",
    codes: ["207Q00000X"],
    deactivated: true,
  },
  hoboken: {
    first: "ANNA",
    last: "RIVERA",
    sex: "F",
    city: "HOBOKEN",
    state: "NJ",
    zip: "07030",
    codes: ["207RC0000X"],
  },
  newark: {
    first: "LUIS",
    last: "RIVERA",
    sex: "M",
    city: "NEWARK",
    state: "NJ",
    zip: "07102",
    codes: ["207RC0000X"],
  },
};

/** NPIs of the providers, in the order above. */
export const NPIS: Record<string, string> = Object.fromEntries(
  Object.keys(PEOPLE).map((key, i) => [key, npi(`1${String(500000 + i).padStart(8, "0")}`)]),
);

function mainRow(key: string, p: Person): string[] {
  const values: Record<string, string> = {
    "NPI": NPIS[key]!,
    "Entity Type Code": p.org ? "2" : "1",
    "Provider First Line Business Practice Location Address": "1 MAIN ST",
    "Provider Business Practice Location Address City Name": p.city,
    "Provider Business Practice Location Address State Name": p.state,
    "Provider Business Practice Location Address Postal Code": p.zip,
    "Provider Business Practice Location Address Country Code (If outside U.S.)": "US",
  };
  if (p.org) values["Provider Organization Name (Legal Business Name)"] = p.org;
  else {
    values["Provider First Name"] = p.first!;
    values["Provider Last Name (Legal Name)"] = p.last!;
    values["Provider Sex Code"] = p.sex!;
  }
  p.codes.forEach((code, i) => {
    values[`Healthcare Provider Taxonomy Code_${i + 1}`] = code;
    values[`Healthcare Provider Primary Taxonomy Switch_${i + 1}`] = i === 0 ? "Y" : "N";
  });
  if (p.deactivated) values["NPI Deactivation Date"] = "01/02/2020";
  return row(NPIDATA_COLUMNS, values);
}

/** Builds the search fixture database in `dir` and returns its path. */
export async function searchFixtureDatabase(dir: string): Promise<string> {
  const rows = Object.entries(PEOPLE).map(([key, p]) => mainRow(key, p));
  await writeCsv(`${dir}/npidata.csv`, NPIDATA_COLUMNS, rows);
  await writeCsv(`${dir}/othername.csv`, OTHERNAME_COLUMNS, [
    row(OTHERNAME_COLUMNS, {
      "NPI": NPIS.hospital!,
      "Provider Other Organization Name": "MEMORIAL MEDICAL CENTER",
      "Provider Other Organization Name Type Code": "3",
    }),
    row(OTHERNAME_COLUMNS, {
      "NPI": NPIS.dentalOrg!,
      "Provider Other Organization Name": "JOHN STREET DENTAL",
      "Provider Other Organization Name Type Code": "3",
    }),
  ]);
  const progress = { start() {}, update() {}, finish() {}, note() {} };
  await runImport({
    db: `${dir}/search.db`,
    npi: `${dir}/npidata.csv`,
    othername: `${dir}/othername.csv`,
    progress,
  });
  return `${dir}/search.db`;
}
