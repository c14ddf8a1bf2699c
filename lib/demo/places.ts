/**
 * Where demo providers are: ZIP codes drawn in proportion to an estimate of
 * where people (and so providers) are, and plausible street addresses and
 * phone numbers.
 *
 * Population weighting. The ZIP dataset (`lib/geo/zip.ts`) has no
 * population, so the weight of a ZIP is an honest proxy built from two facts:
 *
 * 1. State level: each state's (and DC's, Puerto Rico's, and the four
 *    populated territories') real 2020 Census resident population, split over
 *    that state's ZIPs. So California gets about 12% of providers and
 *    Wyoming about 0.2%, as in NPPES.
 * 2. Big cities: for about 100 large cities, their real 2020 Census
 *    population times 2 (providers per head are higher in urban cores,
 *    where the hospitals are), capped at 80% of the state, spread evenly
 *    over the city's ZIPs.
 * 3. The rest of the state is shared over its other ZIPs in proportion to
 *    `n^0.25`, where `n` is the number of ZIPs the dataset lists for the
 *    ZIP's place name in that state. A place with many ZIPs is a big place;
 *    its total grows as `n^1.25`, favouring towns and suburbs with several
 *    ZIPs over one-ZIP villages without letting PO-box-heavy places (state
 *    capitals, military towns) swamp the draw.
 *
 * The result puts about 12% of providers in California and 0.2% in Wyoming,
 * about 1.4% in Houston and 4% in New York City's four mail cities, and
 * about a third in the 100 largest cities: roughly what NPPES shows.
 *
 * Left out of the draw (but still valid for lookups): military APO/FPO/DPO
 * codes (AA, AE, AP), the freely associated states (FM, MH, PW), and ZIPs
 * whose city name is an organization ("BANK OF AMERICA", "IRS", "115 FIRMS"),
 * which are unique ZIPs of large mailers.
 *
 * @module
 */

import { allZips, type ZipInfo } from "../geo/zip.ts";
import { hash32, Rng, WeightedTable } from "./prng.ts";

/** 2020 Census resident population by state and territory. */
export const STATE_POPULATION_2020: Readonly<Record<string, number>> = {
  AL: 5024279,
  AK: 733391,
  AZ: 7151502,
  AR: 3011524,
  CA: 39538223,
  CO: 5773714,
  CT: 3605944,
  DE: 989948,
  DC: 689545,
  FL: 21538187,
  GA: 10711908,
  HI: 1455271,
  ID: 1839106,
  IL: 12812508,
  IN: 6785528,
  IA: 3190369,
  KS: 2937880,
  KY: 4505836,
  LA: 4657757,
  ME: 1362359,
  MD: 6177224,
  MA: 7029917,
  MI: 10077331,
  MN: 5706494,
  MS: 2961279,
  MO: 6154913,
  MT: 1084225,
  NE: 1961504,
  NV: 3104614,
  NH: 1377529,
  NJ: 9288994,
  NM: 2117522,
  NY: 20201249,
  NC: 10439388,
  ND: 779094,
  OH: 11799448,
  OK: 3959353,
  OR: 4237256,
  PA: 13002700,
  RI: 1097379,
  SC: 5118425,
  SD: 886667,
  TN: 6910840,
  TX: 29145505,
  UT: 3271616,
  VT: 643077,
  VA: 8631393,
  WA: 7705281,
  WV: 1793716,
  WI: 5893718,
  WY: 576851,
  PR: 3285874,
  GU: 153836,
  VI: 87146,
  AS: 49710,
  MP: 47329,
};

