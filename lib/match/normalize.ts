/**
 * Normalising the values a roster row and a registry record are compared
 * on: names without credentials, suffixes and parenthesised asides; street
 * lines with USPS abbreviations and the unit set apart; ZIP5 and ZIP+4;
 * phone digits. Pure functions, used on both sides so they agree.
 *
 * @module
 */
import { foldText, nameKey } from "../text/fold.ts";

/** Name suffixes (generations), folded. */
export const SUFFIXES: ReadonlySet<string> = new Set([
  "jr",
  "sr",
  "ii",
  "iii",
  "iv",
  "v",
  "2nd",
  "3rd",
]);

/**
 * Credentials and titles found inside name fields, folded with dots
 * removed (after mysterynpi's `NAME_NOISE`). `do` and `ma` are also real
 * surnames: they are stripped only when another word remains before them.
 */
export const CREDENTIALS: ReadonlySet<string> = new Set(
  ("md do dds dmd phd pa pac np crnp rn lpn aprn fnp fnpc fnpbc agnp anp dnp pharmd rph od dpm dc " +
    "lcsw lmsw lmft lpc psyd mph mba ms msn bsn cnm crna cns dvm mbbs otr ot pt dpt slp ccc aud " +
    "cna lac dr facp facs faap facc facog faafp ma msw edd ladc lmhc ncc mhs dsc ddm").split(" "),
);

/** Words that say little about an organization (dropped before comparing and searching). */
export const ORG_NOISE: ReadonlySet<string> = new Set(
  ("inc llc pllc pc pa plc lp llp ltd co corp corporation company incorporated limited the of and " +
    "at a an for dba sc psc").split(" "),
);

/** Titles that may open a name field ("Dr. Jane"): dropped there. */
export const TITLES: ReadonlySet<string> = new Set([
  "dr",
  "mr",
  "mrs",
  "ms",
  "miss",
  "prof",
  "rev",
]);

/** Physician degrees that conflict with each other (an MD is not a DO). */
export const EXCLUSIVE_DEGREES: ReadonlySet<string> = new Set(["md", "do"]);

/**
 * Folds a name-ish text into words: dots dropped (M.D. → md), whole-word
 * parenthesised asides removed ("Cynthia (Cindi)"), word-internal
 * parentheses kept as letters ("C(arolyn)" → carolyn), accents and case
 * folded.
 *
 * @example
 * ```ts
 * nameWords("Cynthia (Cindi) Álvarez, M.D."); // ["cynthia", "alvarez", "md"]
 * ```
 */
export function nameWords(value: string): string[] {
  const text = value
    .replace(/(^|[\s,])\([^)]*\)/g, "$1 ")
    .replace(/[()]/g, "")
    .replace(/\./g, "");
  const folded = foldText(text);
  return folded === "" ? [] : folded.split(" ");
}

/** A person's name from a roster, cleaned. */
export interface PersonName {
  first: string | null;
  middle: string | null;
  /** Surname words. */
  last: string[];
  /** The surname as one key (nameKey of its words). */
  lastKey: string;
  suffix: string | null;
  /** Credentials found in the name fields (and the credential field). */
  credentials: string[];
  /** Words removed from the name fields (credentials, suffixes), for the answer. */
  stripped: string[];
}

function takeSuffix(
  words: string[],
  into: { suffix: string | null; stripped: string[] },
): string[] {
  return words.filter((w, i) => {
    if (SUFFIXES.has(w) && i > 0) {
      into.suffix ??= w === "2nd" ? "ii" : w === "3rd" ? "iii" : w;
      into.stripped.push(w);
      return false;
    }
    return true;
  });
}

function takeCredentials(
  words: string[],
  into: { credentials: string[]; stripped: string[] },
  keepFirst: boolean,
): string[] {
  return words.filter((w, i) => {
    if (!CREDENTIALS.has(w)) return true;
    if (keepFirst && i === 0) return true;
    if ((w === "do" || w === "ma") && i === 0) return true;
    into.credentials.push(w);
    into.stripped.push(w);
    return false;
  });
}

/**
 * Cleans a roster person's name fields: suffixes are taken out first, then
 * credentials; "Last, First Middle" in the last-name field is reversed when
 * no first name is given; a second word in the first-name field becomes the
 * middle name when none is given.
 *
 * @example
 * ```ts
 * const name = personName({ last_name: "Smith Jr., MD", first_name: "Robert J" });
 * // { first: "robert", middle: "j", last: ["smith"], suffix: "jr", credentials: ["md"], ... }
 * ```
 */
