/**
 * The index map: a database's posting lists and index columns in one flat
 * file, laid out to be read in place through a read-only mapping
 * (`mapped_file.ts`). SQLite copies each list it returns (a long list's
 * pages into a new array: a gigabyte a second), and those copies are
 * anonymous memory the serving threads hold in caches; a list read from
 * the map is a view of the page cache, made in a microsecond whatever its
 * length.
 *
 * The map is derived from the postings part and the main file's
 * `index_blob` table, which stay the record of truth: a database without
 * one, or a process that cannot map files, reads them from SQLite.
 *
 * Layout (little-endian, every section at a multiple of 8 bytes):
 *
 * - 8 bytes `NPIXMAP1`, a `u32` header length, the header (JSON: sizes,
 *   section offsets, the blobs' places, the postings part it was made of);
 * - `fieldStart` (`u32` × fields + 1): the first entry of each field;
 * - `keyStart`, `listStart` (`u32` × entries + 1): where each entry's term
 *   starts in `keys` and its list in `ids`;
 * - `keys`: the terms' UTF-8 bytes, entries ordered by field, then term
 *   bytes (SQLite's order of the `posting` table's key);
 * - `ids`: every list's provider ids (`u32`), in entry order;
 * - each blob of `index_blob` (the columns);
 * - the typo vocabulary's buckets (`TypoBuckets`): where each starts, then
 *   their pairs, each bucket's in order of hash (named `typo:starts` and
 *   `typo:pairs` among the blobs; a map without them has its buckets read
 *   from the main file).
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { mapWithHeader } from "./mapped_file.ts";
import { TYPO_BUCKETS, type TypoBuckets, typoBucketsForMap } from "./vocabulary.ts";

const MAGIC = "NPIXMAP1";
/** The map's sections of the typo vocabulary's buckets, named as blobs are (no column's name). */
const TYPO_STARTS = "typo:starts";
const TYPO_PAIRS = "typo:pairs";
const VERSION = 1;

/** Where a section lies in the file: byte offset and length in its units. */
type Section = [offset: number, length: number];

/** The header of an index map. */
interface MapHeader {
  version: number;
  /** The postings part the lists were read from (its file name). */
  postings: string;
  entries: number;
  fields: number;
  fieldStart: Section;
  keyStart: Section;
  listStart: Section;
  keys: Section;
  ids: Section;
  blobs: Record<string, Section>;
}

const EMPTY_IDS = new Uint32Array(0);

