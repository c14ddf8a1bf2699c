/**
 * Organization names for the demo data, the way they read in NPPES: legal
 * business names by kind ("SPRINGFIELD MEMORIAL HOSPITAL", "ST. JOSEPH'S
 * MEDICAL CENTER", "NAKAMURA FAMILY DENTISTRY PLLC", "CVS PHARMACY INC" with a
 * "CVS/PHARMACY #04512" trade name...), other names (doing business as,
 * former legal names, other), parent organizations of subparts, and the
 * titles of authorized officials.
 *
 * @module
 */

import { Rng, WeightedTable } from "./prng.ts";
import type { OrgKind } from "./specialties.ts";
import type { NameSampler } from "./people.ts";

/** Other-name type codes of the othername file (3 DBA, 4 former LBN, 5 other). */
export type OrgOtherNameType = "3" | "4" | "5";

/** An organization's names. */
export interface OrgIdentity {
  /** Legal business name. */
  name: string;
  /** Other names, for the othername file. */
  otherNames: { name: string; type: OrgOtherNameType }[];
  /** Parent organization's legal name when the organization is a subpart. */
  parent: string;
  /** True for a store of a national chain (pharmacy or laboratory). */
  chain: boolean;
}

/** What a name template may use. */
export interface OrgNameContext {
  city: string;
  state: string;
  stateName: string;
  code: string;
  label: string;
}

const ADJECTIVES = words(`PREMIER ADVANCED COMPLETE COMPREHENSIVE PRIORITY HERITAGE PINNACLE SUMMIT
ALLIANCE UNITED TRINITY GUARDIAN LIBERTY CORNERSTONE ACCESS BRIGHTPATH CARING COMPASSIONATE
SUNRISE HARMONY ANGEL GOLDEN EVERGREEN PATRIOT AMERICAN NATIONAL QUALITY PRECISION ELITE OPTIMUM
VITAL TOTAL INTEGRITY SOUTHERN NORTHERN COASTAL MOUNTAIN VALLEY LAKESIDE RIVERSIDE GATEWAY
KEYSTONE HORIZON BEACON PATHWAYS MERIDIAN CAPITAL METRO TRI-COUNTY LIFELINE HAVEN TRUECARE
WELLSPRING NORTHSTAR CROSSROADS HOPE MAGNOLIA CENTURY SIGNATURE`).concat([
  "BLUE RIDGE",
  "NEW HORIZONS",
  "FIRST CHOICE",
  "ALL CARE",
  "GOOD SHEPHERD",
  "NEW BEGINNINGS",
]);
const SAINTS = words(`JOSEPH MARY LUKE JOHN FRANCIS VINCENT ANTHONY ELIZABETH CATHERINE MARK
PETER PAUL MICHAEL JAMES DAVID AGNES CLARE JUDE THOMAS DOMINIC ROSE ANNE BARNABAS CHARLES
PATRICK ALEXIUS BERNARDINE CLOUD`);
const RELIGIOUS = words(`MERCY METHODIST BAPTIST PRESBYTERIAN LUTHERAN ADVENTIST`).concat([
  "GOOD SAMARITAN",
  "SACRED HEART",
  "HOLY CROSS",
  "PROVIDENCE",
]);
const COUNTIES = words(`WASHINGTON JEFFERSON FRANKLIN JACKSON LINCOLN MADISON MONTGOMERY UNION
MARION CLAY WARREN GREENE WAYNE MONROE CARROLL GRANT JOHNSON LAWRENCE MARSHALL POLK HAMILTON CLARK
LAKE LEE ADAMS BROWN CALHOUN CRAWFORD DOUGLAS FAYETTE HANCOCK HARRISON HENRY KNOX LOGAN MORGAN
PERRY PIKE PUTNAM RANDOLPH SCOTT SHELBY`);
const NATURE = words(`WILLOW OAK PINE MAPLE CEDAR MEADOW RIVER LAKE SPRING GARDEN VALLEY HILL
SUNSET AUTUMN SILVER ASPEN BIRCH HICKORY LAUREL MAGNOLIA`);
const PLACE_NOUNS = words(`CREEK RIDGE HAVEN GROVE HILLS BROOK VIEW WOOD CREST MANOR POINTE
GARDENS TERRACE`);