export function personName(values: {
  first_name?: string;
  middle_name?: string;
  last_name?: string;
  suffix?: string;
  credential?: string;
}): PersonName {
  const acc = {
    suffix: null as string | null,
    credentials: [] as string[],
    stripped: [] as string[],
  };
  let lastRaw = values.last_name ?? "";
  let firstRaw = values.first_name ?? "";
  if (!firstRaw && lastRaw.includes(",")) {
    const comma = lastRaw.indexOf(",");
    const after = lastRaw.slice(comma + 1);
    // "SMITH, JOHN A" is reversed; "SMITH, MD" or "SMITH, JR" only loses its suffix or credential.
    const afterWords = nameWords(after);
    if (afterWords.some((w) => !CREDENTIALS.has(w) && !SUFFIXES.has(w))) {
      firstRaw = after;
      lastRaw = lastRaw.slice(0, comma);
    }
  }
  let last = takeCredentials(takeSuffix(nameWords(lastRaw), acc), acc, true);
  const firstWords = nameWords(firstRaw);
  while (firstWords.length > 1 && TITLES.has(firstWords[0]!)) {
    acc.stripped.push(firstWords.shift()!);
  }
  let first = takeCredentials(takeSuffix(firstWords, acc), acc, true);
  let middle = takeCredentials(takeSuffix(nameWords(values.middle_name ?? ""), acc), acc, false);
  if (values.suffix) {
    const s = nameWords(values.suffix)[0];
    if (s && SUFFIXES.has(s)) acc.suffix = s === "2nd" ? "ii" : s === "3rd" ? "iii" : s;
  }
  if (values.credential) {
    for (const w of nameWords(values.credential.replace(/,/g, " "))) {
      if (!acc.credentials.includes(w)) acc.credentials.push(w);
    }
  }
  if (first.length > 1 && middle.length === 0) {
    middle = first.slice(1);
    first = first.slice(0, 1);
  }
  if (last.length === 0 && first.length > 1) {
    last = first.slice(-1);
    first = first.slice(0, -1);
  }
  return {
    first: first[0] ?? null,
    middle: middle.length ? middle.join(" ") : null,
    last,
    lastKey: last.join(""),
    suffix: acc.suffix,
    credentials: acc.credentials,
    stripped: acc.stripped,
  };
}

/**
 * The comparable words of an organization name: folded, noise words and
 * punctuation dropped, `&` read as `and` (then dropped).
 *
 * @example
 * ```ts
 * orgWords("Smith & Sons Dental, P.L.L.C."); // ["smith", "sons", "dental"]
 * ```
 */
export function orgWords(value: string): string[] {
  return nameWords(value.replace(/&/g, " and ")).filter((w) => !ORG_NOISE.has(w));
}

/**
 * The key of an organization name: its comparable words, joined.
 *
 * @example
 * ```ts
 * orgKey("The Smith Clinic, Inc."); // "smithclinic"
 * ```
 */
export function orgKey(value: string): string {
  return orgWords(value).join("");
}

/** USPS street-suffix and directional abbreviations, folded. */
const STREET_ABBREVIATIONS: Readonly<Record<string, string>> = {
  street: "st",
  str: "st",
  avenue: "ave",
  av: "ave",
  avn: "ave",
  road: "rd",
  drive: "dr",
  drv: "dr",
  boulevard: "blvd",
  blv: "blvd",
  lane: "ln",
  court: "ct",
  place: "pl",
  parkway: "pkwy",
  pky: "pkwy",
  highway: "hwy",
  circle: "cir",
  terrace: "ter",
  square: "sq",
  trail: "trl",
  turnpike: "tpke",
  expressway: "expy",
  freeway: "fwy",
  center: "ctr",
  centre: "ctr",
  plaza: "plz",
  way: "way",
  mount: "mt",
  saint: "st",
  fort: "ft",
  north: "n",
  south: "s",
  east: "e",
  west: "w",
  northeast: "ne",
  northwest: "nw",
  southeast: "se",
  southwest: "sw",
  first: "1st",
  second: "2nd",
  third: "3rd",
  fourth: "4th",
  fifth: "5th",
};

/** USPS secondary-unit designators, folded, and their standard form. */
const UNIT_DESIGNATORS: Readonly<Record<string, string>> = {
  suite: "ste",
  ste: "ste",
  apt: "apt",
  apartment: "apt",
  unit: "unit",
  room: "rm",
  rm: "rm",
  floor: "fl",
  fl: "fl",
  flr: "fl",
  building: "bldg",
  bldg: "bldg",
  dept: "dept",
  department: "dept",
  ofc: "ofc",
  office: "ofc",
  box: "box",
  pmb: "box",
  lbby: "lbby",
  trlr: "trlr",
  spc: "spc",
  hngr: "hngr",
  wing: "wing",
  ward: "ward",
  num: "ste",
};

/** A street address split into its primary line and its unit. */
export interface Street {
  /** The primary line's words, abbreviated (number, name, suffix, directions). */
  primary: string[];
  /** The primary line as one key. */
  key: string;
  /** The house number, when the line starts with one. */
  number: string | null;
  /** The unit (suite, apartment...) as `designator value`, or null. */
  unit: string | null;
}

