/**
 * Builds a served database. Records are written once, as they arrive, under
 * a sequence number; their rank keys go to a {@linkcode RankKeyWriter} and
 * their index entries to an {@linkcode IndexBuilder}. `finalize` applies the
 * deactivation report, joins the reference rows to the index, ranks every
 * provider (active first, then by name, then NPI), writes the ranked
 * provider table and its lookups, the index and the metadata; `commit`
 * moves the finished file over the target in one atomic rename. Until then
 * the database being served is never touched. The records and the posting
 * lists go to part files of their own beside it (see `parts.ts`), named
 * with the build's stamp; a commit removes the parts of the release it
 * replaced.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Endpoint, OtherLocation, OtherName, Provider } from "../provider.ts";
import { BASE_SCHEMA, SCHEMA_VERSION, SIDE_INDEXES, STAGE_SCHEMA } from "./schema.ts";
import { BatchInsert } from "../index/batch_insert.ts";
import { IndexBuilder, type IndexPart } from "../index/builder.ts";
import {
  indexEntry,
  locationTerms,
  MANY_LOCATIONS_TERMS,
  type NameOwner,
  otherNameTerms,
} from "../index/entry.ts";
import { FLAG } from "../index/fields.ts";
import { specialtyWords } from "./specialty_words.ts";
import { decodeProvider, encodeProvider } from "./codec.ts";
import {
  deactivate,
  deactivatedStub,
  postalKey,
  type PreparedProvider,
  type PreparedRecord,
  type PreparedReference,
  prepareEndpoint,
  prepareLocation,
  prepareOtherName,
  prepareProvider,
  type SideTable,
  type StoredRecord,
} from "./prepare.ts";
import { parseLocation, unpackOtherName } from "./sides.ts";
import { writeEndpointColumns } from "./endpoint_columns.ts";
import { writeLocationColumns } from "./location_columns.ts";
import { writeProviderRows } from "./provider_rows.ts";
import { sortKey } from "./sort_key.ts";
import { NpiIndex } from "./npi_index.ts";
import { GrowableColumn, GrowableList } from "../index/typed.ts";
import {
  type RankedProviders,
  type RankKeyCounts,
  RankKeyWriter,
  type RankOptions,
  rankProviders,
  type RankSource,
  zip9Of,
} from "./rank_keys.ts";
import { rankInWorker } from "./rank_in_worker.ts";
import { BUILD_PRAGMAS, BuildFiles, removeIfExists } from "./build_files.ts";
import {
  partName,
  type PartNames,
  partPath,
  POSTINGS_PAGE_SIZE,
  readPartNames,
  removeReplacedParts,
} from "./parts.ts";
import { RecordPartsWriter } from "./record_parts.ts";
import { holdBuildLock } from "./build_leftovers.ts";
import {
  type BuildStats,
  emptyStats,
  type FileRecord,
  type FinalizeProgress,
  writeMeta,
  writeTaxonomy,
} from "./build_meta.ts";
import { writeProviderTables } from "./provider_tables.ts";
import { applyStagedSides, type Joins, SIDE_BITS, SIDE_TABLES } from "./reference_tables.ts";
import { releaseMemory } from "../memory.ts";
import { writeIndexMap } from "../index/index_map.ts";
import type { TaxonomyEntry } from "../taxonomy/nucc.ts";

export type { BuildStats, FileRecord, FinalizeProgress } from "./build_meta.ts";

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
  /** Index ids held in memory before a segment is written to the staging database. */
  segmentEntries?: number;
  /** Bytes a records part grows to before the next one starts (default `RECORD_PART_BYTES`). */
  recordPartBytes?: number;
}

