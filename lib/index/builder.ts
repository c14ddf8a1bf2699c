/**
 * Builds the search index of a database whose providers arrive in any
 * order. Entries are added under a sequence number (`seq`, the order of
 * arrival); only when every provider is known are they ranked, and `write`
 * renumbers everything by rank.
 *
 * Memory stays bounded: posting lists grow in memory until they hold
 * `segmentEntries` ids, then are written to a scratch database as one sorted
 * segment; `write` merges the segments term by term (`lib/index/merge.ts`),
 * or `startPostings` has a worker do it while `writeBeside` writes the rest.
 * Columns (flags, state, city, ZIP, coordinates, taxonomy codes, and the
 * mailing address's state, city and ZIP) are typed arrays of a few bytes
 * per provider.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { cellOf, FIELD, TERM_FIELDS } from "./fields.ts";
import type { IndexEntry } from "./entry.ts";
import { INDEX_SCHEMA, POSTING_SCHEMA } from "./schema.ts";
import { buildVocabulary, type Vocabulary, writeVocabulary } from "./vocabulary.ts";
import { sortUnique } from "./sorted.ts";
import {
  mergeTerms,
  type Numbered,
  type PostingSink,
  type SegmentRange,
  type SegmentSource,
  writeField,
} from "./merge.ts";
import type { PostingsMessage, PostingsRequest } from "./postings_worker.ts";
import type { VocabularyMessage, VocabularyRequest } from "./vocabulary_worker.ts";
import { bytesOf, GrowableColumn, GrowableList, type NumberArray } from "./typed.ts";
import { PostingBuffer } from "./postings.ts";
import { BatchInsert } from "./batch_insert.ts";
import { TermTable } from "./term_table.ts";
import { SharedCredits } from "../shared_credits.ts";
import { releaseMemory } from "../memory.ts";
import { monthColumn, monthTerm } from "./updated.ts";

/** A dictionary of strings to small integers (0 is "none"). */
class Dictionary {
  #table = new TermTable();
  /** The values by id (index 0 unused). */
  get values(): string[] {
    return ["", ...this.#table.terms];
  }
  /** The value of `id` ("" for 0). */
  value(id: number): string {
    return id === 0 ? "" : this.#table.terms[id - 1]!;
  }
  /**
   * Renumbers the values in sorted order, so the written index does not
   * depend on the order providers arrived in; returns old id to new id.
   */
  sort(): Uint32Array {
    const held = this.#table.terms;
    const order = held.map((_, k) => k).sort((a, b) => (held[a]! < held[b]! ? -1 : 1));
    const renumber = new Uint32Array(held.length + 1);
    order.forEach((k, i) => (renumber[k + 1] = i + 1));
    this.#table = new TermTable(held.length);
    for (const k of order) this.#table.number(held[k]!);
    return renumber;
  }
  id(value: string | null): number {
    return value ? this.#table.number(value) + 1 : 0;
  }
}

/**
 * The final order of providers: ids 1..size by rank, each naming its `seq`;
 * `idBySeq` is 0 for a seq that was dropped (replaced by a later row).
 */
export interface Ranking {
  size: number;
  seqById: Uint32Array;
  idBySeq: Uint32Array;
}

/** Options of {@linkcode IndexBuilder}. */
export interface IndexBuilderOptions {
  /** The words a taxonomy code is found by. */
  specialtyWords: (code: string) => readonly string[];
  /** A scratch database for posting segments (its `index_segment` table is created). */
  scratch: DatabaseSync;
  /** Ids held in memory before a segment is written. */
  segmentEntries?: number;
  /** Expected number of providers (sizes the columns). */
  capacity?: number;
}

/**
 * An index built in another thread, handed over whole: its columns by its
 * own seqs, its dictionaries, and where its posting segments are.
 */
export interface IndexPart {
  scratchPath: string;
  segments: SegmentRange[][];
  /** The highest seq of the part (columns run 0..size). */
  size: number;
  flags: Uint8Array;
  state: Uint8Array;
  city: Uint32Array;
  zip: Uint32Array;
  mailState: Uint16Array;
  mailCity: Uint32Array;
  mailZip: Uint32Array;
  lat: Float32Array;
  lon: Float32Array;
  taxStart: Uint32Array;
  taxCount: Uint8Array;
  /** Each code's dictionary number times two, plus one when it is primary. */
  taxCodes: Uint32Array;
  /** Day of the last update (see `updated.ts`). */
  updated: Uint16Array;
  states: string[];
  cities: string[];
  codes: string[];
  mailStates: string[];
  mailCities: string[];
}

/** The scratch table of spilled posting segments. */
const SEGMENT_TABLE =
  "CREATE TABLE IF NOT EXISTS index_segment (field INTEGER NOT NULL, term TEXT NOT NULL, ids BLOB NOT NULL)";

/** Where the index is written: posting rows (also as bytes), counted terms; flush before committing. */
interface WriteSink extends PostingSink {
  putBytes(field: number, term: string, ids: Uint8Array): void;
  flush(): void;
}

/** Posting batches the merging worker may have in flight (of about 4 MB each). */
const POSTING_BATCHES_IN_FLIGHT = 4;

/** Accumulates index entries by seq and writes the ranked index. */
export class IndexBuilder {
  /** Posting terms not yet spilled. */
  readonly #postings = new PostingBuffer(TERM_FIELDS);
  readonly #segmentEntries: number;
  readonly #segments: SegmentRange[][] = [];
  readonly #scratch: DatabaseSync;
  readonly #flags: GrowableColumn<Uint8Array>;
  readonly #state: GrowableColumn<Uint8Array>;
  readonly #city: GrowableColumn<Uint32Array>;
  readonly #zip: GrowableColumn<Uint32Array>;
  /**
   * The mailing address's state, city (numbers of dictionaries of their own, never
   * written: only their posting lists are) and ZIP.
   */
  readonly #mailState: GrowableColumn<Uint16Array>;
  readonly #mailCity: GrowableColumn<Uint32Array>;
  readonly #mailZip: GrowableColumn<Uint32Array>;
  readonly #lat: GrowableColumn<Float32Array>;
  readonly #lon: GrowableColumn<Float32Array>;
  /** Where the codes of each seq start in `#taxCodes`, and how many there are. */
  readonly #taxStart: GrowableColumn<Uint32Array>;
  readonly #taxCount: GrowableColumn<Uint8Array>;
  /** Day of the last update (see `updated.ts`). */
  readonly #updated: GrowableColumn<Uint16Array>;
  /** Each code's dictionary number times two, plus one when it is primary. */
  readonly #taxCodes = new GrowableList(1024);
  readonly #states = new Dictionary();
  readonly #cities = new Dictionary();
  readonly #codes = new Dictionary();
  readonly #mailStates = new Dictionary();
  readonly #mailCities = new Dictionary();
  #lastSeq = 0;
  /** Parts attached from other threads, with their seq translation. */
  readonly #attached: {
    db: DatabaseSync;
    path: string;
    segments: SegmentRange[][];
    seqOf: Uint32Array;
    /** The id of each of the part's seqs, once ranked. */
    toId?: Uint32Array;
  }[] = [];
  readonly #describeWords: (code: string) => readonly string[];

