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
 * Beside them, each taxonomy code's providers grouped by practice state
 * (its list in the index, ordered by the state column's value, then by
 * id): a specialty within a state is then the state's slice of each of
 * its codes, where the engine would unite the codes' lists (hundreds of
 * thousands of ids for a specialty such as counselor) to test each on the
 * state column. And the unions of the specialties' code sets that many
 * providers hold, with their bitmaps, under {@linkcode codeSetKey}: what
 * the engine's filter-list cache would hold, had it room for them all.
 *
 * Layout (little-endian, every set at a multiple of 8 bytes): 8 bytes
 * `NPIUNIO1`, a `u32` header length, the header (JSON: version, the
 * universe of ids, the postings part the index was read from, the state
 * column's number of values, and each set's key, form, size and offset),
 * then the sets. A dense set is its nibbles (`(universe + 1) / 2` bytes)
 * and, at the next multiple of 8, its bits (`(universe + 31) / 32` `u32`),
 * as `WordSet` lays them out; a sparse set of `size` ids is its ids (`size`
 * `u32`, ascending) and then their levels (`size` bytes); a code's groups
 * (form `states`, keyed by the code) are its `size` ids (`u32`) and then
 * where each state's ids start (`states + 1` `u32`, the last `size`); a
 * code set's union (form `codes`) is its `size` ids (`u32`, ascending)
 * and, at the next multiple of 8, its bits (`(universe + 31) / 32` `u32`).
 * Version 1 files hold dense sets only, version 2 no codes; both are read
 * as they are.
 *
 * @module
 */
import { mapWithHeader } from "../index/mapped_file.ts";
import { missingPart, partPath } from "../store/parts.ts";
import type { WordSet } from "./word_sets.ts";

const MAGIC = "NPIUNIO1";
/**
 * Version 3 adds taxonomy codes' lists grouped by state (`states`) and code
 * sets' unions (`codes`), version 2 sparse sets (`kind`); version 1's
 * entries are all dense.
 */
const VERSION = 3;
const READABLE_VERSIONS: readonly number[] = [1, 2, VERSION];

/**
 * A taxonomy code's providers grouped by their state's number in the
 * index's state column: those of state `v` are `ids[starts[v]]` up to
 * `ids[starts[v + 1]]`, ascending.
 */
export interface StateGroups {
  starts: Uint32Array;
  ids: Uint32Array;
}

/** One kept set: its cache key (a code's, for its groups), its form, how many ids it holds, and where it starts. */
interface KeptEntry {
  key: string;
  /** Absent in version 1: dense. */
  kind?: WordSet["kind"] | "states" | "codes";
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
  /** How many values the state column has (a code's groups have one more start): with groups only. */
  states?: number;
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

/** Bytes of a code's `size` ids grouped by `states` values: the ids, the starts, padded. */
function groupsBytes(size: number, states: number): number {
  return align8((size + states + 1) * 4);
}

/** Bytes of a code set's union of `size` ids over `universe` ids: its ids, then its bits. */
function codeSetBytes(size: number, universe: number): number {
  return align8(size * 4) + align8(((universe + 31) >>> 5) * 4);
}

/**
 * The key of a set of taxonomy codes: sorted, each once, comma-joined.
 *
 * @example
 * ```ts
 * codeSetKey(["208D00000X", "207Q00000X", "208D00000X"]); // "207Q00000X,208D00000X"
 * ```
 */
export function codeSetKey(codes: readonly string[]): string {
  return [...new Set(codes)].sort().join(",");
}

/** A union of taxonomy codes' lists: its ids, ascending, and its bits (bit `id & 31` of word `id >>> 5`). */
export interface CodeSetUnion {
  ids: Uint32Array;
  bits: Uint32Array;
}

/**
 * The unions kept beside a database, by their word-set cache key; taxonomy
 * codes' lists by state, by code; code sets' unions, by their codes.
 */
export class KeptUnions {
  readonly #sets: Map<string, WordSet>;
  readonly #byState: Map<string, StateGroups>;
  readonly #codeSets: Map<string, CodeSetUnion>;
  /** Searches that found a word's union here. */
  hits = 0;
  /** Codes' groups and code sets' unions searches read here. */
  groupHits = 0;