/** Writes a new database file beside the target. */
export class DatabaseBuilder {
  readonly #paths: BuildFiles;
  /** The lock on the building file that marks this build as running. */
  #lock: Deno.FsFile | null = null;
  readonly #options: BuildOptions;
  readonly #db: DatabaseSync;
  readonly #stage: DatabaseSync;
  /** The records parts. */
  readonly #recordParts: RecordPartsWriter;
  /** The postings part. */
  readonly #postings: DatabaseSync;
  readonly #postingsName: string;
  /** The index map part, written from the postings and columns when the build finishes. */
  readonly #mapName: string;
  readonly #describe: (code: string) => string | null;
  readonly #files: FileRecord[] = [];
  readonly #batchSize: number;
  readonly #update: boolean;
  #pending = 0;
  #done = false;
  #zipsNotFound = 0;
  /** The last seq given to a record. */
  #seq = 0;
  /** Fresh builds: the index, filled as records arrive. */
  #index: IndexBuilder | null = null;
  /** The file part of each seq, for the seqs of parts after the first. */
  readonly #parts = new GrowableColumn((n) => new Uint8Array(n));
  /** Fresh builds: the NPI of each seq. */
  readonly #npiBySeq = new GrowableColumn((n) => new Float64Array(n));
  /** Rank entries written in this thread, and the seq of each. */
  readonly #rankKeys = new RankKeyWriter();
  readonly #rankSeqs = new GrowableList(1024);
  /** Rank entries written by the threads that read parts of the main file. */
  readonly #rankParts: RankSource[] = [];
  /** Seqs left out of the ranking (rows replaced by a later row of their NPI). */
  #dropped = new Uint32Array(0);
  /** Seqs whose active flag changed after their rank entry was written. */
  readonly #changedActive = new Map<number, number>();
  /** The ranking, once started in a worker ({@linkcode rankInBackground}). */
  #ranking: Promise<RankedProviders> | null = null;
  /** The records by NPI, once every record is in (see {@linkcode NpiIndex}). */
  #npiIndex: NpiIndex | null = null;
  /** After {@linkcode recordsDone}: the reference rows joined so far, as they arrive. */
  #arrivals: Joins | null = null;
  /** Fresh builds: the main file's records arrive with the deactivation report applied. */
  #deactivatedOnArrival = false;
  /** Updates: seqs of NPIs this update added. */
  #added = new Map<number, number>();
  #lastSeqOf: StatementSync | null = null;
  readonly #sideTarget: DatabaseSync;
  readonly #insertSide: Record<SideTable, BatchInsert>;
  readonly #stageDeactivation: StatementSync;

