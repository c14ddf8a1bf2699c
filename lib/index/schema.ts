/**
 * Tables of the search index: posting lists and columns as blobs, and the
 * typo vocabulary.
 *
 * @module
 */

/** Created when the index is written. */
export const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS posting (field INTEGER NOT NULL, term TEXT NOT NULL, ids BLOB NOT NULL, PRIMARY KEY (field, term));
CREATE TABLE IF NOT EXISTS index_blob (name TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS term (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS typo_key (key TEXT NOT NULL, term TEXT NOT NULL, PRIMARY KEY (key, term)) WITHOUT ROWID;
`;
