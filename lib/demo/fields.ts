/**
 * Registry facts of a demo main row: taxonomy slots with licenses, other
 * identifiers, and the enumeration, update, certification and
 * (re)activation dates.
 *
 * @module
 */

import { identifierColumns, NPI_COL, taxonomyColumns } from "../nppes/columns.ts";
import { dayBetween, dayNumber, DEMO_RELEASE_DAY, formatDay } from "./dates.ts";
import { licenseNumber } from "./people.ts";
import type { ZipPool } from "./places.ts";
import type { Rng } from "./prng.ts";
import type { Profession } from "./specialties.ts";

/** Column positions of the 15 taxonomy slots. */
export const TAXONOMY_COLS: readonly ReturnType<typeof taxonomyColumns>[] = Array.from(
  { length: 15 },
  (_, i) => taxonomyColumns(i),
);
const IDENTIFIER_COLS = Array.from({ length: 50 }, (_, i) => identifierColumns(i));
/** NPIs enumerated before this day often still list legacy Medicare numbers. */
const LEGACY_IDENTIFIER_END = dayNumber(2008, 5, 23);
/** Certification dates appear on records updated since this day. */
const CERTIFICATION_START = dayNumber(2016, 1, 1);

/** Share of providers of a profession that list a license number. */
const LICENSE_CHANCE: Readonly<Partial<Record<Profession, number>>> = {
  student: 0.25,
  aide: 0.1,
  casemanager: 0.15,
  rbt: 0.1,
  technologist: 0.5,
  optician: 0.4,
  athletic: 0.7,
};

function licenseChance(profession: Profession | undefined): number {
  if (profession === undefined) return 0;
  return LICENSE_CHANCE[profession] ?? 0.93;
}

function otherState(rng: Rng, zips: ZipPool, state: string): string {
  return rng.chance(0.7) ? state : zips.sample(rng).state;
}

/** What the taxonomy slots of one provider depend on. */
export interface TaxonomyContext {
  zips: ZipPool;
  /** Profession of each individual taxonomy code. */
  professionOf: ReadonlyMap<string, Profession>;
  /** Practice state: the first license's state. */
  state: string;
  /** For organizations, the chance of a license number; -1 for individuals. */
  orgLicense: number;
}

/**
 * Fills taxonomy slots 1..n with `codes`: exactly one primary (usually the
 * first), license numbers and license states.
 *
 * @example
 * ```ts
 * import { ZipPool } from "./places.ts";
 * import { Rng } from "./prng.ts";
 * const row = new Array<string>(330).fill("");
 * putTaxonomies(row, new Rng(1), ["207Q00000X"], {
 *   zips: new ZipPool(),
 *   professionOf: new Map([["207Q00000X", "physician"]]),
 *   state: "MD",
 *   orgLicense: -1,
 * });
 * row[TAXONOMY_COLS[0]!.primary]; // "Y"
 * ```
 */
export function putTaxonomies(
  row: string[],
  rng: Rng,
  codes: readonly string[],
  ctx: TaxonomyContext,
): void {
  const { zips, professionOf, state, orgLicense } = ctx;
  const primary = codes.length > 1 && rng.chance(0.3) ? rng.int(codes.length) : 0;
  for (let i = 0; i < codes.length; i++) {
    const cols = TAXONOMY_COLS[i]!;
    const code = codes[i]!;
    row[cols.code] = code;
    row[cols.primary] = i === primary ? "Y" : "N";
    const profession = professionOf.get(code);
    const chance = orgLicense >= 0 ? orgLicense : licenseChance(profession);
    if (rng.chance(chance)) {
      row[cols.license] = profession && orgLicense < 0
        ? licenseNumber(rng, profession)
        : rng.pick(["", "PHY", "PH", "H", "HHA", "L"]) + rng.digits(rng.range(4, 7));
      row[cols.state] = i === 0 ? state : otherState(rng, zips, state);
    }
  }
}

/**
 * The primary code plus up to `count - 1` distinct related codes.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * pickCodes(new Rng(1), "363LF0000X", ["363LF0000X", "363L00000X"], 2); // ["363LF0000X", "363L00000X"]
 * ```
 */
