/**
 * People for the demo data: names (given, middle, family, prefix, suffix),
 * credentials that match the profession, and license numbers.
 *
 * @module
 */

import { FEMALE_FIRST_NAMES, MALE_FIRST_NAMES } from "./first_names.ts";
import { Rng, WeightedTable } from "./prng.ts";
import type { Profession } from "./specialties.ts";
import { SurnameSampler } from "./surnames.ts";

/** A person's name parts as NPPES stores them (upper case, "" when empty). */
export interface PersonName {
  first: string;
  middle: string;
  last: string;
  prefix: string;
  suffix: string;
  /** `M` or `F`. */
  sex: "M" | "F";
  /** A former last name (maiden name), or "". */
  formerLast: string;
}

function pairs(text: string): WeightedTable<string> {
  const tokens = text.trim().split(/\s+/);
  const items: string[] = [];
  const weights: number[] = [];
  for (let i = 0; i + 1 < tokens.length; i += 2) {
    items.push(tokens[i]!);
    weights.push(Number(tokens[i + 1]));
  }
  return new WeightedTable(items, weights);
}

const SUFFIXES = new WeightedTable(["JR.", "II", "III", "SR.", "IV"], [60, 14, 16, 6, 4]);

/** Credential texts by profession, as providers type them (with weights). */
const CREDENTIALS: Readonly<Record<Profession, readonly (readonly [string, number])[]>> = {
  physician: [
    ["M.D.", 46],
    ["MD", 30],
    ["D.O.", 7],
    ["DO", 4],
    ["M.D., PH.D.", 2],
    [
      "MD, MPH",
      1.5,
    ],
    ["M.D., FACP", 0.5],
    ["MBBS", 0.5],
    ["", 8.5],
  ],
  np: [
    ["NP", 12],
    ["FNP-C", 15],
    ["APRN", 14],
    ["FNP-BC", 10],
    ["APRN, FNP-C", 8],
    ["ARNP", 6],
    [
      "CRNP",
      6,
    ],
    ["DNP", 5],
    ["MSN, FNP-C", 5],
    ["PMHNP-BC", 4],
    ["AGNP-C", 3],
    ["NP-C", 4],
    ["", 8],
  ],
  rn: [["RN", 55], ["R.N.", 6], ["BSN, RN", 12], ["RN, BSN", 10], ["MSN, RN", 4], ["RN, CCM", 1], [
    "",
    12,
  ]],
  lpn: [["LPN", 70], ["L.P.N.", 8], ["LVN", 12], ["", 10]],
  crna: [["CRNA", 85], ["CRNA, DNP", 5], ["", 10]],
  midwife: [["CNM", 75], ["CNM, MSN", 10], ["", 15]],
  cns: [["CNS", 50], ["APRN, CNS", 30], ["", 20]],
  pa: [["PA-C", 70], ["PA", 15], ["P.A.-C", 5], ["", 10]],
  dentist: [["DDS", 45], ["DMD", 30], ["D.D.S.", 10], ["D.M.D.", 5], ["", 10]],
  hygienist: [["RDH", 80], ["", 20]],
  pharmacist: [["PHARMD", 40], ["PHARM.D.", 10], ["RPH", 25], ["R.PH.", 8], ["PHARMD, BCPS", 3], [
    "",
    14,
  ]],
  pharmtech: [["CPHT", 70], ["", 30]],
  counselor: [
    ["LPC", 30],
    ["LMHC", 15],
    ["LPCC", 8],
    ["LCPC", 6],
    ["MA, LPC", 8],
    ["LPC, NCC", 5],
    [
      "LADC",
      4,
    ],
    ["LCADC", 3],
    ["MS", 4],
    ["", 17],
  ],
  socialworker: [["LCSW", 60], ["LICSW", 8], ["LMSW", 10], ["MSW, LCSW", 6], ["MSW", 6], ["", 10]],
  psychologist: [["PH.D.", 35], ["PHD", 20], ["PSYD", 25], ["PSY.D.", 8], ["", 12]],
  mft: [["LMFT", 80], ["", 20]],
  behavior: [["BCBA", 75], ["BCBA-D", 5], ["", 20]],
  chiropractor: [["DC", 65], ["D.C.", 25], ["", 10]],
  pt: [["PT, DPT", 30], ["DPT", 30], ["PT", 25], ["MPT", 5], ["", 10]],
  pta: [["PTA", 85], ["", 15]],
  ot: [["OTR/L", 65], ["OT", 15], ["OTD, OTR/L", 5], ["", 15]],
  slp: [["CCC-SLP", 50], ["M.S., CCC-SLP", 15], ["SLP", 15], ["MA, CCC-SLP", 8], ["", 12]],
  audiologist: [["AUD", 60], ["AU.D.", 15], ["CCC-A", 10], ["", 15]],
  massage: [["LMT", 75], ["CMT", 10], ["", 15]],
  optometrist: [["OD", 70], ["O.D.", 20], ["", 10]],
  podiatrist: [["DPM", 85], ["D.P.M.", 8], ["", 7]],
  dietitian: [["RD", 40], ["RDN", 30], ["RD, LD", 15], ["", 15]],
  student: [["MD", 30], ["M.D.", 15], ["DO", 10], ["D.O.", 5], ["", 40]],
  respiratory: [["RRT", 60], ["CRT", 25], ["", 15]],
  paramedic: [["NRP", 40], ["PARAMEDIC", 30], ["EMT-P", 15], ["", 15]],
  acupuncturist: [["L.AC.", 50], ["LAC", 30], ["DACM", 5], ["", 15]],
  casemanager: [["CCM", 40], ["", 60]],
  aide: [["", 80], ["CNA", 12], ["HHA", 8]],
  rbt: [["RBT", 80], ["", 20]],
  athletic: [["ATC", 60], ["LAT, ATC", 20], ["", 20]],
  ota: [["COTA/L", 55], ["COTA", 30], ["", 15]],
  optician: [["ABOC", 40], ["LDO", 20], ["", 40]],
  technologist: [["RT(R)", 40], ["ARRT", 20], ["", 40]],
};