const SUFFIX_TABLE = new WeightedTable(
  ["", " INC", " LLC", ", INC.", ", LLC", " L.L.C.", " CORP", " LTD", " CORPORATION", " INC."],
  [26, 20, 30, 8, 6, 2, 3, 1, 2, 2],
);
const PRACTICE_SUFFIX = new WeightedTable(
  ["", " PC", " PA", " PLLC", " LLC", ", P.C.", ", P.A.", " INC", " SC"],
  [18, 20, 16, 12, 18, 5, 4, 5, 2],
);

interface Chain {
  name: string;
  store: string;
  weight: number;
  states?: readonly string[];
}

const PHARMACY_CHAINS: readonly Chain[] = [
  { name: "CVS PHARMACY INC", store: "CVS/PHARMACY #", weight: 10 },
  { name: "WALGREEN CO", store: "WALGREENS #", weight: 9 },
  { name: "WAL-MART STORES EAST LP", store: "WALMART PHARMACY 10-", weight: 3 },
  { name: "WALMART INC", store: "WALMART PHARMACY 10-", weight: 3 },
  { name: "THE KROGER CO", store: "KROGER PHARMACY #", weight: 3 },
  { name: "RITE AID OF PENNSYLVANIA INC", store: "RITE AID #", weight: 1, states: ["PA"] },
  { name: "RITE AID OF NEW YORK INC", store: "RITE AID #", weight: 1, states: ["NY"] },
  { name: "RITE AID OF MICHIGAN INC", store: "RITE AID #", weight: 1, states: ["MI"] },
  {
    name: "PUBLIX SUPER MARKETS INC",
    store: "PUBLIX PHARMACY #",
    weight: 3,
    states: ["FL", "GA", "AL", "SC", "NC", "TN", "VA"],
  },
  { name: "H-E-B LP", store: "H-E-B PHARMACY #", weight: 3, states: ["TX"] },
  {
    name: "SAFEWAY INC",
    store: "SAFEWAY PHARMACY #",
    weight: 1.5,
    states: ["CA", "WA", "OR", "CO", "AZ", "MD", "VA", "DC"],
  },
  {
    name: "ALBERTSONS LLC",
    store: "ALBERTSONS PHARMACY #",
    weight: 1,
    states: ["CA", "TX", "ID", "NV", "WA", "OR", "NM"],
  },
  { name: "COSTCO WHOLESALE CORPORATION", store: "COSTCO PHARMACY #", weight: 1 },
  {
    name: "HY-VEE INC",
    store: "HY-VEE PHARMACY #",
    weight: 1,
    states: ["IA", "NE", "MO", "MN", "KS", "SD", "IL", "WI"],
  },
  {
    name: "MEIJER STORES LIMITED PARTNERSHIP",
    store: "MEIJER PHARMACY #",
    weight: 1,
    states: ["MI", "OH", "IN", "IL", "KY", "WI"],
  },
  {
    name: "WEGMANS FOOD MARKETS INC",
    store: "WEGMANS PHARMACY #",
    weight: 0.5,
    states: ["NY", "PA", "NJ", "VA", "MD", "MA"],
  },
  { name: "GIANT EAGLE INC", store: "GIANT EAGLE PHARMACY #", weight: 0.5, states: ["PA", "OH"] },
];
const CHAIN_TABLE = new WeightedTable(PHARMACY_CHAINS, PHARMACY_CHAINS.map((c) => c.weight));

const LAB_CHAINS = ["QUEST DIAGNOSTICS INCORPORATED", "LABORATORY CORPORATION OF AMERICA"];

function words(text: string): string[] {
  return text.trim().split(/\s+/);
}

/** What a name template gets: the place, the random stream, the name tables. */
interface NameArgs extends OrgNameContext {
  rng: Rng;
  names: NameSampler;
}

type Template = (a: NameArgs) => string;

