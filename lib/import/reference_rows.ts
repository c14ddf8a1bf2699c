/**
 * One row of a reference file (other names, secondary practice locations,
 * endpoints) mapped and packed for the database in one pure step, so that
 * a reading worker can do it.
 *
 * @module
 */
import {
  endpointFromRow,
  locationFromRow,
  otherNameFromRow,
  type RowFields,
} from "../nppes/record.ts";
import {
  type PreparedReference,
  prepareEndpoint,
  prepareLocation,
  prepareOtherName,
  type SideTable,
} from "../store/prepare.ts";

/** The reference files, by the name of their command-line option. */
export type ReferenceKind = "othername" | "pl" | "endpoint";

/** The table each kind of reference file fills. */
export const REFERENCE_TABLES: Readonly<Record<ReferenceKind, SideTable>> = {
  othername: "other_name",
  pl: "location",
  endpoint: "endpoint",
};

/**
 * A row of a reference file of `kind` ready to be written; throws a
 * `RowError` for a row that cannot be imported.
 *
 * @example
 * ```ts
 * prepareReference("othername", ["1003000126", "JANE DOE", "1"]).table; // "other_name"
 * ```
 */
export function prepareReference(kind: ReferenceKind, fields: RowFields): PreparedReference {
  switch (kind) {
    case "othername": {
      const { npi, name } = otherNameFromRow(fields);
      return prepareOtherName(npi, name);
    }
    case "pl": {
      const { npi, location } = locationFromRow(fields);
      return prepareLocation(npi, location);
    }
    case "endpoint": {
      const { npi, endpoint } = endpointFromRow(fields);
      return prepareEndpoint(npi, endpoint);
    }
  }
}