export function pickCodes(
  rng: Rng,
  primary: string,
  related: readonly string[] | undefined,
  count: number,
): string[] {
  const codes = [primary];
  if (!related) return codes;
  for (let tries = 0; codes.length < count && tries < 8; tries++) {
    const c = rng.pick(related);
    if (!codes.includes(c)) codes.push(c);
  }
  return codes;
}

const ISSUERS = [
  "BCBS",
  "BLUE CROSS BLUE SHIELD",
  "AETNA",
  "CIGNA",
  "UNITED HEALTHCARE",
  "UHC",
  "HUMANA",
  "TRICARE",
  "RAILROAD MEDICARE",
  "ANTHEM",
  "MOLINA",
  "WELLCARE",
  "AMERIGROUP",
  "PTAN",
  "MEDICARE PTAN",
  "CHAMPVA",
  "OPTUM",
];
const LEGACY_TYPES = ["02", "04", "06", "08"];

/**
 * Fills other-identifier slots (Medicaid, payer and legacy Medicare numbers) for some providers.
 *
 * @example
 * ```ts
 * import { dayNumber } from "./dates.ts";
 * import { Rng } from "./prng.ts";
 * const row = new Array<string>(330).fill("");
 * putIdentifiers(row, new Rng(1), "MD", dayNumber(2006, 3, 1));
 * ```
 */
export function putIdentifiers(row: string[], rng: Rng, state: string, enumerated: number): void {
  const legacy = enumerated < LEGACY_IDENTIFIER_END;
  if (!rng.chance(legacy ? 0.45 : 0.16)) return;
  const n = rng.chance(0.7) ? 1 : rng.chance(0.7) ? 2 : rng.range(3, 5);
  for (let i = 0; i < n; i++) {
    const cols = IDENTIFIER_COLS[i]!;
    const u = rng.float();
    if (legacy && u < 0.08) {
      row[cols.identifier] = String.fromCharCode(65 + rng.int(26)) + rng.digits(5);
      row[cols.type] = rng.pick(LEGACY_TYPES);
    } else if (u < 0.58) {
      row[cols.identifier] = rng.chance(0.3)
        ? String.fromCharCode(65 + rng.int(26)) + rng.digits(7)
        : rng.digits(rng.range(6, 10));
      row[cols.type] = "05";
      row[cols.state] = state;
    } else {
      row[cols.identifier] = rng.chance(0.5)
        ? rng.digits(rng.range(6, 11))
        : String.fromCharCode(65 + rng.int(26)) + rng.digits(rng.range(5, 8));
      row[cols.type] = "01";
      if (rng.chance(0.4)) row[cols.state] = state;
      row[cols.issuer] = rng.pick(ISSUERS);
    }
  }
}

/**
 * Enumeration, last update and certification dates, plus deactivation history.
 *
 * @example
 * ```ts
 * import { NPI_COL } from "../nppes/columns.ts";
 * import { dayNumber } from "./dates.ts";
 * import { Rng } from "./prng.ts";
 * const row = new Array<string>(330).fill("");
 * putDates(row, new Rng(1), dayNumber(2010, 6, 1), false);
 * row[NPI_COL.enumerationDate]; // "06/01/2010"
 * ```
 */
export function putDates(row: string[], rng: Rng, enumerated: number, reactivated: boolean): void {
  row[NPI_COL.enumerationDate] = formatDay(enumerated);
  let floor = enumerated;
  if (reactivated) {
    const deactivated = dayBetween(
      rng,
      Math.min(enumerated + 200, DEMO_RELEASE_DAY - 60),
      DEMO_RELEASE_DAY - 40,
    );
    const react = dayBetween(
      rng,
      deactivated + 14,
      Math.min(deactivated + 900, DEMO_RELEASE_DAY - 2),
    );
    row[NPI_COL.deactivationDate] = formatDay(deactivated);
    row[NPI_COL.reactivationDate] = formatDay(react);
    floor = react;
  }
  const updated = !reactivated && rng.chance(0.12)
    ? enumerated
    : dayBetween(rng, floor, DEMO_RELEASE_DAY - 1, true);
  row[NPI_COL.lastUpdated] = formatDay(updated);
  if (updated >= CERTIFICATION_START && rng.chance(0.6)) {
    row[NPI_COL.certificationDate] = formatDay(
      rng.chance(0.7) ? updated : dayBetween(rng, Math.max(floor, updated - 400), updated),
    );
  }
}
