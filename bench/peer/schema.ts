/**
 * The SQL a competent user writes by hand to load the NPPES files into
 * PostgreSQL: one raw table per file (every column `text`, named after the
 * CSV header in snake case), a typed `provider` table derived from the raw
 * one, and the indexes the search needs. Pure text builders, so they can be
 * read and tested without a server.
 *
 * @module
 */

/** PostgreSQL's identifier limit (NAMEDATALEN - 1). */
const MAX_IDENTIFIER = 63;

/** The number of taxonomy slots of an npidata row. */
export const TAXONOMY_SLOTS = 15;

/**
 * Splits one CSV line (RFC 4180 quoting, no embedded line breaks) into
 * values. Used for header rows only.
 *
 * @example
 * ```ts
 * parseCsvLine('"NPI","Entity Type Code"'); // ["NPI", "Entity Type Code"]
 * ```
 */
export function parseCsvLine(line: string): string[] {
  const values: string[] = [];
  let i = 0;
  const text = line.replace(/\r?\n$/, "").replace(/\r$/, "");
  while (i <= text.length) {
    if (text[i] === '"') {
      let value = "";
      i++;
      while (i < text.length) {
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i];
        i++;
      }
      values.push(value);
      i++; // the comma
    } else {
      const comma = text.indexOf(",", i);
      const end = comma < 0 ? text.length : comma;
      values.push(text.slice(i, end));
      i = end + 1;
    }
  }
  return values;
}

/**
 * Snake-case column names for CSV headers, the way a user scripts them:
 * lower case, every run of other characters an underscore, cut to 63
 * characters, made unique with a numeric suffix when two collide.
 *
 * @example
 * ```ts
 * columnNames(["NPI", "Provider Last Name (Legal Name)"]);
 * // ["npi", "provider_last_name_legal_name"]
 * ```
 */
export function columnNames(headers: readonly string[]): string[] {
  const used = new Set<string>();
  return headers.map((header, index) => {
    let name = header.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
    if (name === "") name = `column_${index + 1}`;
    if (/^[0-9]/.test(name)) name = `c_${name}`;
    name = name.slice(0, MAX_IDENTIFIER);
    let unique = name;
    for (let n = 2; used.has(unique); n++) {
      const suffix = `_${n}`;
      unique = name.slice(0, MAX_IDENTIFIER - suffix.length) + suffix;
    }
    used.add(unique);
    return unique;
  });
}

/**
 * Quotes an identifier for SQL.
 *
 * @example
 * ```ts
 * ident("npi"); // "\"npi\""
 * ```
 */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Quotes a string literal for SQL (standard_conforming_strings on).
 *
 * @example
 * ```ts
 * literal("O'BRIEN"); // "'O''BRIEN'"
 * ```
 */
export function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * `CREATE TABLE` with every column `text`.
 *
 * @example
 * ```ts
 * createRawTable("othername", ["npi", "name"]);
 * // 'CREATE TABLE "othername" ("npi" text, "name" text)'
 * ```
 */
export function createRawTable(table: string, columns: readonly string[]): string {
  return `CREATE TABLE ${ident(table)} (${columns.map((c) => `${ident(c)} text`).join(", ")})`;
}

/**
 * `COPY` of a quoted NPPES CSV into a raw table. Every value is quoted in
 * these files, so `FORCE_NULL` on every column turns `""` into NULL (PostgreSQL
 * 15 has no `FORCE_NULL *`). `FREEZE` is allowed because the table is created
 * in the same transaction. `source` is a server-side file path, or null for
 * `FROM STDIN`.
 *
 * @example
 * ```ts
 * copyStatement("othername", ["npi", "name"], "/data/othername.csv");
 * ```
 */
export function copyStatement(
  table: string,
  columns: readonly string[],
  source: string | null,
): string {
  const list = columns.map(ident).join(", ");
  const from = source === null ? "STDIN" : literal(source);
  return `COPY ${ident(table)} (${list}) FROM ${from} ` +
    `WITH (FORMAT csv, HEADER true, FREEZE true, FORCE_NULL (${list}))`;
}

/** Looks up the column made from a header name (first of `headers` present). */
function pick(
  headers: readonly string[],
  columns: readonly string[],
  file: string,
  ...wanted: string[]
): string {
  for (const name of wanted) {
    const at = headers.indexOf(name);
    if (at >= 0) return ident(columns[at]!);
  }
  throw new Error(
    `The ${file} header has no column '${wanted[0]}': is this an NPPES ${file} file ` +
      "(npidata_pfile_*.csv, Version 2 layout)?",
  );
}

/**
 * `CREATE TABLE provider AS SELECT ...`: the typed table a user derives from
 * the raw npidata table, with ZIP centroids joined and other organization
 * names (from npidata and the othername file) combined into one searchable
 * column.
 *
 * @example
 * ```ts
 * const sql = providerTableSql(headers, columnNames(headers), "othername", ["npi", "name", "type"]);
 * ```
 */