function surname(a: NameArgs): string {
  return a.names.surnames.sampleCommon(a.rng);
}
function adjective(a: NameArgs): string {
  return a.rng.pick(ADJECTIVES);
}
function naturePlace(a: NameArgs): string {
  const first = a.rng.pick(NATURE);
  const second = a.rng.pick(PLACE_NOUNS);
  return a.rng.chance(0.3) && second.length <= 5 ? first + second : `${first} ${second}`;
}
function saint(a: NameArgs): string {
  const s = a.rng.pick(SAINTS);
  const possessive = s.endsWith("S") ? s : `${s}'S`;
  return a.rng.chance(0.5) ? `ST. ${possessive}` : a.rng.chance(0.5) ? `ST. ${s}` : `SAINT ${s}`;
}
function county(a: NameArgs): string {
  return a.rng.pick(COUNTIES) + " COUNTY";
}
function doctorName(a: NameArgs, degree: string): string {
  const female = a.rng.chance(0.4);
  return `${a.names.first(a.rng, female)} ${a.names.surnames.sample(a.rng)} ${degree}`;
}

const T: Readonly<Record<OrgKind, readonly Template[]>> = {
  pharmacy: [
    (a) => `${surname(a)} PHARMACY`,
    (a) => `${surname(a)}'S PHARMACY`,
    (a) => `${a.city} DRUG`,
    (a) => `${a.city} PHARMACY`,
    (a) => `FAMILY PHARMACY OF ${a.city}`,
    (a) => `${adjective(a)} PHARMACY`,
    (a) => `${adjective(a)} PHARMACY SERVICES`,
    () => "COMMUNITY PHARMACY",
    () => "HOMETOWN PHARMACY",
  ],
  hospital: [
    (a) => `${a.city} MEMORIAL HOSPITAL`,
    (a) => `${a.city} REGIONAL MEDICAL CENTER`,
    (a) => `${a.city} COMMUNITY HOSPITAL`,
    (a) => `${a.city} GENERAL HOSPITAL`,
    (a) => `${saint(a)} HOSPITAL`,
    (a) => `${saint(a)} MEDICAL CENTER`,
    (a) => `${saint(a)} REGIONAL MEDICAL CENTER`,
    (a) => `${surname(a)} MEMORIAL HOSPITAL`,
    (a) => `${county(a)} HOSPITAL`,
    (a) => `${county(a)} MEMORIAL HOSPITAL`,
    (a) => `${a.rng.pick(RELIGIOUS)} HOSPITAL ${a.city}`,
    (a) => `${a.city} ${a.rng.pick(RELIGIOUS)} HOSPITAL`,
    (a) => `UNIVERSITY OF ${a.stateName} MEDICAL CENTER`,
  ],
  clinic: [
    (a) => `${a.city} MEDICAL CLINIC`,
    (a) => `${adjective(a)} HEALTH CLINIC`,
    (a) => `${a.city} HEALTH CENTER`,
    (a) => `${adjective(a)} MULTISPECIALTY CLINIC`,
    (a) => `${surname(a)} CLINIC`,
    (a) => `${adjective(a)} MEDICAL CENTER`,
  ],
  primary: [
    (a) => `${a.city} FAMILY MEDICINE`,
    (a) => `${a.city} PRIMARY CARE`,
    (a) => `${adjective(a)} PRIMARY CARE`,
    (a) => `${surname(a)} FAMILY PRACTICE`,
    (a) => `${surname(a)} MEDICAL CLINIC`,
    (a) => `${a.city} RURAL HEALTH CLINIC`,
  ],
  fqhc: [
    (a) => `${a.city} COMMUNITY HEALTH CENTER`,
    (a) => `${adjective(a)} COMMUNITY HEALTH CENTERS`,
    (a) => `${county(a)} HEALTH CENTER`,
    (a) => `COMMUNITY HEALTH CENTER OF ${a.city}`,
  ],
  urgent: [
    (a) => `${a.city} URGENT CARE`,
    (a) => `${adjective(a)} URGENT CARE`,
    (a) => `URGENT CARE OF ${a.city}`,
    (a) => `${adjective(a)} WALK-IN CLINIC`,
    (a) => `${a.city} EXPRESS CARE`,
  ],
  asc: [
    (a) => `${a.city} SURGERY CENTER`,
    (a) => `${a.city} AMBULATORY SURGERY CENTER`,
    (a) => `${adjective(a)} SURGICAL CENTER`,
    (a) => `${a.city} ENDOSCOPY CENTER`,
    (a) => `${adjective(a)} SURGERY CENTER`,
  ],
  mental: [
    (a) => `${a.city} BEHAVIORAL HEALTH`,
    (a) => `${adjective(a)} COUNSELING SERVICES`,
    (a) => `${adjective(a)} MENTAL HEALTH`,
    (a) => `${surname(a)} COUNSELING`,
    (a) => `${adjective(a)} PSYCHOLOGICAL SERVICES`,
    (a) => `${adjective(a)} BEHAVIOR THERAPY`,
    (a) => `${a.city} COMMUNITY MENTAL HEALTH CENTER`,
    (a) => `${adjective(a)} FAMILY COUNSELING CENTER`,
    (a) => `${surname(a)} & ASSOCIATES COUNSELING`,
  ],
  substance: [
    (a) => `${adjective(a)} RECOVERY CENTER`,
    (a) => `${a.city} TREATMENT CENTER`,
    (a) => `${adjective(a)} ADDICTION SERVICES`,
    (a) => `${naturePlace(a)} RECOVERY`,
  ],
  dialysis: [
    (a) => `${a.city} DIALYSIS CENTER`,
    (a) => `${adjective(a)} KIDNEY CARE`,
    (a) => `${a.city} DIALYSIS`,
  ],
  imaging: [
    (a) => `${a.city} IMAGING CENTER`,
    (a) => `${adjective(a)} RADIOLOGY`,
    (a) => `${a.city} MRI`,
    (a) => `${adjective(a)} DIAGNOSTIC IMAGING`,
  ],
  homehealth: [
    (a) => `${adjective(a)} HOME HEALTH CARE`,
    (a) => `${a.city} HOME HEALTH SERVICES`,
    (a) => `${adjective(a)} HOME HEALTH AGENCY`,
    (a) => `${surname(a)} HOME HEALTH`,
    (a) => `${adjective(a)} HOME HEALTH`,
  ],
  hospice: [
    (a) => `${adjective(a)} HOSPICE`,
    (a) => `HOSPICE OF ${a.city}`,
    (a) => `${a.city} HOSPICE AND PALLIATIVE CARE`,
  ],
  homecare: [
    (a) => `${adjective(a)} HOME CARE`,
    (a) => `${adjective(a)} CARE SERVICES`,
    (a) => `${adjective(a)} SENIOR CARE`,
    (a) => `${adjective(a)} IN-HOME CARE`,
    (a) => `${adjective(a)} NURSING SERVICES`,
  ],
  dme: [
    (a) => `${a.city} MEDICAL SUPPLY`,
    (a) => `${adjective(a)} MEDICAL EQUIPMENT`,
    (a) => `${adjective(a)} HOME MEDICAL`,
    (a) => `${surname(a)} MEDICAL SUPPLY`,
    (a) => `${adjective(a)} ORTHOTICS & PROSTHETICS`,
    (a) => `${adjective(a)} HEARING AID CENTER`,
    (a) => `${adjective(a)} OPTICAL`,
    (a) => `${adjective(a)} OXYGEN AND MEDICAL EQUIPMENT`,
  ],
  lab: [
    (a) => `${a.city} CLINICAL LABORATORY`,
    (a) => `${adjective(a)} DIAGNOSTIC LABORATORIES`,
    (a) => `${adjective(a)} LABS`,
    (a) => `${adjective(a)} TOXICOLOGY LABORATORY`,
    (a) => `${a.city} PATHOLOGY LABORATORY`,
  ],
  ambulance: [
    (a) => `${a.city} FIRE DEPARTMENT`,
    (a) => `${county(a)} EMS`,
    (a) => `${adjective(a)} AMBULANCE SERVICE`,
    (a) => `${a.city} RESCUE SQUAD`,
    (a) => `${adjective(a)} EMERGENCY MEDICAL SERVICES`,
  ],
  transport: [
    (a) => `${adjective(a)} MEDICAL TRANSPORTATION`,
    (a) => `${adjective(a)} TRANSPORT SERVICES`,
    (a) => `${a.city} MEDICAL TRANSPORT`,
  ],
  snf: [
    (a) => `${naturePlace(a)} NURSING AND REHABILITATION CENTER`,
    (a) => `${a.city} HEALTH AND REHABILITATION`,
    (a) => `${naturePlace(a)} MANOR`,
    (a) => `${a.city} CARE CENTER`,
    (a) => `${naturePlace(a)} HEALTHCARE CENTER`,
    (a) => `${a.city} NURSING HOME`,
  ],
  assisted: [
    (a) => `${naturePlace(a)} ASSISTED LIVING`,
    (a) => `${naturePlace(a)} SENIOR LIVING`,
    (a) => `${adjective(a)} ADULT FAMILY HOME`,
    (a) => `${naturePlace(a)} MEMORY CARE`,
  ],
  residential: [
    (a) => `${adjective(a)} GROUP HOME`,
    (a) => `${naturePlace(a)} RESIDENTIAL SERVICES`,
    (a) => `${adjective(a)} SUPPORTED LIVING`,
  ],
  group: [
    (a) => `${surname(a)} MEDICAL ASSOCIATES`,
    (a) => `${a.city} MEDICAL GROUP`,
    (a) => `${adjective(a)} PHYSICIANS GROUP`,
    (a) => `${a.city} CLINIC`,
    (a) => `${surname(a)} & ${surname(a)} MEDICAL GROUP`,
    (a) => `${adjective(a)} HEALTH PARTNERS`,
    (a) => `${adjective(a)} MEDICAL SPECIALISTS`,
  ],
  practice: [
    (a) => `${a.city} ${a.label} ASSOCIATES`,
    (a) => `${surname(a)} ${a.label}`,
    (a) => `${adjective(a)} ${a.label}`,
    (a) => `${a.label} ASSOCIATES OF ${a.city}`,
    (a) => `${surname(a)} ${a.label} GROUP`,
    (a) =>
      doctorName(a, a.label === "CHIROPRACTIC" ? "DC" : a.label.startsWith("EYE") ? "OD" : "MD"),
  ],
  dental: [
    (a) => `${surname(a)} FAMILY DENTISTRY`,
    (a) => `${a.city} DENTAL CARE`,
    (a) => `${surname(a)} & ${surname(a)} DDS`,
    (a) => `${adjective(a)} DENTAL GROUP`,
    (a) => `${adjective(a)} SMILES DENTISTRY`,
    (a) => doctorName(a, "DDS"),
    (a) => `${a.city} ORTHODONTICS`,
    (a) => `${a.city} PEDIATRIC DENTISTRY`,
  ],
  therapy: [
    (a) => `${surname(a)} & ${surname(a)} ${a.label}`,
    (a) => `${a.city} ${a.label} AND SPORTS MEDICINE`,
    (a) => `${adjective(a)} ${a.label} SERVICES`,
    (a) => `${a.label} OF ${a.city}`,
    (a) => `${adjective(a)} ${a.label}`,
  ],
  agency: [
    (a) => `${county(a)} HEALTH DEPARTMENT`,
    (a) => `${a.city} PUBLIC HEALTH`,
    (a) => `${adjective(a)} CASE MANAGEMENT`,
    (a) => `${county(a)} COMMUNITY SERVICES BOARD`,
  ],
};

