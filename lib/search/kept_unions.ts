/**
 * Kept unions: the unions of the commonest query words and prefixes (`ca`,
 * `phy`, `health` as typed; `jennifer` before a surname, `che` typed last),
 * built once with the database and kept beside it in one file, read in
 * place through a read-only mapping (`mapped_file.ts`). Building such a
 * union the first time a server meets the word reads hundreds of thousands
 * to millions of ids from dozens of lists, while every search behind it
 * waits; read from the file it costs what the search reads of it, and it
 * takes no anonymous memory and no room in the word-union cache
 * (`word_sets.ts`).
 *
 * A set here is exactly what the engine would build for the same key
 * (`plannedUnion` in `engine.ts` builds it): same ids, same levels, same
 * form — dense for a word an eighth of the registry or more holds, sparse
 * below.
 *
 * Layout (little-endian, every set at a multiple of 8 bytes): 8 bytes
 * `NPIUNIO1`, a `u32` header length, the header (JSON: version, the
 * universe of ids, the postings part the index was read from, and each
 * set's key, form, size and offset), then the sets. A dense set is its
 * nibbles (`(universe + 1) / 2` bytes) and, at the next multiple of 8, its
 * bits (`(universe + 31) / 32` `u32`), as `WordSet` lays them out; a sparse
 * set of `size` ids is its ids (`size` `u32`, ascending) and then their
 * levels (`size` bytes). Version 1 files hold dense sets only, and are read
 * as they are.
 *
 * @module
 */
import { mapWithHeader } from "../index/mapped_file.ts";
import { missingPart, partPath } from "../store/parts.ts";
import type { WordSet } from "./word_sets.ts";

const MAGIC = "NPIUNIO1";
/** Version 2 adds sparse sets (`kind`); version 1's entries are all dense. */
const VERSION = 2;
const READABLE_VERSIONS: readonly number[] = [1, VERSION];

/** One kept set: its cache key, its form, how many ids it holds, and where it starts. */
interface KeptEntry {
  key: string;
  /** Absent in version 1: dense. */
  kind?: WordSet["kind"];
  size: number;
  at: number;
}

/** The header of a kept-unions file. */
interface KeptHeader {
  version: number;
  /** Ids `0..universe-1` (the index's size plus 1). */
  universe: number;
  /** The postings part the sets were built from (its file name). */
  postings: string;
  sets: KeptEntry[];
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** Bytes of a dense set's nibbles and, aligned, its bits, over `universe` ids. */
function setLayout(
  universe: number,
): { nibbles: number; bitsAt: number; words: number; bytes: number } {
  const nibbles = (universe + 1) >>> 1, words = (universe + 31) >>> 5;
  const bitsAt = align8(nibbles);
  return { nibbles, bitsAt, words, bytes: align8(bitsAt + words * 4) };
}

/** Bytes of a sparse set of `size` ids: the ids, their levels, padded to a multiple of 8. */
function sparseBytes(size: number): number {
  return align8(size * 5);
}

/** The unions kept beside a database, by their word-set cache key. */
export class KeptUnions {
  readonly #sets: Map<string, WordSet>;
  /** Searches that found a word's union here. */
  hits = 0;

  private constructor(sets: Map<string, WordSet>) {
    this.#sets = sets;
  }

  /**
   * Maps the file at `path`, made for an index of `universe` ids read from
   * the postings part `postings`; null where files cannot be mapped.
   * Throws when it is not such a file (cut short, another index's).
   *
   * @example
   * ```ts
   * const kept = KeptUnions.open("data/p.db.4242-m1x2y3.unions", index.size + 1, parts.postings);
   * kept?.get("ca\u00001\u00001\u00000\u00004")?.size;
   * ```
   */
  static open(path: string, universe: number, postings: string): KeptUnions | null {
    const bad = (why: string) => new Error(`'${path}' is not a usable file of kept unions: ${why}`);
    const mapped = mapWithHeader<KeptHeader>(path, MAGIC, "kept unions", bad);
    if (!mapped) return null;
    const { buffer, header, headerEnd } = mapped;
    if (!READABLE_VERSIONS.includes(header?.version)) {
      throw bad(`version ${header?.version}, not one of ${READABLE_VERSIONS.join(", ")}`);
    }
    if (header.universe !== universe || header.postings !== postings) {
      throw bad("it was built from another index: write it again (deno task unions)");
    }
    const layout = setLayout(universe);
    const sets = new Map<string, WordSet>();
    for (const { key, kind = "dense", size, at } of Array.isArray(header.sets) ? header.sets : []) {
      const bytes = kind === "dense" ? layout.bytes : sparseBytes(size);
      if (
        typeof key !== "string" || (kind !== "dense" && kind !== "sparse") ||
        !Number.isSafeInteger(size) || size < 0 || !Number.isSafeInteger(at) || at % 8 !== 0 ||
        at < headerEnd || at + bytes > buffer.byteLength
      ) {
        throw bad("a set lies outside it");
      }
      sets.set(
        key,
        kind === "dense"
          ? {
            kind,
            nibbles: new Uint8Array(buffer, at, layout.nibbles),
            bits: new Uint32Array(buffer, at + layout.bitsAt, layout.words),
            size,
            bytes,
          }
          : {
            kind,
            set: {
              ids: new Uint32Array(buffer, at, size),
              levels: new Uint8Array(buffer, at + size * 4, size),
            },
            size,
            bytes,
          },
      );
    }
    return new KeptUnions(sets);
  }

