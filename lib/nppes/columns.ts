/**
 * Column layouts of the four NPPES dissemination files, as their real header
 * rows spell them (June 2025, Version 2), with the older spellings an importer
 * must also accept. Facts from `shared/docs/nppes/`.
 *
 * @module
 */

/** The 330 columns of `npidata_pfile_*.csv`, in file order. */
export const NPIDATA_COLUMNS: readonly string[] = [
  "NPI",
  "Entity Type Code",
  "Replacement NPI",
  "Employer Identification Number (EIN)",
  "Provider Organization Name (Legal Business Name)",
  "Provider Last Name (Legal Name)",
  "Provider First Name",
  "Provider Middle Name",
  "Provider Name Prefix Text",
  "Provider Name Suffix Text",
  "Provider Credential Text",
  "Provider Other Organization Name",
  "Provider Other Organization Name Type Code",
  "Provider Other Last Name",
  "Provider Other First Name",
  "Provider Other Middle Name",
  "Provider Other Name Prefix Text",
  "Provider Other Name Suffix Text",
  "Provider Other Credential Text",
  "Provider Other Last Name Type Code",
  "Provider First Line Business Mailing Address",
  "Provider Second Line Business Mailing Address",
  "Provider Business Mailing Address City Name",
  "Provider Business Mailing Address State Name",
  "Provider Business Mailing Address Postal Code",
  "Provider Business Mailing Address Country Code (If outside U.S.)",
  "Provider Business Mailing Address Telephone Number",
  "Provider Business Mailing Address Fax Number",
  "Provider First Line Business Practice Location Address",
  "Provider Second Line Business Practice Location Address",
  "Provider Business Practice Location Address City Name",
  "Provider Business Practice Location Address State Name",
  "Provider Business Practice Location Address Postal Code",
  "Provider Business Practice Location Address Country Code (If outside U.S.)",
  "Provider Business Practice Location Address Telephone Number",
  "Provider Business Practice Location Address Fax Number",
  "Provider Enumeration Date",
  "Last Update Date",
  "NPI Deactivation Reason Code",
  "NPI Deactivation Date",
  "NPI Reactivation Date",
  "Provider Sex Code",
  "Authorized Official Last Name",
  "Authorized Official First Name",
  "Authorized Official Middle Name",
  "Authorized Official Title or Position",
  "Authorized Official Telephone Number",
  "Healthcare Provider Taxonomy Code_1",
  "Provider License Number_1",
  "Provider License Number State Code_1",
  "Healthcare Provider Primary Taxonomy Switch_1",
  "Healthcare Provider Taxonomy Code_2",
  "Provider License Number_2",
  "Provider License Number State Code_2",
  "Healthcare Provider Primary Taxonomy Switch_2",
  "Healthcare Provider Taxonomy Code_3",
  "Provider License Number_3",
  "Provider License Number State Code_3",
  "Healthcare Provider Primary Taxonomy Switch_3",
  "Healthcare Provider Taxonomy Code_4",
  "Provider License Number_4",
  "Provider License Number State Code_4",
  "Healthcare Provider Primary Taxonomy Switch_4",
  "Healthcare Provider Taxonomy Code_5",
  "Provider License Number_5",
  "Provider License Number State Code_5",
  "Healthcare Provider Primary Taxonomy Switch_5",
  "Healthcare Provider Taxonomy Code_6",
  "Provider License Number_6",
  "Provider License Number State Code_6",
  "Healthcare Provider Primary Taxonomy Switch_6",
  "Healthcare Provider Taxonomy Code_7",
  "Provider License Number_7",
  "Provider License Number State Code_7",
  "Healthcare Provider Primary Taxonomy Switch_7",
  "Healthcare Provider Taxonomy Code_8",
  "Provider License Number_8",
  "Provider License Number State Code_8",
  "Healthcare Provider Primary Taxonomy Switch_8",
  "Healthcare Provider Taxonomy Code_9",
  "Provider License Number_9",
  "Provider License Number State Code_9",
  "Healthcare Provider Primary Taxonomy Switch_9",
  "Healthcare Provider Taxonomy Code_10",
  "Provider License Number_10",
  "Provider License Number State Code_10",
  "Healthcare Provider Primary Taxonomy Switch_10",
  "Healthcare Provider Taxonomy Code_11",
  "Provider License Number_11",
  "Provider License Number State Code_11",
  "Healthcare Provider Primary Taxonomy Switch_11",
  "Healthcare Provider Taxonomy Code_12",
  "Provider License Number_12",
  "Provider License Number State Code_12",
  "Healthcare Provider Primary Taxonomy Switch_12",
  "Healthcare Provider Taxonomy Code_13",
  "Provider License Number_13",
  "Provider License Number State Code_13",
  "Healthcare Provider Primary Taxonomy Switch_13",
  "Healthcare Provider Taxonomy Code_14",
  "Provider License Number_14",
  "Provider License Number State Code_14",
  "Healthcare Provider Primary Taxonomy Switch_14",
  "Healthcare Provider Taxonomy Code_15",
  "Provider License Number_15",
  "Provider License Number State Code_15",
  "Healthcare Provider Primary Taxonomy Switch_15",
  "Other Provider Identifier_1",
  "Other Provider Identifier Type Code_1",
  "Other Provider Identifier State_1",
  "Other Provider Identifier Issuer_1",
  "Other Provider Identifier_2",
  "Other Provider Identifier Type Code_2",
  "Other Provider Identifier State_2",
  "Other Provider Identifier Issuer_2",
  "Other Provider Identifier_3",
  "Other Provider Identifier Type Code_3",
  "Other Provider Identifier State_3",
  "Other Provider Identifier Issuer_3",
  "Other Provider Identifier_4",
  "Other Provider Identifier Type Code_4",
  "Other Provider Identifier State_4",
  "Other Provider Identifier Issuer_4",
  "Other Provider Identifier_5",
  "Other Provider Identifier Type Code_5",
  "Other Provider Identifier State_5",
  "Other Provider Identifier Issuer_5",
  "Other Provider Identifier_6",
  "Other Provider Identifier Type Code_6",
  "Other Provider Identifier State_6",
  "Other Provider Identifier Issuer_6",
  "Other Provider Identifier_7",
  "Other Provider Identifier Type Code_7",
  "Other Provider Identifier State_7",
  "Other Provider Identifier Issuer_7",
  "Other Provider Identifier_8",
  "Other Provider Identifier Type Code_8",
  "Other Provider Identifier State_8",
  "Other Provider Identifier Issuer_8",
  "Other Provider Identifier_9",
  "Other Provider Identifier Type Code_9",
  "Other Provider Identifier State_9",
  "Other Provider Identifier Issuer_9",
  "Other Provider Identifier_10",
  "Other Provider Identifier Type Code_10",
  "Other Provider Identifier State_10",
  "Other Provider Identifier Issuer_10",
  "Other Provider Identifier_11",
  "Other Provider Identifier Type Code_11",
  "Other Provider Identifier State_11",
  "Other Provider Identifier Issuer_11",
  "Other Provider Identifier_12",
  "Other Provider Identifier Type Code_12",
  "Other Provider Identifier State_12",
  "Other Provider Identifier Issuer_12",
  "Other Provider Identifier_13",
  "Other Provider Identifier Type Code_13",
  "Other Provider Identifier State_13",
  "Other Provider Identifier Issuer_13",
  "Other Provider Identifier_14",
  "Other Provider Identifier Type Code_14",
  "Other Provider Identifier State_14",
  "Other Provider Identifier Issuer_14",
  "Other Provider Identifier_15",
  "Other Provider Identifier Type Code_15",
  "Other Provider Identifier State_15",
  "Other Provider Identifier Issuer_15",
  "Other Provider Identifier_16",
  "Other Provider Identifier Type Code_16",
  "Other Provider Identifier State_16",
  "Other Provider Identifier Issuer_16",
  "Other Provider Identifier_17",
  "Other Provider Identifier Type Code_17",
  "Other Provider Identifier State_17",
  "Other Provider Identifier Issuer_17",
  "Other Provider Identifier_18",
  "Other Provider Identifier Type Code_18",
  "Other Provider Identifier State_18",
  "Other Provider Identifier Issuer_18",
  "Other Provider Identifier_19",
  "Other Provider Identifier Type Code_19",
  "Other Provider Identifier State_19",
  "Other Provider Identifier Issuer_19",
  "Other Provider Identifier_20",
  "Other Provider Identifier Type Code_20",
  "Other Provider Identifier State_20",
  "Other Provider Identifier Issuer_20",
  "Other Provider Identifier_21",
  "Other Provider Identifier Type Code_21",
  "Other Provider Identifier State_21",
  "Other Provider Identifier Issuer_21",
  "Other Provider Identifier_22",
  "Other Provider Identifier Type Code_22",
  "Other Provider Identifier State_22",
  "Other Provider Identifier Issuer_22",
  "Other Provider Identifier_23",
  "Other Provider Identifier Type Code_23",
  "Other Provider Identifier State_23",
  "Other Provider Identifier Issuer_23",
  "Other Provider Identifier_24",
  "Other Provider Identifier Type Code_24",
  "Other Provider Identifier State_24",
  "Other Provider Identifier Issuer_24",
  "Other Provider Identifier_25",
  "Other Provider Identifier Type Code_25",
  "Other Provider Identifier State_25",
  "Other Provider Identifier Issuer_25",
  "Other Provider Identifier_26",
  "Other Provider Identifier Type Code_26",
  "Other Provider Identifier State_26",
  "Other Provider Identifier Issuer_26",
  "Other Provider Identifier_27",
  "Other Provider Identifier Type Code_27",
  "Other Provider Identifier State_27",
  "Other Provider Identifier Issuer_27",
  "Other Provider Identifier_28",
  "Other Provider Identifier Type Code_28",
  "Other Provider Identifier State_28",
  "Other Provider Identifier Issuer_28",
  "Other Provider Identifier_29",
  "Other Provider Identifier Type Code_29",
  "Other Provider Identifier State_29",
  "Other Provider Identifier Issuer_29",
  "Other Provider Identifier_30",
  "Other Provider Identifier Type Code_30",
  "Other Provider Identifier State_30",
  "Other Provider Identifier Issuer_30",
  "Other Provider Identifier_31",
  "Other Provider Identifier Type Code_31",
  "Other Provider Identifier State_31",
  "Other Provider Identifier Issuer_31",
  "Other Provider Identifier_32",
  "Other Provider Identifier Type Code_32",
  "Other Provider Identifier State_32",
  "Other Provider Identifier Issuer_32",
  "Other Provider Identifier_33",
  "Other Provider Identifier Type Code_33",
  "Other Provider Identifier State_33",
  "Other Provider Identifier Issuer_33",
  "Other Provider Identifier_34",
  "Other Provider Identifier Type Code_34",
  "Other Provider Identifier State_34",
  "Other Provider Identifier Issuer_34",
  "Other Provider Identifier_35",
  "Other Provider Identifier Type Code_35",
  "Other Provider Identifier State_35",
  "Other Provider Identifier Issuer_35",
  "Other Provider Identifier_36",
  "Other Provider Identifier Type Code_36",
  "Other Provider Identifier State_36",
  "Other Provider Identifier Issuer_36",
  "Other Provider Identifier_37",
  "Other Provider Identifier Type Code_37",
  "Other Provider Identifier State_37",
  "Other Provider Identifier Issuer_37",
  "Other Provider Identifier_38",
  "Other Provider Identifier Type Code_38",
  "Other Provider Identifier State_38",
  "Other Provider Identifier Issuer_38",
  "Other Provider Identifier_39",
  "Other Provider Identifier Type Code_39",
  "Other Provider Identifier State_39",
  "Other Provider Identifier Issuer_39",
  "Other Provider Identifier_40",
  "Other Provider Identifier Type Code_40",
  "Other Provider Identifier State_40",
  "Other Provider Identifier Issuer_40",
  "Other Provider Identifier_41",
  "Other Provider Identifier Type Code_41",
  "Other Provider Identifier State_41",
  "Other Provider Identifier Issuer_41",
  "Other Provider Identifier_42",
  "Other Provider Identifier Type Code_42",
  "Other Provider Identifier State_42",
  "Other Provider Identifier Issuer_42",
  "Other Provider Identifier_43",
  "Other Provider Identifier Type Code_43",
  "Other Provider Identifier State_43",
  "Other Provider Identifier Issuer_43",
  "Other Provider Identifier_44",
  "Other Provider Identifier Type Code_44",
  "Other Provider Identifier State_44",
  "Other Provider Identifier Issuer_44",
  "Other Provider Identifier_45",
  "Other Provider Identifier Type Code_45",
  "Other Provider Identifier State_45",
  "Other Provider Identifier Issuer_45",
  "Other Provider Identifier_46",
  "Other Provider Identifier Type Code_46",
  "Other Provider Identifier State_46",
  "Other Provider Identifier Issuer_46",
  "Other Provider Identifier_47",
  "Other Provider Identifier Type Code_47",
  "Other Provider Identifier State_47",
  "Other Provider Identifier Issuer_47",
  "Other Provider Identifier_48",
  "Other Provider Identifier Type Code_48",
  "Other Provider Identifier State_48",
  "Other Provider Identifier Issuer_48",
  "Other Provider Identifier_49",
  "Other Provider Identifier Type Code_49",
  "Other Provider Identifier State_49",
  "Other Provider Identifier Issuer_49",
  "Other Provider Identifier_50",
  "Other Provider Identifier Type Code_50",
  "Other Provider Identifier State_50",
  "Other Provider Identifier Issuer_50",
  "Is Sole Proprietor",
  "Is Organization Subpart",
  "Parent Organization LBN",
  "Parent Organization TIN",
  "Authorized Official Name Prefix Text",
  "Authorized Official Name Suffix Text",
  "Authorized Official Credential Text",
  "Healthcare Provider Taxonomy Group_1",
  "Healthcare Provider Taxonomy Group_2",
  "Healthcare Provider Taxonomy Group_3",
  "Healthcare Provider Taxonomy Group_4",
  "Healthcare Provider Taxonomy Group_5",
  "Healthcare Provider Taxonomy Group_6",
  "Healthcare Provider Taxonomy Group_7",
  "Healthcare Provider Taxonomy Group_8",
  "Healthcare Provider Taxonomy Group_9",
  "Healthcare Provider Taxonomy Group_10",
  "Healthcare Provider Taxonomy Group_11",
  "Healthcare Provider Taxonomy Group_12",
  "Healthcare Provider Taxonomy Group_13",
  "Healthcare Provider Taxonomy Group_14",
  "Healthcare Provider Taxonomy Group_15",
  "Certification Date",
];

