/**
 * The NPI Registry API's refusals: `{"Errors":[{"description","field","number"}]}`
 * answered with HTTP 200, as its clients expect. The numbers are those the
 * real API is known to return; several can come back at once.
 *
 * @module
 */

/** One entry of the `Errors` array (keys in the order the real API sends them). */
export interface RegistryError {
  description: string;
  field: string;
  number: string;
}

/** The known error numbers, by what they mean. */
export const ERROR_NUMBER = {
  /** A `*` with fewer than two characters before it. */
  wildcard: "03",
  /** No search criteria at all. */
  noCriteria: "04",
  /** A value with characters the field does not allow, or of the wrong length. */
  invalid: "05",
  /** `number` is not 10 digits. */
  npiDigits: "06",
  /** `state` (or `country_code=US`) without another criterion. */
  needsMore: "07",
  /** `enumeration_type` without another criterion. */
  enumerationAlone: "09",
  /** `version` missing or not 2.1. */
  version: "17",
} as const;

/** The real API's sentence for error 05. */
export const INVALID_VALUE = "Field contains special character(s) or wrong number of characters";

/**
 * An error entry.
 *
 * @example
 * ```ts
 * registryError("17", "version", "Unsupported Version");
 * // { description: "Unsupported Version", field: "version", number: "17" }
 * ```
 */
export function registryError(number: string, field: string, description: string): RegistryError {
  return { description, field, number };
}

/**
 * The JSON text of an error answer.
 *
 * @example
 * ```ts
 * errorsBody([registryError("04", "generic", "No valid search criteria provided")]);
 * // '{"Errors":[{"description":"No valid search criteria provided","field":"generic","number":"04"}]}'
 * ```
 */
export function errorsBody(errors: readonly RegistryError[]): string {
  return JSON.stringify({ Errors: errors });
}
