/**
 * The search index at query time: columns loaded once as typed arrays,
 * posting lists read on demand and kept in a byte-bounded LRU cache.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { FLAG, PREFIX_LENGTHS } from "./fields.ts";
import { EMPTY, unionAll } from "./sorted.ts";

function view<T extends Uint32Array | Float32Array | Uint16Array>(
  bytes: Uint8Array,
  make: new (buffer: ArrayBuffer, offset: number, length: number) => T,
  width: number,
): T {
  const aligned = bytes.byteOffset % width === 0 ? bytes : bytes.slice();
  return new make(aligned.buffer as ArrayBuffer, aligned.byteOffset, aligned.byteLength / width);
}

/** Counts of the whole dataset by flags, for unfiltered browsing. */
export interface FlagCounts {
  /** `count(mask, value)`: providers whose `flags & mask` equals `value`. */
  count(mask: number, value: number): number;
}

/**
 * The index columns loaded at start: the ones searching reads (the ZIP and
 * primary-code columns are stored too, but ZIP and code filters use their
 * posting lists).
 */
const COLUMNS = [
  "dictionaries",
  "flags",
  "state",
  "city",
  "lat",
  "lon",
  "tax_offsets",
  "tax_codes",
] as const;

/** The loaded index of one database. */
export class SearchIndex {
  /** Number of providers (ids run 1..size). */
  readonly size: number;
  readonly flags: Uint8Array;
  readonly state: Uint8Array;
  readonly city: Uint32Array;
  readonly lat: Float32Array;
  readonly lon: Float32Array;
  readonly taxOffsets: Uint32Array;
  readonly taxCodes: Uint16Array;
  readonly states: readonly string[];
  readonly cities: readonly string[];
  readonly codes: readonly string[];
  readonly #get: StatementSync;
  readonly #range: StatementSync;
  readonly #cache = new Map<string, Uint32Array>();
  readonly #budget: number;
  #bytes = 0;
  readonly #flagCounts = new Map<number, number>();

  private constructor(db: DatabaseSync, cacheBytes: number) {
    const blobs = new Map<string, Uint8Array>();
    // Start-up time is mostly reading these.
    const names = COLUMNS.map((name) => `'${name}'`).join(", ");
    for (
      const row of db.prepare(`SELECT name, data FROM index_blob WHERE name IN (${names})`).all()
    ) {
      const { name, data } = row as { name: string; data: Uint8Array };
      blobs.set(name, data);
    }
    const need = (name: string) => {
      const b = blobs.get(name);
      if (!b) throw new Error(`The search index has no '${name}' column: import the data again`);
      return b;
    };
    const dictionaries = JSON.parse(new TextDecoder().decode(need("dictionaries"))) as {
      size: number;
      states: string[];
      cities: string[];
      codes: string[];
    };
    this.size = dictionaries.size;
    this.states = dictionaries.states;
    this.cities = dictionaries.cities;
    this.codes = dictionaries.codes;
    this.flags = need("flags");
    this.state = need("state");
    this.city = view(need("city"), Uint32Array, 4);
    this.lat = view(need("lat"), Float32Array, 4);
    this.lon = view(need("lon"), Float32Array, 4);
    this.taxOffsets = view(need("tax_offsets"), Uint32Array, 4);
    this.taxCodes = view(need("tax_codes"), Uint16Array, 2);
    this.#get = db.prepare("SELECT ids FROM posting WHERE field = ? AND term = ?");
    this.#range = db.prepare(
      "SELECT ids FROM posting WHERE field = ? AND term >= ? AND term < ? AND substr(term, -1) <> '*'",
    );
    this.#budget = cacheBytes;
  }

  /**
   * Loads the index of a database.
   *
   * @example
   * ```ts
   * const index = SearchIndex.open(db, { cacheBytes: 256 << 20 });
   * ```
   */
  static open(db: DatabaseSync, options: { cacheBytes?: number } = {}): SearchIndex {
    return new SearchIndex(db, options.cacheBytes ?? 256 * 1024 * 1024);
  }

  #remember(key: string, list: Uint32Array): Uint32Array {
    this.#cache.set(key, list);
    this.#bytes += list.byteLength;
    for (const [k, v] of this.#cache) {
      if (this.#bytes <= this.#budget) break;
      this.#cache.delete(k);
      this.#bytes -= v.byteLength;
    }
    return list;
  }

  #cached(key: string): Uint32Array | undefined {
    const hit = this.#cache.get(key);
    if (hit) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
    }
    return hit;
  }

  /** The ids of a field's term (empty when absent). */
  list(field: number, term: string): Uint32Array {
    const key = `${field}\u0000${term}`;
    const hit = this.#cached(key);
    if (hit) return hit;
    const row = this.#get.get(field, term) as { ids: Uint8Array } | undefined;
    return this.#remember(key, row ? view(row.ids, Uint32Array, 4) : EMPTY);
  }

  /** The ids of every term of a field starting with `prefix` (the prefix itself included). */
  prefix(field: number, prefix: string): Uint32Array {
    if (prefix === "") return EMPTY;
    if (PREFIX_LENGTHS.includes(prefix.length)) {
      const precomputed = this.list(field, `${prefix}*`);
      if (precomputed.length > 0) return precomputed;
    }
    const key = `${field}\u0000${prefix}\u0001`;
    const hit = this.#cached(key);
    if (hit) return hit;
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const lists = (this.#range.all(field, prefix, end) as { ids: Uint8Array }[]).map((r) =>
      view(r.ids, Uint32Array, 4)
    );
    return this.#remember(key, unionAll(lists));
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

  /** Whether provider `id` is active. */
  isActive(id: number): boolean {
    return (this.flags[id]! & FLAG.active) !== 0;
  }
}