  /** The kept union of cache key `key`, or undefined. */
  get(key: string): WordSet | undefined {
    const set = this.#sets.get(key);
    if (set) this.hits++;
    return set;
  }

  /** The keys kept. */
  keys(): string[] {
    return [...this.#sets.keys()];
  }

  /** How many unions are kept. */
  get size(): number {
    return this.#sets.size;
  }
}

/** What {@linkcode writeKeptUnions} wrote. */
export interface KeptUnionsStats {
  sets: number;
  bytes: number;
}

/** A word set to keep, by its cache key. */
export interface KeptUnion {
  key: string;
  set: WordSet;
}

/**
 * Writes `sets` (word sets over `universe` ids, by cache key) to `path`,
 * through a temporary file renamed when whole. Each set is written as it
 * comes, so a generator that builds them holds one at a time; the header,
 * written last at the start, is given room for `mostKeys` (every key that
 * may come; by default the keys of `sets`, when it is an array).
 *
 * @example
 * ```ts
 * writeKeptUnions("data/p.db.4242-m1x2y3.unions", universe, "p.db.4242-m1x2y3.postings", sets);
 * ```
 */
export function writeKeptUnions(
  path: string,
  universe: number,
  postings: string,
  sets: Iterable<KeptUnion>,
  mostKeys: readonly string[] = Array.isArray(sets) ? sets.map((s: KeptUnion) => s.key) : [],
): KeptUnionsStats {
  const layout = setLayout(universe);
  const encoder = new TextEncoder();
  const headerOf = (entries: KeptEntry[]): Uint8Array =>
    encoder.encode(JSON.stringify({ version: VERSION, universe, postings, sets: entries }));
  // Room for the longest header: every key that may come, with the widest form and numbers.
  const widest = Number.MAX_SAFE_INTEGER;
  const start = align8(
    12 +
      headerOf(mostKeys.map((key) => ({ key, kind: "sparse", size: widest, at: widest }))).length,
  );
  const temp = `${path}.writing`;
  const file = Deno.openSync(temp, { write: true, create: true, truncate: true });
  let whole = false;
  const entries: KeptEntry[] = [];
  let at = start;
  try {
    const writeAll = (bytes: Uint8Array) => {
      for (let from = 0; from < bytes.length;) from += file.writeSync(bytes.subarray(from));
    };
    const gap = (bytes: number) => writeAll(new Uint8Array(bytes));
    const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    file.seekSync(start, Deno.SeekMode.Start);
    for (const { key, set } of sets) {
      entries.push({ key, kind: set.kind, size: set.size, at });
      if (set.kind === "dense") {
        if (set.nibbles.length !== layout.nibbles) {
          throw new RangeError(`The union of '${key}' is not a dense set over ${universe} ids`);
        }
        writeAll(set.nibbles);
        gap(layout.bitsAt - layout.nibbles);
        writeAll(bytesOf(set.bits));
        gap(layout.bytes - layout.bitsAt - set.bits.byteLength);
        at += layout.bytes;
        continue;
      }
      const { ids, levels } = set.set;
      if (ids.length !== set.size || levels.length !== set.size || ids.at(-1)! >= universe) {
        throw new RangeError(`The union of '${key}' is not a sparse set over ${universe} ids`);
      }
      writeAll(bytesOf(ids));
      writeAll(levels);
      gap(sparseBytes(set.size) - set.size * 5);
      at += sparseBytes(set.size);
    }
    const header = headerOf(entries);
    if (12 + header.length > start) {
      throw new RangeError("A kept union came whose key was not given room in the header");
    }
    const head = new Uint8Array(12 + header.length);
    head.set(encoder.encode(MAGIC));
    new DataView(head.buffer).setUint32(8, header.length, true);
    head.set(header, 12);
    file.seekSync(0, Deno.SeekMode.Start);
    writeAll(head);
    whole = true;
  } finally {
    file.close();
    if (!whole) Deno.removeSync(temp);
  }
  Deno.renameSync(temp, path);
  return { sets: entries.length, bytes: at };
}

/**
 * Opens the kept unions the database at `db` names in its `parts`, for an
 * engine over its index of `universe` ids; null when it names none or
 * files cannot be mapped here (Deno Deploy): its words' unions are then
 * built as searches meet them. Throws when the file is missing, cut short
 * or another index's.
 *
 * @example
 * ```ts
 * const kept = openKeptUnions("data/providers.db", store.parts, store.index.size + 1);
 * ```
 */
export function openKeptUnions(
  db: string,
  parts: { postings: string; unions?: string },
  universe: number,
): KeptUnions | null {
  if (!parts.unions) return null;
  try {
    return KeptUnions.open(partPath(db, parts.unions), universe, parts.postings);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw missingPart(parts.unions, "write it again (deno task unions)");
    }
    throw error;
  }
}
