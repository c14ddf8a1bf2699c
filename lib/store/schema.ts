/**
 * The SQLite schema of a served database: provider records and the raw
 * reference rows. The search index (`lib/index/`) adds its own tables of
 * posting lists and columns.
 *
 * Provider ids are ranks: `id` order is active first, then by folded name,
 * then NPI, so any walk in id order already yields results in name order and
 * can stop early. Records are written once, as they arrive; the ranked
 * `provider` table points at them.
 *
 * @module
 */

/** Bumped whenever the layout changes; a database of another version is not served. */
export const SCHEMA_VERSION = 4;

/**
 * One row per NPI; id is the rank (active first, then by name, then NPI); `record` is the seq of
 * its record; `sides` has a bit per reference table holding rows for the NPI (see sides.ts).
 */
export const PROVIDER_TABLE = `
CREATE TABLE provider (
  id INTEGER PRIMARY KEY,
  npi INTEGER NOT NULL,
  record INTEGER NOT NULL,
  active INTEGER NOT NULL,
  postal TEXT,
  sides INTEGER NOT NULL
);`;

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

-- Provider records in the order they arrived (seq), in the stored form of codec.ts.
CREATE TABLE record (seq INTEGER PRIMARY KEY, npi INTEGER NOT NULL, doc TEXT NOT NULL);

${PROVIDER_TABLE}

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

/** The rank keys of a build: a temporary table of the building connection. */
export const RANK_TABLE = `
CREATE TEMP TABLE rank (
  seq INTEGER PRIMARY KEY,
  npi INTEGER NOT NULL,
  active INTEGER NOT NULL,
  sort_key TEXT NOT NULL,
  postal TEXT
);
`;

/** Indexes of the provider table, created after it is written in rank order. */
export const PROVIDER_INDEXES = `
CREATE UNIQUE INDEX provider_npi ON provider(npi);
CREATE INDEX provider_postal ON provider(postal);
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
