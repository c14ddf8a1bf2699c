/**
 * The SQLite schema of a served database. Derived search structures (FTS5,
 * R*Tree, key tables) are built in bulk when a build is finalised.
 *
 * Provider ids are ranks: `id` order is active first, then by folded name,
 * then NPI, so any scan in id order already yields results in the default
 * order and can stop early.
 *
 * @module
 */

/** Bumped whenever the layout changes; a database of another version is not served. */
export const SCHEMA_VERSION = 2;

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

-- One row per NPI. Location columns describe the primary practice location.
CREATE TABLE provider (
  id INTEGER PRIMARY KEY,
  npi INTEGER NOT NULL,
  active INTEGER NOT NULL,
  entity INTEGER,
  sex TEXT,
  state TEXT,
  city TEXT,
  zip5 TEXT,
  postal TEXT,
  lat REAL,
  lon REAL,
  taxonomy TEXT,
  sort_key TEXT NOT NULL,
  doc TEXT NOT NULL
);

-- Name keys for the exact and prefix name filters; other names count too.
-- kind: 1 last name, 2 first name, 3 organization name.
CREATE TABLE name_key (kind INTEGER NOT NULL, key TEXT NOT NULL, id INTEGER NOT NULL);

CREATE TABLE provider_taxonomy (code TEXT NOT NULL, id INTEGER NOT NULL, is_primary INTEGER NOT NULL);

-- Raw rows of the three reference files, kept so weekly updates can re-derive records.
CREATE TABLE other_name (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE location (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE endpoint (npi INTEGER NOT NULL, doc TEXT NOT NULL);

CREATE VIRTUAL TABLE provider_geo USING rtree(id, min_lat, max_lat, min_lon, max_lon);

CREATE VIRTUAL TABLE provider_fts USING fts5(
  surname, given, other, specialty, specialty2, place,
  content='', contentless_delete=1, detail=column,
  tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
`;

/**
 * The vocabulary of the full-text index, for typo tolerance: each term with
 * its document count, and delete-neighbourhood keys (a term and the strings
 * one or two deletions away) that find terms within one or two edits.
 */
export const VOCABULARY_SCHEMA = `
CREATE TABLE IF NOT EXISTS term (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS typo_key (key TEXT NOT NULL, term TEXT NOT NULL, PRIMARY KEY (key, term)) WITHOUT ROWID;
`;

/** Indexes created in bulk after loading (faster than maintaining them row by row). */
export const INDEXES = `
CREATE UNIQUE INDEX provider_npi ON provider(npi);
CREATE INDEX provider_state ON provider(state, id);
CREATE INDEX provider_city ON provider(city, state);
CREATE INDEX provider_zip5 ON provider(zip5);
CREATE INDEX provider_postal ON provider(postal);
CREATE INDEX provider_sort ON provider(active, sort_key, npi);
CREATE INDEX name_key_lookup ON name_key(kind, key, id);
CREATE INDEX provider_taxonomy_code ON provider_taxonomy(code, id);
CREATE INDEX provider_taxonomy_id ON provider_taxonomy(id);
CREATE INDEX other_name_npi ON other_name(npi);
CREATE INDEX location_npi ON location(npi);
CREATE INDEX endpoint_npi ON endpoint(npi);
`;

/** The staging database: rows as read, before ranks and derived tables exist. */
export const STAGE_SCHEMA = `
CREATE TABLE provider (npi INTEGER PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE other_name (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE location (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE endpoint (npi INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE deactivation (npi INTEGER PRIMARY KEY, date TEXT);
`;