/** Kinds whose legal names take professional-practice suffixes (PC, PA, PLLC). */
const PROFESSIONAL: ReadonlySet<OrgKind> = new Set<OrgKind>([
  "practice",
  "dental",
  "therapy",
  "group",
  "mental",
]);
/** Kinds that rarely carry a corporate suffix (public and large nonprofits). */
const PUBLIC_LIKE: ReadonlySet<OrgKind> = new Set<OrgKind>([
  "hospital",
  "agency",
  "ambulance",
  "fqhc",
]);

function withSuffix(rng: Rng, kind: OrgKind, base: string): string {
  if (PUBLIC_LIKE.has(kind)) {
    return rng.chance(0.25) && !/(DEPARTMENT|EMS|BOARD|PUBLIC HEALTH|SQUAD)$/.test(base)
      ? base + " INC"
      : base;
  }
  if (/ (MD|DDS|DC|OD)$/.test(base)) return base + (rng.chance(0.6) ? " PA" : " PC");
  return base + (PROFESSIONAL.has(kind) ? PRACTICE_SUFFIX : SUFFIX_TABLE).sample(rng);
}

function stripSuffix(name: string): string {
  return name.replace(
    /,? (INC\.?|LLC|L\.L\.C\.|CORP|CORPORATION|LTD|PC|PA|PLLC|P\.C\.|P\.A\.|SC)$/,
    "",
  );
}