/** 2020 Census population of about 100 large cities, keyed `STATE|CITY` as the ZIP data names them. */
export const CITY_POPULATION_2020: Readonly<Record<string, number>> = {
  "NY|NEW YORK": 1694251,
  "NY|BROOKLYN": 2736074,
  "NY|BRONX": 1472654,
  "NY|STATEN ISLAND": 495747,
  "CA|LOS ANGELES": 3898747,
  "IL|CHICAGO": 2746388,
  "TX|HOUSTON": 2304580,
  "AZ|PHOENIX": 1608139,
  "PA|PHILADELPHIA": 1603797,
  "TX|SAN ANTONIO": 1434625,
  "CA|SAN DIEGO": 1386932,
  "TX|DALLAS": 1304379,
  "CA|SAN JOSE": 1013240,
  "TX|AUSTIN": 961855,
  "FL|JACKSONVILLE": 949611,
  "TX|FORT WORTH": 918915,
  "OH|COLUMBUS": 905748,
  "IN|INDIANAPOLIS": 887642,
  "NC|CHARLOTTE": 874579,
  "CA|SAN FRANCISCO": 873965,
  "WA|SEATTLE": 737015,
  "CO|DENVER": 715522,
  "DC|WASHINGTON": 689545,
  "TN|NASHVILLE": 689447,
  "OK|OKLAHOMA CITY": 681054,
  "TX|EL PASO": 678815,
  "MA|BOSTON": 675647,
  "OR|PORTLAND": 652503,
  "NV|LAS VEGAS": 641903,
  "MI|DETROIT": 639111,
  "TN|MEMPHIS": 633104,
  "KY|LOUISVILLE": 633045,
  "MD|BALTIMORE": 585708,
  "WI|MILWAUKEE": 577222,
  "NM|ALBUQUERQUE": 564559,
  "AZ|TUCSON": 542629,
  "CA|FRESNO": 542107,
  "CA|SACRAMENTO": 524943,
  "MO|KANSAS CITY": 508090,
  "AZ|MESA": 504258,
  "GA|ATLANTA": 498715,
  "NE|OMAHA": 486051,
  "CO|COLORADO SPRINGS": 478961,
  "NC|RALEIGH": 467665,
  "CA|LONG BEACH": 466742,
  "VA|VIRGINIA BEACH": 459470,
  "FL|MIAMI": 442241,
  "CA|OAKLAND": 440646,
  "MN|MINNEAPOLIS": 429954,
  "OK|TULSA": 413066,
  "CA|BAKERSFIELD": 403455,
  "KS|WICHITA": 397532,
  "TX|ARLINGTON": 394266,
  "CO|AURORA": 386261,
  "FL|TAMPA": 384959,
  "LA|NEW ORLEANS": 383997,
  "OH|CLEVELAND": 372624,
  "HI|HONOLULU": 350964,
  "CA|ANAHEIM": 346824,
  "KY|LEXINGTON": 322570,
  "TX|CORPUS CHRISTI": 317863,
  "NV|HENDERSON": 317610,
  "CA|RIVERSIDE": 314998,
  "NJ|NEWARK": 311549,
  "MN|SAINT PAUL": 311527,
  "CA|SANTA ANA": 310227,
  "OH|CINCINNATI": 309317,
  "FL|ORLANDO": 307573,
  "PA|PITTSBURGH": 302971,
  "MO|SAINT LOUIS": 301578,
  "NC|GREENSBORO": 299035,
  "NJ|JERSEY CITY": 292449,
  "AK|ANCHORAGE": 291247,
  "NE|LINCOLN": 291082,
  "TX|PLANO": 285494,
  "NC|DURHAM": 283506,
  "NY|BUFFALO": 278349,
  "AZ|CHANDLER": 275987,
  "OH|TOLEDO": 270871,
  "WI|MADISON": 269840,
  "NV|RENO": 264165,
  "IN|FORT WAYNE": 263886,
  "FL|SAINT PETERSBURG": 258308,
  "TX|LUBBOCK": 257141,
  "TX|LAREDO": 255205,
  "AZ|SCOTTSDALE": 241361,
  "ID|BOISE": 235684,
  "WA|SPOKANE": 228989,
  "VA|RICHMOND": 226610,
  "IA|DES MOINES": 214133,
  "NY|ROCHESTER": 211328,
  "MA|WORCESTER": 206518,
  "AR|LITTLE ROCK": 202591,
  "AL|BIRMINGHAM": 200733,
  "UT|SALT LAKE CITY": 199723,
  "MI|GRAND RAPIDS": 198917,
  "RI|PROVIDENCE": 190934,
  "TN|KNOXVILLE": 190740,
  "TN|CHATTANOOGA": 181099,
  "MS|JACKSON": 153701,
  "CT|BRIDGEPORT": 148654,
  "GA|SAVANNAH": 147780,
  "SC|COLUMBIA": 136632,
  "PA|ALLENTOWN": 125845,
};

