/**
 * CSV writing (RFC 4180, CRLF line ends) and the flat column set of a
 * provider in exports: one row per provider, the primary practice location
 * and the mailing address in columns, lists joined with `|`.
 *
 * @module
 */
import type { Provider } from "../provider.ts";

/**
 * Quotes a cell when it holds a comma, quote or line break; a cell that a
 * spreadsheet would run as a formula (starting `=`, `+` or `@`) gets a
 * leading apostrophe.
 *
 * @example
 * ```ts
 * csvCell('SMITH, "BOB"'); // "\"SMITH, \"\"BOB\"\"\""
 * ```
 */
export function csvCell(value: string): string {
  let v = value;
  if (v !== "" && (v[0] === "=" || v[0] === "+" || v[0] === "@")) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/**
 * One CSV line of cells, with its CRLF.
 *
 * @example
 * ```ts
 * csvLine(["a", "b,c"]); // "a,\"b,c\"\r\n"
 * ```
 */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/** The columns of a provider in CSV exports, in order, with what each holds. */
export const EXPORT_COLUMNS: readonly { name: string; meaning: string }[] = [
  { name: "npi", meaning: "the NPI" },
  { name: "entity_type", meaning: "individual or organization" },
  { name: "status", meaning: "active or deactivated" },
  { name: "name", meaning: "display name (person with credential, or organization)" },
  { name: "first_name", meaning: "person: first name" },
  { name: "middle_name", meaning: "person: middle name" },
  { name: "last_name", meaning: "person: last name" },
  { name: "suffix", meaning: "person: suffix (JR, III)" },
  { name: "credential", meaning: "person: credential text as registered (M.D.)" },
  { name: "sex", meaning: "person: M or F" },
  { name: "organization_name", meaning: "organization: legal business name" },
  { name: "other_names", meaning: "other names (former, DBA...), `|`-separated" },
  { name: "primary_taxonomy", meaning: "primary NUCC taxonomy code" },
  { name: "primary_taxonomy_description", meaning: "its NUCC display name" },
  { name: "taxonomies", meaning: "every taxonomy code, `|`-separated, primary first" },
  { name: "license", meaning: "license number of the primary taxonomy" },
  { name: "license_state", meaning: "its state" },
  { name: "practice_line1", meaning: "primary practice location: street line 1" },
  { name: "practice_line2", meaning: "street line 2" },
  { name: "practice_city", meaning: "city" },
  { name: "practice_state", meaning: "state" },
  { name: "practice_postal_code", meaning: "ZIP (5 or 9 digits, no hyphen)" },
  { name: "practice_country", meaning: "country code" },
  { name: "practice_phone", meaning: "phone" },
  { name: "practice_fax", meaning: "fax" },
  { name: "lat", meaning: "latitude of the practice ZIP centroid" },
  { name: "lon", meaning: "longitude of the practice ZIP centroid" },
  { name: "mailing_line1", meaning: "mailing address: street line 1" },
  { name: "mailing_line2", meaning: "street line 2" },
  { name: "mailing_city", meaning: "city" },
  { name: "mailing_state", meaning: "state" },
  { name: "mailing_postal_code", meaning: "ZIP" },
  { name: "other_locations", meaning: "number of secondary practice locations" },
  { name: "enumeration_date", meaning: "YYYY-MM-DD" },
  { name: "last_updated", meaning: "YYYY-MM-DD" },
  { name: "deactivation_date", meaning: "YYYY-MM-DD or empty" },
  { name: "reactivation_date", meaning: "YYYY-MM-DD or empty" },
];

/** The CSV header line of exports. */
export const EXPORT_CSV_HEADER: string = csvLine(EXPORT_COLUMNS.map((c) => c.name));

const s = (v: string | number | boolean | null | undefined): string =>
  v === null || v === undefined ? "" : String(v);

/**
 * A provider as one CSV line of {@linkcode EXPORT_COLUMNS}.
 *
 * @example
 * ```ts
 * providerCsvLine(provider); // "1003000126,individual,active,ARDALAN ENKESHAFI M.D.,...\r\n"
 * ```
 */
export function providerCsvLine(p: Provider): string {
  const person = p.individual;
  const primary = p.taxonomies.find((t) => t.primary) ?? p.taxonomies[0];
  const codes = primary
    ? [primary.code, ...p.taxonomies.filter((t) => t !== primary).map((t) => t.code)]
    : [];
  const loc = p.practice_location;
  const mail = p.mailing_address;
  return csvLine([
    p.npi,
    s(p.entity_type),
    p.status,
    p.name,
    s(person?.first_name),
    s(person?.middle_name),
    s(person?.last_name),
    s(person?.suffix),
    s(person?.credential),
    s(person?.sex),
    s(p.organization?.name),
    p.other_names.map((n) => n.name).join("|"),
    s(primary?.code),
    s(primary?.description),
    codes.join("|"),
    s(primary?.license),
    s(primary?.state),
    s(loc?.line1),
    s(loc?.line2),
    s(loc?.city),
    s(loc?.state),
    s(loc?.postal_code),
    s(loc?.country_code),
    s(loc?.phone),
    s(loc?.fax),
    s(loc?.lat),
    s(loc?.lon),
    s(mail?.line1),
    s(mail?.line2),
    s(mail?.city),
    s(mail?.state),
    s(mail?.postal_code),
    String(p.other_locations.length),
    s(p.enumeration_date),
    s(p.last_updated),
    s(p.deactivation_date),
    s(p.reactivation_date),
  ]);
}

/**
 * Providers as export text: NDJSON lines (the provider record) or CSV lines
 * of {@linkcode EXPORT_COLUMNS} (without the header).
 *
 * @example
 * ```ts
 * renderRecords([provider], "ndjson"); // '{"npi":"1003000126",...}\n'
 * ```
 */
export function renderRecords(providers: readonly Provider[], format: "ndjson" | "csv"): string {
  let text = "";
  for (const p of providers) {
    text += format === "csv" ? providerCsvLine(p) : `${JSON.stringify(p)}\n`;
  }
  return text;
}