function initials(name: string): string {
  const parts = stripSuffix(name).split(/[ -]+/).filter((w) =>
    /^[A-Z]/.test(w) && w !== "OF" && w !== "AND" && w !== "&"
  );
  return parts.map((w) => w.charAt(0)).join("");
}

const HOSPITAL_PARENTS: readonly Template[] = [
  (a) => `${a.city} HEALTH SYSTEM`,
  (a) => `${adjective(a)} HEALTH SYSTEM`,
  (a) => `${a.rng.pick(RELIGIOUS)} HEALTH`,
  (a) => `${a.city} HOSPITAL AUTHORITY`,
  (a) => `${county(a)} HOSPITAL DISTRICT`,
];
const OTHER_PARENTS: readonly Template[] = [
  (a) => `${a.city} HEALTH SYSTEM`,
  (a) => `${adjective(a)} HEALTH SYSTEM`,
  (a) => `${adjective(a)} HEALTHCARE PARTNERS LLC`,
  (a) => `${surname(a)} HOLDINGS INC`,
  (a) => `${adjective(a)} HEALTH SERVICES INC`,
];

/**
 * Makes the names of one organization.
 *
 * @example
 * ```ts
 * import { NameSampler } from "./people.ts";
 * import { Rng } from "./prng.ts";
 * const ctx = { city: "DAYTON", state: "OH", stateName: "OHIO", code: "282N00000X", label: "" };
 * organizationIdentity(new Rng(1), "hospital", ctx, new NameSampler()).name;
 * // e.g. "DAYTON MEMORIAL HOSPITAL"
 * ```
 */
