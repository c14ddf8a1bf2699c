/**
 * Deterministic synthetic NPPES data: rows in the exact layouts of the four
 * NPPES dissemination files, one bundle per NPI.
 *
 * What it models (see the sibling modules for the facts behind each part):
 * - NPIs: unique, valid check digit, spread over the whole NPI range
 *   (`npi_space.ts`).
 * - 79% individuals, 21% organizations; about 3.7% of NPIs deactivated (the
 *   main row then carries only the NPI and the deactivation date, as in the
 *   real files), a tenth of those reactivated with a full record.
 * - Taxonomies in NPPES proportions (`specialties.ts`); a fifth of
 *   individuals have two or three, exactly one primary; license numbers and
 *   license states.
 * - Names with census frequencies (`surnames.ts`, `first_names.ts`),
 *   credentials that match the taxonomy, sex by specialty, former names;
 *   organization names by kind, trade names, subparts, authorized officials
 *   (`organizations.ts`).
 * - Addresses on real ZIPs weighted by population (`places.ts`,
 *   `addresses.ts`), 5- and 9-digit postal codes, phones with the state's
 *   area codes, secondary practice locations; endpoints on example domains
 *   (`endpoints.ts`); other identifiers, enumeration, update and
 *   certification dates (`fields.ts`, `dates.ts`).
 *
 * Every record is generated from its own random stream, seeded by
 * `(seed, index)`, so the first K bundles of any run with the same seed are
 * the same, whatever the total.
 *
 * @module
 */

import { NPI_COL } from "../nppes/columns.ts";
import type { ZipInfo } from "../geo/zip.ts";
import {
  type Address,
  practiceAndMailing,
  putAddress,
  secondaryLocationRows,
} from "./addresses.ts";
import { dayBetween, DEMO_RELEASE_DAY, enumerationDay, formatDay } from "./dates.ts";
import { endpointRows } from "./endpoints.ts";
import { pickCodes, putDates, putIdentifiers, putTaxonomies, TAXONOMY_COLS } from "./fields.ts";
import { NPI_SPACE_SIZE, NpiSpace } from "./npi_space.ts";
import { officialTitle, organizationIdentity, type OrgIdentity } from "./organizations.ts";
import { credentialFor, NameSampler } from "./people.ts";
import { phoneNumber, STATE_NAMES, ZipPool } from "./places.ts";
import { hash32, Rng, WeightedTable } from "./prng.ts";
import {
  INDIVIDUAL_SPECIALTIES,
  type IndividualSpecialty,
  ORGANIZATION_SPECIALTIES,
  type OrgSpecialty,
  type Profession,
  RELATED_ORG_TAXONOMIES,
  RELATED_TAXONOMIES,
} from "./specialties.ts";

/** One NPI's rows, in the exact layouts of the four NPPES files. */
export interface DemoBundle {
  /** The `npidata_pfile` row: 330 fields. */
  main: string[];
  /** `othername_pfile` rows: 3 fields each. */
  otherNames: string[][];
  /** `pl_pfile` rows: 10 fields each. */
  locations: string[][];
  /** `endpoint_pfile` rows: 19 fields each. */
  endpoints: string[][];
}

/** How much demo data to make. */
export interface DemoOptions {
  /** Number of NPIs (bundles). */
  records: number;
  /** Random seed; default {@link DEMO_DEFAULT_SEED}. */
  seed?: number;
}

/** Bumped whenever the same options would produce different rows. */
export const DEMO_GENERATOR_VERSION = 1;
/** The seed used when none is given (the demo release date). */
export const DEMO_DEFAULT_SEED = 20260810;

/** Shares of the mix. */
const INDIVIDUAL_SHARE = 0.79;
const DEACTIVATED_SHARE = 0.037;
const REACTIVATED_SHARE = 0.1;

const MAIN_WIDTH = 330;
const EMPTY_MAIN: readonly string[] = new Array<string>(MAIN_WIDTH).fill("");
const MAIL = NPI_COL.mailLine1;
const LOC = NPI_COL.locLine1;

/** Everything that is built once and shared by all records. */
interface Tables {
  names: NameSampler;
  zips: ZipPool;
  individuals: WeightedTable<IndividualSpecialty>;
  organizations: WeightedTable<OrgSpecialty>;
  professionOf: Map<string, Profession>;
}

let tablesCache: Tables | null = null;

