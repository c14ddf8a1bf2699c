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

/** The values every fixture row has: NPI, entity type, practice place and name, taxonomy codes. */
function baseValues(
  npi: string,
  p: {
    org?: string;
    first?: string;
    last?: string;
    city: string;
    state: string;
    zip: string;
    codes: readonly string[];
  },
): Record<string, string> {
  const values: Record<string, string> = {
    "NPI": npi,
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
  }
  p.codes.forEach((code, i) => {
    values[`Healthcare Provider Taxonomy Code_${i + 1}`] = code;
    values[`Healthcare Provider Primary Taxonomy Switch_${i + 1}`] = i === 0 ? "Y" : "N";
  });
  return values;
}

function mainRow(key: string, p: Person): string[] {
  const values = baseValues(NPIS[key]!, p);
  if (!p.org) values["Provider Sex Code"] = p.sex!;
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

/** A provider of the search-box dataset: a person (with title, credential, middle and former name) or an organization. */
export interface BoxPerson {
  first?: string;
  middle?: string;
  last?: string;
  prefix?: string;
  credential?: string;
  /** A former legal name (other-name type 1): last name, first name. */
  former?: [string, string];
  org?: string;
  city: string;
  state: string;
  zip: string;
  codes: string[];
}

const CARDIOLOGY = "207RC0000X";
const AUDIOLOGY = "231H00000X";
const RADIOLOGY = "2085R0202X";
const INTERNAL = "207R00000X";

/** Where the providers of typed names practise: a place no other rule's test names. */
const TOLEDO: Omit<BoxPerson, "first"> = {
  city: "TOLEDO",
  state: "OH",
  zip: "43604",
  codes: [INTERNAL],
};

/**
 * The search-box dataset (tests/search_box_test.ts): names that are also
 * credentials or states, titles and credentials, middle names, former
 * names that sort before the legal ones, and a dozen cardiologists beside
 * audiologists and radiologists one or two edits away.
 */
export const BOX_PEOPLE: Record<string, BoxPerson> = {
  fowler: {
    prefix: "DR.",
    first: "PAUL",
    middle: "BYRON",
    last: "FOWLER",
    credential: "M.D.",
    city: "BALTIMORE",
    state: "MD",
    zip: "212391234",
    codes: [INTERNAL],
  },
  peterFowler: {
    first: "PETER",
    last: "FOWLER",
    credential: "D.O.",
    city: "AUSTIN",
    state: "TX",
    zip: "78701",
    codes: [INTERNAL],
  },
  margaretFowler: {
    first: "MARGARET",
    last: "FOWLER",
    credential: "RN",
    city: "BALTIMORE",
    state: "MD",
    zip: "21201",
    codes: ["163W00000X"],
  },
  paulaFowler: {
    first: "PAULA",
    middle: "ANN",
    last: "FOWLER",
    city: "DENVER",
    state: "CO",
    zip: "80202",
    codes: ["363LF0000X"],
  },
  cistason: {
    first: "MAIRE",
    last: "CISTASON",
    former: ["O'BRIEN", "MAIRE"],
    city: "BOSTON",
    state: "MA",
    zip: "02108",
    codes: [INTERNAL],
  },
  obrien: {
    first: "SIOBHAN",
    last: "O'BRIEN",
    credential: "NP",
    city: "BOSTON",
    state: "MA",
    zip: "02110",
    codes: ["363LF0000X"],
  },
  alexander: {
    first: "BETTY",
    middle: "L",
    last: "ALEXANDER",
    former: ["SMITH", "BETTY"],
    city: "DALLAS",
    state: "TX",
    zip: "75201",
    codes: [INTERNAL],
  },
  baumann: {
    first: "AMY",
    middle: "U",
    last: "BAUMANN",
    former: ["SMITH", "AMY"],
    city: "DALLAS",
    state: "TX",
    zip: "75202",
    codes: [INTERNAL],
  },
  johnSmith: {
    prefix: "DR",
    first: "JOHN",
    last: "SMITH",
    credential: "MD",
    city: "NEW YORK",
    state: "NY",
    zip: "10001",
    codes: [INTERNAL],
  },
  janeSmith: {
    first: "JANE",
    last: "SMITH",
    credential: "DO",
    city: "NEW YORK",
    state: "NY",
    zip: "10002",
    codes: [INTERNAL],
  },
  alSmith: {
    first: "AL",
    last: "SMITH",
    city: "ALBANY",
    state: "NY",
    zip: "12207",
    codes: [INTERNAL],
  },
  bobSmith: {
    first: "BOB",
    last: "SMITH",
    city: "MOBILE",
    state: "AL",
    zip: "36602",
    codes: [INTERNAL],
  },
  anhDo: {
    first: "ANH",
    last: "DO",
    credential: "MD",
    city: "HOUSTON",
    state: "TX",
    zip: "77002",
    codes: [INTERNAL],
  },
  liMa: {
    first: "LI",
    last: "MA",
    credential: "PA-C",
    city: "SEATTLE",
    state: "WA",
    zip: "98101",
    codes: ["363A00000X"],
  },
  kowalczyk: {
    first: "ANNA",
    last: "KOWALCZYK",
    credential: "MD, FACC",
    city: "BETHESDA",
    state: "MD",
    zip: "20817",
    codes: [CARDIOLOGY],
  },
  petrova: {
    first: "OLGA",
    last: "PETROVA",
    former: ["DENVER", "OLGA"],
    city: "MIAMI",
    state: "FL",
    zip: "33101",
    codes: [INTERNAL],
  },
  washington: {
    first: "GEORGE",
    last: "WASHINGTON",
    credential: "CRNA",
    city: "RICHMOND",
    state: "VA",
    zip: "23219",
    codes: ["367500000X"],
  },
  georgeWa: {
    first: "GEORGE",
    last: "ADAMS",
    city: "SEATTLE",
    state: "WA",
    zip: "98101",
    codes: [INTERNAL],
  },
  scottScott: {
    first: "SCOTT",
    middle: "J",
    last: "SCOTT",
    city: "ATLANTA",
    state: "GA",
    zip: "30303",
    codes: [INTERNAL],
  },
  johnScott: {
    first: "JOHN",
    last: "SCOTT",
    city: "ATLANTA",
    state: "GA",
    zip: "30303",
    codes: [INTERNAL],
  },
  jScott: {
    first: "J",
    last: "SCOTT",
    city: "ATLANTA",
    state: "GA",
    zip: "30303",
    codes: [INTERNAL],
  },
  guinn: {
    first: "DANA",
    last: "GUINN",
    city: "MIAMI",
    state: "FL",
    zip: "33101",
    codes: [INTERNAL],
  },
  clinic: {
    org: "CHESAPEAKE HEART CLINIC",
    city: "BALTIMORE",
    state: "MD",
    zip: "21239",
    codes: ["261QP2300X"],
  },
  ...Object.fromEntries(
    [
      "ABBOTT",
      "BAILEY",
      "CARTER",
      "DAWSON",
      "ELLIS",
      "FINCH",
      "GRANT",
      "HAYES",
      "IRWIN",
      "JENSEN",
      "KEMP",
      "LOWE",
    ].map((last) => [
      `cardio${last}`,
      {
        first: "ROBIN",
        last,
        credential: "MD",
        city: "CHICAGO",
        state: "IL",
        zip: "60601",
        codes: [CARDIOLOGY],
      },
    ]),
  ),
  ...Object.fromEntries(
    ["NOLAN", "OWENS", "PRICE"].map((last) => [
      `audio${last}`,
      {
        first: "AUDREY",
        last,
        credential: "AUD",
        city: "CHICAGO",
        state: "IL",
        zip: "60602",
        codes: [AUDIOLOGY],
      },
    ]),
  ),
  ...Object.fromEntries(
    ["QUINN", "REED"].map((last) => [
      `radio${last}`,
      {
        first: "RAY",
        last,
        credential: "MD",
        city: "CHICAGO",
        state: "IL",
        zip: "60603",
        codes: [RADIOLOGY],
      },
    ]),
  ),
  // A name typed whole, the last word unfinished: `john coop`, `cooper jo`. Each of the others
  // sorts before John Cooper and matches the words otherwise (a middle name, a former name).
  johnCooper: { first: "JOHN", last: "COOPER", ...TOLEDO },
  adamCooper: { first: "ADAM", middle: "JOHN", last: "COOPER", ...TOLEDO },
  johnAble: { first: "JOHN", last: "ABLE", former: ["COOPER", "JOHN"], ...TOLEDO },
  colinAbbott: { first: "COLIN", middle: "JOHN", last: "ABBOTT", ...TOLEDO },
  // Others, so that the Johns are a few in many: names typed are looked for in results fewer than
  // a dense set's, an eighth of the providers (`typedNames` in the engine).
  ...Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [
      `filler${i}`,
      {
        first: "PAT",
        last: `VAX${String.fromCharCode(65 + (i % 26))}${
          String.fromCharCode(65 + Math.floor(i / 26))
        }`,
        city: "RENO",
        state: "NV",
        zip: "89501",
        codes: ["1223G0001X"],
      },
    ]),
  ),
  // A John in Colorado: `john co` is a state as much as the start of Cooper.
  johnZimmer: {
    first: "JOHN",
    last: "ZIMMER",
    city: "BOULDER",
    state: "CO",
    zip: "80302",
    codes: [INTERNAL],
  },
};