/** The 3 columns of `othername_pfile_*.csv`. */
export const OTHERNAME_COLUMNS: readonly string[] = [
  "NPI",
  "Provider Other Organization Name",
  "Provider Other Organization Name Type Code",
];

/** The 10 columns of `pl_pfile_*.csv` (note the two spaces in Address Line 2). */
export const PL_COLUMNS: readonly string[] = [
  "NPI",
  "Provider Secondary Practice Location Address- Address Line 1",
  "Provider Secondary Practice Location Address-  Address Line 2",
  "Provider Secondary Practice Location Address - City Name",
  "Provider Secondary Practice Location Address - State Name",
  "Provider Secondary Practice Location Address - Postal Code",
  "Provider Secondary Practice Location Address - Country Code (If outside U.S.)",
  "Provider Secondary Practice Location Address - Telephone Number",
  "Provider Secondary Practice Location Address - Telephone Extension",
  "Provider Practice Location Address - Fax Number",
];

/** The 19 columns of `endpoint_pfile_*.csv`. */
export const ENDPOINT_COLUMNS: readonly string[] = [
  "NPI",
  "Endpoint Type",
  "Endpoint Type Description",
  "Endpoint",
  "Affiliation",
  "Endpoint Description",
  "Affiliation Legal Business Name",
  "Use Code",
  "Use Description",
  "Other Use Description",
  "Content Type",
  "Content Description",
  "Other Content Description",
  "Affiliation Address Line One",
  "Affiliation Address Line Two",
  "Affiliation Address City",
  "Affiliation Address State",
  "Affiliation Address Country",
  "Affiliation Address Postal Code",
];

