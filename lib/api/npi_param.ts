/**
 * Definitions shared by the data routes.
 *
 * @module
 */
import type { PathParamSpec } from "../http/router.ts";

/** The `{npi}` path parameter. */
export const NPI_PATH_PARAM: PathParamSpec = {
  description: "10-digit NPI with a valid check digit (Luhn over 80840 + the first 9 digits)",
  schema: { type: "string", pattern: "^[0-9]{10}$" },
  example: "1003000126",
};