/**
 * Words that say what kind of street it is, or which way (`ave`, `blvd`,
 * `n`, `east`…): two addresses sharing one of them share nothing that tells
 * them apart.
 */
export const STREET_TYPE_WORDS: ReadonlySet<string> = new Set([
  ...Object.values(STREET_ABBREVIATIONS),
  ...["n", "s", "e", "w", "ne", "nw", "se", "sw", "north", "south", "east", "west"],
]);

/**
 * Splits street lines into the primary line and the unit: `#` and USPS
 * designators (STE, SUITE, APT, UNIT, FL, ...) start the unit, whether on
 * the first line ("403 PERMIAN WAY STE D") or the second ("SUITE 103").
 *
 * @example
 * ```ts
 * street("403 Permian Way, Suite D").key; // "403 permian way"
 * street("403 PERMIAN WAY STE D").unit; // "ste d"
 * ```
 */
export function street(line1: string | null | undefined, line2?: string | null): Street {
  const primary: string[] = [];
  const unit: string[] = [];
  for (const line of [line1, line2]) {
    if (!line) continue;
    const words = foldText(line.replace(/#/g, " num ")).split(" ").filter((w) => w !== "");
    let inUnit = false;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      const designator = UNIT_DESIGNATORS[w];
      // A designator starts the unit unless it is the first word of the first line (a PO BOX aside).
      if (designator && (i > 0 || line === line2)) {
        inUnit = true;
        unit.push(designator);
        continue;
      }
      if (inUnit || (line === line2 && primary.length > 0 && unit.length === 0 && /\d/.test(w))) {
        if (!inUnit) inUnit = true;
        unit.push(w);
        continue;
      }
      if (line === line2 && primary.length > 0) continue; // A second line without a designator: not the street.
      primary.push(STREET_ABBREVIATIONS[w] ?? w);
    }
  }
  return {
    primary,
    key: primary.join(" "),
    number: primary[0] && /^\d/.test(primary[0]) ? primary[0] : null,
    unit: unit.length ? unit.join(" ") : null,
  };
}

/** A ZIP code: its 5 digits and, when given, its 9. */
export interface Zip {
  zip5: string;
  zip9: string | null;
}

/**
 * Reads a US postal code: 5 digits, or 9 with or without the hyphen; `null`
 * for anything else. A 4-digit code (a lost leading zero, as spreadsheets do)
 * gets its zero back.
 *
 * @example
 * ```ts
 * zip("30180-3226"); // { zip5: "30180", zip9: "301803226" }
 * zip("2108"); // { zip5: "02108", zip9: null }
 * ```
 */
export function zip(value: string | null | undefined): Zip | null {
  if (!value) return null;
  const digits = value.replace(/[\s-]/g, "");
  if (/^\d{9}$/.test(digits)) return { zip5: digits.slice(0, 5), zip9: digits };
  if (/^\d{5}$/.test(digits)) return { zip5: digits, zip9: null };
  if (/^\d{4}$/.test(digits)) return { zip5: `0${digits}`, zip9: null };
  if (/^\d{8}$/.test(digits)) return { zip5: `0${digits.slice(0, 4)}`, zip9: `0${digits}` };
  return null;
}

/**
 * The 10 digits of a US phone number, or `null` (a leading country code 1
 * and an extension are dropped).
 *
 * @example
 * ```ts
 * phone("+1 (443) 602-6207 ext 12"); // "4436026207"
 * ```
 */
export function phone(value: string | null | undefined): string | null {
  if (!value) return null;
  const main = value.split(/x|ext/i)[0]!;
  let digits = main.replace(/\D/g, "");
  if (digits.length === 11 && digits.startsWith("1")) digits = digits.slice(1);
  return digits.length === 10 ? digits : null;
}

/**
 * The folded key of a city name (SAINT/ST and FORT/FT read alike).
 *
 * @example
 * ```ts
 * cityKey("St. Louis"); // "stlouis"
 * ```
 */
export function cityKey(value: string | null | undefined): string {
  if (!value) return "";
  return foldText(value.replace(/\./g, "")).split(" ").map((w) =>
    w === "saint" ? "st" : w === "fort" ? "ft" : w === "mount" ? "mt" : w
  ).join("");
}

/**
 * Credential words of a registry credential text ("M.D., PH.D." → md phd).
 *
 * @example
 * ```ts
 * credentialWords("M.D., Ph.D."); // ["md", "phd"]
 * ```
 */
export function credentialWords(value: string | null | undefined): string[] {
  if (!value) return [];
  return foldText(value.replace(/\./g, "")).split(" ").filter((w) => w !== "");
}

/** The surname key of a registry name text (an other name "SMITH JANE" or a plain surname). */
export function surnameKey(value: string): string {
  return nameKey(value);
}
