/**
 * Turns rows of the NPPES files into parts of the provider record: pure
 * functions, shared by the importer and the demo builder.
 *
 * @module
 */
import {
  ADDRESS_OFFSETS,
  IDENTIFIER_SLOTS,
  identifierColumns,
  NPI_COL,
  TAXONOMY_SLOTS,
  taxonomyColumns,
} from "./columns.ts";
import type {
  Address,
  Endpoint,
  Identifier,
  OtherLocation,
  OtherName,
  OtherNameType,
  Provider,
  Taxonomy,
} from "../provider.ts";
import { isValidNpi } from "../npi.ts";
import { digitsValue } from "../text/digits.ts";

/**
 * The fields of a row: an array of strings, or a record of a CSV batch
 * whose fields are cut only when read (`CsvRecord` of `./csv.ts`).
 */
export interface RowFields {
  readonly length: number;
  at(index: number): string | undefined;
}

/** A value, or `null` when the cell is empty. */
function cell(fields: RowFields, index: number): string | null {
  const value = fields.at(index);
  if (!value) return null;
  const trimmed = value.trim();
  return trimmed ? trimmed : null;
}

/**
 * Converts an NPPES date (`MM/DD/YYYY`) to ISO (`YYYY-MM-DD`); ISO input is
 * kept; anything else is `null`.
 *
 * @example
 * ```ts
 * nppesDate("08/31/2007"); // "2007-08-31"
 * ```
 */
export function nppesDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const v = value.trim();
  const slash = v.indexOf("/");
  if (slash !== -1) {
    // MM/DD/YYYY, with one-digit months and days allowed.
    const second = v.indexOf("/", slash + 1);
    if (slash > 2 || second === -1 || second - slash > 3 || v.length - second !== 5) return null;
    return validDate(
      digitsValue(v, second + 1, v.length),
      digitsValue(v, 0, slash),
      digitsValue(v, slash + 1, second),
    );
  }
  if (v.length === 10 && v.charCodeAt(4) === DASH && v.charCodeAt(7) === DASH) {
    return validDate(digitsValue(v, 0, 4), digitsValue(v, 5, 7), digitsValue(v, 8, 10));
  }
  return null;
}

const DASH = 0x2d;

/** Days in each month of a common year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD` for a date that exists (years from 1900), else null. */
function validDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || year < 1900) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1]!)) return null;
  return `${year}-${month < 10 ? "0" : ""}${month}-${day < 10 ? "0" : ""}${day}`;
}

function yesNo(value: string | null): boolean | null {
  if (value === "Y" || value === "y") return true;
  if (value === "N" || value === "n") return false;
  return null;
}

const OTHER_NAME_TYPES: Readonly<Record<string, OtherNameType>> = {
  "1": "former_name",
  "2": "professional_name",
  "3": "doing_business_as",
  "4": "former_legal_business_name",
  "5": "other_name",
};

/** The other-name kind of an NPPES type code; unknown codes count as `other_name`. */
export function otherNameType(code: string | null): OtherNameType {
  return OTHER_NAME_TYPES[code ?? ""] ?? "other_name";
}

const IDENTIFIER_TYPES: Readonly<Record<string, string>> = {
  "01": "other",
  "02": "medicare_upin",
  "04": "medicare_id",
  "05": "medicaid",
  "06": "medicare_oscar",
  "07": "medicare_nsc",
  "08": "medicare_pin",
};

function address(fields: RowFields, first: number): Address | null {
  const a: Address = {
    line1: cell(fields, first + ADDRESS_OFFSETS.line1),
    line2: cell(fields, first + ADDRESS_OFFSETS.line2),
    city: cell(fields, first + ADDRESS_OFFSETS.city),
    state: cell(fields, first + ADDRESS_OFFSETS.state),
    postal_code: cell(fields, first + ADDRESS_OFFSETS.postal),
    country_code: cell(fields, first + ADDRESS_OFFSETS.country),
    phone: cell(fields, first + ADDRESS_OFFSETS.phone),
    fax: cell(fields, first + ADDRESS_OFFSETS.fax),
  };
  return Object.values(a).some((v) => v !== null) ? a : null;
}

/** Joins name parts with single spaces, skipping empty ones. */
export function joinName(...parts: (string | null | undefined)[]): string {
  return parts.filter((p) => p).join(" ");
}

/** Why a row was rejected. */
export class RowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RowError";
  }
}