export function providerTableSql(
  headers: readonly string[],
  columns: readonly string[],
  othername: { table: string; columns: readonly string[] } | null,
): string {
  const c = (...names: string[]): string => `n.${pick(headers, columns, "npidata", ...names)}`;
  const npi = c("NPI");
  const last = c("Provider Last Name (Legal Name)");
  const first = c("Provider First Name");
  const middle = c("Provider Middle Name");
  const prefix = c("Provider Name Prefix Text");
  const suffix = c("Provider Name Suffix Text");
  const credential = c("Provider Credential Text");
  const org = c("Provider Organization Name (Legal Business Name)");
  const otherOrg = c("Provider Other Organization Name");
  const city = c("Provider Business Practice Location Address City Name");
  const state = c("Provider Business Practice Location Address State Name");
  const postal = c("Provider Business Practice Location Address Postal Code");
  const sex = c("Provider Sex Code", "Provider Gender Code");
  const entity = c("Entity Type Code");
  const deactivated = `to_date(${c("NPI Deactivation Date")}, 'MM/DD/YYYY')`;
  const reactivated = `to_date(${c("NPI Reactivation Date")}, 'MM/DD/YYYY')`;
  const codes: string[] = [];
  const primary: string[] = [];
  for (let slot = 1; slot <= TAXONOMY_SLOTS; slot++) {
    const code = c(`Healthcare Provider Taxonomy Code_${slot}`);
    codes.push(code);
    primary.push(
      `WHEN ${c(`Healthcare Provider Primary Taxonomy Switch_${slot}`)} = 'Y' THEN ${code}`,
    );
  }
  const otherJoin = othername === null ? "" : `LEFT JOIN (
    SELECT ${ident(othername.columns[0]!)} AS npi,
           string_agg(${ident(othername.columns[1]!)}, ' ') AS names
    FROM ${ident(othername.table)} GROUP BY 1
  ) o ON o.npi = ${npi}`;
  const otherNames = othername === null
    ? otherOrg
    : `nullif(concat_ws(' ', ${otherOrg}, o.names), '')`;
  return `CREATE TABLE provider AS
SELECT ${npi}::bigint AS npi,
       ${entity}::smallint AS entity,
       ${last} AS last_name,
       ${first} AS first_name,
       ${middle} AS middle_name,
       ${credential} AS credential,
       ${org} AS org_name,
       ${otherNames} AS other_names,
       CASE WHEN ${entity} = '2' THEN ${org}
            ELSE nullif(concat_ws(' ', ${prefix}, ${first}, ${middle}, ${last}, ${suffix}, ${credential}), '')
       END AS name,
       coalesce(nullif(lower(CASE WHEN ${entity} = '2' THEN ${org}
                                  ELSE concat_ws(' ', ${last}, ${first}, ${middle}) END), ''), '~') AS sort_name,
       ${city} AS city,
       ${state} AS state,
       left(${postal}, 5) AS zip5,
       z.lat,
       z.lon,
       coalesce(CASE ${primary.join(" ")} END, ${codes[0]}) AS primary_taxonomy,
       array_remove(ARRAY[${codes.join(", ")}], NULL) AS taxonomy_codes,
       ${sex} AS sex,
       ${deactivated} AS deactivation_date,
       ${reactivated} AS reactivation_date,
       (${deactivated} IS NULL OR ${reactivated} >= ${deactivated}) AS active
FROM npidata n
LEFT JOIN zip_centroid z ON z.zip = left(${postal}, 5)
${otherJoin}`;
}

/**
 * The indexes, in build order: the primary key, trigram GIN indexes for
 * name search, B-trees for filters, prefix and browse order (partial: browse
 * lists active providers only), a GIN over
 * the taxonomy array, an earthdistance GiST, and the NPI keys of the raw
 * tables for the detail route.
 *
 * @example
 * ```ts
 * indexStatements(["othername", "pl", "endpoint"]).length; // 16
 * ```
 */
export function indexStatements(rawTables: readonly { table: string; npi: string }[]): string[] {
  return [
    "ALTER TABLE provider ADD PRIMARY KEY (npi)",
    "CREATE INDEX provider_last_trgm ON provider USING gin (lower(last_name) gin_trgm_ops)",
    "CREATE INDEX provider_first_trgm ON provider USING gin (lower(first_name) gin_trgm_ops)",
    "CREATE INDEX provider_org_trgm ON provider USING gin (lower(org_name) gin_trgm_ops)",
    "CREATE INDEX provider_other_trgm ON provider USING gin (lower(other_names) gin_trgm_ops)",
    "CREATE INDEX provider_last_prefix ON provider (lower(last_name) text_pattern_ops)",
    "CREATE INDEX provider_state ON provider (state)",
    "CREATE INDEX provider_zip5 ON provider (zip5)",
    "CREATE INDEX provider_sort ON provider (sort_name, npi) WHERE active",
    "CREATE INDEX provider_taxonomy ON provider USING gin (taxonomy_codes)",
    "CREATE INDEX provider_earth ON provider USING gist (ll_to_earth(lat, lon))",
    ...rawTables.map(({ table, npi }) =>
      `CREATE INDEX ${ident(`${table}_npi`)} ON ${ident(table)} (${ident(npi)})`
    ),
  ];
}