/** The four kinds of NPPES file the importer reads. */
export type NppesFileKind = "npidata" | "othername" | "pl" | "endpoint";

/** The expected header of each file kind. */
export const LAYOUTS: Readonly<Record<NppesFileKind, readonly string[]>> = {
  npidata: NPIDATA_COLUMNS,
  othername: OTHERNAME_COLUMNS,
  pl: PL_COLUMNS,
  endpoint: ENDPOINT_COLUMNS,
};

/** Older or documented spellings of a column, mapped to the real header's spelling. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["provider gender code", "provider sex code"],
  ["affiliation address line postal code", "affiliation address postal code"],
]);

/**
 * Folds a header cell for comparison: case, runs of white space, a byte-order
 * mark, and the known alternative spellings.
 *
 * @example
 * ```ts
 * normalizeHeaderName("Other Provider Identifier Issue_7"); // "other provider identifier issuer_7"
 * ```
 */
export function normalizeHeaderName(name: string): string {
  const folded = name.replace(/^\uFEFF/, "").trim().replace(/\s+/g, " ").toLowerCase()
    .replace(/^other provider identifier issue_(\d+)$/, "other provider identifier issuer_$1");
  return ALIASES.get(folded) ?? folded;
}

/**
 * Checks a header row against the layout of `kind`. Returns the problems
 * found, each naming the column; an empty list means the header is right.
 *
 * @example
 * ```ts
 * checkHeader("othername", ["NPI", "Provider Other Organization Name", "Provider Other Organization Name Type Code"]); // []
 * ```
 */