/** Rounds up to a multiple of 8. */
function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** -1, 0 or 1 as bytes `a[from..to)` sort before, with or after all of `key`. */
function compareKey(a: Uint8Array, from: number, to: number, key: Uint8Array): number {
  const n = Math.min(to - from, key.length);
  for (let i = 0; i < n; i++) {
    const d = a[from + i]! - key[i]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  const la = to - from;
  return la === key.length ? 0 : la < key.length ? -1 : 1;
}

/** Every this many entries, one is sampled for {@linkcode IndexMap}'s term lookups. */
const SAMPLE_EVERY = 32;

/** Terms sampled at a time by `IndexMap.sampleTerms`. */
const SAMPLES_A_STEP = 12_000;

/** Bytes `at..at+4` of `a[from..to)` as a big-endian `u32`, zero past its end. */
function prefixWord(a: Uint8Array, from: number, to: number, at: number): number {
  let word = 0;
  for (let i = at; i < at + 4; i++) word = word * 256 + (from + i < to ? a[from + i]! : 0);
  return word;
}

/**
 * Which views of lists an index map keeps, handing out the same object for
 * a list asked again (see `IndexMap.#views`): lists of `ids` or more, the
 * most recently used up to `bytes` of them.
 */
export interface KeptViews {
  ids: number;
  bytes: number;
}

/**
 * Views kept by default: lists of 4,096 ids or more, 48 MB of them (the
 * budget that bounded them when the posting cache held them).
 */
export const KEPT_VIEWS: KeptViews = { ids: 4096, bytes: 48 * 1024 * 1024 };

/** The `*` that ends a precomputed prefix list's term (`jo*`). */
const STAR = 0x2a;

/**
 * A database's index map, mapped: posting lists and columns read in place.
 * Lists and columns it returns are views of the mapping: read them, never
 * write them.
 */
export class IndexMap {
  readonly #fieldStart: Uint32Array;
  readonly #keyStart: Uint32Array;
  readonly #listStart: Uint32Array;
  readonly #keys: Uint8Array;
  readonly #ids: Uint32Array;
  /**
   * The views of long lists handed out, by entry, least recently used
   * first: such a list asked again is the same object, so what is kept
   * beside it (a bitmap made for probing it: `word_sets.ts`) is found again
   * while it is kept.
   */
  readonly #views = new Map<number, Uint32Array>();
  /** The bytes the kept views span (none their own: they bound the bitmaps kept beside them). */
  #viewBytes = 0;
  readonly #kept: KeptViews;
  readonly #blobs: Map<string, Uint8Array>;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  #scratch = new Uint8Array(256);
  /**
   * The first eight bytes of every {@linkcode SAMPLE_EVERY}th entry's term
   * (two big-endian `u32`s each): a term is looked up among them first,
   * in memory a search keeps in cache, then among the 32 entries between
   * two of them (a binary search over all of a field's terms reads some 20
   * terms far apart: about 11% of a first name + prefix search at 9.7
   * million, each a miss of the processor's caches). Made in steps by
   * {@linkcode sampleTerms}, used once complete.
   */
  readonly #samples: Uint32Array;
  /** How many samples {@linkcode sampleTerms} has made. */
  #sampled = 0;
  /** The postings part the map was made of. */
  readonly postings: string;

  private constructor(buffer: ArrayBuffer, header: MapHeader, views: KeptViews) {
    this.#kept = views;
    const u32 = ([offset, length]: Section) => new Uint32Array(buffer, offset, length);
    this.postings = header.postings;
    this.#fieldStart = u32(header.fieldStart);
    this.#keyStart = u32(header.keyStart);
    this.#listStart = u32(header.listStart);
    this.#keys = new Uint8Array(buffer, header.keys[0], header.keys[1]);
    this.#ids = u32(header.ids);
    this.#blobs = new Map(
      Object.entries(header.blobs).map(([name, [offset, bytes]]) => [
        name,
        new Uint8Array(buffer, offset, bytes),
      ]),
    );
    const n = header.entries;
    if (
      this.#fieldStart[header.fields] !== n || this.#keyStart[n] !== this.#keys.length ||
      this.#listStart[n] !== this.#ids.length
    ) throw new Error("its sections do not agree");
    this.#samples = new Uint32Array(Math.ceil(n / SAMPLE_EVERY) * 2);
  }

  /**
   * Samples the next {@linkcode SAMPLES_A_STEP} terms for the lookups
   * (each read from the map: 9–44 ms a step at 9.7 million, five
   * steps); returns whether any are left. A server calls it while idle,
   * after opening; until every term is sampled, lookups search all of a
   * field's terms.
   *
   * @example
   * ```ts
   * while (map.sampleTerms());
   * ```
   */
  sampleTerms(): boolean {
    const total = this.#samples.length / 2;
    const stop = Math.min(total, this.#sampled + SAMPLES_A_STEP);
    const keys = this.#keys, starts = this.#keyStart, samples = this.#samples;
    for (let k = this.#sampled; k < stop; k++) {
      const e = k * SAMPLE_EVERY, from = starts[e]!, to = starts[e + 1]!;
      samples[2 * k] = prefixWord(keys, from, to, 0);
      samples[2 * k + 1] = prefixWord(keys, from, to, 4);
    }
    this.#sampled = stop;
    return stop < total;
  }

  /** Whether every term is sampled ({@linkcode sampleTerms}). */
  get termsSampled(): boolean {
    return this.#sampled * 2 === this.#samples.length;
  }

  /**
   * Maps the index map at `path`; null where files cannot be mapped (see
   * `canMapFiles`). Throws when the file is not an index map of this
   * version or is cut short.
   *
   * @example
   * ```ts
   * const map = IndexMap.open("data/providers.db.4242-m1x2y3.map");
   * map?.list(FIELD.surname, "fowler");
   * ```
   */
  static open(path: string, views: KeptViews = KEPT_VIEWS): IndexMap | null {
    const bad = (why: string) => new Error(`'${path}' is not a usable index map: ${why}`);
    const mapped = mapWithHeader<MapHeader>(path, MAGIC, "index map", bad);
    if (!mapped) return null;
    const { buffer, header } = mapped;
    if (header?.version !== VERSION) throw bad(`version ${header?.version}, not ${VERSION}`);
    const widths: [Section, number][] = [
      [header.fieldStart, 4],
      [header.keyStart, 4],
      [header.listStart, 4],
      [header.keys, 1],
      [header.ids, 4],
      ...Object.values(header.blobs).map((s): [Section, number] => [s, 1]),
    ];
    for (const [[offset, length], width] of widths) {
      if (offset % 8 !== 0 || offset + length * width > buffer.byteLength) {
        throw bad("it is cut short");
      }
    }
    try {
      return new IndexMap(buffer, header, views);
    } catch (error) {
      throw bad(error instanceof Error ? error.message : String(error));
    }
  }

  /** `term`'s UTF-8 bytes (in a scratch array reused by the next call). */
  #bytes(term: string): Uint8Array {
    if (term.length * 3 > this.#scratch.length) this.#scratch = new Uint8Array(term.length * 3);
    const { written } = this.#encoder.encodeInto(term, this.#scratch);
    return this.#scratch.subarray(0, written);
  }

  /** The first entry of `field` whose term is not before `key`. */
  #lowerBound(field: number, key: Uint8Array): number {
    if (field < 0 || field + 1 >= this.#fieldStart.length) return 0;
    let lo = this.#fieldStart[field]!, hi = this.#fieldStart[field + 1]!;
    const keys = this.#keys, starts = this.#keyStart;
    if (this.termsSampled) [lo, hi] = this.#sampledRange(lo, hi, key);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKey(keys, starts[mid]!, starts[mid + 1]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The entries of `lo..hi` (a field's) `key`'s lower bound is among: after
   * the last sampled entry before `key`, up to the first one not before it.
   * Eight bytes of each tell most samples apart; equal ones compare whole.
   */
  #sampledRange(lo: number, hi: number, key: Uint8Array): [number, number] {
    const keys = this.#keys, starts = this.#keyStart, samples = this.#samples;
    const keyHigh = prefixWord(key, 0, key.length, 0), keyLow = prefixWord(key, 0, key.length, 4);
    const first = Math.ceil(lo / SAMPLE_EVERY), end = Math.ceil(hi / SAMPLE_EVERY);
    let a = first, b = end;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const high = samples[2 * mid]!, low = samples[2 * mid + 1]!;
      const e = mid * SAMPLE_EVERY;
      const before = high !== keyHigh
        ? high < keyHigh
        : low !== keyLow
        ? low < keyLow
        : compareKey(keys, starts[e]!, starts[e + 1]!, key) < 0;
      if (before) a = mid + 1;
      else b = mid;
    }
    return [a > first ? (a - 1) * SAMPLE_EVERY + 1 : lo, a < end ? a * SAMPLE_EVERY : hi];
  }

  /** The entries of `field`, as a range of entry numbers. */
  #fieldRange(field: number): [number, number] {
    if (field < 0 || field + 1 >= this.#fieldStart.length) return [0, 0];
    return [this.#fieldStart[field]!, this.#fieldStart[field + 1]!];
  }

  #list(entry: number): Uint32Array {
    const from = this.#listStart[entry]!, to = this.#listStart[entry + 1]!;
    if (to - from < this.#kept.ids) return this.#ids.subarray(from, to);
    let list = this.#views.get(entry);
    if (list) {
      // Most recently used last.
      this.#views.delete(entry);
      this.#views.set(entry, list);
      return list;
    }
    list = this.#ids.subarray(from, to);
    this.#views.set(entry, list);
    this.#viewBytes += list.byteLength;
    // The least recently used go first.
    for (const [kept, view] of this.#views) {
      if (this.#viewBytes <= this.#kept.bytes || kept === entry) break;
      this.#views.delete(kept);
      this.#viewBytes -= view.byteLength;
    }
    return list;
  }

  /** The ids of a field's term (empty when absent). */
  list(field: number, term: string): Uint32Array {
    const key = this.#bytes(term);
    const at = this.#lowerBound(field, key);
    const [, end] = this.#fieldRange(field);
    if (at >= end) return EMPTY_IDS;
    const starts = this.#keyStart;
    return compareKey(this.#keys, starts[at]!, starts[at + 1]!, key) === 0
      ? this.#list(at)
      : EMPTY_IDS;
  }

  /**
   * The lists of a field's terms from `from` (included) to `to` (not), in
   * term order, less the precomputed prefix lists (terms ending in `*`).
   */
  range(field: number, from: string, to: string): Uint32Array[] {
    const first = this.#lowerBound(field, this.#bytes(from));
    const last = this.#lowerBound(field, this.#bytes(to));
    const out: Uint32Array[] = [];
    const keys = this.#keys, starts = this.#keyStart;
    for (let e = first; e < last; e++) {
      const end = starts[e + 1]!;
      if (end > starts[e]! && keys[end - 1] === STAR) continue;
      out.push(this.#list(e));
    }
    return out;
  }

  /** Each term of a field, in term order, with its list's number of ids. */
  lengths(field: number): [term: string, ids: number][] {
    const [first, last] = this.#fieldRange(field);
    const out: [string, number][] = [];
    const starts = this.#keyStart, lists = this.#listStart;
    for (let e = first; e < last; e++) {
      const term = this.#decoder.decode(this.#keys.subarray(starts[e]!, starts[e + 1]!));
      out.push([term, lists[e + 1]! - lists[e]!]);
    }
    return out;
  }

  /** An `index_blob` entry's bytes (a view of the mapping), or undefined. */
  blob(name: string): Uint8Array | undefined {
    return this.#blobs.get(name);
  }

  /**
   * The typo vocabulary's buckets, read in place (see `TypoBuckets`); null
   * for a map written before it held them, or whose sections do not agree.
   */
  typoBuckets(): TypoBuckets | null {
    const starts = this.#blobs.get(TYPO_STARTS), pairs = this.#blobs.get(TYPO_PAIRS);
    if (!starts || !pairs || starts.byteLength !== (TYPO_BUCKETS + 1) * 4) return null;
    const view = (bytes: Uint8Array) =>
      new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
    const buckets = { starts: view(starts), pairs: view(pairs) };
    return buckets.starts[TYPO_BUCKETS]! * 2 === buckets.pairs.length ? buckets : null;
  }
}

/** How an index map was written. */
export interface IndexMapStats {
  entries: number;
  bytes: number;
}

/** Bytes written to the file at a time. */
const WRITE_CHUNK = 8 * 1024 * 1024;

/** A file written from the start in large chunks. */
class ChunkWriter {
  readonly #file: Deno.FsFile;
  readonly #buffer = new Uint8Array(WRITE_CHUNK);
  #used = 0;
  written = 0;
  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  write(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      const n = Math.min(bytes.length - from, WRITE_CHUNK - this.#used);
      this.#buffer.set(bytes.subarray(from, from + n), this.#used);
      this.#used += n;
      from += n;
      if (this.#used === WRITE_CHUNK) this.flush();
    }
    this.written += bytes.length;
  }

  /** Zero bytes up to the next multiple of 8. */
  pad(): void {
    const gap = align8(this.written) - this.written;
    if (gap > 0) this.write(new Uint8Array(gap));
  }

  flush(): void {
    let at = 0;
    while (at < this.#used) at += this.#file.writeSync(this.#buffer.subarray(at, this.#used));
    this.#used = 0;
  }
}

/**
 * Writes the index map of a database to `path` (through a temporary file
 * renamed when whole): the lists of its postings part `postings` (named
 * `postingsName`) and the blobs of its main file `db`.
 *
 * @example
 * ```ts
 * writeIndexMap("data/p.db.4242-m1x2y3.map", db, postings, "p.db.4242-m1x2y3.postings");
 * ```
 */
export function writeIndexMap(
  path: string,
  db: DatabaseSync,
  postings: DatabaseSync,
  postingsName: string,
): IndexMapStats {
  // First pass: terms and list lengths, no list read (SQLite answers `length()` from the header).
  const fields: number[] = [];
  const keyStart: number[] = [0];
  const listStart: number[] = [0];
  let keys = new Uint8Array(1 << 20);
  const encoder = new TextEncoder();
  let keyBytes = 0, ids = 0;
  const rows = postings.prepare(
    "SELECT field, term, length(ids) AS bytes FROM posting ORDER BY field, term",
  ).iterate() as Iterable<{ field: number; term: string; bytes: number }>;
  for (const { field, term, bytes } of rows) {
    if (bytes % 4 !== 0) throw new Error(`The list of term '${term}' is not whole ids`);
    if (keys.length - keyBytes < term.length * 3) {
      const grown = new Uint8Array(Math.max(keys.length * 2, keyBytes + term.length * 3));
      grown.set(keys.subarray(0, keyBytes));
      keys = grown;
    }
    keyBytes += encoder.encodeInto(term, keys.subarray(keyBytes)).written;
    ids += bytes / 4;
    if (keyBytes > 0xffff_ffff || ids > 0xffff_ffff) {
      throw new RangeError("The posting lists are too large for an index map");
    }
    fields.push(field);
    keyStart.push(keyBytes);
    listStart.push(ids);
  }
  const entries = fields.length;
  const fieldCount = (entries > 0 ? fields[entries - 1]! : 0) + 1;
  const fieldStart = new Uint32Array(fieldCount + 1);
  for (let f = 0, e = 0; f <= fieldCount; f++) {
    while (e < entries && fields[e]! < f) e++;
    fieldStart[f] = e;
  }
  const blobRows = db.prepare("SELECT name, length(data) AS bytes FROM index_blob ORDER BY name")
    .all() as { name: string; bytes: number }[];
  const typo = typoBucketsForMap(db);
  const typoPairBytes = typo.starts[TYPO_BUCKETS]! * 8;
  // Section offsets: the header's own length is found by writing it with provisional offsets.
  const place = (start: number) => {
    let at = start;
    const next = (bytes: number): Section => {
      const s: Section = [at, 0];
      at = align8(at + bytes);
      return s;
    };
    const header: MapHeader = {
      version: VERSION,
      postings: postingsName,
      entries,
      fields: fieldCount,
      fieldStart: next(fieldStart.byteLength),
      keyStart: next(keyStart.length * 4),
      listStart: next(listStart.length * 4),
      keys: next(keyBytes),
      ids: next(ids * 4),
      blobs: {},
    };
    header.fieldStart[1] = fieldStart.length;
    header.keyStart[1] = keyStart.length;
    header.listStart[1] = listStart.length;
    header.keys[1] = keyBytes;
    header.ids[1] = ids;
    for (const { name, bytes } of blobRows) header.blobs[name] = [next(bytes)[0], bytes];
    header.blobs[TYPO_STARTS] = [next(typo.starts.byteLength)[0], typo.starts.byteLength];
    header.blobs[TYPO_PAIRS] = [next(typoPairBytes)[0], typoPairBytes];
    return header;
  };
  let headerText = "";
  for (let start = 16;;) {
    headerText = JSON.stringify(place(start));
    const needed = align8(12 + encoder.encode(headerText).length);
    if (needed <= start) break;
    start = needed;
  }
  const header = JSON.parse(headerText) as MapHeader;
  const temp = `${path}.partial`;
  const file = Deno.openSync(temp, { write: true, create: true, truncate: true });
  try {
    const out = new ChunkWriter(file);
    const headerBytes = encoder.encode(headerText);
    const lead = new Uint8Array(12);
    lead.set(encoder.encode(MAGIC));
    new DataView(lead.buffer).setUint32(8, headerBytes.length, true);
    out.write(lead);
    out.write(headerBytes);
    const seekTo = (offset: number) => {
      if (out.written > offset) throw new Error("Index map sections overlap");
      out.write(new Uint8Array(offset - out.written));
    };
    seekTo(header.fieldStart[0]);
    out.write(new Uint8Array(fieldStart.buffer));
    seekTo(header.keyStart[0]);
    out.write(new Uint8Array(Uint32Array.from(keyStart).buffer));
    seekTo(header.listStart[0]);
    out.write(new Uint8Array(Uint32Array.from(listStart).buffer));
    seekTo(header.keys[0]);
    out.write(keys.subarray(0, keyBytes));
    seekTo(header.ids[0]);
    // Second pass: the lists, in the same order, each checked against the first pass's length.
    let entry = 0;
    const lists = postings.prepare("SELECT ids FROM posting ORDER BY field, term")
      .iterate() as Iterable<{ ids: Uint8Array }>;
    for (const { ids: list } of lists) {
      if (entry >= entries || list.length !== (listStart[entry + 1]! - listStart[entry]!) * 4) {
        throw new Error("The posting lists changed while the index map was written");
      }
      out.write(list);
      entry++;
    }
    if (entry !== entries) throw new Error("The posting lists changed while the map was written");
    const blob = db.prepare("SELECT data FROM index_blob WHERE name = ?");
    for (const { name, bytes } of blobRows) {
      seekTo(header.blobs[name]![0]);
      const row = blob.get(name) as { data: Uint8Array };
      if (row.data.length !== bytes) throw new Error(`Index blob '${name}' changed`);
      out.write(row.data);
    }
    seekTo(header.blobs[TYPO_STARTS]![0]);
    out.write(new Uint8Array(typo.starts.buffer));
    seekTo(header.blobs[TYPO_PAIRS]![0]);
    typo.writePairs((bytes) => out.write(bytes));
    out.pad();
    out.flush();
    file.syncSync();
  } catch (error) {
    file.close();
    try {
      Deno.removeSync(temp);
    } catch { /* never written */ }
    throw error;
  }
  const bytes = file.statSync().size;
  file.close();
  Deno.renameSync(temp, path);
  return { entries, bytes };
}