/** State and territory names, for names like "UNIVERSITY OF IOWA HOSPITAL". */
export const STATE_NAMES: Readonly<Record<string, string>> = {
  AL: "ALABAMA",
  AK: "ALASKA",
  AZ: "ARIZONA",
  AR: "ARKANSAS",
  CA: "CALIFORNIA",
  CO: "COLORADO",
  CT: "CONNECTICUT",
  DE: "DELAWARE",
  DC: "DISTRICT OF COLUMBIA",
  FL: "FLORIDA",
  GA: "GEORGIA",
  HI: "HAWAII",
  ID: "IDAHO",
  IL: "ILLINOIS",
  IN: "INDIANA",
  IA: "IOWA",
  KS: "KANSAS",
  KY: "KENTUCKY",
  LA: "LOUISIANA",
  ME: "MAINE",
  MD: "MARYLAND",
  MA: "MASSACHUSETTS",
  MI: "MICHIGAN",
  MN: "MINNESOTA",
  MS: "MISSISSIPPI",
  MO: "MISSOURI",
  MT: "MONTANA",
  NE: "NEBRASKA",
  NV: "NEVADA",
  NH: "NEW HAMPSHIRE",
  NJ: "NEW JERSEY",
  NM: "NEW MEXICO",
  NY: "NEW YORK",
  NC: "NORTH CAROLINA",
  ND: "NORTH DAKOTA",
  OH: "OHIO",
  OK: "OKLAHOMA",
  OR: "OREGON",
  PA: "PENNSYLVANIA",
  RI: "RHODE ISLAND",
  SC: "SOUTH CAROLINA",
  SD: "SOUTH DAKOTA",
  TN: "TENNESSEE",
  TX: "TEXAS",
  UT: "UTAH",
  VT: "VERMONT",
  VA: "VIRGINIA",
  WA: "WASHINGTON",
  WV: "WEST VIRGINIA",
  WI: "WISCONSIN",
  WY: "WYOMING",
  PR: "PUERTO RICO",
  GU: "GUAM",
  VI: "VIRGIN ISLANDS",
  AS: "AMERICAN SAMOA",
  MP: "NORTHERN MARIANA ISLANDS",
};

/** Real telephone area codes by state (a few each, biggest first). */
const AREA_CODES: Readonly<Record<string, readonly number[]>> = Object.fromEntries(
  `
AL 205 251 256 334 938
AK 907
AZ 602 480 623 520 928
AR 501 479 870
CA 213 310 323 415 408 510 619 714 818 916 909 559 626 650 661 760 805 858 925 949 951
CO 303 720 719 970
CT 203 860 475
DE 302
DC 202
FL 305 407 813 904 954 561 727 850 352 239 321 941 772 863 786
GA 404 770 678 706 912 478 229
HI 808
ID 208 986
IL 312 773 630 847 708 815 217 309 618 224
IN 317 219 260 574 765 812
IA 515 319 563 641 712
KS 316 785 913 620
KY 502 859 270 606
LA 504 225 318 337 985
ME 207
MD 410 301 443 240
MA 617 508 781 978 413 774 857
MI 313 248 586 734 616 517 810 269 989 231 906
MN 612 651 763 952 507 218 320
MS 601 662 228 769
MO 314 816 417 573 636 660
MT 406
NE 402 531 308
NV 702 775 725
NH 603
NJ 201 973 732 908 856 609 848 551
NM 505 575
NY 212 718 917 516 631 914 585 716 315 518 607 845 347 646
NC 704 919 336 910 828 252 980 984
ND 701
OH 216 614 513 330 419 937 440 740 234 567
OK 405 918 580 539
OR 503 541 971 458
PA 215 412 610 717 570 724 814 267 484 878
RI 401
SC 803 843 864 854
SD 605
TN 615 901 865 423 731 931 629
TX 214 713 512 210 817 832 281 972 915 806 361 469 432 903 936 956 254 409
UT 801 385 435
VT 802
VA 703 804 757 571 540 434 276
WA 206 425 253 360 509 564
WV 304 681
WI 414 608 262 920 715
WY 307
PR 787 939
GU 671
VI 340
AS 684
MP 670
`.trim().split("\n").map((line) => {
    const [state, ...codes] = line.split(" ");
    return [state!, codes.map(Number)];
  }),
);

const EXCLUDED_STATES = new Set(["AA", "AE", "AP", "FM", "MH", "PW"]);