/** NPIs of a search-box dataset's providers, in their order, by key. */
export function boxNpis(people: Record<string, BoxPerson>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(people).map((key, i) => [key, npi(`1${String(600000 + i).padStart(8, "0")}`)]),
  );
}

/** NPIs of the search-box providers, in the order above. */
export const BOX_NPIS: Record<string, string> = boxNpis(BOX_PEOPLE);

function boxRow(npi: string, p: BoxPerson): string[] {
  const values = baseValues(npi, p);
  if (!p.org) {
    if (p.middle) values["Provider Middle Name"] = p.middle;
    if (p.prefix) values["Provider Name Prefix Text"] = p.prefix;
    if (p.credential) values["Provider Credential Text"] = p.credential;
    if (p.former) {
      values["Provider Other Last Name"] = p.former[0];
      values["Provider Other First Name"] = p.former[1];
      values["Provider Other Last Name Type Code"] = "1";
    }
  }
  return row(NPIDATA_COLUMNS, values);
}

/**
 * Builds the search-box fixture database in `dir` (of `people`, the
 * search-box providers by default; their NPIs are {@linkcode boxNpis}) and
 * returns its path.
 */
export async function searchBoxFixtureDatabase(
  dir: string,
  people: Record<string, BoxPerson> = BOX_PEOPLE,
): Promise<string> {
  const npis = boxNpis(people);
  const rows = Object.entries(people).map(([key, p]) => boxRow(npis[key]!, p));
  await writeCsv(`${dir}/npidata.csv`, NPIDATA_COLUMNS, rows);
  const progress = { start() {}, update() {}, finish() {}, note() {} };
  await runImport({ db: `${dir}/box.db`, npi: `${dir}/npidata.csv`, progress });
  return `${dir}/box.db`;
}