  private constructor(options: BuildOptions, paths: BuildFiles) {
    this.#options = options;
    this.#update = options.update ?? false;
    this.#paths = paths;
    const { tempPath, stagePath } = paths;
    this.#batchSize = options.batchSize ?? 20_000;
    this.#db = new DatabaseSync(tempPath);
    this.#db.exec(BUILD_PRAGMAS);
    let previousParts: PartNames | null = null;
    if (!this.#update) this.#db.exec(BASE_SCHEMA);
    else {
      this.#checkVersion();
      previousParts = readPartNames(options.target);
      if (!previousParts) {
        throw new Error(
          `Cannot update '${options.target}': it names no part files; run a full import`,
        );
      }
    }
    const partOptions = {
      target: options.target,
      stamp: paths.stamp,
      pragmas: BUILD_PRAGMAS,
      partBytes: options.recordPartBytes,
    };
    this.#recordParts = previousParts
      ? RecordPartsWriter.copyOf(options.target, previousParts.records, partOptions)
      : RecordPartsWriter.create(partOptions);
    // The index is written anew (an update rebuilds it from the records): a new postings part.
    this.#postingsName = partName(options.target, paths.stamp, "postings");
    this.#mapName = partName(options.target, paths.stamp, "map");
    const postingsPath = partPath(options.target, this.#postingsName);
    removeIfExists(postingsPath);
    this.#postings = new DatabaseSync(postingsPath);
    this.#postings.exec(`PRAGMA page_size = ${POSTINGS_PAGE_SIZE}; ${BUILD_PRAGMAS}`);
    if (!this.#update && !options.taxonomy) {
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
    this.#stage.exec("PRAGMA cache_size = -32768");
    this.#stage.exec(STAGE_SCHEMA);
    // A fresh build writes reference rows where they stay; an update stages them, to replace an
    // NPI's rows of each kind at the end.
    this.#sideTarget = this.#update ? this.#stage : this.#db;
    const side = (table: string) =>
      new BatchInsert(this.#sideTarget, `INSERT INTO ${table} (npi, doc)`, 2);
    this.#insertSide = {
      other_name: side("other_name"),
      location: side("location"),
      endpoint: side("endpoint"),
    };
    this.#stageDeactivation = this.#stage.prepare(
      "INSERT OR REPLACE INTO deactivation (npi, date) VALUES (?, ?)",
    );
    if (this.#update) {
      this.#seq = this.#recordParts.lastSeq;
    } else {
      this.#index = this.#newIndex();
    }
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
    const paths = new BuildFiles(options.target);
    if (options.update) Deno.copyFileSync(options.target, paths.tempPath);
    // Held until commit or abort, or until the process dies: tells a later build that this one
    // still runs, so that only the files of killed builds are removed (build_leftovers.ts).
    const lock = holdBuildLock(paths.tempPath, !options.update);
    try {
      const builder = new DatabaseBuilder(options, paths);
      builder.#lock = lock;
      return builder;
    } catch (error) {
      lock?.close();
      removeIfExists(paths.tempPath);
      removeIfExists(paths.stagePath);
      removeBuildParts(options.target, paths.stamp);
      throw error;
    }
  }

  /** The file being written. */
  get tempPath(): string {
    return this.#paths.tempPath;
  }

  #newIndex(): IndexBuilder {
    return new IndexBuilder({
      scratch: this.#stage,
      segmentEntries: this.#options.segmentEntries,
      specialtyWords: (code) => specialtyWords(code, this.#describe(code)),
    });
  }

  #checkVersion(): void {
    let version: string | undefined;
    try {
      version = (this.#db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
        | { value: string }
        | undefined)?.value;
    } catch { /* not a provider database */ }
    if (Number(version) !== SCHEMA_VERSION) {
      throw new Error(
        `Cannot update '${this.#options.target}': its schema version is ${
          version ?? "unknown"
        }, this importer writes ${SCHEMA_VERSION}; run a full import instead`,
      );
    }
  }

  /** Counts one written row; commits both connections every `batchSize` rows. */
  #wrote(): void {
    if (++this.#pending >= this.#batchSize) this.flush();
  }

  #begin(): void {
    if (this.#pending === 0) {
      this.#db.exec("BEGIN");
      this.#stage.exec("BEGIN");
      this.#recordParts.begin();
    }
  }