/** City names that are really a business, agency or mail unit. */
const NOT_A_PLACE =
  /\b(INC|CORP|CO|COMPANY|BRM|FIRMS|INSURANCE|INS|LOTTERY|DEPT|SERVICE|SVC|SYSTE|NATL|NAT|NATIONAL BANK|BANK OF|LENDING|MAIL|RETURN|ELEC|GAS COMP|GREETING CARD|CARD CENTER|CANCER FUND|CONTEST|GAMES|JRB|US BANK|WELLS FARGO|LOCKHEED|PARISIANS|PENNEY CO|SPOTTS|BENDIX|GREYHOUND|GURNEYS|CENTERRE|AMSOUTH|AMERITRUST|CITICORP|BENEFICIAL|HOMESIDE|FIRST UNION|WEYERHAEUSER|MEDICAL CENTER|SPACE CENTER|SUPPLY CENTER|SF INTERNATIONAL)\b/;

/**
 * True when a dataset ZIP may be used as a demo address.
 *
 * @example
 * ```ts
 * isDrawableZip({ zip: "10001", lat: 40.75, lon: -74, city: "NEW YORK", state: "NY" }); // true
 * isDrawableZip({ zip: "09001", lat: 0.1, lon: 0.1, city: "APO", state: "AE" }); // false
 * ```
 */
