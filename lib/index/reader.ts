/**
 * The search index at query time: columns loaded once as typed arrays,
 * posting lists read on demand and kept in a byte-bounded LRU cache. With
 * an index map (`index_map.ts`) both are views of the mapped file, read in
 * place; without, they are read from SQLite.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { FIELD, FLAG, PREFIX_LENGTHS } from "./fields.ts";
import { bitsOf, EMPTY, intersect, intersectUnion, unionAll } from "./sorted.ts";
import { ByteLru } from "../lru.ts";
import { arrayRows } from "../sqlite_rows.ts";
import type { IndexMap } from "./index_map.ts";
import type { TypoBuckets } from "./vocabulary.ts";

function view<T extends Uint32Array | Float32Array | Uint16Array | Uint8Array>(
  bytes: Uint8Array,
  make: new (buffer: ArrayBuffer, offset: number, length: number) => T,
  width: number,
): T {
  const aligned = bytes.byteOffset % width === 0 ? bytes : bytes.slice();
  return new make(aligned.buffer as ArrayBuffer, aligned.byteOffset, aligned.byteLength / width);
}

/** Reads a byte of every page of `bytes` (a mapped column), so that none is faulted in later. */
function touchPages(bytes: Uint8Array): number {
  let sum = 0;
  for (let at = 0; at < bytes.length; at += 4096) sum += bytes[at]!;
  return sum;
}

/** Counts of the whole dataset by flags, for unfiltered browsing. */
export interface FlagCounts {
  /** `count(mask, value)`: providers whose `flags & mask` equals `value`. */
  count(mask: number, value: number): number;
}

/** Columns read at open: small, and every search reads them. */
const EAGER = ["dictionaries", "flags", "state"] as const;

/**
 * Columns read on first use, or by {@linkcode SearchIndex.warm} while the
 * server is idle (most of the start-up time otherwise: some 200 MB at full
 * scale). Each is one value per provider id (`perId`, index 0 unused) or a
 * list indexed through another column. The ZIP and primary-code columns are
 * stored too, but ZIP and code filters use their posting lists.
 */
const LAZY = {
  city: { width: 4, perId: true },
  lat: { width: 4, perId: true },
  lon: { width: 4, perId: true },
  tax_offsets: { width: 4, perId: true },
  tax_codes: { width: 2, perId: false },
  tax_primary: { width: 1, perId: false },
  updated: { width: 2, perId: true },
} as const;

/** The columns {@linkcode SearchIndex.warm} reads, in its order. */
const WARMED: readonly LazyColumn[] = [
  "city",
  "lat",
  "lon",
  "tax_offsets",
  "tax_codes",
  "tax_primary",
];

/** The name of a column read on first use (see `LAZY`). */
export type LazyColumn = keyof typeof LAZY;

/** Lazy columns' bytes by name, as one search index hands them to another. */
export type ColumnBytes = Partial<Record<LazyColumn, Uint8Array>>;

/** Options of {@linkcode SearchIndex.open}. */
export interface SearchIndexOptions {
  /**
   * Bytes of posting lists kept between searches: the unions of a prefix's
   * terms, and lists read from SQLite (an index map's are views of it, read
   * in place each time). Default 256 MB.
   */
  cacheBytes?: number;
  /**
   * Read lazy columns into shared memory, so that other threads' indexes of
   * the same file can adopt them ({@linkcode SearchIndex.adopt}) instead of
   * each holding a copy.
   */
  shared?: boolean;
  /**
   * The database's index map, mapped: lists and columns are read from it in
   * place (see `index_map.ts`) instead of from SQLite.
   */
  map?: IndexMap | null;
}