/** License number prefixes by profession ("" = digits only). */
const LICENSE_PREFIXES: Readonly<Record<Profession, readonly string[]>> = {
  physician: ["", "MD", "A", "G", "ME", "C", "DO", "MD-", "L"],
  np: ["", "RN", "APRN", "NP", "AP", "APN"],
  rn: ["", "RN", "R", "RN-"],
  lpn: ["", "LPN", "PN", "LVN"],
  crna: ["", "RN", "APRN", "CRNA"],
  midwife: ["", "CNM", "APRN", "RN"],
  cns: ["", "RN", "APRN", "CNS"],
  pa: ["", "PA", "PA-", "C"],
  dentist: ["", "DN", "D", "DDS", "DMD"],
  hygienist: ["", "DH", "RDH"],
  pharmacist: ["", "RPH", "PH", "RP", "PHARM"],
  pharmtech: ["", "PT", "CPHT", "TECH"],
  counselor: ["", "LPC", "LMHC", "MHC", "PC"],
  socialworker: ["", "LCSW", "SW", "CSW", "LICSW"],
  psychologist: ["", "PSY", "PY", "PSYCH"],
  mft: ["", "LMFT", "MFT", "MF"],
  behavior: ["", "BCBA", "LBA"],
  chiropractor: ["", "DC", "CHI", "C"],
  pt: ["", "PT", "PT-", "PTL"],
  pta: ["", "PTA", "PA"],
  ot: ["", "OT", "OTR", "OTL"],
  slp: ["", "SLP", "SP", "SLP-"],
  audiologist: ["", "AUD", "AU"],
  massage: ["", "LMT", "MA", "MT"],
  optometrist: ["", "OD", "OPT", "O"],
  podiatrist: ["", "DPM", "POD", "PD"],
  dietitian: ["", "LD", "DN", "LDN"],
  student: ["", "T", "RES", "TR"],
  respiratory: ["", "RCP", "RT", "RRT"],
  paramedic: ["", "P", "EMT-P", "PM"],
  acupuncturist: ["", "AC", "LAC"],
  casemanager: [""],
  aide: [""],
  rbt: ["", "RBT"],
  athletic: ["", "AT", "LAT"],
  ota: ["", "OTA", "COTA"],
  optician: ["", "DO", "OPT"],
  technologist: ["", "RT", "R"],
};

