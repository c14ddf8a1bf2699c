/**
 * The fields of the search index. Text fields hold folded words; key fields
 * hold whole folded names (for the NPPES-style name filters); the others are
 * derived from columns when the index is written.
 *
 * @module
 */

/** Field numbers as stored in the `posting` table. */
export const FIELD = {
  /** Words of the surname, or of an organization's legal name. */
  surname: 1,
  /** Words of the first and middle names. */
  given: 2,
  /** Words of other names (DBA, former names...). */
  other: 3,
  /** Words of the practice city. */
  place: 4,
  /** Primary taxonomy code. */
  primaryCode: 5,
  /** Other taxonomy codes. */
  secondaryCode: 6,
  /** Any taxonomy code. */
  anyCode: 7,
  /** Practice state. */
  state: 8,
  /** Practice city, whole, folded upper case. */
  city: 9,
  /** Practice ZIP (5 digits). */
  zip5: 10,
  /** Last-name keys (own and other names). */
  lastKey: 11,
  /** First-name keys. */
  firstKey: 12,
  /** Organization-name keys (legal and other names). */
  orgKey: 13,
  /** Geographic cell of the practice location. */
  cell: 14,
  /** Words of a person's name prefix and credentials (`dr`, `md`, `pac`), punctuation dropped. */
  credential: 15,
  /** Initials of a person's first and middle names (`p`, `b` for PAUL BYRON). */
  initial: 16,
  /** An organization subpart's parent legal-name key (FHIR `partof`). */
  parentKey: 17,
  /** Month of the last update, `YYYY-MM` (FHIR `_lastUpdated`; see `updated.ts`). */
  updatedMonth: 18,
  /** Mailing address state, upper case (derived from a column, as {@linkcode FIELD.state}). */
  mailState: 19,
  /** Mailing address city, whole, folded upper case (as {@linkcode FIELD.city}). */
  mailCity: 20,
  /** Mailing address ZIP (5 digits). */
  mailZip5: 21,
  /** States of the secondary practice locations (pl file), upper case. */
  otherState: 22,
  /** Cities of the secondary practice locations, whole, folded upper case. */
  otherCity: 23,
  /** ZIPs (5 digits) of the secondary practice locations. */
  otherZip5: 24,
  /**
   * Providers with two or more secondary practice locations: one term,
   * {@linkcode MANY_LOCATIONS}. Their city, state and ZIP may come from
   * different locations, so a match of several criteria is confirmed on
   * the record (except city and state: {@linkcode FIELD.otherStateCity}).
   */
  otherMany: 25,
  /**
   * State and city of each secondary practice location as one term
   * (`MD|BALTIMORE`, see {@linkcode stateCityTerm}): a city and a state of
   * one and the same location, whatever the other locations.
   */
  otherStateCity: 26,
} as const;

/**
 * The {@linkcode FIELD.otherStateCity} term of a state and a city (or city
 * prefix), both as indexed.
 *
 * @example
 * ```ts
 * stateCityTerm("MD", "BALTIMORE"); // "MD|BALTIMORE"
 * ```
 */
export function stateCityTerm(state: string, city: string): string {
  return `${state}|${city}`;
}

/** The one term of {@linkcode FIELD.otherMany}. */
export const MANY_LOCATIONS = "2";

/** The index fields of one kind of address: state, whole city and 5-digit ZIP. */
export interface PlaceFields {
  state: number;
  city: number;
  zip5: number;
}

/** The fields of the primary practice location, the mailing address and the secondary locations. */
export const PLACE_FIELDS: Readonly<Record<"primary" | "mailing" | "secondary", PlaceFields>> = {
  primary: { state: FIELD.state, city: FIELD.city, zip5: FIELD.zip5 },
  mailing: { state: FIELD.mailState, city: FIELD.mailCity, zip5: FIELD.mailZip5 },
  secondary: { state: FIELD.otherState, city: FIELD.otherCity, zip5: FIELD.otherZip5 },
};

/** Fields whose terms get precomputed prefix lists. */
export const PREFIXED_FIELDS: readonly number[] = [
  FIELD.surname,
  FIELD.given,
  FIELD.other,
  FIELD.place,
  FIELD.lastKey,
  FIELD.firstKey,
  FIELD.orgKey,
];

/** Fields with per-provider terms (merged by the postings worker): the prefixed ones and more. */
export const TERM_FIELDS: readonly number[] = [
  ...PREFIXED_FIELDS,
  FIELD.credential,
  FIELD.initial,
  FIELD.parentKey,
  FIELD.otherState,
  FIELD.otherCity,
  FIELD.otherZip5,
  FIELD.otherMany,
  FIELD.otherStateCity,
];

/** Text fields, whose terms make the typo vocabulary. */
export const TEXT_FIELDS: readonly number[] = [
  FIELD.surname,
  FIELD.given,
  FIELD.other,
  FIELD.place,
];

/**
 * Prefix lengths with precomputed lists (`jo*`, `joh*`, `john*`, `johns*`).
 * Without one, a prefix's longer terms are read and united on every
 * search that ends with it: at 9.7 million, surname prefixes of four and
 * five letters have 100–200 such terms each, and those reads took a tenth
 * of the engine's time over the text mix. The lists of four and five
 * letters add 210 MB to the postings part (1.27 → 1.48 GB). A database
 * built with fewer lengths still serves: a prefix without its list is
 * read term by term.
 */
export const PREFIX_LENGTHS: readonly number[] = [2, 3, 4, 5];
/** A prefix list is precomputed only when this many terms share the prefix. */
export const PREFIX_MIN_TERMS = 8;

/** Size of a geographic cell, in degrees. */
export const CELL_DEGREES = 0.25;
const CELLS_PER_ROW = 360 / CELL_DEGREES;

/**
 * The cell of a point.
 *
 * @example
 * ```ts
 * cellOf(40.75, -73.99); // the cell holding midtown Manhattan
 * ```
 */
export function cellOf(lat: number, lon: number): number {
  const row = Math.min(719, Math.max(0, Math.floor((lat + 90) / CELL_DEGREES)));
  const col = Math.min(CELLS_PER_ROW - 1, Math.max(0, Math.floor((lon + 180) / CELL_DEGREES)));
  return row * CELLS_PER_ROW + col;
}

/** Cells overlapping a bounding box. */
export function cellsIn(
  box: { minLat: number; maxLat: number; minLon: number; maxLon: number },
): number[] {
  const out: number[] = [];
  const r0 = Math.floor((box.minLat + 90) / CELL_DEGREES),
    r1 = Math.floor((box.maxLat + 90) / CELL_DEGREES);
  const c0 = Math.floor((box.minLon + 180) / CELL_DEGREES),
    c1 = Math.floor((box.maxLon + 180) / CELL_DEGREES);
  for (let r = Math.max(0, r0); r <= Math.min(719, r1); r++) {
    for (let c = Math.max(0, c0); c <= Math.min(CELLS_PER_ROW - 1, c1); c++) {
      out.push(r * CELLS_PER_ROW + c);
    }
  }
  return out;
}

/** Bits of the `flags` column. */
export const FLAG = {
  active: 1,
  individual: 2,
  organization: 4,
  male: 8,
  female: 16,
  /** A person with a name prefix on record (a title word can tell). */
  titled: 32,
  /** A person with a credential on record (a credential word can tell). */
  credentialed: 64,
} as const;