function tables(): Tables {
  if (tablesCache) return tablesCache;
  const professionOf = new Map<string, Profession>();
  for (const s of INDIVIDUAL_SPECIALTIES) professionOf.set(s.code, s.profession);
  tablesCache = {
    names: new NameSampler(),
    zips: new ZipPool(),
    individuals: new WeightedTable(
      INDIVIDUAL_SPECIALTIES,
      INDIVIDUAL_SPECIALTIES.map((s) => s.weight),
    ),
    organizations: new WeightedTable(
      ORGANIZATION_SPECIALTIES,
      ORGANIZATION_SPECIALTIES.map((s) => s.weight),
    ),
    professionOf,
  };
  return tablesCache;
}

/**
 * Generates `records` bundles, one per NPI, deterministically for
 * `(records, seed)`; the first K bundles are the same for any `records >= K`.
 *
 * @example
 * ```ts
 * const bundles = [...generateDemo({ records: 3 })];
 * bundles.length; // 3
 * bundles[0]!.main.length; // 330
 * ```
 */
export function* generateDemo(options: DemoOptions): Generator<DemoBundle> {
  const { records } = options;
  const seed = options.seed ?? DEMO_DEFAULT_SEED;
  if (!Number.isInteger(records) || records < 0 || records > NPI_SPACE_SIZE) {
    throw new RangeError(
      `Cannot generate '${records}' demo records: must be an integer from 0 to ${NPI_SPACE_SIZE}`,
    );
  }
  if (!Number.isInteger(seed)) {
    throw new RangeError(`Cannot use demo seed '${seed}': must be an integer`);
  }
  const t = tables();
  const space = new NpiSpace(seed);
  const base = hash32(seed ^ 0x6a09e667);
  for (let i = 0; i < records; i++) {
    const rng = new Rng(hash32((base + Math.imul(i, 0x9e3779b1)) | 0) ^ i);
    yield makeBundle(t, rng, space.npi(i));
  }
}
const GROUP_VALUES = ["193400000X SINGLE SPECIALTY GROUP", "193200000X MULTI-SPECIALTY GROUP"];

function makeBundle(t: Tables, rng: Rng, npi: string): DemoBundle {
  const row = EMPTY_MAIN.slice();
  row[NPI_COL.npi] = npi;
  const individual = rng.chance(INDIVIDUAL_SHARE);
  const enumerated = enumerationDay(rng);
  let reactivated = false;
  if (rng.chance(DEACTIVATED_SHARE)) {
    if (!rng.chance(REACTIVATED_SHARE)) {
      const floor = Math.min(enumerated + 180, DEMO_RELEASE_DAY - 30);
      row[NPI_COL.deactivationDate] = formatDay(dayBetween(rng, floor, DEMO_RELEASE_DAY - 7, true));
      return { main: row, otherNames: [], locations: [], endpoints: [] };
    }
    reactivated = true;
  }
  const { location, mailing, zip } = practiceAndMailing(rng, t.zips);
  putAddress(row, MAIL, mailing);
  putAddress(row, LOC, location);
  const state = location.country === "US" ? location.state : zip.state;
  putDates(row, rng, enumerated, reactivated);
  putIdentifiers(row, rng, state, enumerated);
  return individual
    ? individualRecord(row, rng, t, npi, location, zip, state)
    : organizationRecord(row, rng, t, npi, location, zip, state);
}

function individualRecord(
  row: string[],
  rng: Rng,
  t: Tables,
  npi: string,
  location: Address,
  zip: ZipInfo,
  state: string,
): DemoBundle {
  const spec = t.individuals.sample(rng);
  const female = rng.chance(spec.female);
  const person = t.names.person(rng, female, spec.profession);
  row[NPI_COL.entityType] = "1";
  row[NPI_COL.lastName] = person.last;
  row[NPI_COL.firstName] = person.first;
  row[NPI_COL.middleName] = person.middle;
  row[NPI_COL.prefix] = person.prefix;
  row[NPI_COL.suffix] = person.suffix;
  row[NPI_COL.credential] = credentialFor(rng, spec.profession);
  row[NPI_COL.sex] = person.sex;
  if (person.formerLast !== "") {
    row[NPI_COL.otherLastName] = person.formerLast;
    row[NPI_COL.otherFirstName] = person.first;
    if (rng.chance(0.5)) row[NPI_COL.otherMiddleName] = person.middle;
    row[NPI_COL.otherLastNameType] = "1";
  }
  const s = rng.float();
  row[NPI_COL.soleProprietor] = s < 0.18 ? "Y" : s < 0.82 ? "N" : "X";
  const u = rng.float();
  const count = u < 0.8 ? 1 : u < 0.94 ? 2 : 3;
  const codes = pickCodes(rng, spec.code, RELATED_TAXONOMIES[spec.group], count);
  putTaxonomies(row, rng, codes, {
    zips: t.zips,
    professionOf: t.professionOf,
    state,
    orgLicense: -1,
  });
  if (rng.chance(0.02)) row[TAXONOMY_COLS[0]!.group] = rng.pick(GROUP_VALUES);
  const locations = rng.chance(0.1) ? secondaryLocationRows(rng, t.zips, npi, zip) : [];
  let endpoints: string[][] = [];
  if (rng.chance(0.055)) {
    const kind = rng.pick(["hospital", "group", "clinic"] as const);
    const affiliation = rng.chance(0.7)
      ? organizationIdentity(rng, kind, nameContext(zip, "207Q00000X", ""), t.names).name
      : "";
    const host = affiliation || `${person.last} ${person.first} practice`;
    endpoints = endpointRows(rng, npi, person, host, affiliation, location);
  }
  return { main: row, otherNames: [], locations, endpoints };
}