/** The loaded index of one database. */
export class SearchIndex {
  /** Number of providers (ids run 1..size). */
  readonly size: number;
  readonly flags: Uint8Array;
  readonly state: Uint8Array;
  readonly states: readonly string[];
  readonly cities: readonly string[];
  readonly codes: readonly string[];
  #city: Uint32Array | null = null;
  #lat: Float32Array | null = null;
  #lon: Float32Array | null = null;
  #taxOffsets: Uint32Array | null = null;
  #taxCodes: Uint16Array | null = null;
  #taxPrimary: Uint8Array | null = null;
  #codeNumbers: Map<string, number> | null = null;
  #codeLengths: Uint32Array | null = null;
  #updated: Uint16Array | null = null;
  readonly #blob: StatementSync;
  readonly #lengths: StatementSync;
  readonly #get: StatementSync;
  readonly #range: StatementSync;
  readonly #cache: ByteLru<Uint32Array>;
  readonly #flagCounts = new Map<number, number>();
  #activeEnd: number | undefined;
  #stateCounts: Uint32Array | null = null;
  /** Bitmaps of the providers with each first or middle initial, by letter (see `initialBits`). */
  readonly #initials = new Map<string, Uint32Array>();
  readonly #shared: boolean;
  readonly #map: IndexMap | null;
  /** Lazy columns read from the index map (views of it, never handed on). */
  readonly #mapped = new Set<LazyColumn>();
  /** Lazy columns' bytes as read or adopted, by name. */
  readonly #bytes: ColumnBytes = {};

