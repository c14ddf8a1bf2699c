/**
 * The SQL the PostgreSQL peer runs for `GET /v1/providers/search`, built as
 * parameterized statements (the wrapper prepares them): a page query, an
 * exact `count(*)` over the same filter, and one `GROUP BY` per facet.
 *
 * Name words follow what a user does with pg_trgm: each word must match a
 * person's last or first name by trigram similarity (`%`), or a word of the
 * organization's legal or other names by word similarity (`<%`); the last
 * word also matches as a prefix of a person's names (search-as-you-type),
 * and a word of one or two letters matches person names as a prefix only
 * (trigram similarity means nothing that short). Results rank by the summed
 * best similarity per word.
 *
 * @module
 */

/** Facets the peer can count. */
export const PEER_FACETS = ["state", "taxonomy", "entity_type", "sex", "city"] as const;

/** A facet the peer can count. */
export type PeerFacet = (typeof PEER_FACETS)[number];

/** A search request, validated and resolved (specialty → codes, ZIP → point). */
export interface PeerQuery {
  /** Exact 10-digit NPIs (OR); empty for none. */
  npis: string[];
  /** Lower-case words of `q` (AND); empty for none. */
  words: string[];
  /** `last_name`: lower-case key, prefix when it ended in `*`. */
  lastName: { key: string; prefix: boolean } | null;
  /** Upper-case USPS codes (OR); empty for none. */
  states: string[];
  /** Taxonomy codes a specialty resolved to; null for no specialty filter. */
  codes: string[] | null;
  /** A point and radius in metres. */
  near: { lat: number; lon: number; radiusMeters: number } | null;
  /** Facets to count. */
  facets: PeerFacet[];
  /** Page size. */
  limit: number;
  /** Rows to skip. */
  offset: number;
}

/** A parameter value the statements bind. */
export type SqlValue = string | number | string[];

/** One parameterized statement. */
export interface Statement {
  /** SQL with `$n` placeholders. */
  text: string;
  /** The values, `$1` first. */
  params: SqlValue[];
}

/** Everything one search runs. */
export interface SearchStatements {
  /** The page: `limit` rows from `offset`. */
  page: Statement;
  /** `SELECT count(*)` over the same filter. */
  count: Statement;
  /** One statement per requested facet, in request order. */
  facets: { name: PeerFacet; statement: Statement }[];
}

/** Shorter words match person names as prefixes only, not by trigram similarity. */
const MIN_TRIGRAM_WORD = 3;

/** Metres per statute mile. */
export const METERS_PER_MILE = 1609.344;

const RESULT_COLUMNS = `npi::text AS npi,
  CASE entity WHEN 1 THEN 'individual' WHEN 2 THEN 'organization' END AS entity_type,
  name, last_name, first_name, org_name AS organization_name, city, state,
  zip5 AS postal_code, primary_taxonomy, taxonomy_codes, sex, lat, lon`;

/**
 * Escapes `%`, `_` and `\` for a `LIKE` pattern.
 *
 * @example
 * ```ts
 * escapeLike("a_b%"); // "a\\_b\\%"
 * ```
 */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * Builds the page, count and facet statements of a search.
 *
 * @example
 * ```ts
 * const s = searchStatements({
 *   npis: [], words: ["smith"], lastName: null, states: [], codes: null, near: null,
 *   facets: [], limit: 10, offset: 0,
 * });
 * s.count.text; // "SELECT count(*)::int AS total FROM provider WHERE active AND (...)"
 * ```
 */
