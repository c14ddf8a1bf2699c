/**
 * NUCC Health Care Provider Taxonomy reference data: the entry shape, the
 * code pattern, a built-in code list that needs no download, and a parser
 * for the official NUCC CSV release.
 *
 * @module
 */

import {
  type CodePair,
  INDIVIDUAL_AND_GROUP,
  NON_INDIVIDUAL,
  SOURCE_PACKAGE,
  SPECIALTIES_EXTRA,
} from "./_builtin_data.ts";

/**
 * Whether NUCC lists a code for people or for organizations and facilities.
 *
 * @example
 * ```ts
 * const section: TaxonomySection = "Non-Individual"; // e.g. 261QU0200X, an urgent care center
 * ```
 */
export type TaxonomySection = "Individual" | "Non-Individual";

/**
 * One NUCC taxonomy code with its place in the three-level hierarchy.
 *
 * @example
 * ```ts
 * const cardiology: TaxonomyEntry = {
 *   code: "207RC0000X",
 *   display: "Cardiovascular Disease Physician",
 *   grouping: "Allopathic & Osteopathic Physicians",
 *   classification: "Internal Medicine",
 *   specialization: "Cardiovascular Disease",
 *   definition: null,
 *   section: "Individual",
 * };
 * ```
 */
export interface TaxonomyEntry {
  /** The 10-character code, e.g. `207RC0000X`. */
  code: string;
  /** The consumer-friendly name, e.g. "Cardiovascular Disease Physician". */
  display: string;
  /** Level 1, e.g. "Allopathic & Osteopathic Physicians". */
  grouping: string | null;
  /** Level 2, e.g. "Internal Medicine". */
  classification: string | null;
  /** Level 3, e.g. "Cardiovascular Disease"; `null` for a classification code. */
  specialization: string | null;
  /** NUCC's definition text, when known. */
  definition: string | null;
  /** NUCC's section, when known. */
  section: TaxonomySection | null;
}

/**
 * The shape of a NUCC taxonomy code: three digits, two letters or digits,
 * four digits and a closing `X`, upper case, e.g. `207RC0000X`,
 * `101YA0400X`, `390200000X`.
 *
 * @example
 * ```ts
 * TAXONOMY_CODE_PATTERN.test("207RC0000X"); // true
 * TAXONOMY_CODE_PATTERN.test("207RC0000"); // false
 * ```
 */
export const TAXONOMY_CODE_PATTERN: RegExp = /^[1-9][0-9]{2}[0-9A-Z]{2}[0-9]{4}X$/;

/**
 * Tells whether `value` has the shape of a NUCC taxonomy code. It does not
 * upper-case or trim: callers normalize user input first.
 *
 * @example
 * ```ts
 * isTaxonomyCode("207RC0000X"); // true
 * isTaxonomyCode("207rc0000x"); // false
 * ```
 */
export function isTaxonomyCode(value: string): boolean {
  return TAXONOMY_CODE_PATTERN.test(value);
}

/**
 * Where the built-in list comes from: an npm package of the HL7 Da Vinci
 * PDex Plan-Net implementation guide, whose specialty value sets list NUCC
 * codes with their display names.
 *
 * @example
 * ```ts
 * console.log(`taxonomy: ${BUILTIN_TAXONOMY_SOURCE}`);
 * ```
 */
export const BUILTIN_TAXONOMY_SOURCE: string = SOURCE_PACKAGE;

/**
 * NUCC groupings (level 1) by code prefix. The first two characters of a
 * code name its grouping, except `40` (Prevention Professional), which NUCC
 * files under Other Service Providers.
 */
const GROUPING_BY_PREFIX: ReadonlyMap<string, string> = new Map([
  ["10", "Behavioral Health & Social Service Providers"],
  ["11", "Chiropractic Providers"],
  ["12", "Dental Providers"],
  ["13", "Dietary & Nutritional Service Providers"],
  ["14", "Emergency Medical Service Providers"],
  ["15", "Eye and Vision Services Providers"],
  ["16", "Nursing Service Providers"],
  ["17", "Other Service Providers"],
  ["18", "Pharmacy Service Providers"],
  ["19", "Group"],
  ["20", "Allopathic & Osteopathic Physicians"],
  ["21", "Podiatric Medicine & Surgery Service Providers"],
  ["22", "Respiratory, Developmental, Rehabilitative and Restorative Service Providers"],
  ["23", "Speech, Language and Hearing Service Providers"],
  ["24", "Technologists, Technicians & Other Technical Service Providers"],
  ["25", "Agencies"],
  ["26", "Ambulatory Health Care Facilities"],
  ["27", "Hospital Units"],
  ["28", "Hospitals"],
  ["29", "Laboratories"],
  ["30", "Managed Care Organizations"],
  ["31", "Nursing & Custodial Care Facilities"],
  ["32", "Residential Treatment Facilities"],
  ["33", "Suppliers"],
  ["34", "Transportation Services"],
  ["36", "Physician Assistants & Advanced Practice Nursing Providers"],
  ["37", "Nursing Service Related Providers"],
  ["38", "Respite Care Facility"],
  ["39", "Student, Health Care"],
  ["40", "Other Service Providers"],
]);