export function checkHeader(kind: NppesFileKind, header: readonly string[]): string[] {
  const expected = LAYOUTS[kind];
  const problems: string[] = [];
  if (header.length !== expected.length) {
    problems.push(
      `expected ${expected.length} columns for a ${kind} file, found ${header.length}`,
    );
  }
  const n = Math.min(header.length, expected.length);
  for (let i = 0; i < n && problems.length < 5; i++) {
    const want = expected[i]!;
    if (normalizeHeaderName(header[i]!) !== normalizeHeaderName(want)) {
      problems.push(`column ${i + 1}: expected '${want}', found '${header[i]}'`);
    }
  }
  return problems;
}

function indexOf(name: string): number {
  const i = NPIDATA_COLUMNS.indexOf(name);
  if (i < 0) throw new Error(`Unknown NPPES column: '${name}'`);
  return i;
}

/** Positions of the main file's single columns, by short name. */
export const NPI_COL = {
  npi: indexOf("NPI"),
  entityType: indexOf("Entity Type Code"),
  replacementNpi: indexOf("Replacement NPI"),
  orgName: indexOf("Provider Organization Name (Legal Business Name)"),
  lastName: indexOf("Provider Last Name (Legal Name)"),
  firstName: indexOf("Provider First Name"),
  middleName: indexOf("Provider Middle Name"),
  prefix: indexOf("Provider Name Prefix Text"),
  suffix: indexOf("Provider Name Suffix Text"),
  credential: indexOf("Provider Credential Text"),
  otherOrgName: indexOf("Provider Other Organization Name"),
  otherOrgNameType: indexOf("Provider Other Organization Name Type Code"),
  otherLastName: indexOf("Provider Other Last Name"),
  otherFirstName: indexOf("Provider Other First Name"),
  otherMiddleName: indexOf("Provider Other Middle Name"),
  otherPrefix: indexOf("Provider Other Name Prefix Text"),
  otherSuffix: indexOf("Provider Other Name Suffix Text"),
  otherCredential: indexOf("Provider Other Credential Text"),
  otherLastNameType: indexOf("Provider Other Last Name Type Code"),
  mailLine1: indexOf("Provider First Line Business Mailing Address"),
  locLine1: indexOf("Provider First Line Business Practice Location Address"),
  enumerationDate: indexOf("Provider Enumeration Date"),
  lastUpdated: indexOf("Last Update Date"),
  deactivationReason: indexOf("NPI Deactivation Reason Code"),
  deactivationDate: indexOf("NPI Deactivation Date"),
  reactivationDate: indexOf("NPI Reactivation Date"),
  sex: indexOf("Provider Sex Code"),
  aoLastName: indexOf("Authorized Official Last Name"),
  aoFirstName: indexOf("Authorized Official First Name"),
  aoMiddleName: indexOf("Authorized Official Middle Name"),
  aoTitle: indexOf("Authorized Official Title or Position"),
  aoPhone: indexOf("Authorized Official Telephone Number"),
  soleProprietor: indexOf("Is Sole Proprietor"),
  subpart: indexOf("Is Organization Subpart"),
  parentName: indexOf("Parent Organization LBN"),
  aoPrefix: indexOf("Authorized Official Name Prefix Text"),
  aoSuffix: indexOf("Authorized Official Name Suffix Text"),
  aoCredential: indexOf("Authorized Official Credential Text"),
  certificationDate: indexOf("Certification Date"),
} as const;