export function organizationIdentity(
  rng: Rng,
  kind: OrgKind,
  ctx: OrgNameContext,
  names: NameSampler,
): OrgIdentity {
  const otherNames: OrgIdentity["otherNames"] = [];
  const args: NameArgs = { ...ctx, rng, names };
  // Retail pharmacy chains: one legal name for thousands of stores, each
  // store known by a numbered trade name.
  if (
    kind === "pharmacy" && (ctx.code === "3336C0003X" || ctx.code === "333600000X") &&
    rng.chance(0.48)
  ) {
    let chain = CHAIN_TABLE.sample(rng);
    if (chain.states && !chain.states.includes(ctx.state)) chain = CHAIN_TABLE.items[rng.int(2)]!;
    const storeNumber = chain.store.endsWith("-")
      ? rng.digits(4)
      : String(rng.range(100, 19999)).padStart(5, "0");
    otherNames.push({ name: chain.store + storeNumber, type: "3" });
    return { name: chain.name, otherNames, parent: rng.chance(0.4) ? chain.name : "", chain: true };
  }
  if (kind === "lab" && rng.chance(0.15)) {
    const name = rng.pick(LAB_CHAINS);
    return { name, otherNames, parent: rng.chance(0.5) ? name : "", chain: true };
  }
  const base = rng.pick(T[kind])(args);
  const name = withSuffix(rng, kind, base);
  if (rng.chance(0.3)) {
    const n = rng.chance(0.6) ? 1 : rng.chance(0.6) ? 2 : 3;
    for (let i = 0; i < n; i++) {
      const u = rng.float();
      if (u < 0.6) {
        const dba = rng.chance(0.5) ? stripSuffix(name) : rng.pick(T[kind])(args);
        otherNames.push({
          name: dba === name ? rng.pick(T[kind])(args) : dba,
          type: "3",
        });
      } else if (u < 0.85) {
        otherNames.push({
          name: withSuffix(rng, kind, rng.pick(T[kind])(args)),
          type: "4",
        });
      } else {
        const abbreviation = initials(name);
        otherNames.push({
          name: abbreviation.length >= 2 ? abbreviation : "THE " + stripSuffix(name),
          type: "5",
        });
      }
    }
  }
  let parent = "";
  const subpartChance = kind === "hospital"
    ? 0.35
    : kind === "homehealth" || kind === "hospice"
    ? 0.15
    : 0.07;
  if (rng.chance(subpartChance)) {
    parent = rng.pick(kind === "hospital" ? HOSPITAL_PARENTS : OTHER_PARENTS)(args);
  }
  return { name, otherNames: dedupe(otherNames, name), parent, chain: false };
}

