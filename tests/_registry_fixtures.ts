/**
 * Fixture records for the NPI Registry API tests: the providers of the
 * documented example responses (`the shared contract notes, `registry_api_v2.1.md``
 * §4, public NPPES data) written as NPPES file rows, plus providers that
 * tell each matching rule right from wrong (among them providers whose
 * mailing address or secondary practice locations lie in another city,
 * state and ZIP than their primary location), and a block of 1,450
 * providers for paging loops.
 *
 * @module
 */
import {
  ENDPOINT_COLUMNS,
  NPIDATA_COLUMNS,
  OTHERNAME_COLUMNS,
  PL_COLUMNS,
} from "../lib/nppes/columns.ts";
import { npi, row, writeCsv } from "./_fixtures.ts";
import { runImport } from "../lib/import/importer.ts";

/** NPIs of the fixture providers by a short name. */
export const REG = {
  fowler: "1316940588",
  sprang: "1053975268",
  barnes: "1063410173",
  steinberg: "1396949913",
  sandySprings: "1639225402",
  inova: "1770626038",
  endpointOwner: "1265829667",
  formerName: npi("170000001"),
  robert: npi("170000002"),
  roberta: npi("170000003"),
  fowlerGone: npi("170000004"),
  pinnacle: npi("170000005"),
  /** Practice in DENVER CO 80205; mailing address in PORTLAND ME 04101-1234. */
  mailAway: npi("170000006"),
  /** Practice in DENVER CO 80206; one secondary location, in BOISE ID 83702. */
  boise: npi("170000007"),
  /**
   * Practice in DENVER CO 80207; two secondary locations: SALEM OR 97301-1234
   * and SALEM MA 01970.
   */
  twoSalems: npi("170000008"),
  /** ANNA FOWLER-BRANDT, once FOWLER: her own last name starts with FOWLER, but is not FOWLER. */
  fowlerBrandt: npi("170000009"),
} as const;

/** Providers of the paging block: last name LOOPER, state KS. */
export const LOOPERS = 1450;

type Values = Record<string, string>;

function location(prefix: "Mailing" | "Practice", a: {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  postal: string;
  country?: string;
  phone?: string;
  fax?: string;
}): Values {
  const p = prefix === "Mailing"
    ? "Business Mailing Address"
    : "Business Practice Location Address";
  const first = prefix === "Mailing"
    ? "Provider First Line Business Mailing Address"
    : "Provider First Line Business Practice Location Address";
  const second = prefix === "Mailing"
    ? "Provider Second Line Business Mailing Address"
    : "Provider Second Line Business Practice Location Address";
  return {
    [first]: a.line1,
    [second]: a.line2 ?? "",
    [`Provider ${p} City Name`]: a.city,
    [`Provider ${p} State Name`]: a.state,
    [`Provider ${p} Postal Code`]: a.postal,
    [`Provider ${p} Country Code (If outside U.S.)`]: a.country ?? "US",
    [`Provider ${p} Telephone Number`]: a.phone ?? "",
    [`Provider ${p} Fax Number`]: a.fax ?? "",
  };
}

function taxonomy(slot: number, code: string, state = "", license = "", group = ""): Values {
  return {
    [`Healthcare Provider Taxonomy Code_${slot}`]: code,
    [`Provider License Number_${slot}`]: license,
    [`Provider License Number State Code_${slot}`]: state,
    [`Healthcare Provider Primary Taxonomy Switch_${slot}`]: slot === 1 ? "Y" : "N",
    [`Healthcare Provider Taxonomy Group_${slot}`]: group,
  };
}

function identifier(slot: number, id: string, type: string, state: string, issuer = ""): Values {
  return {
    [`Other Provider Identifier_${slot}`]: id,
    [`Other Provider Identifier Type Code_${slot}`]: type,
    [`Other Provider Identifier State_${slot}`]: state,
    [`Other Provider Identifier Issuer_${slot}`]: issuer,
  };
}

/** A former name (other name type 1) of a person, in the main file's columns. */
function formerName(first: string, last: string): Values {
  return {
    "Provider Other Last Name": last,
    "Provider Other First Name": first,
    "Provider Other Last Name Type Code": "1",
  };
}