export function searchStatements(query: PeerQuery): SearchStatements {
  const params: SqlValue[] = [];
  const bind = (value: SqlValue): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = ["active"];

  if (query.npis.length > 0) where.push(`npi = ANY(${bind(query.npis)}::bigint[])`);

  const scores: string[] = [];
  query.words.forEach((word, i) => {
    const w = bind(word);
    // Trigram similarity says nothing about a word of one or two letters:
    // those match as prefixes only (org words through word similarity).
    const alternatives = word.length >= MIN_TRIGRAM_WORD
      ? [`lower(last_name) % ${w}`, `lower(first_name) % ${w}`]
      : [];
    alternatives.push(`${w} <% lower(org_name)`, `${w} <% lower(other_names)`);
    if (i === query.words.length - 1 || word.length < MIN_TRIGRAM_WORD) {
      const prefix = bind(`${escapeLike(word)}%`);
      alternatives.push(`lower(last_name) LIKE ${prefix}`, `lower(first_name) LIKE ${prefix}`);
    }
    where.push(`(${alternatives.join(" OR ")})`);
    scores.push(
      `coalesce(greatest(similarity(lower(last_name), ${w}), similarity(lower(first_name), ${w}), ` +
        `word_similarity(${w}, lower(org_name)), word_similarity(${w}, lower(other_names))), 0)`,
    );
  });

  if (query.lastName !== null) {
    where.push(
      query.lastName.prefix
        ? `lower(last_name) LIKE ${bind(`${escapeLike(query.lastName.key)}%`)}`
        : `lower(last_name) = ${bind(query.lastName.key)}`,
    );
  }
  if (query.states.length === 1) where.push(`state = ${bind(query.states[0]!)}`);
  else if (query.states.length > 1) where.push(`state = ANY(${bind(query.states)}::text[])`);
  if (query.codes !== null) where.push(`taxonomy_codes && ${bind(query.codes)}::text[]`);

  let distance: string | null = null;
  if (query.near !== null) {
    const center = `ll_to_earth(${bind(query.near.lat)}::float8, ${bind(query.near.lon)}::float8)`;
    const radius = `${bind(query.near.radiusMeters)}::float8`;
    distance = `earth_distance(${center}, ll_to_earth(lat, lon))`;
    where.push(
      `earth_box(${center}, ${radius}) @> ll_to_earth(lat, lon)`,
      `${distance} <= ${radius}`,
    );
  }

  const filter = where.join("\n  AND ");
  const filterParams = [...params];

  const extra: string[] = [];
  let order = "sort_name, provider.npi";
  if (scores.length > 0) {
    const score = scores.join(" + ");
    extra.push(`round((${score})::numeric, 4)::float8 AS score`);
    order = `${score} DESC, sort_name, provider.npi`;
  }
  if (distance !== null) {
    extra.push(`round((${distance} / ${METERS_PER_MILE})::numeric, 1)::float8 AS distance`);
    if (scores.length === 0) order = `${distance}, provider.npi`;
  }
  const columns = [RESULT_COLUMNS, ...extra].join(",\n  ");
  const paging = `ORDER BY ${order}\nLIMIT ${bind(query.limit)} OFFSET ${bind(query.offset)}`;
  // Ordered by name, the planner walks the browse index hoping to meet
  // matches early. That pays for filters spread evenly over names (state,
  // specialty) but not for a last-name filter, whose matches sort together
  // (smi* comes late): the walk reads most of the table. Fence that filter
  // so it runs first, then sort its matches.
  const fence = query.lastName !== null && scores.length === 0 && distance === null;
  const page: Statement = {
    text: fence
      ? `WITH matched AS MATERIALIZED (SELECT * FROM provider WHERE ${filter})\n` +
        `SELECT ${columns}\nFROM matched AS provider\n${paging}`
      : `SELECT ${columns}\nFROM provider\nWHERE ${filter}\n${paging}`,
    params: [...params],
  };
  const count: Statement = {
    text: `SELECT count(*)::int AS total FROM provider WHERE ${filter}`,
    params: filterParams,
  };
  const facets = query.facets.map((name) => ({
    name,
    statement: { text: facetSql(name, filter), params: filterParams },
  }));
  return { page, count, facets };
}

function facetSql(name: PeerFacet, filter: string): string {
  const top = "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20";
  switch (name) {
    case "taxonomy":
      return `SELECT code AS value, count(*)::int AS count\n` +
        `FROM provider CROSS JOIN LATERAL unnest(taxonomy_codes) AS code\n` +
        `WHERE ${filter}\n${top}`;
    case "entity_type":
      return `SELECT CASE entity WHEN 1 THEN 'individual' ELSE 'organization' END AS value, ` +
        `count(*)::int AS count\nFROM provider\nWHERE ${filter} AND entity IS NOT NULL\n${top}`;
    case "state":
    case "sex":
    case "city":
      return `SELECT ${name} AS value, count(*)::int AS count\nFROM provider\n` +
        `WHERE ${filter} AND ${name} IS NOT NULL\n${top}`;
  }
}

/**
 * The detail statement: the typed row, the raw npidata row (NULL fields
 * dropped), other names, secondary practice locations and endpoints, as
 * one JSON object; no row when the NPI is unknown. Tables the peer did not
 * load are left out.
 *
 * @example
 * ```ts
 * detailStatement({ othername: true, pl: true, endpoint: true }, "1003000126").params; // ["1003000126"]
 * ```
 */
export function detailStatement(
  tables: { othername: boolean; pl: boolean; endpoint: boolean },
  npi: string,
): Statement {
  const parts = [
    `'provider', to_jsonb(p) - 'sort_name'`,
    `'record', (SELECT jsonb_strip_nulls(to_jsonb(n)) FROM npidata n WHERE n.npi = $1)`,
  ];
  const list = (table: string, key: string): string =>
    `'${key}', (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(to_jsonb(t)) - 'npi'), '[]'::jsonb) ` +
    `FROM ${table} t WHERE t.npi = $1)`;
  if (tables.othername) parts.push(list("othername", "other_names"));
  if (tables.pl) parts.push(list("pl", "other_locations"));
  if (tables.endpoint) parts.push(list("endpoint", "endpoints"));
  return {
    text: `SELECT jsonb_build_object(${parts.join(", ")})::text AS body\n` +
      `FROM provider p WHERE p.npi = $1::bigint`,
    params: [npi],
  };
}