/**
 * Classifications that have specializations in the built-in list but no
 * classification-level code of their own (NUCC defines none for them).
 */
const CLASSIFICATION_WITHOUT_CODE: ReadonlyMap<string, string> = new Map([
  ["207S", "Medical Genetics"],
  ["207Z", "Pathology"],
  ["2083", "Preventive Medicine"],
  ["2084", "Psychiatry & Neurology"],
  ["2085", "Radiology"],
  ["208V", "Pain Medicine"],
]);

/**
 * The NUCC grouping (level 1) of a code, from its first two characters, or
 * `null` for a prefix NUCC does not use.
 *
 * @example
 * ```ts
 * groupingOf("207RC0000X"); // "Allopathic & Osteopathic Physicians"
 * groupingOf("261QU0200X"); // "Ambulatory Health Care Facilities"
 * ```
 */
export function groupingOf(code: string): string | null {
  return GROUPING_BY_PREFIX.get(code.slice(0, 2)) ?? null;
}

/**
 * The code of the classification a code belongs to: its first four
 * characters followed by `00000X`.
 *
 * @example
 * ```ts
 * classificationCodeOf("207RC0000X"); // "207R00000X"
 * ```
 */
export function classificationCodeOf(code: string): string {
  return `${code.slice(0, 4)}00000X`;
}

const PHYSICIAN_SUFFIX = " Physician";

function stripSuffix(text: string, suffix: string): string {
  return text.length > suffix.length && text.endsWith(suffix)
    ? text.slice(0, -suffix.length).trimEnd()
    : text;
}

/** The classification name a classification code's display name implies. */
function classificationName(code: string, display: string): string {
  // NUCC builds physician display names as "<name> Physician".
  return code.startsWith("20") ? stripSuffix(display, PHYSICIAN_SUFFIX) : display;
}

/**
 * The specialization name a display name implies once the words that repeat
 * its classification are taken off: "Mental Health Counselor" under
 * "Counselor" is "Mental Health"; "Critical Care Medicine (Internal
 * Medicine) Physician" is "Critical Care Medicine". Physician names keep
 * their other words, as NUCC's do ("Vascular Surgery", "Clinical Pathology").
 */
function specializationName(
  code: string,
  display: string,
  classDisplay: string | null,
  className: string | null,
): string {
  if (code.startsWith("20")) {
    const name = stripSuffix(display, PHYSICIAN_SUFFIX);
    return className === null ? name : stripSuffix(name, ` (${className})`);
  }
  if (classDisplay === null) return display;
  return stripSuffix(stripSuffix(display, ` (${classDisplay})`), ` ${classDisplay}`);
}

/**
 * Real NUCC codes common in NPPES that the package's value sets leave out
 * (they are not specialties in its sense, but providers carry them).
 */
const NOT_IN_PACKAGE: readonly CodePair[] = [
  ["193400000X", "Single Specialty Group"],
  ["390200000X", "Student in an Organized Health Care Education/Training Program"],
];

function buildBuiltin(): TaxonomyEntry[] {
  const lists: [readonly CodePair[], TaxonomySection][] = [
    [INDIVIDUAL_AND_GROUP, "Individual"],
    [NON_INDIVIDUAL, "Non-Individual"],
    // Newer physician codes; NUCC lists every 20xx code as Individual.
    [SPECIALTIES_EXTRA, "Individual"],
    [NOT_IN_PACKAGE, "Individual"],
  ];
  const pairs = new Map<string, { display: string; section: TaxonomySection }>();
  for (const [list, section] of lists) {
    for (const [code, display] of list) {
      if (!pairs.has(code)) pairs.set(code, { display, section });
    }
  }
  const entries: TaxonomyEntry[] = [];
  for (const [code, { display, section }] of pairs) {
    const classCode = classificationCodeOf(code);
    const classDisplay = pairs.get(classCode)?.display ?? null;
    const className = classDisplay === null
      ? CLASSIFICATION_WITHOUT_CODE.get(code.slice(0, 4)) ?? null
      : classificationName(classCode, classDisplay);
    const isClassification = code === classCode;
    entries.push({
      code,
      display,
      grouping: groupingOf(code),
      classification: isClassification ? classificationName(code, display) : className,
      specialization: isClassification
        ? null
        : specializationName(code, display, classDisplay, className),
      definition: null,
      section,
    });
  }
  return entries.sort(compareByCode);
}

