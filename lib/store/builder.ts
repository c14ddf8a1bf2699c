/**
 * Builds a served database: rows are staged as they are read, then
 * `finalize` ranks them, derives the search structures in bulk and writes
 * the metadata, and `commit` moves the finished file over the target in one
 * atomic rename. Until then the database being served is never touched.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Endpoint, Location, OtherLocation, OtherName, Provider } from "../provider.ts";
import { BASE_SCHEMA, INDEXES, SCHEMA_VERSION, STAGE_SCHEMA } from "./schema.ts";
import { IndexBuilder } from "../index/builder.ts";
import { specialtyWords } from "./specialty_words.ts";
import {
  decodeProvider,
  encodeProvider,
  packEndpoint,
  packOtherLocation,
  unpackEndpoint,
  unpackOtherLocation,
} from "./codec.ts";
import { sortKey } from "./sort_key.ts";
import { lookupZip, ZIP_DATASET } from "../geo/zip.ts";
import type { TaxonomyEntry } from "../taxonomy/nucc.ts";

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

/** What describes the dataset being built. */
export interface BuildOptions {
  /** The database file the build will replace (or create). */
  target: string;
  /** `demo` for synthetic data, `nppes` for the real files. */
  source: "nppes" | "demo";
  /**
   * The NUCC code set and where it came from. An update keeps the database's
   * own code set unless this is given.
   */
  taxonomy?: { entries: readonly TaxonomyEntry[]; source: string };
  /** Start from a copy of `target` and apply staged rows as upserts (weekly files). */
  update?: boolean;
  /** Rows per transaction while staging. */
  batchSize?: number;
}

/** Progress of the finalise step: `done` of `total` providers. */
export type FinalizeProgress = (done: number, total: number, phase: string) => void;

const BUILD_PRAGMAS = `
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA temp_store = FILE;
PRAGMA cache_size = -131072;
PRAGMA locking_mode = EXCLUSIVE;
`;