function person(v: {
  npi: string;
  prefix?: string;
  first: string;
  middle?: string;
  last: string;
  credential?: string;
  sole?: "Y" | "N";
  sex: "M" | "F";
  enumerated: string;
  updated: string;
}): Values {
  return {
    "NPI": v.npi,
    "Entity Type Code": "1",
    "Provider Name Prefix Text": v.prefix ?? "",
    "Provider First Name": v.first,
    "Provider Middle Name": v.middle ?? "",
    "Provider Last Name (Legal Name)": v.last,
    "Provider Credential Text": v.credential ?? "",
    "Is Sole Proprietor": v.sole ?? "",
    "Provider Sex Code": v.sex,
    "Provider Enumeration Date": v.enumerated,
    "Last Update Date": v.updated,
  };
}

function mainRows(): string[][] {
  const rows: Values[] = [
    // Example 1.
    {
      ...person({
        npi: REG.fowler,
        first: "PAUL",
        middle: "BYRON",
        last: "FOWLER",
        credential: "M.D.",
        sole: "N",
        sex: "M",
        enumerated: "05/23/2005",
        updated: "05/27/2010",
      }),
      ...location("Practice", {
        line1: "5601 LOCH RAVEN BLVD",
        city: "BALTIMORE",
        state: "MD",
        postal: "212392905",
        phone: "4105325258",
        fax: "4105325276",
      }),
      ...location("Mailing", {
        line1: "9105 FRANKLIN SQUARE DR",
        line2: "STE 100",
        city: "BALTIMORE",
        state: "MD",
        postal: "212375333",
        phone: "4106826800",
        fax: "4106822783",
      }),
      ...taxonomy(1, "174400000X", "MD", "DOO44314"),
      ...identifier(1, "48452", "05", "MD"),
    },
    // Example 2.
    {
      ...person({
        npi: REG.sprang,
        first: "KELSEY",
        middle: "R",
        last: "SPRANG",
        credential: "PSYD",
        sole: "N",
        sex: "F",
        enumerated: "04/24/2019",
        updated: "04/24/2019",
      }),
      ...location("Practice", {
        line1: "12 EXECUTIVE PARK DRIVE NE",
        line2: "RM 388",
        city: "ATLANTA",
        state: "GEORGIA",
        postal: "30329",
        country: "AA",
        phone: "4047780922",
      }),
      ...location("Mailing", {
        line1: "12 EXECUTIVE PARK DR NE RM 388",
        city: "ATLANTA",
        state: "GA",
        postal: "303292206",
        phone: "4047780922",
      }),
      ...taxonomy(1, "103TC0700X", "GA", "NA"),
    },
    {
      ...person({
        npi: REG.barnes,
        prefix: "DR.",
        first: "ANTHONY",
        middle: "EDWARD",
        last: "BARNES",
        credential: "M.D",
        sole: "Y",
        sex: "M",
        enumerated: "07/12/2005",
        updated: "02/06/2014",
      }),
      ...location("Practice", {
        line1: "777 CLEVELAND AVE SW",
        line2: "SUITE 604",
        city: "ATLANTA",
        state: "GA",
        postal: "303157129",
        phone: "4047686611",
        fax: "4047683454",
      }),
      ...location("Mailing", {
        line1: "777 CLEVELAND AVENUE",
        line2: "SUITE 604",
        city: "ATLANTA",
        state: "GA",
        postal: "30315",
        country: "UM",
        phone: "4047686611",
        fax: "4047683454",
      }),
      ...taxonomy(1, "208800000X", "GA", "041718"),
      ...identifier(1, "1063410173", "01", "GA", "BLUE CROSS BLUE SHIELD"),
      ...identifier(2, "331185", "01", "GA", "WELLCARE"),
      ...identifier(3, "5244142", "01", "GA", "AETNA"),
      ...identifier(4, "1916108", "01", "GA", "UNITED HEALTHCARE"),
      ...identifier(5, "000700499E", "05", "GA"),
    },
    // Extra A.
    {
      ...person({
        npi: REG.steinberg,
        prefix: "DR.",
        first: "AMIR",
        middle: "S",
        last: "STEINBERG",
        credential: "M.D.",
        sole: "Y",
        sex: "M",
        enumerated: "06/14/2007",
        updated: "02/26/2019",
      }),
      ...location("Practice", {
        line1: "10 E 102ND ST",
        city: "NEW YORK",
        state: "NY",
        postal: "100296030",
        phone: "2122416756",
      }),
      ...location("Mailing", {
        line1: "25 STONEYSIDE DR",
        city: "LARCHMONT",
        state: "NY",
        postal: "105381417",
        phone: "9177211492",
      }),
      ...taxonomy(1, "207RX0202X", "NY", "227894-1"),
    },
    // Extra B.
    {
      "NPI": REG.sandySprings,
      "Entity Type Code": "2",
      "Provider Organization Name (Legal Business Name)": "SANDY SPRINGS HEALTH CENTER",
      "Is Organization Subpart": "N",
      "Provider Enumeration Date": "01/26/2007",
      "Last Update Date": "07/09/2007",
      "Authorized Official Credential Text": "M.D.",
      "Authorized Official First Name": "STEVEN",
      "Authorized Official Last Name": "KATKOWSKY",
      "Authorized Official Middle Name": "R",
      "Authorized Official Telephone Number": "4047301202",
      "Authorized Official Title or Position": "HEALTH DIRECTOR",
      "Authorized Official Name Prefix Text": "DR.",
      ...location("Practice", {
        line1: "330 JOHNSON FERRY RD NE",
        city: "ATLANTA",
        state: "GA",
        postal: "303284128",
        phone: "4043036162",
        fax: "4042572184",
      }),
      ...location("Mailing", {
        line1: "99 JESSE HILL JR. DRIVE",
        line2: "ROOM 402",
        city: "ATLANTA",
        state: "AL",
        postal: "30303",
        phone: "4047301217",
        fax: "4047301233",
      }),
      ...taxonomy(1, "251K00000X"),
    },
    // Extra C.
    {
      "NPI": REG.inova,
      "Entity Type Code": "2",
      "Provider Organization Name (Legal Business Name)": "INOVA FAIRFAX HOSPITAL",
      "Is Organization Subpart": "N",
      "Provider Enumeration Date": "02/15/2007",
      "Last Update Date": "10/01/2008",
      "Authorized Official Credential Text": "NP",
      "Authorized Official First Name": "KELLY",
      "Authorized Official Last Name": "SOLOMON",
      "Authorized Official Middle Name": "ANN",
      "Authorized Official Name Prefix Text": "Mrs.",
      "Authorized Official Name Suffix Text": "--",
      "Authorized Official Telephone Number": "7037764132",
      "Authorized Official Title or Position": "Thoracic Nurse Practitioner",
      ...location("Mailing", {
        line1: "12609 LAMP POST LN",
        city: "POTOMAC",
        state: "MD",
        postal: "208542314",
        phone: "3013093781",
      }),
      ...location("Practice", {
        line1: "3300 GALLOWS RD",
        city: "FALLS CHURCH",
        state: "VA",
        postal: "220423307",
        phone: "7037764132",
      }),
      ...identifier(1, "0017138748", "01", "VA", "Nurse Practitioner number"),
      ...taxonomy(1, "282N00000X", "VA", "0017138748"),
    },
    // Extra D's provider (the endpoint is in the endpoint file).
    {
      ...person({
        npi: REG.endpointOwner,
        first: "MARK",
        last: "ABROMS",
        sex: "M",
        enumerated: "03/01/2006",
        updated: "03/01/2020",
      }),
      ...location("Practice", {
        line1: "1 PARK AVE",
        city: "NEW YORK",
        state: "NY",
        postal: "100165802",
      }),
      ...taxonomy(1, "207Q00000X", "NY", "123"),
    },
    // A former surname: found by the index's name keys, but not a last_name match.
    {
      ...person({
        npi: REG.formerName,
        first: "JANE",
        last: "DOE",
        sex: "F",
        enumerated: "01/01/2010",
        updated: "01/01/2020",
      }),
      ...formerName("JANE", "SMITHERS"),
      ...location("Practice", { line1: "1 A ST", city: "DENVER", state: "CO", postal: "80202" }),
      ...taxonomy(1, "207Q00000X", "CO", "1"),
    },
    // Nicknames: ROBERT is found by BOB, ROBERTA is not.
    {
      ...person({
        npi: REG.robert,
        first: "ROBERT",
        last: "BROWNING",
        sex: "M",
        enumerated: "01/01/2010",
        updated: "01/01/2020",
      }),
      ...location("Practice", { line1: "2 B ST", city: "DENVER", state: "CO", postal: "80203" }),
      ...taxonomy(1, "207Q00000X", "CO", "2"),
    },
    {
      ...person({
        npi: REG.roberta,
        first: "ROBERTA",
        last: "BROWNING",
        sex: "F",
        enumerated: "01/01/2010",
        updated: "01/01/2020",
      }),
      ...location("Practice", { line1: "3 C ST", city: "DENVER", state: "CO", postal: "80204" }),
      ...taxonomy(1, "207Q00000X", "CO", "3"),
    },
    // Deactivated: never returned.
    {
      ...person({
        npi: REG.fowlerGone,
        first: "OLD",
        last: "FOWLER",
        sex: "M",
        enumerated: "01/01/2006",
        updated: "01/01/2019",
      }),
      "NPI Deactivation Date": "02/01/2019",
      ...location("Practice", {
        line1: "5601 LOCH RAVEN BLVD",
        city: "BALTIMORE",
        state: "MD",
        postal: "21239",
      }),
      ...taxonomy(1, "174400000X", "MD", "4"),
    },
    // An organization known by another name (in the othername file).
    {
      "NPI": REG.pinnacle,
      "Entity Type Code": "2",
      "Provider Organization Name (Legal Business Name)": "ACME HOLDINGS LLC",
      "Is Organization Subpart": "N",
      "Provider Enumeration Date": "01/01/2012",
      "Last Update Date": "01/01/2021",
      "Authorized Official First Name": "ROB",
      "Authorized Official Last Name": "KATKOWSKY",
      ...location("Practice", { line1: "9 D ST", city: "ATLANTA", state: "GA", postal: "30303" }),
      ...taxonomy(1, "261QP2300X", "GA", "5"),
    },
  ];
  // Addresses elsewhere than the primary practice location.
  rows.push(
    {
      ...person({
        npi: REG.mailAway,
        first: "MAXINE",
        last: "POSTMAN",
        sex: "F",
        enumerated: "01/01/2011",
        updated: "01/01/2021",
      }),
      ...location("Practice", { line1: "5 E ST", city: "DENVER", state: "CO", postal: "80205" }),
      ...location("Mailing", {
        line1: "PO BOX 77",
        city: "PORTLAND",
        state: "ME",
        postal: "041011234",
      }),
      ...taxonomy(1, "207Q00000X", "CO", "6"),
    },
    {
      "NPI": REG.boise,
      "Entity Type Code": "2",
      "Provider Organization Name (Legal Business Name)": "BRANCHWORKS CLINIC",
      "Is Organization Subpart": "N",
      "Provider Enumeration Date": "01/01/2013",
      "Last Update Date": "01/01/2022",
      ...location("Practice", { line1: "6 F ST", city: "DENVER", state: "CO", postal: "80206" }),
      ...location("Mailing", { line1: "6 F ST", city: "DENVER", state: "CO", postal: "80206" }),
      ...taxonomy(1, "261QP2300X", "CO", "7"),
    },
    {
      ...person({
        npi: REG.twoSalems,
        first: "WANDA",
        last: "TRAVELER",
        sex: "F",
        enumerated: "01/01/2014",
        updated: "01/01/2023",
      }),
      ...location("Practice", { line1: "7 G ST", city: "DENVER", state: "CO", postal: "80207" }),
      ...location("Mailing", { line1: "7 G ST", city: "DENVER", state: "CO", postal: "80207" }),
      ...taxonomy(1, "207Q00000X", "CO", "8"),
    },
    {
      ...person({
        npi: REG.fowlerBrandt,
        first: "ANNA",
        last: "FOWLER-BRANDT",
        sex: "F",
        enumerated: "01/01/2014",
        updated: "01/01/2023",
      }),
      ...formerName("ANNA", "FOWLER"),
      ...location("Practice", { line1: "8 H ST", city: "HELENA", state: "MT", postal: "59601" }),
      ...taxonomy(1, "207Q00000X", "MT", "9"),
    },
  );
  for (let i = 0; i < LOOPERS; i++) {
    rows.push({
      ...person({
        npi: npi(`18${String(i).padStart(7, "0")}`),
        first: `F${String(i).padStart(4, "0")}`.replace(/\d/g, (d) => "ABCDEFGHIJ"[Number(d)]!),
        last: "LOOPER",
        sex: i % 2 ? "M" : "F",
        enumerated: "01/01/2015",
        updated: "01/01/2020",
      }),
      ...location("Practice", {
        line1: `${i} LOOP RD`,
        city: "WICHITA",
        state: "KS",
        postal: "67202",
      }),
      ...taxonomy(1, "207Q00000X", "KS", String(i)),
    });
  }
  return rows.map((values) => row(NPIDATA_COLUMNS, values));
}