  private constructor(
    sets: Map<string, WordSet>,
    byState: Map<string, StateGroups>,
    codeSets: Map<string, CodeSetUnion>,
  ) {
    this.#sets = sets;
    this.#byState = byState;
    this.#codeSets = codeSets;
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
    const byState = new Map<string, StateGroups>();
    const codeSets = new Map<string, CodeSetUnion>();
    const states = header.states ?? 0;
    for (const { key, kind = "dense", size, at } of Array.isArray(header.sets) ? header.sets : []) {
      const bytes = kind === "dense"
        ? layout.bytes
        : kind === "states"
        ? groupsBytes(size, states)
        : kind === "codes"
        ? codeSetBytes(size, universe)
        : sparseBytes(size);
      if (
        typeof key !== "string" || !["dense", "sparse", "states", "codes"].includes(kind) ||
        !Number.isSafeInteger(size) || size < 0 || !Number.isSafeInteger(at) || at % 8 !== 0 ||
        at < headerEnd || at + bytes > buffer.byteLength ||
        (kind === "states" && !(Number.isSafeInteger(states) && states > 0))
      ) {
        throw bad("a set lies outside it");
      }
      if (kind === "states") {
        const starts = new Uint32Array(buffer, at + size * 4, states + 1);
        if (starts[0] !== 0 || starts[states] !== size) {
          throw bad(`the groups of '${key}' do not add up`);
        }
        byState.set(key, { ids: new Uint32Array(buffer, at, size), starts });
        continue;
      }
      if (kind === "codes") {
        codeSets.set(key, {
          ids: new Uint32Array(buffer, at, size),
          bits: new Uint32Array(buffer, at + align8(size * 4), layout.words),
        });
        continue;
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
    return new KeptUnions(sets, byState, codeSets);
  }

  /** The kept union of cache key `key`, or undefined. */
  get(key: string): WordSet | undefined {
    const set = this.#sets.get(key);
    if (set) this.hits++;
    return set;
  }

  /** A taxonomy code's providers grouped by state, or undefined. */
  byState(code: string): StateGroups | undefined {
    const groups = this.#byState.get(code);
    if (groups) this.groupHits++;
    return groups;
  }

  /** The union of the lists of `codes` (in any order), or undefined. */
  codeSet(codes: readonly string[]): CodeSetUnion | undefined {
    const union = this.#codeSets.size > 0 ? this.#codeSets.get(codeSetKey(codes)) : undefined;
    if (union) this.groupHits++;
    return union;
  }

  /** How many code sets' unions are kept. */
  get codeSets(): number {
    return this.#codeSets.size;
  }

  /** How many codes are kept grouped by state. */
  get codes(): number {
    return this.#byState.size;
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
  /** Word unions. */
  sets: number;
  /** Taxonomy codes grouped by state. */
  codes: number;
  /** Code sets' unions. */
  codeSets: number;
  bytes: number;
}

/** A word set to keep, by its cache key. */
export interface KeptUnion {
  key: string;
  set: WordSet;
}

/** A taxonomy code's providers grouped by state, to keep under the code (`key`). */
export interface KeptStates {
  key: string;
  groups: StateGroups;
}

/** A code set's union, to keep under its {@linkcode codeSetKey} (`key`). */
export interface KeptCodeSet {
  key: string;
  union: CodeSetUnion;
}

/**
 * Writes `sets` (word sets over `universe` ids by cache key, codes' groups
 * by code, code sets' unions by their key) to `path`, through a temporary
 * file renamed when whole; every code's groups must be over the same state
 * column. Each set is written as it
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
  sets: Iterable<KeptUnion | KeptStates | KeptCodeSet>,
  mostKeys: readonly string[] = Array.isArray(sets) ? sets.map((s: KeptUnion) => s.key) : [],
): KeptUnionsStats {
  const layout = setLayout(universe);
  const encoder = new TextEncoder();
  // The state column's values, from the first code's groups (every code's must match).
  let states: number | undefined;
  const headerOf = (entries: KeptEntry[], statesCount = states): Uint8Array =>
    encoder.encode(
      JSON.stringify({ version: VERSION, universe, postings, states: statesCount, sets: entries }),
    );
  // Room for the longest header: every key that may come, with the widest form and numbers.
  const widest = Number.MAX_SAFE_INTEGER;
  const start = align8(
    12 +
      headerOf(
        mostKeys.map((key) => ({ key, kind: "sparse", size: widest, at: widest })),
        widest,
      ).length,
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
    for (const kept of sets) {
      const key = kept.key;
      if ("groups" in kept) {
        const { ids, starts } = kept.groups;
        states ??= starts.length - 1;
        if (
          starts.length !== states + 1 || starts[states] !== ids.length || ids.at(-1)! >= universe
        ) {
          throw new RangeError(
            `The groups of '${key}' are not ${states} states' ids below ${universe}`,
          );
        }
        entries.push({ key, kind: "states", size: ids.length, at });
        writeAll(bytesOf(ids));
        writeAll(bytesOf(starts));
        gap(groupsBytes(ids.length, states) - (ids.length + states + 1) * 4);
        at += groupsBytes(ids.length, states);
        continue;
      }
      if ("union" in kept) {
        const { ids, bits } = kept.union;
        if (bits.length !== layout.words || ids.at(-1)! >= universe) {
          throw new RangeError(`The union of codes '${key}' is not a union over ${universe} ids`);
        }
        entries.push({ key, kind: "codes", size: ids.length, at });
        writeAll(bytesOf(ids));
        gap(align8(ids.length * 4) - ids.length * 4);
        writeAll(bytesOf(bits));
        gap(codeSetBytes(ids.length, universe) - align8(ids.length * 4) - bits.byteLength);
        at += codeSetBytes(ids.length, universe);
        continue;
      }
      const set = kept.set;
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
  const count = (kind: KeptEntry["kind"]) => entries.filter((e) => e.kind === kind).length;
  const codes = count("states"), codeSets = count("codes");
  return { sets: entries.length - codes - codeSets, codes, codeSets, bytes: at };
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