function removeIfExists(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** Stages rows and writes a new database file beside the target. */
export class DatabaseBuilder {
  /** The file being written. */
  readonly tempPath: string;
  readonly #stagePath: string;
  readonly #options: BuildOptions;
  readonly #db: DatabaseSync;
  readonly #stage: DatabaseSync;
  readonly #describe: (code: string) => string | null;
  readonly #files: FileRecord[] = [];
  readonly #batchSize: number;
  #pending = 0;
  #done = false;
  #zipsNotFound = 0;
  #stageProvider: StatementSync;
  #stageOther: StatementSync;
  #stageLocation: StatementSync;
  #stageEndpoint: StatementSync;
  #stageDeactivation: StatementSync;

  private constructor(options: BuildOptions, tempPath: string, stagePath: string) {
    this.#options = options;
    this.tempPath = tempPath;
    this.#stagePath = stagePath;
    this.#batchSize = options.batchSize ?? 20_000;
    this.#db = new DatabaseSync(tempPath);
    this.#db.exec(BUILD_PRAGMAS);
    if (!options.update) this.#db.exec(BASE_SCHEMA);
    else this.#checkVersion();
    if (!options.update && !options.taxonomy) {
      throw new TypeError("A new database needs a taxonomy code set");
    }
    const entries = options.taxonomy?.entries ??
      (this.#db.prepare("SELECT code, display FROM taxonomy").all() as {
        code: string;
        display: string;
      }[]);
    const names = new Map(entries.map((t) => [t.code, t.display]));
    this.#describe = (code) => names.get(code) ?? null;
    // A second connection: Deno allows ATTACH only with all permissions.
    this.#stage = new DatabaseSync(stagePath);
    this.#stage.exec(BUILD_PRAGMAS);
    this.#stage.exec("PRAGMA cache_size = -65536");
    this.#stage.exec(STAGE_SCHEMA);
    this.#stageProvider = this.#stage.prepare(
      "INSERT OR REPLACE INTO provider (npi, active, sort_key, doc) VALUES (?, ?, ?, ?)",
    );
    this.#stageOther = this.#stage.prepare("INSERT INTO other_name (npi, doc) VALUES (?, ?)");
    this.#stageLocation = this.#stage.prepare("INSERT INTO location (npi, doc) VALUES (?, ?)");
    this.#stageEndpoint = this.#stage.prepare("INSERT INTO endpoint (npi, doc) VALUES (?, ?)");
    this.#stageDeactivation = this.#stage.prepare(
      "INSERT OR REPLACE INTO deactivation (npi, date) VALUES (?, ?)",
    );
  }

  /**
   * Starts a build next to `options.target`. For an update the target is
   * copied first and must exist.
   *
   * @example
   * ```ts
   * const taxonomy = { entries: builtinTaxonomy(), source: BUILTIN_TAXONOMY_SOURCE };
   * const builder = DatabaseBuilder.create({ target: "data/providers.db", source: "nppes", taxonomy });
   * ```
   */
  static create(options: BuildOptions): DatabaseBuilder {
    const stamp = `${Deno.pid}-${Date.now().toString(36)}`;
    const tempPath = `${options.target}.building-${stamp}`;
    const stagePath = `${options.target}.stage-${stamp}`;
    if (options.update) Deno.copyFileSync(options.target, tempPath);
    try {
      return new DatabaseBuilder(options, tempPath, stagePath);
    } catch (error) {
      removeIfExists(tempPath);
      removeIfExists(stagePath);
      throw error;
    }
  }

  #checkVersion(): void {
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
      | { value: string }
      | undefined;
    if (Number(row?.value) !== SCHEMA_VERSION) {
      throw new Error(
        `Cannot update '${this.#options.target}': its schema version is ${
          row?.value ?? "unknown"
        }, ` +
          `this importer writes ${SCHEMA_VERSION}; run a full import instead`,
      );
    }
  }

  #write(statement: StatementSync, ...values: (string | number | null)[]): void {
    if (this.#pending === 0) this.#stage.exec("BEGIN");
    statement.run(...values);
    if (++this.#pending >= this.#batchSize) this.flush();
  }

  /** Commits the rows staged so far. */
  flush(): void {
    if (this.#pending > 0) {
      this.#stage.exec("COMMIT");
      this.#pending = 0;
    }
  }

  /** Stages a provider from the main file; a later row for the same NPI replaces it. */
  addProvider(provider: Provider): void {
    this.#zipsNotFound += locate(provider);
    this.#write(
      this.#stageProvider,
      Number(provider.npi),
      provider.status === "active" ? 1 : 0,
      sortKey(provider),
      encodeProvider(provider),
    );
  }

  /** Stages an other name (othername file). */
  addOtherName(npi: string, name: OtherName): void {
    this.#write(this.#stageOther, Number(npi), JSON.stringify([name.type, name.name]));
  }

  /** Stages a secondary practice location (pl file). */
  addLocation(npi: string, location: OtherLocation): void {
    this.#write(this.#stageLocation, Number(npi), JSON.stringify(packOtherLocation(location)));
  }

  /** Stages an endpoint (endpoint file). */
  addEndpoint(npi: string, endpoint: Endpoint): void {
    this.#write(this.#stageEndpoint, Number(npi), JSON.stringify(packEndpoint(endpoint)));
  }

  /** Stages a deactivation from the monthly report; `date` is ISO or null. */
  addDeactivation(npi: string, date: string | null): void {
    this.#write(this.#stageDeactivation, Number(npi), date);
  }

  /** Records an input file for the dataset metadata. */
  addFile(file: FileRecord): void {
    this.#files.push(file);
  }

  /**
   * Ranks and derives everything, writes the metadata and closes the file.
   * Call {@linkcode commit} afterwards to put it in place.
   */
  finalize(onProgress: FinalizeProgress = () => {}): BuildStats {
    const started = performance.now();
    this.flush();
    const db = this.#db;
    onProgress(0, 1, "reference indexes");
    this.#stage.exec(`
      CREATE INDEX other_name_npi ON other_name(npi);
      CREATE INDEX location_npi ON location(npi);
      CREATE INDEX endpoint_npi ON endpoint(npi);
    `);
    const stats = this.#options.update
      ? this.#applyUpdate(onProgress)
      : this.#buildFresh(onProgress);
    onProgress(1, 1, "sql indexes");
    if (!this.#options.update) db.exec(INDEXES);
    this.#writeTaxonomy();
    const counts = db.prepare(
      "SELECT count(*) AS records, coalesce(sum(active), 0) AS active FROM provider",
    ).get() as { records: number; active: number };
    stats.providers = counts.records;
    stats.active = counts.active;
    stats.deactivated = counts.records - counts.active;
    this.#writeMeta(stats);
    onProgress(1, 1, "analyze");
    db.exec("ANALYZE");
    this.#stage.close();
    db.close();
    removeIfExists(this.#stagePath);
    this.#done = true;
    stats.seconds = (performance.now() - started) / 1000;
    return stats;
  }

  /** Atomically replaces the target with the finished file. */
  commit(): void {
    if (!this.#done) throw new Error("Cannot commit a build before finalize()");
    Deno.renameSync(this.tempPath, this.#options.target);
    removeIfExists(`${this.#options.target}-wal`);
    removeIfExists(`${this.#options.target}-shm`);
  }

  /** Abandons the build and deletes its files; the target is untouched. */
  abort(): void {
    for (const connection of [this.#stage, this.#db]) {
      try {
        if (!this.#done) connection.close();
      } catch { /* already closed */ }
    }
    removeIfExists(this.tempPath);
    removeIfExists(this.#stagePath);
    this.#done = true;
  }

  /** Side rows (other names, locations, endpoints) of one NPI, from the staged or the built tables. */
  #sideRows(which: "stage" | "main") {
    const db = which === "stage" ? this.#stage : this.#db;
    return {
      other: db.prepare("SELECT doc FROM other_name WHERE npi = ? ORDER BY rowid"),
      location: db.prepare("SELECT doc FROM location WHERE npi = ? ORDER BY rowid"),
      endpoint: db.prepare("SELECT doc FROM endpoint WHERE npi = ? ORDER BY rowid"),
    };
  }

  /** The NPIs present in a staged table. */
  #npiSet(table: string): Set<number> {
    const set = new Set<number>();
    for (const row of this.#stage.prepare(`SELECT DISTINCT npi FROM ${table}`).iterate()) {
      set.add((row as { npi: number }).npi);
    }
    return set;
  }

  /** Applies the staged deactivation report to staged providers, adding unknown NPIs. */
  #applyDeactivationsToStage(): void {
    const db = this.#stage;
    const get = db.prepare("SELECT doc FROM provider WHERE npi = ?");
    const put = db.prepare(
      "INSERT OR REPLACE INTO provider (npi, active, sort_key, doc) VALUES (?, ?, ?, ?)",
    );
    db.exec("BEGIN");
    for (const row of db.prepare("SELECT npi, date FROM deactivation").all()) {
      const { npi, date } = row as { npi: number; date: string | null };
      const found = get.get(npi) as { doc: string } | undefined;
      const provider = deactivate(
        found ? decodeProvider(found.doc, () => null) : deactivatedStub(String(npi)),
        date,
      );
      put.run(
        npi,
        provider.status === "active" ? 1 : 0,
        sortKey(provider),
        encodeProvider(provider),
      );
    }
    db.exec("COMMIT");
  }

  #buildFresh(onProgress: FinalizeProgress): BuildStats {
    const db = this.#db;
    const stage = this.#stage;
    this.#applyDeactivationsToStage();
    const total = (stage.prepare("SELECT count(*) AS n FROM provider").get() as { n: number }).n;
    // Rank: active first, then by name, then NPI; ids follow the rank.
    onProgress(0, total, "ranking");
    stage.exec("CREATE INDEX provider_rank ON provider(active DESC, sort_key, npi)");
    const sides = {
      other: this.#npiSet("other_name"),
      location: this.#npiSet("location"),
      endpoint: this.#npiSet("endpoint"),
    };
    const side = this.#sideRows("stage");
    const index = new IndexBuilder({
      capacity: total,
      specialtyWords: (code) => specialtyWords(code, this.#describe(code)),
    });
    const insert = db.prepare(
      "INSERT INTO provider (id, npi, active, postal, doc) VALUES (?, ?, ?, ?, ?)",
    );
    const stats = emptyStats();
    stats.zipsNotFound = this.#zipsNotFound;
    let id = 0;
    db.exec("BEGIN");
    const ranked = stage.prepare(
      "SELECT npi, doc FROM provider ORDER BY active DESC, sort_key, npi",
    );
    for (const row of ranked.iterate()) {
      const { npi, doc } = row as { npi: number; doc: string };
      const base = decodeProvider(doc, this.#describe);
      const hasSides = sides.other.has(npi) || sides.location.has(npi) || sides.endpoint.has(npi);
      // The staged record is final (located at staging) unless reference rows add to it.
      const provider = hasSides
        ? withSides(base, {
          otherNames: sides.other.has(npi) ? docs(side.other, npi).map(unpackOtherName) : [],
          locations: sides.location.has(npi) ? docs(side.location, npi).map(parseLocation) : [],
          endpoints: sides.endpoint.has(npi) ? docs(side.endpoint, npi).map(parseEndpoint) : [],
        })
        : base;
      if (hasSides) stats.zipsNotFound += locateOthers(provider);
      id++;
      const stored = hasSides ? encodeProvider(provider) : doc;
      insert.run(id, npi, provider.status === "active" ? 1 : 0, postalKey(provider), stored);
      index.add(id, provider);
      if (id % 20_000 === 0) {
        db.exec("COMMIT");
        onProgress(id, total, "indexing");
        db.exec("BEGIN");
      }
    }
    db.exec("COMMIT");
    // Reference rows are kept for later weekly updates; rows of unknown NPIs are orphans.
    for (const table of ["other_name", "location", "endpoint"]) {
      const copy = db.prepare(`INSERT INTO ${table} (npi, doc) VALUES (?, ?)`);
      db.exec("BEGIN");
      for (
        const row of stage.prepare(`SELECT npi, doc FROM ${table} ORDER BY npi, rowid`).iterate()
      ) {
        const { npi, doc } = row as { npi: number; doc: string };
        copy.run(npi, doc);
      }
      db.exec("COMMIT");
      stats.orphans += (stage.prepare(
        `SELECT count(*) AS n FROM ${table} s WHERE NOT EXISTS (SELECT 1 FROM provider p WHERE p.npi = s.npi)`,
      ).get() as { n: number }).n;
    }
    index.write(db, (phase) => onProgress(total, total, phase));
    return stats;
  }

  #applyUpdate(onProgress: FinalizeProgress): BuildStats {
    const db = this.#db;
    const stats = emptyStats();
    const affected = new Set<number>();
    for (const table of ["provider", "other_name", "location", "endpoint", "deactivation"]) {
      for (const npi of this.#npiSet(table)) affected.add(npi);
    }
    const staged = this.#sideRows("stage");
    const current = this.#sideRows("main");
    const stagedHas = {
      other: this.#npiSet("other_name"),
      location: this.#npiSet("location"),
      endpoint: this.#npiSet("endpoint"),
    };
    const getStaged = this.#stage.prepare("SELECT doc FROM provider WHERE npi = ?");
    const getCurrent = db.prepare("SELECT id, doc FROM provider WHERE npi = ?");
    const getDeactivation = this.#stage.prepare("SELECT date FROM deactivation WHERE npi = ?");
    let nextId =
      (db.prepare("SELECT coalesce(max(id), 0) AS n FROM provider").get() as { n: number }).n;
    const remove = db.prepare("DELETE FROM provider WHERE id = ?");
    const insert = db.prepare(
      "INSERT INTO provider (id, npi, active, postal, doc) VALUES (?, ?, ?, ?, ?)",
    );
    const sideStatements = (table: string) => ({
      remove: db.prepare(`DELETE FROM ${table} WHERE npi = ?`),
      insert: db.prepare(`INSERT INTO ${table} (npi, doc) VALUES (?, ?)`),
    });
    const replaceSide = {
      other: sideStatements("other_name"),
      location: sideStatements("location"),
      endpoint: sideStatements("endpoint"),
    };
    let done = 0;
    db.exec("BEGIN");
    for (const npi of [...affected].sort((a, b) => a - b)) {
      const existing = getCurrent.get(npi) as { id: number; doc: string } | undefined;
      const stagedDoc = getStaged.get(npi) as { doc: string } | undefined;
      const currentOther = existing ? docs(current.other, npi).map(unpackOtherName) : [];
      let base: Provider | null = null;
      if (stagedDoc) base = decodeProvider(stagedDoc.doc, this.#describe);
      else if (existing) {
        const old = decodeProvider(existing.doc, this.#describe);
        const fromFile = new Set(currentOther.map((o) => `${o.type}:${o.name}`));
        base = {
          ...old,
          other_names: old.other_names.filter((o) => !fromFile.has(`${o.type}:${o.name}`)),
        };
      }
      const deactivation = getDeactivation.get(npi) as { date: string | null } | undefined;
      if (!base && deactivation) base = deactivatedStub(String(npi));
      if (!base) {
        stats.orphans++;
        continue;
      }
      if (deactivation) base = deactivate(base, deactivation.date);
      const pick = <T>(kind: "other" | "location" | "endpoint", unpack: (d: string) => T): T[] =>
        stagedHas[kind].has(npi)
          ? docs(staged[kind], npi).map(unpack)
          : existing
          ? docs(current[kind], npi).map(unpack)
          : [];
      const provider = withSides(base, {
        otherNames: pick("other", unpackOtherName),
        locations: pick("location", parseLocation),
        endpoints: pick("endpoint", parseEndpoint),
      });
      stats.zipsNotFound += locate(provider);
      const id = existing?.id ?? ++nextId;
      if (existing) remove.run(id);
      insert.run(
        id,
        npi,
        provider.status === "active" ? 1 : 0,
        postalKey(provider),
        encodeProvider(provider),
      );
      for (const kind of ["other", "location", "endpoint"] as const) {
        if (!stagedHas[kind].has(npi)) continue;
        replaceSide[kind].remove.run(npi);
        for (const doc of docs(staged[kind], npi)) replaceSide[kind].insert.run(npi, doc);
      }
      if (++done % 20_000 === 0) {
        db.exec("COMMIT");
        onProgress(done, affected.size, "updating");
        db.exec("BEGIN");
      }
    }
    db.exec("COMMIT");
    this.#rebuildIndex(onProgress);
    return stats;
  }

  /** Rebuilds the search index from the provider table, in id order. */
  #rebuildIndex(onProgress: FinalizeProgress): void {
    const db = this.#db;
    const total = (db.prepare("SELECT count(*) AS n FROM provider").get() as { n: number }).n;
    const index = new IndexBuilder({
      capacity: total,
      specialtyWords: (code) => specialtyWords(code, this.#describe(code)),
    });
    let n = 0;
    for (const row of db.prepare("SELECT id, doc FROM provider ORDER BY id").iterate()) {
      const { id, doc } = row as { id: number; doc: string };
      index.add(id, decodeProvider(doc, this.#describe));
      if (++n % 50_000 === 0) onProgress(n, total, "indexing");
    }
    index.write(db, (phase) => onProgress(total, total, phase));
  }

  #writeTaxonomy(): void {
    const taxonomy = this.#options.taxonomy;
    if (!taxonomy) return;
    const db = this.#db;
    db.exec("DELETE FROM taxonomy");
    const insert = db.prepare(
      "INSERT OR REPLACE INTO taxonomy (code, display, grouping, classification, specialization, definition, section) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    db.exec("BEGIN");
    for (const t of taxonomy.entries) {
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

  #writeMeta(stats: BuildStats): void {
    const db = this.#db;
    const previous = this.#options.update
      ? JSON.parse(
        (db.prepare("SELECT value FROM meta WHERE key = 'files'").get() as
          | { value: string }
          | undefined)?.value ??
          "[]",
      ) as FileRecord[]
      : [];
    const entries: Record<string, string | undefined> = {
      schema_version: String(SCHEMA_VERSION),
      source: this.#options.source,
      synthetic: String(this.#options.source === "demo"),
      built_at: new Date().toISOString(),
      files: JSON.stringify([...previous, ...this.#files]),
      taxonomy_source: this.#options.taxonomy?.source,
      zip_dataset: ZIP_DATASET,
      zips_not_found: String(stats.zipsNotFound),
      records: String(stats.providers),
      active: String(stats.active),
    };
    const put = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    db.exec("BEGIN");
    for (const [key, value] of Object.entries(entries)) {
      if (value !== undefined) put.run(key, value);
    }
    db.exec("COMMIT");
  }
}

/** The practice postal code as stored for exact 9-digit lookups (letters and digits only). */
function postalKey(p: Provider): string | null {
  return p.practice_location?.postal_code?.replace(/[^0-9A-Za-z]/g, "") || null;
}

function emptyStats(): BuildStats {
  return { providers: 0, active: 0, deactivated: 0, zipsNotFound: 0, orphans: 0, seconds: 0 };
}

function docs(statement: StatementSync, npi: number): string[] {
  return statement.all(npi).map((row) => (row as { doc: string }).doc);
}

function unpackOtherName(doc: string): OtherName {
  const [type, name] = JSON.parse(doc) as [OtherName["type"], string];
  return { type, name };
}

function parseLocation(doc: string): OtherLocation {
  return unpackOtherLocation(JSON.parse(doc));
}

function parseEndpoint(doc: string): Endpoint {
  return unpackEndpoint(JSON.parse(doc));
}

function withSides(
  p: Provider,
  sides: { otherNames: OtherName[]; locations: OtherLocation[]; endpoints: Endpoint[] },
): Provider {
  const seen = new Set(p.other_names.map((o) => `${o.type}:${o.name}`));
  const extra = sides.otherNames.filter((o) => !seen.has(`${o.type}:${o.name}`));
  return {
    ...p,
    other_names: [...p.other_names, ...extra],
    other_locations: sides.locations,
    endpoints: sides.endpoints,
  };
}

/** Puts ZIP centroids on the practice and secondary locations; returns how many US ZIPs were unknown. */
function locate(p: Provider): number {
  return locatePlaces([p.practice_location, ...p.other_locations]);
}

/** Puts ZIP centroids on the secondary locations only. */
function locateOthers(p: Provider): number {
  return locatePlaces(p.other_locations);
}

function locatePlaces(places: readonly (Location | null)[]): number {
  let missing = 0;
  for (const place of places) {
    if (!place) continue;
    const us = !place.country_code || place.country_code === "US";
    const zip = us && place.postal_code ? lookupZip(place.postal_code.slice(0, 5)) : null;
    place.lat = zip?.lat ?? null;
    place.lon = zip?.lon ?? null;
    if (us && place.postal_code && !zip) missing++;
  }
  return missing;
}

/** A record for an NPI known only from the deactivation report. */
function deactivatedStub(npi: string): Provider {
  return {
    npi,
    entity_type: null,
    status: "deactivated",
    name: "",
    individual: null,
    organization: null,
    other_names: [],
    taxonomies: [],
    practice_location: null,
    mailing_address: null,
    other_locations: [],
    identifiers: [],
    endpoints: [],
    replacement_npi: null,
    enumeration_date: null,
    last_updated: null,
    certification_date: null,
    deactivation_date: null,
    reactivation_date: null,
  };
}

/** Marks a provider deactivated on `date`, unless it was reactivated after that date. */
function deactivate(p: Provider, date: string | null): Provider {
  const deactivation_date = date ?? p.deactivation_date;
  if (p.reactivation_date && deactivation_date && p.reactivation_date >= deactivation_date) {
    return p;
  }
  return { ...p, status: "deactivated", deactivation_date };
}