/**
 * The provider record of one main-file row (npidata_pfile). Taxonomy
 * descriptions and coordinates are filled in later from reference data;
 * other names from the othername file, secondary locations and endpoints
 * are added by the builder. Throws {@linkcode RowError} for a row that is
 * not a provider (bad NPI, wrong number of fields).
 *
 * @example
 * ```ts
 * const provider = providerFromRow(fields);
 * provider.npi; // "1003000126"
 * ```
 */
export function providerFromRow(fields: RowFields, columnCount = 330): Provider {
  if (fields.length !== columnCount) {
    throw new RowError(`expected ${columnCount} fields, found ${fields.length}`);
  }
  const npi = cell(fields, NPI_COL.npi) ?? "";
  if (!isValidNpi(npi)) throw new RowError(`'${npi.slice(0, 20)}' is not a valid NPI`);
  const entityCode = cell(fields, NPI_COL.entityType);
  const entity_type = entityCode === "1"
    ? "individual"
    : entityCode === "2"
    ? "organization"
    : null;
  if (entityCode !== null && entity_type === null) {
    throw new RowError(`Entity Type Code '${entityCode.slice(0, 5)}' is not 1 or 2`);
  }
  const deactivation_date = nppesDate(cell(fields, NPI_COL.deactivationDate));
  const reactivation_date = nppesDate(cell(fields, NPI_COL.reactivationDate));
  const deactivated = deactivation_date !== null &&
    (reactivation_date === null || reactivation_date < deactivation_date);

  const taxonomies: Taxonomy[] = [];
  for (let i = 0; i < TAXONOMY_SLOTS; i++) {
    const c = taxonomyColumns(i);
    const code = cell(fields, c.code);
    if (!code) continue;
    taxonomies.push({
      code: code.toUpperCase(),
      description: null,
      primary: cell(fields, c.primary) === "Y",
      license: cell(fields, c.license),
      state: cell(fields, c.state),
      group: cell(fields, c.group),
    });
  }
  if (taxonomies.length > 0 && !taxonomies.some((t) => t.primary)) taxonomies[0]!.primary = true;

  const identifiers: Identifier[] = [];
  for (let i = 0; i < IDENTIFIER_SLOTS; i++) {
    const c = identifierColumns(i);
    const identifier = cell(fields, c.identifier);
    if (!identifier) continue;
    const typeCode = cell(fields, c.type) ?? "";
    identifiers.push({
      type: IDENTIFIER_TYPES[typeCode] ?? (typeCode || "other"),
      identifier,
      state: cell(fields, c.state),
      issuer: cell(fields, c.issuer),
    });
  }

  const other_names: OtherName[] = [];
  const otherOrg = cell(fields, NPI_COL.otherOrgName);
  if (otherOrg) {
    other_names.push({
      type: otherNameType(cell(fields, NPI_COL.otherOrgNameType)),
      name: otherOrg,
    });
  }
  const otherLast = cell(fields, NPI_COL.otherLastName);
  const otherFirst = cell(fields, NPI_COL.otherFirstName);
  if (otherLast || otherFirst) {
    other_names.push({
      type: otherNameType(cell(fields, NPI_COL.otherLastNameType)),
      name: joinName(
        cell(fields, NPI_COL.otherPrefix),
        otherFirst,
        cell(fields, NPI_COL.otherMiddleName),
        otherLast,
        cell(fields, NPI_COL.otherSuffix),
        cell(fields, NPI_COL.otherCredential),
      ),
    });
  }

  const individual = entity_type === "individual"
    ? {
      prefix: cell(fields, NPI_COL.prefix),
      first_name: cell(fields, NPI_COL.firstName),
      middle_name: cell(fields, NPI_COL.middleName),
      last_name: cell(fields, NPI_COL.lastName),
      suffix: cell(fields, NPI_COL.suffix),
      credential: cell(fields, NPI_COL.credential),
      sex: sexCode(cell(fields, NPI_COL.sex)),
      sole_proprietor: yesNo(cell(fields, NPI_COL.soleProprietor)),
    }
    : null;
  const aoLast = cell(fields, NPI_COL.aoLastName);
  const aoFirst = cell(fields, NPI_COL.aoFirstName);
  const organization = entity_type === "organization"
    ? {
      name: cell(fields, NPI_COL.orgName),
      subpart: yesNo(cell(fields, NPI_COL.subpart)),
      parent_name: cell(fields, NPI_COL.parentName),
      authorized_official: aoLast || aoFirst
        ? {
          prefix: cell(fields, NPI_COL.aoPrefix),
          first_name: aoFirst,
          middle_name: cell(fields, NPI_COL.aoMiddleName),
          last_name: aoLast,
          suffix: cell(fields, NPI_COL.aoSuffix),
          credential: cell(fields, NPI_COL.aoCredential),
          title: cell(fields, NPI_COL.aoTitle),
          phone: cell(fields, NPI_COL.aoPhone),
        }
        : null,
    }
    : null;

  const practice = address(fields, NPI_COL.locLine1);
  return {
    npi,
    entity_type,
    status: deactivated ? "deactivated" : "active",
    name: displayName(individual, organization?.name ?? null),
    individual,
    organization,
    other_names,
    taxonomies,
    practice_location: practice ? { ...practice, lat: null, lon: null } : null,
    mailing_address: address(fields, NPI_COL.mailLine1),
    other_locations: [],
    identifiers,
    endpoints: [],
    replacement_npi: cell(fields, NPI_COL.replacementNpi),
    enumeration_date: nppesDate(cell(fields, NPI_COL.enumerationDate)),
    last_updated: nppesDate(cell(fields, NPI_COL.lastUpdated)),
    certification_date: nppesDate(cell(fields, NPI_COL.certificationDate)),
    deactivation_date,
    reactivation_date,
  };
}