const CREDENTIAL_TABLES = new Map<Profession, WeightedTable<string>>(
  (Object.keys(CREDENTIALS) as Profession[]).map((p) => [p, WeightedTable.of(CREDENTIALS[p])]),
);

/** Professions whose members often write "DR." as a name prefix. */
const DOCTOR_PREFIX: ReadonlySet<Profession> = new Set<Profession>([
  "physician",
  "dentist",
  "psychologist",
  "chiropractor",
  "optometrist",
  "podiatrist",
]);

/**
 * Makes person names with realistic frequencies.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * const names = new NameSampler();
 * const p = names.person(new Rng(1), true, "rn");
 * p.sex; // "F"
 * ```
 */
export class NameSampler {
  readonly surnames: SurnameSampler;
  readonly #male: WeightedTable<string>;
  readonly #female: WeightedTable<string>;

  /** Builds the name tables (once per generator). */
  constructor(surnames: SurnameSampler = new SurnameSampler()) {
    this.surnames = surnames;
    this.#male = pairs(MALE_FIRST_NAMES);
    this.#female = pairs(FEMALE_FIRST_NAMES);
  }

  /** A given name. */
  first(rng: Rng, female: boolean): string {
    return (female ? this.#female : this.#male).sample(rng);
  }

  /** A whole name; `profession` shapes the prefix (`DR.` for doctors). */
  person(rng: Rng, female: boolean, profession: Profession | null): PersonName {
    const first = this.first(rng, female);
    const u = rng.float();
    let middle = "";
    if (u < 0.42) {
      middle = this.first(rng, female);
      if (middle === first) middle = this.first(rng, !female).charAt(0);
    } else if (u < 0.74) {
      middle = String.fromCharCode(65 + rng.int(26));
      if (rng.chance(0.15)) middle += ".";
    }
    let last = this.surnames.sample(rng);
    let formerLast = "";
    if (female && rng.chance(0.11)) {
      formerLast = this.surnames.sample(rng);
      if (rng.chance(0.3)) last = formerLast + "-" + last;
    } else if (rng.chance(female ? 0.012 : 0.003)) {
      last = last + "-" + this.surnames.sample(rng);
    }
    if (formerLast === last) formerLast = "";
    let prefix = "";
    const p = rng.float();
    if (profession !== null && DOCTOR_PREFIX.has(profession)) {
      if (p < 0.28) prefix = "DR.";
    } else if (p < 0.04) {
      prefix = female ? (rng.chance(0.7) ? "MS." : "MRS.") : "MR.";
    } else if (p < 0.06 && (profession === "np" || profession === "pharmacist")) {
      prefix = "DR.";
    }
    const suffix = !female && rng.chance(0.045) ? SUFFIXES.sample(rng) : "";
    return { first, middle, last, prefix, suffix, sex: female ? "F" : "M", formerLast };
  }
}

/**
 * A credential text for a profession, as NPPES shows them ("M.D.", "FNP-C",
 * "LCSW"...), or "" (many providers leave it empty).
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * ["M.D.", "MD", "D.O.", "DO", "M.D., PH.D.", "MD, MPH", "M.D., FACP", "MBBS", ""]
 *   .includes(credentialFor(new Rng(1), "physician")); // true
 * ```
 */
export function credentialFor(rng: Rng, profession: Profession): string {
  return CREDENTIAL_TABLES.get(profession)!.sample(rng);
}

/**
 * A state license number for a profession: an optional profession prefix
 * and 4 to 8 digits ("MD012345", "RN123456", "45821").
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * /^[A-Z-]*[0-9]{4,8}$/.test(licenseNumber(new Rng(2), "rn")); // true
 * ```
 */
export function licenseNumber(rng: Rng, profession: Profession): string {
  const prefix = rng.pick(LICENSE_PREFIXES[profession]);
  const length = prefix === "" ? rng.range(5, 8) : rng.range(4, 7);
  return prefix + rng.digits(length);
}
