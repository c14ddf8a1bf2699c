/**
 * The SQLite schema of a served database: provider records and the raw
 * reference rows. The search index (`lib/index/`) adds its own tables of
 * posting lists and columns.
 *
 * Provider ids are ranks: `id` order is active first, then by folded name,
 * then NPI, so any walk in id order already yields results in name order and
 * can stop early. Records are written once, as they arrive, to the records
 * parts (`record_parts.ts`, by arrival number `seq`); the ranked `provider`
 * table points at them.
 *
 * @module
 */

/** Bumped whenever the layout changes; a database of another version is not served. */
export const SCHEMA_VERSION = 8;

/**
 * One row per NPI; id is the rank (active first, then by name, then NPI); `record` is the seq of
 * its record; `sides` has a bit per reference table holding rows for the NPI (see sides.ts).
 * The NPI and ZIP+4 lookups are tables of their own, written in key order by the build
 * (an index built by SQLite would sort ten million rows again).
 */
export const PROVIDER_TABLES = `
DROP TABLE IF EXISTS provider;
DROP TABLE IF EXISTS provider_npi;
DROP TABLE IF EXISTS provider_zip9;
CREATE TABLE provider (
  id INTEGER PRIMARY KEY,
  npi INTEGER NOT NULL,
  record INTEGER NOT NULL,
  active INTEGER NOT NULL,
  sides INTEGER NOT NULL
);
CREATE TABLE provider_npi (npi INTEGER PRIMARY KEY, id INTEGER NOT NULL);
-- Practice postal codes that are a ZIP+4, as numbers: the only codes looked up whole (five
-- digits and prefixes are posting lists of the search index).
CREATE TABLE provider_zip9 (
  zip9 INTEGER NOT NULL,
  id INTEGER NOT NULL,
  PRIMARY KEY (zip9, id)
) WITHOUT ROWID;
`;

/** Tables created when a build starts. */
export const BASE_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE taxonomy (
  code TEXT PRIMARY KEY,
  display TEXT NOT NULL,
  grouping TEXT,
  classification TEXT,
  specialization TEXT,
  definition TEXT,
  section TEXT
) WITHOUT ROWID;

${PROVIDER_TABLES}

-- Rows of the three reference files, joined to the record when it is read.
CREATE TABLE other_name (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE location (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE endpoint (npi INTEGER NOT NULL, doc TEXT NOT NULL);
`;

/** Indexes of the reference tables, created in bulk after loading. */
export const SIDE_INDEXES = `
CREATE INDEX IF NOT EXISTS other_name_npi ON other_name(npi);
CREATE INDEX IF NOT EXISTS location_npi ON location(npi);
CREATE INDEX IF NOT EXISTS endpoint_npi ON endpoint(npi);
`;

/**
 * The staging database: the deactivation report, a weekly update's
 * reference rows, and the index's spilled posting segments.
 */
export const STAGE_SCHEMA = `
CREATE TABLE deactivation (npi INTEGER PRIMARY KEY, date TEXT);
CREATE TABLE other_name (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE location (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE endpoint (npi INTEGER NOT NULL, doc TEXT NOT NULL);
`;