  /** Commits the rows written so far. */
  flush(): void {
    this.#recordParts.flush();
    for (const insert of Object.values(this.#insertSide)) insert.flush();
    if (this.#pending > 0) {
      this.#db.exec("COMMIT");
      this.#stage.exec("COMMIT");
      this.#recordParts.commit();
      this.#pending = 0;
    }
  }

  /** Adds a provider from the main file; a later row for the same NPI replaces it. */
  addProvider(provider: Provider): void {
    this.addPrepared(prepareProvider(provider));
  }

  /**
   * Adds a provider prepared by {@linkcode prepareProvider} (perhaps in
   * another thread). `part` says which part of the file it comes from when
   * parts are read side by side: a row of a later part replaces a row of an
   * earlier one for the same NPI, whatever order they arrive in.
   */
  addPrepared(p: PreparedProvider, part = 0): void {
    const seq = this.addRecord(p, part);
    if (seq === null) return;
    this.#index!.add(seq, p.entry);
    this.#addRankKey(seq, p);
  }

  /**
   * Adds the record of a provider whose index entry and rank key are added
   * elsewhere (see {@linkcode attachPart}); returns its seq in a fresh
   * build, null in an update (whose index is rebuilt from the records).
   */
  addRecord(p: StoredRecord, part = 0): number | null {
    this.#begin();
    this.#zipsNotFound += p.zipsNotFound;
    if (this.#update) {
      this.#upsertRecord(p.npi, p.doc);
      this.#wrote();
      return null;
    }
    if (this.#ranking) throw new Error("Cannot add a record once the ranking has started");
    const seq = ++this.#seq;
    if (part > 0) this.#parts.set(seq, part);
    this.#npiBySeq.set(seq, p.npi);
    this.#recordParts.add(seq, p.npi, p.doc);
    this.#wrote();
    return seq;
  }

  /** Writes the rank key of `seq` in this thread. */
  #addRankKey(seq: number, p: Pick<PreparedRecord, "npi" | "active" | "sortKey" | "postal">): void {
    this.#rankKeys.add(p.npi, p.active, p.sortKey, zip9Of(p.postal));
    this.#rankSeqs.push(seq);
  }

  /**
   * A fresh build: takes in what another thread built for records added
   * with {@linkcode addRecord}: their index entries and their rank keys
   * (written to the file at `rank.path` by a {@linkcode RankKeyWriter});
   * its seq `i` (from 1) is seq `seqOf[i]` here. `seqOf` is kept, and
   * posted to the ranking worker whole: give an array of its own, not a
   * view of a larger buffer.
   */
  attachPart(
    part: { index: IndexPart; rank: { path: string; counts: RankKeyCounts } },
    seqOf: Uint32Array,
  ): void {
    if (this.#update) return;
    // Room for every record so far and a record of its own for each deactivated NPI.
    const stubs = (this.#stage.prepare("SELECT count(*) AS n FROM deactivation").get() as {
      n: number;
    }).n;
    this.#index!.reserve(this.#seq + stubs);
    this.#index!.attachPart(part.index, seqOf);
    this.#rankParts.push({
      path: part.rank.path,
      counts: part.rank.counts,
      seqs: seqOf.subarray(1),
    });
  }

  /** A scratch database file for the index part built by thread `k`; removed with the build. */
  partScratchPath(k: number): string {
    return this.#scratchPath(`part${k}`);
  }

  /** A scratch file for the rank keys of the part read by thread `k`; removed with the build. */
  partRankPath(k: number): string {
    return this.#scratchPath(`rank${k}`);
  }