function compareByCode(a: TaxonomyEntry, b: TaxonomyEntry): number {
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

let builtinCache: readonly TaxonomyEntry[] | undefined;

/**
 * The built-in taxonomy: every NUCC code listed by the specialty value sets
 * of {@link BUILTIN_TAXONOMY_SOURCE}, deduplicated and sorted by code.
 * Display names are NUCC's; grouping, classification and specialization are
 * derived from the code structure and the display names (the NUCC CSV, read
 * with {@link parseNuccCsv}, has the official wording and definitions).
 * Each call returns fresh objects the caller may change.
 *
 * @example
 * ```ts
 * const cardio = builtinTaxonomy().find((e) => e.code === "207RC0000X");
 * cardio?.classification; // "Internal Medicine"
 * cardio?.specialization; // "Cardiovascular Disease"
 * ```
 */
export function builtinTaxonomy(): TaxonomyEntry[] {
  builtinCache ??= buildBuiltin();
  return builtinCache.map((entry) => ({ ...entry }));
}

/** Columns `parseNuccCsv` needs; the others are optional. */
const REQUIRED_COLUMNS = ["Code", "Grouping", "Classification", "Specialization"] as const;

/**
 * Splits RFC 4180 CSV text into rows of fields, with the 1-based line each
 * row starts on. Quoted fields may hold commas, doubled quotes and line
 * breaks; CRLF and LF both end a row.
 */
function* csvRows(text: string): Generator<{ line: number; fields: string[] }> {
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let rowLine = 1;
  let i = 0;
  let quoted = false;
  let rowHasData = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        if (ch === "\n") line++;
        field += ch;
      }
      i++;
      continue;
    }
    if (ch === '"' && field.length === 0) {
      quoted = true;
      rowHasData = true;
    } else if (ch === ",") {
      fields.push(field);
      field = "";
      rowHasData = true;
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      fields.push(field);
      if (rowHasData || field.length > 0) yield { line: rowLine, fields };
      fields = [];
      field = "";
      rowHasData = false;
      line++;
      rowLine = line;
    } else {
      field += ch;
      rowHasData = true;
    }
    i++;
  }
  if (quoted) {
    throw new SyntaxError(
      `Cannot parse NUCC taxonomy CSV: a quoted field opened on line ${rowLine} never closes`,
    );
  }
  if (rowHasData || field.length > 0) {
    fields.push(field);
    yield { line: rowLine, fields };
  }
}

function normalizeHeader(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, " ");
}

function parseSection(value: string | null): TaxonomySection | null {
  const folded = value?.toLowerCase().replace(/[^a-z]/g, "");
  if (folded === "individual") return "Individual";
  if (folded === "nonindividual") return "Non-Individual";
  return null;
}

/**
 * Parses the official NUCC taxonomy CSV (`nucc_taxonomy_NNN.csv`): quoted
 * RFC 4180 fields, an optional byte-order mark, columns found by header
 * name. `Code`, `Grouping`, `Classification` and `Specialization` are
 * required; `Definition`, `Display Name` and `Section` are used when
 * present (older releases lack the last two). Blank fields become `null`;
 * entries come back deduplicated by code and sorted by code.
 *
 * @throws {Error} when a required column is missing, naming it.
 * @throws {SyntaxError} when a quoted field never closes or a code is malformed.
 *
 * @example
 * ```ts
 * const csv = 'Code,Grouping,Classification,Specialization,Definition,Notes,Display Name,Section\n' +
 *   '207RC0000X,Allopathic & Osteopathic Physicians,Internal Medicine,Cardiovascular Disease,"A heart, vessels",,Cardiovascular Disease Physician,Individual\n';
 * parseNuccCsv(csv)[0]?.specialization; // "Cardiovascular Disease"
 * ```
 */
export function parseNuccCsv(text: string): TaxonomyEntry[] {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows = csvRows(source);
  const first = rows.next();
  if (first.done) throw new Error("Cannot parse NUCC taxonomy CSV: the file is empty");
  const header = first.value.fields.map(normalizeHeader);
  const column = (name: string): number => header.indexOf(normalizeHeader(name));
  for (const name of REQUIRED_COLUMNS) {
    if (column(name) < 0) {
      throw new Error(
        `Cannot parse NUCC taxonomy CSV: missing column "${name}" (header: ${
          first.value.fields.map((f) => `"${f.trim()}"`).join(", ")
        })`,
      );
    }
  }
  const at = {
    code: column("Code"),
    grouping: column("Grouping"),
    classification: column("Classification"),
    specialization: column("Specialization"),
    definition: column("Definition"),
    display: column("Display Name"),
    section: column("Section"),
  };
  const byCode = new Map<string, TaxonomyEntry>();
  for (const { line, fields } of rows) {
    const get = (index: number): string | null => {
      const value = index < 0 ? undefined : fields[index]?.trim();
      return value === undefined || value === "" ? null : value;
    };
    const code = get(at.code)?.toUpperCase() ?? null;
    if (code === null) continue;
    if (!isTaxonomyCode(code)) {
      throw new SyntaxError(
        `Cannot parse NUCC taxonomy CSV: invalid code "${code}" on line ${line}`,
      );
    }
    const classification = get(at.classification);
    const specialization = get(at.specialization);
    byCode.set(code, {
      code,
      display: get(at.display) ?? specialization ?? classification ?? code,
      grouping: get(at.grouping),
      classification,
      specialization,
      definition: get(at.definition),
      section: parseSection(get(at.section)),
    });
  }
  return [...byCode.values()].sort(compareByCode);
}