/** Number of taxonomy slots in the main file. */
export const TAXONOMY_SLOTS = 15;
/** Number of other-identifier slots in the main file. */
export const IDENTIFIER_SLOTS = 50;

/** Column positions of one taxonomy slot. */
export interface TaxonomySlot {
  code: number;
  license: number;
  state: number;
  primary: number;
  group: number;
}

/** Column positions of one other-identifier slot. */
export interface IdentifierSlot {
  identifier: number;
  type: number;
  state: number;
  issuer: number;
}

const TAXONOMY_SLOT_COLUMNS: readonly TaxonomySlot[] = Array.from(
  { length: TAXONOMY_SLOTS },
  (_, i) => {
    const code = indexOf(`Healthcare Provider Taxonomy Code_${i + 1}`);
    return {
      code,
      license: code + 1,
      state: code + 2,
      primary: code + 3,
      group: indexOf(`Healthcare Provider Taxonomy Group_${i + 1}`),
    };
  },
);

const IDENTIFIER_SLOT_COLUMNS: readonly IdentifierSlot[] = Array.from(
  { length: IDENTIFIER_SLOTS },
  (_, i) => {
    const identifier = indexOf(`Other Provider Identifier_${i + 1}`);
    return { identifier, type: identifier + 1, state: identifier + 2, issuer: identifier + 3 };
  },
);

/** Column positions of taxonomy slot `i` (0-based): code, license, license state, primary switch, group. */
export function taxonomyColumns(i: number): TaxonomySlot {
  const slot = TAXONOMY_SLOT_COLUMNS[i];
  if (!slot) {
    throw new RangeError(`Taxonomy slot ${i} does not exist: slots are 0 to ${TAXONOMY_SLOTS - 1}`);
  }
  return slot;
}

/** Column positions of identifier slot `i` (0-based): identifier, type code, state, issuer. */
export function identifierColumns(i: number): IdentifierSlot {
  const slot = IDENTIFIER_SLOT_COLUMNS[i];
  if (!slot) {
    throw new RangeError(
      `Identifier slot ${i} does not exist: slots are 0 to ${IDENTIFIER_SLOTS - 1}`,
    );
  }
  return slot;
}

/** Offsets of an address block (mailing or practice) relative to its first line column. */
export const ADDRESS_OFFSETS = {
  line1: 0,
  line2: 1,
  city: 2,
  state: 3,
  postal: 4,
  country: 5,
  phone: 6,
  fax: 7,
} as const;