/** Builds the fixture database in `dir` and returns its path. */
export async function registryFixtureDatabase(dir: string): Promise<string> {
  await writeCsv(`${dir}/npidata.csv`, NPIDATA_COLUMNS, mainRows());
  await writeCsv(`${dir}/othername.csv`, OTHERNAME_COLUMNS, [
    row(OTHERNAME_COLUMNS, {
      "NPI": REG.pinnacle,
      "Provider Other Organization Name": "PINNACLE CARE",
      "Provider Other Organization Name Type Code": "3",
    }),
  ]);
  const secondary = (owner: string, line1: string, city: string, state: string, postal: string) =>
    row(PL_COLUMNS, {
      "NPI": owner,
      "Provider Secondary Practice Location Address- Address Line 1": line1,
      "Provider Secondary Practice Location Address - City Name": city,
      "Provider Secondary Practice Location Address - State Name": state,
      "Provider Secondary Practice Location Address - Postal Code": postal,
      "Provider Secondary Practice Location Address - Country Code (If outside U.S.)": "US",
    });
  await writeCsv(`${dir}/pl.csv`, PL_COLUMNS, [
    secondary(REG.boise, "8 H ST", "BOISE", "ID", "83702"),
    secondary(REG.twoSalems, "9 I ST", "SALEM", "OR", "973011234"),
    secondary(REG.twoSalems, "10 J ST", "SALEM", "MA", "01970"),
    row(PL_COLUMNS, {
      "NPI": REG.steinberg,
      "Provider Secondary Practice Location Address- Address Line 1": "1 GUSTAVE LEVY PLACE",
      "Provider Secondary Practice Location Address-  Address Line 2": "MOUNT SINAI HOSPITAL",
      "Provider Secondary Practice Location Address - City Name": "NEW YORK CITY",
      "Provider Secondary Practice Location Address - State Name": "NY",
      "Provider Secondary Practice Location Address - Postal Code": "10029",
      "Provider Secondary Practice Location Address - Country Code (If outside U.S.)": "US",
      "Provider Secondary Practice Location Address - Telephone Number": "2122416021",
      "Provider Practice Location Address - Fax Number": "2124100978",
    }),
  ]);
  await writeCsv(`${dir}/endpoint.csv`, ENDPOINT_COLUMNS, [
    row(ENDPOINT_COLUMNS, {
      "NPI": REG.endpointOwner,
      "Endpoint Type": "DIRECT",
      "Endpoint Type Description": "Direct Messaging Address",
      "Endpoint": "mabroms361806@nyumc.direct-ci.com",
      "Affiliation": "N",
      "Affiliation Address Line One": "1 PARK AVE",
      "Affiliation Address City": "NEW YORK",
      "Affiliation Address State": "NY",
      "Affiliation Address Country": "US",
      "Affiliation Address Postal Code": "100165802",
    }),
  ]);
  const progress = { start() {}, update() {}, finish() {}, note() {} };
  await runImport({
    db: `${dir}/registry.db`,
    npi: `${dir}/npidata.csv`,
    othername: `${dir}/othername.csv`,
    pl: `${dir}/pl.csv`,
    endpoint: `${dir}/endpoint.csv`,
    progress,
  });
  return `${dir}/registry.db`;
}
