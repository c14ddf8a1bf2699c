/**
 * What a build reports and records about itself: the counts it returns,
 * the input files it lists, and the `taxonomy` and `meta` tables written
 * last, when everything else is in place.
 *
 * @module
 */
import { NAME_KEY_VERSION } from "./sort_key.ts";
import type { DatabaseSync } from "node:sqlite";
import type { TaxonomyEntry } from "../taxonomy/nucc.ts";
import { ZIP_DATASET } from "../geo/zip.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { type PartNames, PARTS_META_KEY } from "./parts.ts";

/** One input file, as recorded in the dataset metadata. */
export interface FileRecord {
  kind: string;
  name: string;
  rows: number;
  skipped: number;
}

/** Counts reported when a build is finalised. */
export interface BuildStats {
  providers: number;
  active: number;
  deactivated: number;
  zipsNotFound: number;
  orphans: number;
  seconds: number;
}

/** Progress of the finalise step: `done` of `total` providers. */
export type FinalizeProgress = (done: number, total: number, phase: string) => void;

/** Counts of a build before anything is counted. */
export function emptyStats(): BuildStats {
  return {
    providers: 0,
    active: 0,
    deactivated: 0,
    zipsNotFound: 0,
    orphans: 0,
    seconds: 0,
  };
}

/** Replaces the database's NUCC code set with `entries`. */
export function writeTaxonomy(db: DatabaseSync, entries: readonly TaxonomyEntry[]): void {
  db.exec("DELETE FROM taxonomy");
  const insert = db.prepare(
    "INSERT OR REPLACE INTO taxonomy (code, display, grouping, classification, specialization, definition, section) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  db.exec("BEGIN");
  for (const t of entries) {
    insert.run(
      t.code,
      t.display,
      t.grouping,
      t.classification,
      t.specialization,
      t.definition,
      t.section,
    );
  }
  db.exec("COMMIT");
}

/** What the `meta` table records of a build. */
export interface MetaFacts {
  source: "nppes" | "demo";
  /** An update keeps the files of the builds before it and lists its own after them. */
  update: boolean;
  files: readonly FileRecord[];
  /** Where the code set came from; an update without one keeps the previous value. */
  taxonomySource: string | undefined;
  stats: BuildStats;
  /** The part files the build wrote (see `parts.ts`). */
  parts: PartNames;
}

/** Writes the `meta` table: schema version, source, input files, counts. */
export function writeMeta(db: DatabaseSync, facts: MetaFacts): void {
  const previous = facts.update
    ? JSON.parse(
      (db.prepare("SELECT value FROM meta WHERE key = 'files'").get() as
        | { value: string }
        | undefined)?.value ??
        "[]",
    ) as FileRecord[]
    : [];
  const entries: Record<string, string | undefined> = {
    schema_version: String(SCHEMA_VERSION),
    name_key: String(NAME_KEY_VERSION),
    source: facts.source,
    synthetic: String(facts.source === "demo"),
    built_at: new Date().toISOString(),
    files: JSON.stringify([...previous, ...facts.files]),
    taxonomy_source: facts.taxonomySource,
    zip_dataset: ZIP_DATASET,
    zips_not_found: String(facts.stats.zipsNotFound),
    records: String(facts.stats.providers),
    active: String(facts.stats.active),
    [PARTS_META_KEY]: JSON.stringify(facts.parts),
  };
  const put = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
  db.exec("BEGIN");
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) put.run(key, value);
  }
  db.exec("COMMIT");
}