function dedupe(list: OrgIdentity["otherNames"], legal: string): OrgIdentity["otherNames"] {
  if (list.length === 0) return list;
  const seen = new Set<string>([legal]);
  return list.filter((o) => (seen.has(o.name) ? false : (seen.add(o.name), true)));
}

const TITLES: Readonly<Partial<Record<OrgKind, readonly string[]>>> = {
  pharmacy: [
    "PHARMACIST IN CHARGE",
    "OWNER",
    "PRESIDENT",
    "DIRECTOR OF PHARMACY",
    "MANAGING MEMBER",
  ],
  hospital: [
    "CEO",
    "CHIEF FINANCIAL OFFICER",
    "PRESIDENT",
    "VP REVENUE CYCLE",
    "DIRECTOR PATIENT ACCOUNTS",
    "CHIEF OPERATING OFFICER",
  ],
  homehealth: ["ADMINISTRATOR", "DIRECTOR OF NURSING", "OWNER", "CEO"],
  hospice: ["ADMINISTRATOR", "EXECUTIVE DIRECTOR", "CEO"],
  ambulance: ["FIRE CHIEF", "EMS DIRECTOR", "OWNER", "BILLING MANAGER"],
  lab: ["LAB DIRECTOR", "CEO", "PRESIDENT", "COMPLIANCE OFFICER"],
  snf: ["ADMINISTRATOR", "EXECUTIVE DIRECTOR", "CFO"],
  mental: ["EXECUTIVE DIRECTOR", "CLINICAL DIRECTOR", "OWNER", "PRESIDENT"],
  fqhc: ["CEO", "CHIEF EXECUTIVE OFFICER", "CFO"],
};
const GENERIC_TITLES = [
  "OWNER",
  "PRESIDENT",
  "MANAGING MEMBER",
  "OFFICE MANAGER",
  "PRACTICE ADMINISTRATOR",
  "CEO",
  "MEMBER",
  "ADMINISTRATOR",
  "BILLING MANAGER",
  "DIRECTOR",
  "COO",
  "PRACTICE MANAGER",
];
const CHAIN_TITLES = [
  "DIRECTOR PHARMACY AFFAIRS",
  "VP PHARMACY OPERATIONS",
  "SENIOR DIRECTOR",
  "MANAGER REGULATORY AFFAIRS",
];

/**
 * The title of an organization's authorized official.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * officialTitle(new Rng(1), "hospital", false); // e.g. "CEO"
 * ```
 */
export function officialTitle(rng: Rng, kind: OrgKind, chain: boolean): string {
  if (chain && kind === "pharmacy") return rng.pick(CHAIN_TITLES);
  const list = TITLES[kind];
  return list && rng.chance(0.75) ? rng.pick(list) : rng.pick(GENERIC_TITLES);
}