function nameContext(zip: ZipInfo, code: string, label: string): {
  city: string;
  state: string;
  stateName: string;
  code: string;
  label: string;
} {
  return {
    city: zip.city,
    state: zip.state,
    stateName: STATE_NAMES[zip.state] ?? zip.state,
    code,
    label,
  };
}

const AO_CREDENTIALS: Readonly<Record<string, readonly string[]>> = {
  practice: ["MD", "M.D.", "DO", "DC", "OD"],
  dental: ["DDS", "DMD"],
  therapy: ["PT", "DPT", "OTR/L", "CCC-SLP"],
  pharmacy: ["RPH", "PHARMD"],
  mental: ["LCSW", "LPC", "PHD", "PSYD"],
  homehealth: ["RN", "BSN, RN"],
};

function organizationRecord(
  row: string[],
  rng: Rng,
  t: Tables,
  npi: string,
  location: Address,
  zip: ZipInfo,
  state: string,
): DemoBundle {
  const spec = t.organizations.sample(rng);
  const ctx = nameContext(zip, spec.code, spec.label ?? "");
  const identity: OrgIdentity = organizationIdentity(rng, spec.kind, ctx, t.names);
  row[NPI_COL.entityType] = "2";
  row[NPI_COL.orgName] = identity.name;
  row[NPI_COL.subpart] = identity.parent !== "" ? "Y" : "N";
  row[NPI_COL.parentName] = identity.parent;
  const official = t.names.person(rng, rng.chance(0.55), null);
  row[NPI_COL.aoLastName] = official.last;
  row[NPI_COL.aoFirstName] = official.first;
  row[NPI_COL.aoMiddleName] = official.middle;
  row[NPI_COL.aoTitle] = officialTitle(rng, spec.kind, identity.chain);
  row[NPI_COL.aoPhone] = rng.chance(0.6) && location.country === "US"
    ? location.phone
    : phoneNumber(rng, state, zip.zip);
  const creds = AO_CREDENTIALS[spec.kind];
  if (creds && rng.chance(0.45)) row[NPI_COL.aoCredential] = rng.pick(creds);
  if (rng.chance(0.08)) row[NPI_COL.aoPrefix] = rng.pick(["DR.", "MR.", "MS.", "MRS."]);
  if (rng.chance(0.02)) row[NPI_COL.aoSuffix] = rng.pick(["JR.", "III", "II"]);
  const u = rng.float();
  const count = u < 0.88 ? 1 : u < 0.98 ? 2 : 3;
  const license = spec.kind === "pharmacy"
    ? 0.75
    : spec.kind === "hospital" || spec.kind === "snf"
    ? 0.6
    : spec.kind === "homehealth" || spec.kind === "hospice"
    ? 0.5
    : 0.3;
  const codes = pickCodes(rng, spec.code, RELATED_ORG_TAXONOMIES[spec.kind], count);
  putTaxonomies(row, rng, codes, {
    zips: t.zips,
    professionOf: t.professionOf,
    state,
    orgLicense: license,
  });
  if (spec.kind === "group" || (spec.kind === "practice" && rng.chance(0.1))) {
    row[TAXONOMY_COLS[0]!.group] = spec.code === "193200000X" ? GROUP_VALUES[1]! : GROUP_VALUES[0]!;
  }
  return {
    main: row,
    otherNames: identity.otherNames.map((o) => [npi, o.name, o.type]),
    locations: rng.chance(0.13) ? secondaryLocationRows(rng, t.zips, npi, zip) : [],
    endpoints: rng.chance(0.09) ? endpointRows(rng, npi, null, identity.name, "", location) : [],
  };
}
