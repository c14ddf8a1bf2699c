/**
 * The benchmark's fixed query mix: one URL per class, with sample values
 * drawn from the dataset itself so every class finds real records. Both
 * this service and the PostgreSQL peer answer the same paths.
 *
 * @module
 */

/** The classes of the query mix, in report order. */
export const CLASSES = [
  "npi_lookup",
  "common_surname",
  "rare_surname_typo",
  "prefix_2",
  "specialty_near",
  "specialty_state_facets",
  "org_words",
  "last_name_prefix_state",
  "browse",
  "deep_cursor",
  "detail",
] as const;

/** A class of the query mix. */
export type QueryClass = (typeof CLASSES)[number];

/** Values the mix is built from, picked from the dataset. */
export interface MixSamples {
  /** An active NPI. */
  npi: string;
  /** A surname held by one to three providers, with one letter changed (a typo). */
  rareSurnameTypo: string;
  /** The cursor of page 50 of browsing (this service only). */
  deepCursor: string | null;
}

/**
 * The path and query of each class. `deep_cursor` uses this service's
 * cursor when given, else `offset=490` (the 50th page of 10).
 *
 * @example
 * ```ts
 * mixUrls({ npi: "1003000126", rareSurnameTypo: "zabrowsky", deepCursor: null }).common_surname;
 * // "/v1/providers/search?q=smith"
 * ```
 */
export function mixUrls(samples: MixSamples): Record<QueryClass, string> {
  const search = "/v1/providers/search";
  return {
    npi_lookup: `${search}?npi=${samples.npi}`,
    common_surname: `${search}?q=smith`,
    rare_surname_typo: `${search}?q=${encodeURIComponent(samples.rareSurnameTypo)}`,
    prefix_2: `${search}?q=jo`,
    specialty_near: `${search}?specialty=family%20medicine&near=10001&radius=10`,
    specialty_state_facets: `${search}?specialty=dentist&state=CA&facets=city,taxonomy,sex`,
    org_words: `${search}?q=memorial%20hospital`,
    last_name_prefix_state: `${search}?last_name=smi*&state=TX`,
    browse: search,
    deep_cursor: samples.deepCursor
      ? `${search}?cursor=${encodeURIComponent(samples.deepCursor)}`
      : `${search}?offset=490`,
    detail: `/v1/providers/${samples.npi}`,
  };
}