  constructor(options: IndexBuilderOptions) {
    const n = (options.capacity ?? 1024) + 1;
    this.#flags = new GrowableColumn((k) => new Uint8Array(k), n);
    this.#state = new GrowableColumn((k) => new Uint8Array(k), n);
    this.#city = new GrowableColumn((k) => new Uint32Array(k), n);
    this.#zip = new GrowableColumn((k) => new Uint32Array(k), n);
    this.#mailState = new GrowableColumn((k) => new Uint16Array(k), n);
    this.#mailCity = new GrowableColumn((k) => new Uint32Array(k), n);
    this.#mailZip = new GrowableColumn((k) => new Uint32Array(k), n);
    this.#lat = new GrowableColumn((k) => new Float32Array(k).fill(NaN), n);
    this.#lon = new GrowableColumn((k) => new Float32Array(k).fill(NaN), n);
    this.#taxStart = new GrowableColumn((k) => new Uint32Array(k), n);
    this.#taxCount = new GrowableColumn((k) => new Uint8Array(k), n);
    this.#updated = new GrowableColumn((k) => new Uint16Array(k), n);
    this.#describeWords = options.specialtyWords;
    this.#scratch = options.scratch;
    this.#segmentEntries = options.segmentEntries ?? 16_000_000;
    this.#scratch.exec(SEGMENT_TABLE);
  }

