/**
 * Tables of the search index: posting lists (in a part file of their own)
 * and columns as blobs, and the typo vocabulary (terms, and their hashed
 * delete keys by bucket).
 *
 * @module
 */

/** Created in the postings part (see `lib/store/parts.ts`) when the index is written. */
export const POSTING_SCHEMA = `
CREATE TABLE IF NOT EXISTS posting (field INTEGER NOT NULL, term TEXT NOT NULL, ids BLOB NOT NULL, PRIMARY KEY (field, term));
`;

/** Created in the main file when the index is written. */
export const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS index_blob (name TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS term (id INTEGER PRIMARY KEY, term TEXT NOT NULL, docs INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS typo_bucket (bucket INTEGER PRIMARY KEY, pairs BLOB NOT NULL);
`;