  /** Hits and misses of the posting-list cache. */
  get cacheCounts(): { hits: number; misses: number } {
    return { hits: this.#cache.hits, misses: this.#cache.misses };
  }

  private constructor(
    db: DatabaseSync,
    postings: DatabaseSync,
    cacheBytes: number,
    shared: boolean,
    map: IndexMap | null,
  ) {
    this.#shared = shared;
    this.#map = map;
    // Every column must be there with a plausible length before the first query needs it
    // (SQLite answers `length()` of a blob without reading it).
    const lengths = new Map<string, number>();
    for (const row of db.prepare("SELECT name, length(data) AS bytes FROM index_blob").all()) {
      const { name, bytes } = row as { name: string; bytes: number };
      lengths.set(name, bytes);
    }
    const missing = (name: string) =>
      new Error(`The search index has no '${name}' column: import the data again`);
    this.#blob = db.prepare("SELECT data FROM index_blob WHERE name = ?");
    const read = (name: string) => {
      const mapped = map?.blob(name);
      if (mapped && mapped.byteLength === lengths.get(name)) return mapped;
      const row = lengths.has(name) ? this.#blob.get(name) as { data: Uint8Array } : undefined;
      if (!row) throw missing(name);
      return row.data;
    };
    const [dictionaryBytes, flags, state] = EAGER.map(read) as [Uint8Array, Uint8Array, Uint8Array];
    const dictionaries = JSON.parse(new TextDecoder().decode(dictionaryBytes)) as {
      size: number;
      states: string[];
      cities: string[];
      codes: string[];
    };
    this.size = dictionaries.size;
    this.states = dictionaries.states;
    this.cities = dictionaries.cities;
    this.codes = dictionaries.codes;
    this.flags = flags;
    this.state = state;
    for (const [name, { width, perId }] of Object.entries(LAZY)) {
      const bytes = lengths.get(name);
      if (bytes === undefined) throw missing(name);
      if (bytes % width !== 0 || (perId && bytes < (this.size + 1) * width)) {
        throw new Error(
          `The search index's '${name}' column is ${bytes} bytes, too short for ${this.size} ` +
            "providers: import the data again",
        );
      }
    }
    this.#get = postings.prepare("SELECT ids FROM posting WHERE field = ? AND term = ?");
    this.#lengths = arrayRows(
      postings.prepare("SELECT term, length(ids) FROM posting WHERE field = ? ORDER BY term"),
    );
    this.#range = arrayRows(postings.prepare(
      "SELECT ids FROM posting WHERE field = ? AND term >= ? AND term < ? AND substr(term, -1) <> '*'",
    ));
    this.#cache = new ByteLru<Uint32Array>(cacheBytes, (list) => list.byteLength);
  }

  #column<T extends Uint32Array | Float32Array | Uint16Array | Uint8Array>(
    name: LazyColumn,
    make: new (buffer: ArrayBuffer, offset: number, length: number) => T,
  ): T {
    return view(this.#bytesOf(name), make, LAZY[name].width);
  }

  /** A lazy column's bytes: held (read or adopted) already, or read now. */
  #bytesOf(name: LazyColumn): Uint8Array {
    let bytes = this.#bytes[name];
    const mapped = bytes ? undefined : this.#map?.blob(name);
    if (mapped) {
      // Read in place: its pages are touched now, while idle, not by the first search.
      touchPages(mapped);
      bytes = this.#bytes[name] = mapped;
      this.#mapped.add(name);
    } else if (!bytes) {
      const row = this.#blob.get(name) as { data: Uint8Array } | undefined;
      if (!row) throw new Error(`The search index has no '${name}' column: import the data again`);
      bytes = row.data;
      if (this.#shared) {
        bytes = new Uint8Array(new SharedArrayBuffer(row.data.byteLength));
        bytes.set(row.data);
      }
      this.#bytes[name] = bytes;
    }
    return bytes;
  }

  /**
   * Takes lazy columns another index of the same file read into shared
   * memory, for those not read here yet (a column already read is kept).
   * Throws when a column's length does not fit this index.
   *
   * @example
   * ```ts
   * other.adopt(first.columnBytes());
   * ```
   */
  adopt(columns: ColumnBytes): void {
    for (const [name, bytes] of Object.entries(columns) as [LazyColumn, Uint8Array][]) {
      const { width, perId } = LAZY[name];
      if (bytes.byteLength % width !== 0 || (perId && bytes.byteLength < (this.size + 1) * width)) {
        throw new RangeError(
          `Column '${name}' of ${bytes.byteLength} bytes does not fit this index`,
        );
      }
      this.#bytes[name] ??= bytes;
    }
  }

  /**
   * The lazy columns read (or adopted) so far, by name: shared memory when
   * opened `shared`. Columns read from an index map are not among them:
   * each thread maps the file itself.
   */
  columnBytes(): ColumnBytes {
    const out: ColumnBytes = {};
    for (const [name, bytes] of Object.entries(this.#bytes) as [LazyColumn, Uint8Array][]) {
      if (!this.#mapped.has(name)) out[name] = bytes;
    }
    return out;
  }

  /** City number of each provider id (into {@linkcode cities}). */
  get city(): Uint32Array {
    return this.#city ??= this.#column("city", Uint32Array);
  }

  /** Latitude of each provider id's practice location (NaN when not located). */
  get lat(): Float32Array {
    return this.#lat ??= this.#column("lat", Float32Array);
  }

  /** Longitude of each provider id's practice location (NaN when not located). */
  get lon(): Float32Array {
    return this.#lon ??= this.#column("lon", Float32Array);
  }

  /** Where each provider id's codes start in {@linkcode taxCodes} (they end where the next start). */
  get taxOffsets(): Uint32Array {
    return this.#taxOffsets ??= this.#column("tax_offsets", Uint32Array);
  }

  /** Taxonomy code numbers (into {@linkcode codes}) of every provider, by id. */
  get taxCodes(): Uint16Array {
    return this.#taxCodes ??= this.#column("tax_codes", Uint16Array);
  }

  /** Whether each entry of {@linkcode taxCodes} is its provider's primary taxonomy (1) or not (0). */
  get taxPrimary(): Uint8Array {
    return this.#taxPrimary ??= this.#column("tax_primary", Uint8Array);
  }

  /**
   * A blob of the index map read in place (a view of the mapping, never to
   * be written); undefined without a map or when the map holds none of
   * that name (a database built before the blob was).
   */
  mappedBlob(name: string): Uint8Array | undefined {
    return this.#map?.blob(name);
  }

  /** The number of a taxonomy code in {@linkcode codes} (0 when the dataset has none). */
  codeNumber(code: string): number {
    this.#codeNumbers ??= new Map(this.codes.map((c, i) => [c, i]));
    return this.#codeNumbers.get(code) ?? 0;
  }

  /**
   * How many providers hold code number `number` as their primary taxonomy
   * (`primary`) or as another: the lengths of the code's posting lists, read
   * for every code at once on first use without reading the lists.
   */
  codeListLength(number: number, primary: boolean): number {
    if (!this.#codeLengths) {
      const lengths = new Uint32Array(this.codes.length * 2);
      for (const [field, slot] of [[FIELD.primaryCode, 1], [FIELD.secondaryCode, 0]] as const) {
        for (const [term, ids] of this.listLengths(field)) {
          const at = this.codeNumber(term);
          if (at > 0) lengths[at * 2 + slot] = ids;
        }
      }
      this.#codeLengths = lengths;
    }
    return this.#codeLengths[number * 2 + (primary ? 1 : 0)]!;
  }

  /**
   * Day of each provider id's last update (days since 1970-01-01; 0 for
   * none: `updated.ts`). Read on first use only, not by {@linkcode warm}:
   * only `_lastUpdated` searches need it.
   */
  get updated(): Uint16Array {
    return this.#updated ??= this.#column("updated", Uint16Array);
  }

  /**
   * Reads one column not read yet, or once all are, samples a step of the
   * index map's terms for its lookups (`IndexMap.sampleTerms`); returns
   * whether anything is left. A server calls it between requests after
   * opening, a step at a time, so that no search pays for the reading and
   * none waits long behind it.
   *
   * @example
   * ```ts
   * const step = () => index.warm() && setTimeout(step, 0);
   * step();
   * ```
   */
  warm(): boolean {
    const next = WARMED.find((name) => this.#bytes[name] === undefined);
    if (next) this.#bytesOf(next);
    else this.#map?.sampleTerms();
    // With the first step, the active bound (a pass over the flags: 25 ms at 9.7 million), so that
    // no search pays for it.
    void this.activeEnd;
    return !this.columnsHeld || !(this.#map?.termsSampled ?? true);
  }

  /** Whether every column {@linkcode warm} reads is read or adopted already. */
  get columnsHeld(): boolean {
    return WARMED.every((name) => this.#bytes[name] !== undefined);
  }

  /**
   * Loads the index of a database: its columns and vocabulary from the main
   * file `db`, its posting lists from the postings part `postings`.
   *
   * @example
   * ```ts
   * const index = SearchIndex.open(db, postings, { cacheBytes: 256 << 20 });
   * ```
   */
  static open(
    db: DatabaseSync,
    postings: DatabaseSync,
    options: SearchIndexOptions = {},
  ): SearchIndex {
    return new SearchIndex(
      db,
      postings,
      options.cacheBytes ?? 256 * 1024 * 1024,
      options.shared ?? false,
      options.map ?? null,
    );
  }

  #remember(key: string, list: Uint32Array): Uint32Array {
    this.#cache.set(key, list);
    return list;
  }

  #cached(key: string): Uint32Array | undefined {
    return this.#cache.get(key);
  }

  /** The ids of a field's term (empty when absent). */
  list(field: number, term: string): Uint32Array {
    // A list of the index map is a view of it, found there again at the cost of a binary search:
    // not kept in the cache, whose budget goes to the lists made by reading and uniting.
    if (this.#map) return this.#map.list(field, term);
    const key = `${field}\u0000${term}`;
    return this.#cached(key) ?? this.#remember(key, this.#read(field, term));
  }

  /** A term's list as stored, past the cache: a view of the index map, or read from SQLite. */
  #read(field: number, term: string): Uint32Array {
    if (this.#map) return this.#map.list(field, term);
    const row = this.#get.get(field, term) as { ids: Uint8Array } | undefined;
    return row ? view(row.ids, Uint32Array, 4) : EMPTY;
  }

  /** The ids of every term of a field starting with `prefix` (the prefix itself included). */
  prefix(field: number, prefix: string): Uint32Array {
    return this.#terms(field, prefix, true);
  }

  /**
   * The ids of every term of a field that extends `prefix` (starts with it
   * and is longer), for a word also matched as typed: its own list is then
   * not read and merged twice. Short prefixes with a precomputed list take
   * that list, the word's own ids included.
   */
  extensions(field: number, prefix: string): Uint32Array {
    return this.#terms(field, prefix, false);
  }

  /**
   * The ids of `within` (sorted) in any of a field's terms starting with
   * `prefix`: {@linkcode prefix} intersected with `within`, the terms'
   * lists read against `within` instead of united first when their union
   * is neither precomputed nor cached (see `intersectUnion`).
   */
  prefixWithin(field: number, prefix: string, within: Uint32Array): Uint32Array {
    if (prefix === "" || within.length === 0) return EMPTY;
    const united = this.#precomputed(field, prefix) ??
      this.#cached(this.#termsKey(field, prefix, true));
    if (united) return intersect(within, united);
    return intersectUnion(within, this.#rangeLists(field, prefix, true), this.size + 1);
  }

  /** The union of a field's terms starting with `prefix`, with or without `prefix` itself. */
  #terms(field: number, prefix: string, itself: boolean): Uint32Array {
    if (prefix === "") return EMPTY;
    const precomputed = this.#precomputed(field, prefix);
    if (precomputed) return precomputed;
    const key = this.#termsKey(field, prefix, itself);
    const hit = this.#cached(key);
    if (hit) return hit;
    return this.#remember(key, unionAll(this.#rangeLists(field, prefix, itself), this.size + 1));
  }

  /** A short prefix's list made at build time (the union of its terms), if the field has one. */
  #precomputed(field: number, prefix: string): Uint32Array | undefined {
    if (!PREFIX_LENGTHS.includes(prefix.length)) return undefined;
    const list = this.list(field, `${prefix}*`);
    return list.length > 0 ? list : undefined;
  }

  #termsKey(field: number, prefix: string, itself: boolean): string {
    return `${field}\u0000${prefix}${itself ? "\u0001" : "\u0002"}`;
  }

  /** The lists of a field's terms starting with `prefix` (with or without `prefix` itself). */
  #rangeLists(field: number, prefix: string, itself: boolean): Uint32Array[] {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    // Terms are `[a-z0-9]` and the like: any longer one sorts after `prefix` + U+0000.
    const from = itself ? prefix : `${prefix}\u0000`;
    if (this.#map) return this.#map.range(field, from, end);
    return (this.#range.all(field, from, end) as unknown as [Uint8Array][]).map(([ids]) =>
      view(ids, Uint32Array, 4)
    );
  }

  /** The typo vocabulary's buckets in the index map, read in place; null without a map holding them. */
  typoBuckets(): TypoBuckets | null {
    return this.#map?.typoBuckets() ?? null;
  }

  /**
   * The providers whose first or middle name starts with `letter`, as a
   * bitmap (bit `id & 31` of word `id >>> 5`): made from the letter's
   * posting list on first use and kept, one per letter (1.2 MB each at 9.7
   * million, where the list of `j` is 5.7 MB and is tested against
   * candidates on every search with that initial).
   *
   * @example
   * ```ts
   * const bits = index.initialBits("j");
   * (bits[id >>> 5]! >>> (id & 31)) & 1; // 1 when provider `id` has the initial J
   * ```
   */
  initialBits(letter: string): Uint32Array {
    let bits = this.#initials.get(letter);
    if (!bits) {
      // Read past the cache: the list is wanted this once.
      const list = this.#read(FIELD.initial, letter);
      bits = bitsOf(list.length > 0 ? [list] : [], this.size + 1);
      this.#initials.set(letter, bits);
    }
    return bits;
  }

  /**
   * The first id of the deactivated providers: every id below it is active
   * and none from it on is, as the rank order puts active providers first
   * (`size + 1` when all are active). 0 when the flags do not hold that.
   * Found by one pass over the flags, by {@linkcode warm} or on first use.
   */
  get activeEnd(): number {
    if (this.#activeEnd === undefined) {
      const flags = this.flags;
      let end = 1;
      while (end <= this.size && (flags[end]! & FLAG.active) !== 0) end++;
      let id = end;
      while (id <= this.size && (flags[id]! & FLAG.active) === 0) id++;
      this.#activeEnd = id > this.size ? end : 0;
    }
    return this.#activeEnd;
  }

  /** How many providers have `flags & mask === value` (computed once per mask and value). */
  countFlags(mask: number, value: number): number {
    const key = mask * 256 + value;
    let n = this.#flagCounts.get(key);
    if (n === undefined) {
      n = 0;
      const flags = this.flags;
      for (let id = 1; id <= this.size; id++) if ((flags[id]! & mask) === value) n++;
      this.#flagCounts.set(key, n);
    }
    return n;
  }

  /**
   * How many providers practise in state number `value` (into
   * {@linkcode states}): the lengths of the states' posting lists, read
   * for every state at once on first use without reading the lists.
   */
  stateCount(value: number): number {
    if (!this.#stateCounts) {
      const counts = new Uint32Array(this.states.length);
      const numbers = new Map(this.states.map((s, i) => [s, i]));
      for (const [term, ids] of this.listLengths(FIELD.state)) {
        const at = numbers.get(term) ?? 0;
        if (at > 0) counts[at] = ids;
      }
      this.#stateCounts = counts;
    }
    return this.#stateCounts[value] ?? 0;
  }

  /**
   * Each term of a field, in term order, with its list's number of ids,
   * from the stored sizes (no list read).
   */
  listLengths(field: number): [term: string, ids: number][] {
    if (this.#map) return this.#map.lengths(field);
    const rows = this.#lengths.all(field) as unknown as [string, number][];
    return rows.map(([term, bytes]) => [term, bytes / 4]);
  }

  /** Whether provider `id` is active. */
  isActive(id: number): boolean {
    return (this.flags[id]! & FLAG.active) !== 0;
  }
}