  /** The highest seq added. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /**
   * Makes room in the columns for seqs up to `lastSeq` at once (instead of
   * growing them step by step, which briefly holds two copies).
   */
  reserve(lastSeq: number): void {
    for (
      const column of [
        this.#flags,
        this.#state,
        this.#city,
        this.#zip,
        this.#mailState,
        this.#mailCity,
        this.#mailZip,
        this.#lat,
        this.#lon,
        this.#taxStart,
        this.#taxCount,
        this.#updated,
      ] as GrowableColumn<NumberArray>[]
    ) column.reserve(lastSeq + 1);
  }

  /** The flags of `seq`. */
  flags(seq: number): number {
    return this.#flags.get(seq);
  }

  /** Adds the entry of `seq` (each seq once, in any order). */
  add(seq: number, entry: IndexEntry): void {
    if (seq > this.#lastSeq) this.#lastSeq = seq;
    this.addTerms(seq, entry.terms);
    this.#flags.set(seq, entry.flags);
    this.#state.set(seq, this.#states.id(entry.state));
    this.#city.set(seq, this.#cities.id(entry.city));
    this.#zip.set(seq, entry.zip);
    this.#mailState.set(seq, this.#mailStates.id(entry.mailState));
    this.#mailCity.set(seq, this.#mailCities.id(entry.mailCity));
    this.#mailZip.set(seq, entry.mailZip);
    if (!Number.isNaN(entry.lat) && !Number.isNaN(entry.lon)) {
      this.#lat.set(seq, entry.lat);
      this.#lon.set(seq, entry.lon);
    }
    this.#taxStart.set(seq, this.#taxCodes.length);
    this.#taxCount.set(seq, entry.codes.length);
    this.#updated.set(seq, entry.updated);
    for (let k = 0; k < entry.codes.length; k++) {
      this.#taxCodes.push(this.#codes.id(entry.codes[k]!) * 2 + (entry.primary[k] ? 1 : 0));
    }
  }

  /**
   * Hands over everything added, for another thread to attach: the posting
   * lists are written to the scratch database (at `scratchPath`) first.
   */
  exportPart(scratchPath: string): IndexPart {
    this.#spill();
    const n = this.#lastSeq + 1;
    const column = <T extends NumberArray>(c: GrowableColumn<T>) => c.data.slice(0, n) as T;
    return {
      scratchPath,
      segments: this.#segments,
      size: this.#lastSeq,
      flags: column(this.#flags),
      state: column(this.#state),
      city: column(this.#city),
      zip: column(this.#zip),
      mailState: column(this.#mailState),
      mailCity: column(this.#mailCity),
      mailZip: column(this.#mailZip),
      lat: column(this.#lat),
      lon: column(this.#lon),
      taxStart: column(this.#taxStart),
      taxCount: column(this.#taxCount),
      taxCodes: this.#taxCodes.view().slice(),
      updated: column(this.#updated),
      states: this.#states.values,
      cities: this.#cities.values,
      codes: this.#codes.values,
      mailStates: this.#mailStates.values,
      mailCities: this.#mailCities.values,
    };
  }

  /**
   * Takes in a part built elsewhere ({@linkcode exportPart}), whose seq `i`
   * is seq `seqOf[i]` here. Its posting lists are read from its scratch
   * database when the index is written.
   */
  attachPart(part: IndexPart, seqOf: Uint32Array): void {
    const states = part.states.map((v) => this.#states.id(v));
    const cities = part.cities.map((v) => this.#cities.id(v));
    const codes = part.codes.map((v) => this.#codes.id(v));
    const mailStates = part.mailStates.map((v) => this.#mailStates.id(v));
    const mailCities = part.mailCities.map((v) => this.#mailCities.id(v));
    this.#taxCodes.reserve(this.#taxCodes.length + part.taxCodes.length);
    for (let i = 1; i <= part.size; i++) {
      const seq = seqOf[i] ?? 0;
      if (seq === 0) continue;
      if (seq > this.#lastSeq) this.#lastSeq = seq;
      this.#flags.set(seq, part.flags[i]!);
      this.#state.set(seq, states[part.state[i]!]!);
      this.#city.set(seq, cities[part.city[i]!]!);
      this.#zip.set(seq, part.zip[i]!);
      this.#mailState.set(seq, mailStates[part.mailState[i]!]!);
      this.#mailCity.set(seq, mailCities[part.mailCity[i]!]!);
      this.#mailZip.set(seq, part.mailZip[i]!);
      this.#lat.set(seq, part.lat[i]!);
      this.#lon.set(seq, part.lon[i]!);
      this.#updated.set(seq, part.updated[i]!);
      const from = part.taxStart[i]!, count = part.taxCount[i]!;
      this.#taxStart.set(seq, this.#taxCodes.length);
      this.#taxCount.set(seq, count);
      for (let k = from; k < from + count; k++) {
        const value = part.taxCodes[k]!;
        this.#taxCodes.push(codes[value >>> 1]! * 2 + (value & 1));
      }
    }
    const db = new DatabaseSync(part.scratchPath, { readOnly: true });
    this.#attached.push({ db, path: part.scratchPath, segments: part.segments, seqOf });
  }

  /** Closes the scratch databases of attached parts. */
  close(): void {
    for (const part of this.#attached) part.db.close();
    this.#attached.length = 0;
  }

  /** Adds posting terms (flat field, term pairs) to `seq`, in any order of seqs. */
  addTerms(seq: number, terms: readonly (number | string)[]): void {
    for (let i = 0; i + 1 < terms.length; i += 2) {
      const term = terms[i + 1] as string;
      if (term) this.#postings.add(terms[i] as number, term, seq);
    }
    if (this.#postings.size >= this.#segmentEntries) this.#spill();
  }

  /** Replaces the flags of `seq`. */
  setFlags(seq: number, flags: number): void {
    this.#flags.set(seq, flags);
  }

  /** Writes the in-memory posting lists as one sorted segment and forgets them. */
  #spill(): void {
    this.#segments.push(this.#spillTo(this.#scratch));
  }

  /** Writes the in-memory posting lists to `db` as one sorted segment; returns where. */
  #spillTo(db: DatabaseSync): SegmentRange[] {
    const insert = db.prepare("INSERT INTO index_segment (field, term, ids) VALUES (?, ?, ?)");
    const lastRowid = () =>
      (db.prepare("SELECT coalesce(max(rowid), 0) AS n FROM index_segment").get() as { n: number })
        .n;
    const ranges: SegmentRange[] = [];
    // A savepoint: the build may have a transaction open on the scratch database.
    db.exec("SAVEPOINT spill");
    for (const [field, lists] of this.#postings.drain()) {
      const first = lastRowid() + 1;
      for (const [term, seqs] of lists) insert.run(field, term, bytesOf(seqs));
      ranges.push({ field, first, last: lastRowid() });
    }
    db.exec("RELEASE spill");
    return ranges;
  }

  /**
   * Writes the index, numbered by `ranking`: the posting lists into
   * `postings` ({@linkcode POSTING_SCHEMA}), the columns and the typo
   * vocabulary into `db` ({@linkcode INDEX_SCHEMA}).
   */
  write(
    db: DatabaseSync,
    postings: DatabaseSync,
    ranking: Ranking,
    onProgress: (phase: string) => void = () => {},
  ): void {
    const sink = this.#beginWrite(db, postings);
    onProgress("postings");
    const own = { db: this.#scratch, segments: this.#segments, toId: ranking.idBySeq };
    const sources = [own, ...this.#partSources(ranking)];
    const held = new Map<number, [string, Numbered][]>();
    for (const [field, lists] of this.#postings.drain()) {
      held.set(field, lists.map(([term, numbers]) => [term, { numbers, toId: ranking.idBySeq }]));
    }
    for (const field of TERM_FIELDS) {
      writeField(field, mergeTerms(field, sources, held.get(field)), ranking.size + 1, sink);
      held.delete(field);
    }
    onProgress("columns");
    for (const _ of this.#writeColumns(db, ranking, sink));
    this.#finishWrite(db, postings, sink, onProgress);
  }

  /**
   * {@linkcode write}, with the posting lists of the text and name fields
   * merged by a worker and written here as they come, while this thread
   * writes the columns and runs `alongside` (more writing of its own, which
   * calls `pause` every so often to let the lists in). What is still in
   * memory is first spilled to a scratch database at `paths.memory`; the
   * terms' counts go to one at `paths.counts`. Returns false, having done
   * nothing, when some lists were spilled to this builder's own scratch
   * database, which a worker cannot open: then use {@linkcode write}.
   */
  async writeBeside(
    db: DatabaseSync,
    postings: DatabaseSync,
    ranking: Ranking,
    paths: { memory: string; counts: string },
    alongside: (pause: () => Promise<void>) => Promise<void>,
    onProgress: (phase: string) => void = () => {},
  ): Promise<boolean> {
    if (this.#segments.length > 0) return false;
    const sink = this.#beginWrite(db, postings);
    const job = this.#startPostings(ranking, paths, sink);
    try {
      onProgress("columns");
      // The specialty words' counts join the postings worker's in the vocabulary worker.
      const extra: [string, number][] = [];
      const columns = {
        put: sink.put,
        count: (term: string, docs: number) => extra.push([term, docs]),
      };
      for (const _ of this.#writeColumns(db, ranking, columns)) await job.pause();
      releaseMemory();
      // The typo vocabulary is computed in a worker as soon as the text terms are counted.
      const vocabulary = job.counted.then(() => startVocabulary({ path: paths.counts, extra }));
      vocabulary.catch(() => {}); // Surfaces through `job.done`.
      try {
        await alongside(job.pause);
        onProgress("postings");
        await job.done;
        sink.flush();
        db.exec("COMMIT");
        postings.exec("COMMIT");
        onProgress("vocabulary");
        writeVocabulary(db, await (await vocabulary).result);
      } finally {
        vocabulary.then((v) => v.stop(), () => {});
      }
    } finally {
      job.stop();
    }
    this.#release(db);
    return true;
  }

  /**
   * Starts the worker that merges the posting lists of the text and name
   * fields ({@linkcode PostingsRequest}); the rows it streams back are
   * written to `sink` whenever this thread is free (see `pause`).
   */
  #startPostings(
    ranking: Ranking,
    paths: { memory: string; counts: string },
    sink: WriteSink,
  ): {
    done: Promise<void>;
    counted: Promise<void>;
    pause: () => Promise<void>;
    stop: () => void;
  } {
    const memory = new DatabaseSync(paths.memory);
    let ranges: SegmentRange[];
    try {
      memory.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
      memory.exec(SEGMENT_TABLE);
      ranges = this.#spillTo(memory);
    } finally {
      memory.close();
    }
    const credits = SharedCredits.buffer(POSTING_BATCHES_IN_FLIGHT);
    const request: PostingsRequest = {
      sources: [
        { path: paths.memory, segments: [ranges], toId: ranking.idBySeq },
        ...this.#partSources(ranking).map((source, k) => ({
          path: this.#attached[k]!.path,
          segments: source.segments as SegmentRange[][],
          toId: source.toId,
        })),
      ],
      fields: [...TERM_FIELDS],
      universe: ranking.size + 1,
      counts: paths.counts,
      credits,
    };
    const worker = new Worker(new URL("./postings_worker.ts", import.meta.url).href, {
      type: "module",
    });
    const returned = new SharedCredits(credits);
    let counted!: () => void;
    const countedPromise = new Promise<void>((resolve) => (counted = resolve));
    const done = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<PostingsMessage>) => {
        const message = event.data;
        if (message.type === "rows") {
          const { fields, terms, ids, starts } = message;
          for (let i = 0; i < terms.length; i++) {
            sink.putBytes(fields[i]!, terms[i]!, ids.subarray(starts[i]!, starts[i + 1]!));
          }
          returned.give();
        } else if (message.type === "counted") {
          counted();
        } else if (message.type === "done") {
          resolve();
        } else {
          reject(new Error(`Writing the posting lists failed: ${message.message}`));
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(`Writing the posting lists failed: ${event.message}`));
      };
    });
    // A failure nobody waits for yet must not surface as an unhandled rejection.
    done.catch(() => {});
    worker.postMessage(request);
    return {
      done,
      // Settles with `done` at the latest, so that a failure is never waited for twice.
      counted: Promise.race([countedPromise, done]),
      // A macrotask: the worker's queued batches are handled before it resolves.
      pause: () => new Promise((resolve) => setTimeout(resolve, 0)),
      stop: () => worker.terminate(),
    };
  }

  /** The attached parts' segments, their seqs mapped straight to ranked ids. */
  #partSources(ranking: Ranking): SegmentSource[] {
    return this.#attached.map((part) => {
      if (!part.toId) {
        part.toId = new Uint32Array(part.seqOf.length);
        for (let i = 0; i < part.toId.length; i++) {
          part.toId[i] = ranking.idBySeq[part.seqOf[i]!] ?? 0;
        }
      }
      return { db: part.db, segments: part.segments, toId: part.toId };
    });
  }

  /** Creates the index tables, opens the transactions; returns where postings go. */
  #beginWrite(db: DatabaseSync, postings: DatabaseSync): WriteSink {
    db.exec(INDEX_SCHEMA);
    postings.exec(POSTING_SCHEMA);
    db.exec("DELETE FROM index_blob;");
    postings.exec("DELETE FROM posting;");
    db.exec("DROP TABLE IF EXISTS temp.vocabulary_scratch");
    db.exec("CREATE TEMP TABLE vocabulary_scratch (term TEXT NOT NULL, docs INTEGER NOT NULL)");
    // Many rows a statement: a million and a half posting rows are written.
    const insert = new BatchInsert(postings, "INSERT INTO posting (field, term, ids)", 3);
    const count = new BatchInsert(db, "INSERT INTO temp.vocabulary_scratch (term, docs)", 2);
    db.exec("BEGIN");
    postings.exec("BEGIN");
    return {
      put: (field, term, ids) => insert.add(field, term, bytesOf(ids)),
      putBytes: (field, term, ids) => insert.add(field, term, ids),
      count: (term, docs) => count.add(term, docs),
      flush: () => {
        insert.flush();
        count.flush();
      },
    };
  }

  /** Commits, builds the typo vocabulary from the counted terms, and lets go of the scratch. */
  #finishWrite(
    db: DatabaseSync,
    postings: DatabaseSync,
    sink: WriteSink,
    onProgress: (phase: string) => void,
  ): void {
    sink.flush();
    db.exec("COMMIT");
    postings.exec("COMMIT");
    onProgress("vocabulary");
    const totals = db.prepare(
      "SELECT term, sum(docs) AS docs FROM temp.vocabulary_scratch GROUP BY term ORDER BY term",
    );
    buildVocabulary(
      db,
      (function* () {
        for (const row of totals.iterate()) {
          const { term, docs } = row as { term: string; docs: number };
          yield [term, docs] as [string, number];
        }
      })(),
    );
    this.#release(db);
  }

  /** Drops what the writing used and lets go of the scratch. */
  #release(db: DatabaseSync): void {
    db.exec("DROP TABLE temp.vocabulary_scratch");
    this.#scratch.exec("DELETE FROM index_segment");
    this.close();
  }

  /**
   * The ranked columns, the lists derived from them, and the specialty
   * words' counts, in steps of a second or less (each `yield` is a point
   * where the caller may let other work in).
   */
  *#writeColumns(db: DatabaseSync, ranking: Ranking, sink: PostingSink): Generator<void> {
    const n = ranking.size;
    const put = sink.put;
    const flags = this.#flags.ranked(ranking, new Uint8Array(n + 1));
    const state = renumbered(
      this.#state.ranked(ranking, new Uint8Array(n + 1)),
      this.#states.sort(),
    );
    const city = renumbered(
      this.#city.ranked(ranking, new Uint32Array(n + 1)),
      this.#cities.sort(),
    );
    const zip = this.#zip.ranked(ranking, new Uint32Array(n + 1));
    const mailState = this.#mailState.ranked(ranking, new Uint16Array(n + 1));
    const mailCity = this.#mailCity.ranked(ranking, new Uint32Array(n + 1));
    const mailZip = this.#mailZip.ranked(ranking, new Uint32Array(n + 1));
    const lat = this.#lat.ranked(ranking, new Float32Array(n + 1).fill(NaN));
    const lon = this.#lon.ranked(ranking, new Float32Array(n + 1).fill(NaN));
    const updated = this.#updated.ranked(ranking, new Uint16Array(n + 1));
    yield;
    const taxStart = this.#taxStart.data, taxCount = this.#taxCount.data;
    const seqCodes = this.#taxCodes.view();
    const codeIds = this.#codes.sort();
    const offsets = new Uint32Array(n + 2);
    const codes = new Uint16Array(seqCodes.length);
    const primary = new Uint8Array(seqCodes.length);
    let at = 0;
    for (let id = 1; id <= n; id++) {
      offsets[id] = at;
      const seq = ranking.seqById[id]!;
      const from = taxStart[seq] ?? 0, to = from + (taxCount[seq] ?? 0);
      for (let k = from; k < to; k++) {
        const value = seqCodes[k]!;
        codes[at] = codeIds[value >>> 1]!;
        primary[at++] = value & 1;
      }
    }
    offsets[n + 1] = at;
    this.#taxStart.data = new Uint32Array(0);
    this.#taxCount.data = new Uint8Array(0);
    this.#taxCodes.data = new Uint32Array(0);
    this.#taxCodes.length = 0;
    yield;
    // Lists derived from columns: state, city, ZIP (of the practice location and of the mailing
    // address), cell, taxonomy codes.
    const byValue = (column: ArrayLike<number>, field: number, name: (v: number) => string) => {
      const groups = groupIds(column, 1, n + 1, (id) => id);
      for (let v = 1; v + 1 < groups.offsets.length; v++) {
        const from = groups.offsets[v]!, to = groups.offsets[v + 1]!;
        if (to > from) put(field, name(v), groups.ids.subarray(from, to));
      }
    };
    byValue(state, FIELD.state, (v) => this.#states.value(v));
    yield;
    byValue(city, FIELD.city, (v) => this.#cities.value(v));
    yield;
    byValue(zip, FIELD.zip5, (v) => String(v - 1).padStart(5, "0"));
    yield;
    // The mailing address: lists only (its columns are not served).
    byValue(mailState, FIELD.mailState, (v) => this.#mailStates.value(v));
    byValue(mailCity, FIELD.mailCity, (v) => this.#mailCities.value(v));
    yield;
    byValue(mailZip, FIELD.mailZip5, (v) => String(v - 1).padStart(5, "0"));
    yield;
    const cells = new Uint32Array(n + 1);
    for (let id = 1; id <= n; id++) {
      if (!Number.isNaN(lat[id]!)) cells[id] = cellOf(lat[id]!, lon[id]!) + 1;
    }
    byValue(cells, FIELD.cell, (v) => String(v - 1));
    yield;
    byValue(monthColumn(updated), FIELD.updatedMonth, monthTerm);
    yield;
    // Each code position k belongs to the id whose offsets hold it.
    const ownerOf = new Uint32Array(at);
    for (let id = 1; id <= n; id++) ownerOf.fill(id, offsets[id]!, offsets[id + 1]!);
    for (
      const [field, wanted] of [
        [FIELD.primaryCode, 1],
        [FIELD.secondaryCode, 0],
        [FIELD.anyCode, -1],
      ] as const
    ) {
      const picked = wanted === -1
        ? codes
        : codes.map((code, k) => (primary[k] === wanted ? code : 0));
      const groups = groupIds(picked, 0, at, (k) => ownerOf[k]!);
      for (let code = 1; code + 1 < groups.offsets.length; code++) {
        const list = sortUnique(
          groups.ids.subarray(groups.offsets[code]!, groups.offsets[code + 1]!),
        );
        if (list.length > 0) put(field, this.#codes.value(code), list);
      }
      yield;
    }
    const blob = db.prepare("INSERT INTO index_blob (name, data) VALUES (?, ?)");
    blob.run("flags", bytesOf(flags));
    blob.run("state", bytesOf(state));
    blob.run("city", bytesOf(city));
    blob.run("zip", bytesOf(zip));
    blob.run("lat", bytesOf(lat));
    blob.run("lon", bytesOf(lon));
    blob.run("tax_offsets", bytesOf(offsets));
    blob.run("tax_codes", bytesOf(codes));
    blob.run("tax_primary", bytesOf(primary));
    blob.run("updated", bytesOf(updated));
    blob.run(
      "dictionaries",
      new TextEncoder().encode(JSON.stringify({
        size: n,
        states: this.#states.values,
        cities: this.#cities.values,
        codes: this.#codes.values,
      })),
    );
    for (const [word, docs] of this.#specialtyVocabulary(codes)) sink.count(word, docs);
  }

  /** Specialty words with how many providers carry a code they name. */
  *#specialtyVocabulary(codes: Uint16Array): Generator<[string, number]> {
    const counts = new Map<number, number>();
    for (let k = 0; k < codes.length; k++) counts.set(codes[k]!, (counts.get(codes[k]!) ?? 0) + 1);
    const words = new Map<string, number>();
    for (const [code, count] of counts) {
      for (const w of this.#describeWords(this.#codes.value(code))) {
        words.set(w, (words.get(w) ?? 0) + count);
      }
    }
    yield* words;
  }
}

/**
 * Computes the typo vocabulary in a worker ({@linkcode VocabularyRequest});
 * `stop` ends the worker if the result is no longer wanted.
 */
function startVocabulary(
  request: VocabularyRequest,
): { result: Promise<Vocabulary>; stop: () => void } {
  const worker = new Worker(new URL("./vocabulary_worker.ts", import.meta.url).href, {
    type: "module",
  });
  const result = new Promise<Vocabulary>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<VocabularyMessage>) => {
      const message = event.data;
      if (message.type === "done") resolve(message.vocabulary);
      else reject(new Error(`Building the typo vocabulary failed: ${message.message}`));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`Building the typo vocabulary failed: ${event.message}`));
    };
  });
  // A failure nobody waits for any more must not surface as an unhandled rejection.
  result.catch(() => {});
  worker.postMessage(request);
  return { result, stop: () => worker.terminate() };
}

/**
 * Groups positions by value (a counting sort): for each value `v > 0` of
 * `values[from..to)`, `ids[offsets[v]..offsets[v + 1])` holds `idOf(k)` of
 * each position `k` with that value, in position order.
 */
function groupIds(
  values: ArrayLike<number>,
  from: number,
  to: number,
  idOf: (k: number) => number,
): { offsets: Uint32Array; ids: Uint32Array } {
  let max = 0;
  for (let k = from; k < to; k++) if (values[k]! > max) max = values[k]!;
  const offsets = new Uint32Array(max + 2);
  for (let k = from; k < to; k++) offsets[values[k]! + 1]!++;
  for (let v = 1; v < offsets.length; v++) offsets[v]! += offsets[v - 1]!;
  const ids = new Uint32Array(offsets[offsets.length - 1]!);
  const next = offsets.slice(0, max + 1);
  for (let k = from; k < to; k++) {
    const v = values[k]!;
    if (v !== 0) ids[next[v]!++] = idOf(k);
  }
  return { offsets, ids };
}

/** `column` with each value replaced by `renumber[value]` (in place). */
function renumbered<T extends Uint8Array | Uint32Array>(column: T, renumber: Uint32Array): T {
  for (let i = 0; i < column.length; i++) column[i] = renumber[column[i]!]!;
  return column;
}