  /** A scratch database file beside the stage, removed with the build. */
  #scratchPath(name: string): string {
    return this.#paths.scratch(name);
  }

  /** Updates: replaces the record of `npi`, or adds one. */
  #upsertRecord(npi: number, doc: string): void {
    const seq = this.#seqOf(npi);
    if (seq !== null) {
      this.#recordParts.update(seq, doc);
    } else {
      const added = ++this.#seq;
      this.#recordParts.insert(added, npi, doc);
      this.#added.set(npi, added);
    }
  }

  /**
   * The seq of the current record of `npi`, or null: from the NPI index in a
   * fresh build (once every record is in), from the previous provider table
   * in an update.
   */
  #seqOf(npi: number): number | null {
    const added = this.#added.get(npi);
    if (added !== undefined) return added;
    if (!this.#update) return this.#npiIndex!.seqOf(npi);
    this.#lastSeqOf ??= this.#db.prepare(
      "SELECT p.record AS seq FROM provider_npi n JOIN provider p ON p.id = n.id WHERE n.npi = ?",
    );
    return (this.#lastSeqOf.get(npi) as { seq: number | null } | undefined)?.seq ?? null;
  }

  /**
   * A fresh build, once every record of the main file (and the deactivation
   * report, if any) is in: drops repeated rows, gives deactivated NPIs
   * without a record one, and from then on joins each reference row to its
   * record as it arrives, instead of in a pass over the tables at the end.
   */
  recordsDone(): void {
    if (this.#update || this.#arrivals) return;
    this.flush();
    this.#npiIndex = this.#dropRepeated();
    this.#applyDeactivations();
    this.#arrivals = this.#newJoins();
    this.#npiBySeq.trim(this.#seq + 1);
    releaseMemory();
  }

  #newJoins(): Joins {
    const size = this.#seq + 1;
    return { sides: new Uint8Array(size), locations: new Uint8Array(size), orphans: 0 };
  }

  /**
   * Joins a reference row of `npi` (of the table `bit` stands for) to its
   * record, once the records are final: sets the record's side bit, indexes
   * an other name's words and a secondary location's place (`terms`), and
   * counts the record's secondary locations; a row without a record is
   * counted.
   */
  #join(
    joins: Joins,
    npi: number,
    bit: number,
    row: { name: string | null; terms: (number | string)[] | null },
  ): void {
    const seq = this.#added.get(npi) ?? this.#npiIndex!.seqOf(npi);
    if (seq === null) {
      joins.orphans++;
      return;
    }
    joins.sides[seq]! |= bit;
    if (row.name !== null) {
      this.#index!.addTerms(seq, otherNameTerms(row.name, this.#ownerOf(seq)));
    }
    if (row.terms !== null) {
      this.#index!.addTerms(seq, row.terms);
      if (joins.locations[seq]! < 2) joins.locations[seq]!++;
    }
  }

  /**
   * Marks in the index the records with two or more secondary locations
   * (see `FIELD.otherMany`), once every reference row is joined.
   */
  #markManyLocations(joins: Joins): void {
    const { locations } = joins;
    for (let seq = 1; seq < locations.length; seq++) {
      if (locations[seq]! >= 2) this.#index!.addTerms(seq, MANY_LOCATIONS_TERMS);
    }
  }

  /** Adds an other name (othername file). */
  addOtherName(npi: string, name: OtherName): void {
    this.addReference(prepareOtherName(npi, name));
  }

  /** Adds a secondary practice location (pl file), located by its ZIP. */
  addLocation(npi: string, location: OtherLocation): void {
    this.addReference(prepareLocation(npi, location));
  }

  /** Adds an endpoint (endpoint file). */
  addEndpoint(npi: string, endpoint: Endpoint): void {
    this.addReference(prepareEndpoint(npi, endpoint));
  }

  /** Adds a reference row prepared by {@linkcode prepareOtherName} and its kin (perhaps in another thread). */
  addReference(row: PreparedReference): void {
    this.#begin();
    this.#zipsNotFound += row.zipsNotFound;
    this.#insertSide[row.table].add(row.npi, row.doc);
    if (this.#arrivals) this.#join(this.#arrivals, row.npi, SIDE_BITS[row.table], row);
    this.#wrote();
  }

  /** Whose names a record's other names are, from its index flags. */
  #ownerOf(seq: number): NameOwner {
    const flags = this.#index!.flags(seq);
    return flags & FLAG.individual
      ? "individual"
      : flags & FLAG.organization
      ? "organization"
      : null;
  }

  /** Stages a deactivation from the monthly report; `date` is ISO or null. */
  addDeactivation(npi: string, date: string | null): void {
    this.#begin();
    this.#stageDeactivation.run(Number(npi), date);
    this.#wrote();
  }

  /**
   * A fresh build, before the main file: the deactivation report staged so
   * far, by NPI (date or null), for the readers to apply to each record as
   * it is prepared ({@linkcode deactivate}). The build then rewrites no
   * record for it; NPIs the main file lacks still get a record of their own.
   */
  deactivationsToApply(): Map<number, string | null> {
    if (this.#update || this.#seq > 0) {
      throw new Error("Deactivations are applied on arrival only before a fresh build's records");
    }
    this.flush();
    this.#deactivatedOnArrival = true;
    const out = new Map<number, string | null>();
    for (const row of this.#stage.prepare("SELECT npi, date FROM deactivation").iterate()) {
      const { npi, date } = row as { npi: number; date: string | null };
      out.set(npi, date);
    }
    return out;
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
    if (this.#ranking) {
      throw new Error("The ranking runs in a worker: finish the build with finalizeInParallel()");
    }
    const { stats, sides } = this.#joined(onProgress);
    onProgress(0, 1, "ranking");
    const ranked = rankProviders(this.#rankSources(), this.#rankOptions());
    const active = this.#activeById(ranked);
    this.#writeHere(ranked, active, sides, onProgress);
    return this.#finish(stats, active, started);
  }

  /**
   * {@linkcode finalize}, with the ranking in a worker (started early by
   * {@linkcode rankInBackground}, or now) and the posting lists of the text
   * and name fields written by another while this thread writes the
   * provider tables and the index columns: the work takes both cores.
   */
  async finalizeInParallel(onProgress: FinalizeProgress = () => {}): Promise<BuildStats> {
    const started = performance.now();
    const { stats, sides } = this.#joined(onProgress);
    onProgress(0, 1, "ranking");
    const ranked = await this.rankInBackground();
    const active = this.#activeById(ranked);
    const index = this.#index!;
    const progress = (phase: string) => onProgress(ranked.size, ranked.size, phase);
    const paths = {
      memory: this.#scratchPath("postings-memory"),
      counts: this.#scratchPath("postings"),
    };
    const providers = async (pause: () => Promise<void>) => {
      const rows = writeProviderTables(
        this.#db,
        ranked,
        active,
        sides,
        onProgress,
        this.#npiData(),
      );
      for (const _ of rows) await pause();
    };
    if (!await index.writeBeside(this.#db, this.#postings, ranked, paths, providers, progress)) {
      this.#writeHere(ranked, active, sides, onProgress);
    }
    return this.#finish(stats, active, started);
  }

  /** Writes the provider tables, then the whole index, all on this thread. */
  #writeHere(
    ranked: RankedProviders,
    active: Uint8Array,
    sides: Uint8Array,
    onProgress: FinalizeProgress,
  ): void {
    this.#db.exec("BEGIN");
    for (
      const _ of writeProviderTables(this.#db, ranked, active, sides, onProgress, this.#npiData())
    );
    this.#db.exec("COMMIT");
    this.#index!.write(
      this.#db,
      this.#postings,
      ranked,
      (phase) => onProgress(ranked.size, ranked.size, phase),
    );
  }

  /**
   * Starts ranking the providers in a worker, once every record is in (a
   * fresh build: after {@linkcode recordsDone}), so that it runs while the
   * reference files are read; {@linkcode finalizeInParallel} takes the
   * result. No record can be added after it.
   */
  rankInBackground(): Promise<RankedProviders> {
    this.#ranking ??= rankInWorker({ sources: this.#rankSources(), options: this.#rankOptions() });
    return this.#ranking;
  }

  /** The NPI of each seq. */
  #npiData(): Float64Array {
    return this.#npiBySeq.data;
  }

  /** Every writer's rank entries: the parts read in other threads, then this thread's. */
  #rankSources(): RankSource[] {
    const own = this.#rankKeys.finish()!;
    return [
      ...this.#rankParts,
      { bytes: own, seqs: this.#rankSeqs.view().slice(), counts: { ...this.#rankKeys.counts } },
    ];
  }

  #rankOptions(): RankOptions {
    const changed = [...this.#changedActive];
    return {
      dropped: this.#dropped,
      changed: {
        seqs: Uint32Array.from(changed, ([seq]) => seq),
        active: Uint8Array.from(changed, ([, active]) => active),
      },
      lastSeq: this.#seq,
    };
  }

  /** Whether each id is active (from the index flags, before writing the index lets them go). */
  #activeById(ranked: RankedProviders): Uint8Array {
    const active = new Uint8Array(ranked.size + 1);
    for (let id = 1; id <= ranked.size; id++) {
      active[id] = this.#index!.flags(ranked.seqById[id]!) & FLAG.active ? 1 : 0;
    }
    return active;
  }

  /** Everything before the ranking: deactivations applied, reference rows joined. */
  #joined(onProgress: FinalizeProgress): { stats: BuildStats; sides: Uint8Array } {
    this.flush();
    const stats = emptyStats();
    onProgress(0, 1, "reference indexes");
    this.#db.exec(`PRAGMA threads = 2; ${SIDE_INDEXES}`);
    if (this.#update) {
      applyStagedSides(this.#db, this.#stage);
      this.#applyDeactivations();
      this.#index = this.#reindex(onProgress);
      this.#npiIndex = NpiIndex.of(this.#npiBySeq.data, this.#rankSeqs.view());
    } else if (!this.#arrivals) {
      this.#npiIndex = this.#dropRepeated();
      this.#applyDeactivations();
    }
    const joins = this.#arrivals ?? this.#joinSides(onProgress);
    this.#markManyLocations(joins);
    stats.orphans = joins.orphans;
    return { stats, sides: joins.sides };
  }

  /** Writes the taxonomy and the metadata, and closes the file. */
  #finish(stats: BuildStats, activeById: Uint8Array, started: number): BuildStats {
    const db = this.#db;
    const taxonomy = this.#options.taxonomy;
    if (taxonomy) writeTaxonomy(db, taxonomy.entries);
    db.exec("BEGIN");
    writeEndpointColumns(db);
    writeLocationColumns(db);
    writeProviderRows(db);
    db.exec("COMMIT");
    let active = 0;
    for (let id = 1; id < activeById.length; id++) active += activeById[id]!;
    stats.providers = activeById.length - 1;
    stats.active = active;
    stats.deactivated = stats.providers - active;
    stats.zipsNotFound += this.#zipsNotFound;
    writeIndexMap(
      partPath(this.#options.target, this.#mapName),
      db,
      this.#postings,
      this.#postingsName,
    );
    writeMeta(db, {
      source: this.#options.source,
      update: this.#options.update ?? false,
      files: this.#files,
      taxonomySource: taxonomy?.source,
      stats,
      parts: this.#partNames(),
    });
    this.#stage.close();
    this.#recordParts.close();
    this.#postings.close();
    db.close();
    this.#paths.removeScratch();
    this.#done = true;
    stats.seconds = (performance.now() - started) / 1000;
    return stats;
  }

  /** The part files this build wrote, as the main file names them. */
  #partNames(): PartNames {
    return {
      postings: this.#postingsName,
      records: this.#recordParts.names(),
      map: this.#mapName,
    };
  }

  /**
   * Atomically replaces the target with the finished file, then removes
   * the part files of the release it replaced (a server still reading
   * them keeps them open until it lets go).
   */
  commit(): void {
    if (!this.#done) throw new Error("Cannot commit a build before finalize()");
    const target = this.#options.target;
    const replaced = readPartNames(target);
    Deno.renameSync(this.tempPath, target);
    this.#releaseLock();
    removeIfExists(`${target}-wal`);
    removeIfExists(`${target}-shm`);
    if (replaced) removeReplacedParts(target, replaced, this.#partNames());
  }

  /** Abandons the build and deletes its files; the target is untouched. */
  abort(): void {
    for (const connection of [this.#stage, this.#db, this.#postings]) {
      try {
        if (!this.#done) connection.close();
      } catch { /* already closed */ }
    }
    this.#index?.close();
    this.#recordParts.discard();
    this.#paths.removeAll();
    removeBuildParts(this.#options.target, this.#paths.stamp);
    this.#releaseLock();
    this.#done = true;
  }

  #releaseLock(): void {
    try {
      this.#lock?.close();
    } catch { /* closed */ }
    this.#lock = null;
  }

  /**
   * Fresh builds: keeps only the last row of an NPI the main file gave more
   * than once; returns the index of the records kept by NPI.
   */
  #dropRepeated(): NpiIndex {
    const all = new Uint32Array(this.#seq);
    for (let i = 0; i < all.length; i++) all[i] = i + 1;
    const index = NpiIndex.of(this.#npiBySeq.data, all);
    const repeated = index.repeated();
    if (repeated.length === 0) return index;
    const dropped = new Set<number>();
    this.#recordParts.begin();
    for (const npi of repeated) {
      // File order: by part, then by arrival within a part.
      const rows = [...index.seqsOf(npi)]
        .sort((a, b) => this.#parts.get(a) - this.#parts.get(b) || a - b);
      for (const seq of rows.slice(0, -1)) {
        this.#recordParts.remove(seq);
        dropped.add(seq);
      }
    }
    this.#recordParts.commit();
    this.#dropped = Uint32Array.from(dropped);
    return index.without((seq) => dropped.has(seq));
  }

  /**
   * Applies the deactivation report to the records (and, in a fresh build,
   * to the rank keys and index flags); NPIs not in the main file get a
   * record of their own.
   */
  #applyDeactivations(): void {
    const records = this.#recordParts;
    const fresh = !this.#update;
    records.begin();
    for (const row of this.#stage.prepare("SELECT npi, date FROM deactivation").iterate()) {
      const { npi, date } = row as { npi: number; date: string | null };
      // Already applied to every record of the main file as it arrived.
      if (this.#deactivatedOnArrival && this.#npiIndex!.seqOf(npi) !== null) continue;
      const seq = this.#seqOf(npi);
      if (seq === null) {
        const stub = deactivate(deactivatedStub(String(npi)), date);
        const added = ++this.#seq;
        records.insert(added, npi, encodeProvider(stub));
        this.#added.set(npi, added);
        if (fresh) {
          this.#npiBySeq.set(added, npi);
          this.#addRankKey(added, { npi, active: false, sortKey: sortKey(stub), postal: null });
          this.#index!.add(added, indexEntry(stub));
        }
        continue;
      }
      const provider = deactivate(decodeProvider(records.doc(seq)!, () => null), date);
      records.update(seq, encodeProvider(provider));
      if (fresh) {
        const active = provider.status === "active";
        this.#changedActive.set(seq, active ? 1 : 0);
        const flags = this.#index!.flags(seq);
        this.#index!.setFlags(seq, active ? flags | FLAG.active : flags & ~FLAG.active);
      }
    }
    records.commit();
  }

  /** Updates: rebuilds the rank keys and the index from every record. */
  #reindex(onProgress: FinalizeProgress): IndexBuilder {
    const index = this.#newIndex();
    const total = this.#recordParts.count();
    let n = 0;
    for (const { seq, npi, doc } of this.#recordParts.rows()) {
      const p = decodeProvider(doc, () => null);
      const active = p.status === "active";
      this.#npiBySeq.set(seq, npi);
      this.#addRankKey(seq, { npi, active, sortKey: sortKey(p), postal: postalKey(p) });
      index.add(seq, indexEntry(p));
      if (++n % 50_000 === 0) onProgress(n, total, "indexing");
    }
    return index;
  }

  /** Joins every reference row to its record, in one pass over their tables (when not on arrival). */
  #joinSides(onProgress: FinalizeProgress): Joins {
    onProgress(0, 1, "reference rows");
    const joins = this.#newJoins();
    for (const [table, bit] of SIDE_TABLES) {
      const names = table === "other_name", places = table === "location";
      const rows = this.#db.prepare(`SELECT npi${names || places ? ", doc" : ""} FROM ${table}`);
      for (const row of rows.iterate()) {
        const { npi, doc } = row as { npi: number; doc?: string };
        this.#join(joins, npi, bit, {
          name: names ? unpackOtherName(doc!).name : null,
          terms: places ? locationTerms(parseLocation(doc!)) : null,
        });
      }
    }
    return joins;
  }
}

/**
 * Removes every part file a build of `target` stamped `stamp` may have
 * written (an abandoned build's).
 */
function removeBuildParts(target: string, stamp: string): void {
  const prefix = partName(target, stamp, "");
  const folder = partPath(target, "");
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(folder || ".")];
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isFile && entry.name.startsWith(prefix)) removeIfExists(partPath(target, entry.name));
  }
}
