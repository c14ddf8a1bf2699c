/**
 * The SQLite schema of a served database: provider records and the raw
 * reference rows. The search index (`lib/index/`) adds its own tables of
 * posting lists and columns.
 *
 * Provider ids are ranks: `id` order is active first, then by folded name,
 * then NPI, so any walk in id order already yields results in name order and
 * can stop early.
 *
 * @module
 */

/** Bumped whenever the layout changes; a database of another version is not served. */
export const SCHEMA_VERSION = 3;

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

-- One row per NPI; id is the rank (active first, then by name, then NPI).
CREATE TABLE provider (
  id INTEGER PRIMARY KEY,
  npi INTEGER NOT NULL,
  active INTEGER NOT NULL,
  postal TEXT,
  doc TEXT NOT NULL
);

-- Raw rows of the three reference files, kept so weekly updates can re-derive records.
CREATE TABLE other_name (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE location (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE endpoint (npi INTEGER NOT NULL, doc TEXT NOT NULL);
`;

/** Indexes created in bulk after loading (faster than maintaining them row by row). */
export const INDEXES = `
CREATE UNIQUE INDEX provider_npi ON provider(npi);
CREATE INDEX provider_postal ON provider(postal);
CREATE INDEX other_name_npi ON other_name(npi);
CREATE INDEX location_npi ON location(npi);
CREATE INDEX endpoint_npi ON endpoint(npi);
`;

/** The staging database: rows as read, before ranks and derived tables exist. */
export const STAGE_SCHEMA = `
CREATE TABLE provider (npi INTEGER PRIMARY KEY, active INTEGER NOT NULL, sort_key TEXT NOT NULL, doc TEXT NOT NULL);
CREATE TABLE other_name (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE location (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE endpoint (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE deactivation (npi INTEGER PRIMARY KEY, date TEXT);
`;