function sexCode(value: string | null): "M" | "F" | null {
  return value === "M" || value === "F" ? value : null;
}

function displayName(
  individual: Provider["individual"],
  organizationName: string | null,
): string {
  if (individual) {
    return joinName(
      individual.prefix,
      individual.first_name,
      individual.middle_name,
      individual.last_name,
      individual.suffix,
      individual.credential,
    );
  }
  return organizationName ?? "";
}

/** One row of othername_pfile: the NPI and the name. */
export function otherNameFromRow(fields: RowFields): { npi: string; name: OtherName } {
  if (fields.length !== 3) throw new RowError(`expected 3 fields, found ${fields.length}`);
  const npi = cell(fields, 0) ?? "";
  if (!isValidNpi(npi)) throw new RowError(`'${npi.slice(0, 20)}' is not a valid NPI`);
  const name = cell(fields, 1);
  if (!name) throw new RowError("the other name is empty");
  return { npi, name: { type: otherNameType(cell(fields, 2)), name } };
}

/** One row of pl_pfile: the NPI and the secondary practice location. */
export function locationFromRow(
  fields: RowFields,
): { npi: string; location: OtherLocation } {
  if (fields.length !== 10) throw new RowError(`expected 10 fields, found ${fields.length}`);
  const npi = cell(fields, 0) ?? "";
  if (!isValidNpi(npi)) throw new RowError(`'${npi.slice(0, 20)}' is not a valid NPI`);
  return {
    npi,
    location: {
      line1: cell(fields, 1),
      line2: cell(fields, 2),
      city: cell(fields, 3),
      state: cell(fields, 4),
      postal_code: cell(fields, 5),
      country_code: cell(fields, 6),
      phone: cell(fields, 7),
      phone_extension: cell(fields, 8),
      fax: cell(fields, 9),
      lat: null,
      lon: null,
    },
  };
}

/** One row of endpoint_pfile: the NPI and the endpoint. */
export function endpointFromRow(fields: RowFields): { npi: string; endpoint: Endpoint } {
  if (fields.length !== 19) throw new RowError(`expected 19 fields, found ${fields.length}`);
  const npi = cell(fields, 0) ?? "";
  if (!isValidNpi(npi)) throw new RowError(`'${npi.slice(0, 20)}' is not a valid NPI`);
  const endpoint = cell(fields, 3);
  if (!endpoint) throw new RowError("the endpoint is empty");
  const affiliationAddress: Address = {
    line1: cell(fields, 13),
    line2: cell(fields, 14),
    city: cell(fields, 15),
    state: cell(fields, 16),
    country_code: cell(fields, 17),
    postal_code: cell(fields, 18),
    phone: null,
    fax: null,
  };
  return {
    npi,
    endpoint: {
      type: cell(fields, 1),
      type_description: cell(fields, 2),
      endpoint,
      description: cell(fields, 5),
      affiliation: yesNo(cell(fields, 4)),
      affiliation_name: cell(fields, 6),
      use: cell(fields, 7),
      use_description: cell(fields, 8) ?? cell(fields, 9),
      content_type: cell(fields, 10),
      content_description: cell(fields, 11) ?? cell(fields, 12),
      address: Object.values(affiliationAddress).some((v) => v !== null)
        ? affiliationAddress
        : null,
    },
  };
}