export function isDrawableZip(z: ZipInfo): boolean {
  if (EXCLUDED_STATES.has(z.state)) return false;
  if (STATE_POPULATION_2020[z.state] === undefined) return false;
  if (/[^A-Z .'-]/.test(z.city)) return false;
  return !NOT_A_PLACE.test(z.city);
}

/** Weight of one ZIP of a place with `n` ZIPs, outside the big cities. */
function restWeight(n: number): number {
  return Math.pow(n, 0.25);
}

/** Big-city share factor: providers per head are higher in urban cores. */
const CITY_CONCENTRATION = 2;

function zipWeights(zips: readonly ZipInfo[], cityCount: ReadonlyMap<string, number>): number[] {
  // Per state: what the known big cities take, and the proxy sum of the rest.
  const bigCity = new Map<string, number>();
  const restSum = new Map<string, number>();
  for (const z of zips) {
    const key = z.state + "|" + z.city;
    const pop = CITY_POPULATION_2020[key];
    if (pop !== undefined) {
      bigCity.set(
        z.state,
        (bigCity.get(z.state) ?? 0) + pop * CITY_CONCENTRATION / cityCount.get(key)!,
      );
    } else {
      restSum.set(z.state, (restSum.get(z.state) ?? 0) + restWeight(cityCount.get(key)!));
    }
  }
  return zips.map((z) => {
    const key = z.state + "|" + z.city;
    const statePop = STATE_POPULATION_2020[z.state]!;
    const rest = restSum.get(z.state) ?? 0;
    const big = bigCity.get(z.state) ?? 0;
    // Big cities take at most 80% of the state (all of it if nothing else).
    const bigTotal = rest > 0 ? Math.min(big, 0.8 * statePop) : statePop;
    const pop = CITY_POPULATION_2020[key];
    if (pop !== undefined) {
      return (statePop > 0 && big > 0)
        ? (pop * CITY_CONCENTRATION / cityCount.get(key)!) * (bigTotal / big)
        : 0;
    }
    return ((statePop - bigTotal) * restWeight(cityCount.get(key)!)) / rest;
  });
}

/**
 * ZIPs weighted by estimated population, overall and per state.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * const pool = new ZipPool();
 * pool.sample(new Rng(1)).state; // "CA" about one time in eight
 * pool.sampleInState(new Rng(2), "MD").state; // "MD"
 * ```
 */
export class ZipPool {
  readonly #all: WeightedTable<ZipInfo>;
  readonly #byState: Map<string, WeightedTable<ZipInfo>>;
  readonly #unknownZips: readonly string[];

  /** Builds the weights from the ZIP dataset (once per generator). */
  constructor() {
    const zips = allZips().filter(isDrawableZip);
    const cityCount = new Map<string, number>();
    for (const z of zips) {
      const k = z.state + "|" + z.city;
      cityCount.set(k, (cityCount.get(k) ?? 0) + 1);
    }
    const weights = zipWeights(zips, cityCount);
    this.#all = new WeightedTable(zips, weights);
    const perState = new Map<string, { items: ZipInfo[]; weights: number[] }>();
    zips.forEach((z, i) => {
      let s = perState.get(z.state);
      if (!s) perState.set(z.state, s = { items: [], weights: [] });
      s.items.push(z);
      s.weights.push(weights[i]!);
    });
    this.#byState = new Map();
    for (const [state, s] of perState) {
      this.#byState.set(state, new WeightedTable(s.items, s.weights));
    }
    // Valid-looking ZIPs the dataset does not know (newer ZIPs, typos): a
    // realistic few percent of real addresses do not geocode.
    const known = new Set(allZips().map((z) => z.zip));
    const unknown: string[] = [];
    for (let n = 1000; n < 99999 && unknown.length < 400; n += 241) {
      const zip = String(n).padStart(5, "0");
      if (!known.has(zip)) unknown.push(zip);
    }
    this.#unknownZips = unknown;
  }

  /** A ZIP anywhere, weighted by population. */
  sample(rng: Rng): ZipInfo {
    return this.#all.sample(rng);
  }

  /** A ZIP in `state`, weighted by population (anywhere if unknown). */
  sampleInState(rng: Rng, state: string): ZipInfo {
    const t = this.#byState.get(state);
    return t ? t.sample(rng) : this.#all.sample(rng);
  }

  /** A 5-digit ZIP the dataset does not know. */
  unknownZip(rng: Rng): string {
    return rng.pick(this.#unknownZips);
  }

  /** Share of the weight that falls on ZIPs of `state`, for tests. */
  stateShare(state: string): number {
    const t = this.#byState.get(state);
    return t ? t.total / this.#all.total : 0;
  }
}

/**
 * A 10-digit phone number with a real area code of `state`. With a ZIP, most
 * numbers share the area code that ZIP's 3-digit prefix maps to, so a town's
 * numbers look alike; the rest (cell phones, moved numbers) use any of the
 * state's codes.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * phoneNumber(new Rng(1), "MD", "20817").length; // 10
 * ```
 */
export function phoneNumber(rng: Rng, state: string, zip = ""): string {
  const codes = AREA_CODES[state] ?? AREA_CODES.NY!;
  const i = zip.length >= 3 && rng.chance(0.75)
    ? hash32(Number(zip.slice(0, 3)) + 7919) % codes.length
    : Math.min(codes.length - 1, Math.floor(codes.length * rng.float() * rng.float() * 1.6));
  const exchange = rng.range(2, 9) * 100 + rng.range(0, 99);
  return String(codes[i]!) + String(exchange).padStart(3, "0") + rng.digits(4);
}

const STREET_NAMES = `MAIN OAK PINE MAPLE CEDAR ELM WASHINGTON LAKE HILL PARK CHURCH HIGH CENTER
WALNUT MILL RIVER SPRING MARKET JEFFERSON FRANKLIN LINCOLN MADISON BROADWAY UNIVERSITY COLLEGE
RIDGE SUNSET HIGHLAND FOREST VALLEY MEADOW WILLOW CHERRY JACKSON ADAMS MONROE COMMERCE
INDUSTRIAL EXECUTIVE CORPORATE PROFESSIONAL HEALTH PARK HOSPITAL MEDICAL CENTER WILSON
JOHNSON GRANT STATE UNION LIBERTY FRONT WATER BRIDGE LOCUST CHESTNUT SYCAMORE BIRCH ASPEN
MAGNOLIA DOGWOOD HICKORY POPLAR LAUREL GREEN SCHOOL ACADEMY MAPLEWOOD LAKEVIEW FAIRVIEW
RIVERSIDE HILLCREST WOODLAND KINGS QUEENS PRINCE CAMBRIDGE OXFORD EVERGREEN SHERIDAN
CLINTON HARRISON VETERANS MEMORIAL PEACHTREE PALM OCEAN BAY HARBOR COUNTRY CLUB ORCHARD
MARTIN LUTHER KING JR`
  .split(/\s+/);
const MULTIWORD_STREETS = [
  "HEALTH PARK",
  "MEDICAL CENTER",
  "MEDICAL PARK",
  "COUNTRY CLUB",
  "MARTIN LUTHER KING JR",
  "PROFESSIONAL PARK",
  "OLD MILL",
  "STATE ROUTE 9",
  "US HIGHWAY 19",
  "HIGHWAY 62",
  "COUNTY ROAD 12",
];
const SINGLE_STREETS = STREET_NAMES.filter((w) =>
  !["HEALTH", "MEDICAL", "COUNTRY", "CLUB", "MARTIN", "LUTHER", "KING", "JR"].includes(w)
);
const ORDINALS = [
  "1ST",
  "2ND",
  "3RD",
  "4TH",
  "5TH",
  "6TH",
  "7TH",
  "8TH",
  "9TH",
  "10TH",
  "12TH",
  "14TH",
];
const SUFFIXES = new WeightedTable(
  ["ST", "AVE", "RD", "DR", "BLVD", "LN", "WAY", "PKWY", "CT", "PL", "HWY", "CIR", "PIKE", "TRL"],
  [30, 22, 16, 14, 6, 3, 3, 2, 1.5, 1, 1, 0.5, 0.5, 0.5],
);
const DIRECTIONS = ["N", "S", "E", "W", "NE", "NW", "SE", "SW"];
const UNITS = new WeightedTable(["STE", "SUITE", "UNIT", "BLDG", "FL", "ROOM", "#"], [
  50,
  25,
  6,
  5,
  5,
  3,
  6,
]);

/**
 * A street address first line, e.g. "1200 N MAIN ST".
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * streetLine(new Rng(1)); // e.g. "1200 N MAIN ST"
 * ```
 */
export function streetLine(rng: Rng): string {
  const number = rng.chance(0.7) ? rng.range(100, 9999) : rng.range(1, 29999);
  let name: string;
  const u = rng.float();
  if (u < 0.12) name = rng.pick(ORDINALS);
  else if (u < 0.2) name = rng.pick(MULTIWORD_STREETS);
  else name = rng.pick(SINGLE_STREETS);
  const dir = rng.chance(0.15) ? rng.pick(DIRECTIONS) + " " : "";
  const hasNumberedRoute = /[0-9]$/.test(name);
  const suffix = hasNumberedRoute ? "" : " " + SUFFIXES.sample(rng);
  return `${number} ${dir}${name}${suffix}`;
}

/**
 * A suite or unit designation, e.g. "STE 300".
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * unitLine(new Rng(1)); // e.g. "STE 300"
 * ```
 */
export function unitLine(rng: Rng): string {
  const kind = UNITS.sample(rng);
  const id = rng.chance(0.85)
    ? String(rng.chance(0.6) ? rng.range(1, 9) * 100 + rng.range(0, 20) : rng.range(1, 99))
    : String.fromCharCode(65 + rng.int(6));
  return kind === "#" ? `# ${id}` : `${kind} ${id}`;
}

/**
 * A PO box line, e.g. "PO BOX 1234".
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * poBoxLine(new Rng(1)); // e.g. "PO BOX 4821"
 * ```
 */
export function poBoxLine(rng: Rng): string {
  return `PO BOX ${rng.chance(0.7) ? rng.range(1, 9999) : rng.range(10000, 99999)}`;
}

/** Foreign places for the few providers that have one. */
export const FOREIGN_PLACES: readonly {
  country: string;
  city: string;
  region: string;
  postal: string;
  phonePrefix: string;
}[] = [
  { country: "CA", city: "TORONTO", region: "ONTARIO", postal: "M5G 2C4", phonePrefix: "1416" },
  {
    country: "CA",
    city: "VANCOUVER",
    region: "BRITISH COLUMBIA",
    postal: "V5Z 1M9",
    phonePrefix: "1604",
  },
  {
    country: "MX",
    city: "TIJUANA",
    region: "BAJA CALIFORNIA",
    postal: "22010",
    phonePrefix: "52664",
  },
  { country: "DE", city: "LANDSTUHL", region: "", postal: "66849", phonePrefix: "496371" },
  { country: "JP", city: "OKINAWA", region: "", postal: "904-0000", phonePrefix: "8198" },
  { country: "GB", city: "LONDON", region: "", postal: "W1G 9PF", phonePrefix: "4420" },
  { country: "IN", city: "MUMBAI", region: "MAHARASHTRA", postal: "400001", phonePrefix: "9122" },
  { country: "PH", city: "MANILA", region: "", postal: "1000", phonePrefix: "632" },
  { country: "KR", city: "SEOUL", region: "", postal: "04524", phonePrefix: "822" },
  { country: "IL", city: "JERUSALEM", region: "", postal: "9112001", phonePrefix: "9722" },
];
