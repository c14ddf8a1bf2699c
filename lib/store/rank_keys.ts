/**
 * Ranking providers without a SQL sort. Whoever prepares a record (a
 * reading worker, or the building thread) appends its rank inputs (NPI,
 * active, name key, ZIP+4) to a {@linkcode RankKeyWriter}, in memory or in
 * a scratch file; once every record is known, {@linkcode rankProviders}
 * reads them back and orders the providers as `ORDER BY active DESC,
 * sort_key, npi` would (with byte-wise key comparison, SQLite's `BINARY`
 * collation), and also lists them in the orders in which the NPI and
 * ZIP+4 lookup tables are written.
 *
 * An entry, little-endian: NPI (f64), active (u8), ZIP+4 plus one (u32, 0
 * for none), key length (u32), key (UTF-8).
 *
 * @module
 */
import { type ByteKeys, sortByKey } from "./key_sort.ts";
import { sortByNpi } from "./npi_index.ts";
import { releaseMemory } from "../memory.ts";
import { digitsValue } from "../text/digits.ts";

/** Bytes of an entry before its key. */
const HEAD_BYTES = 8 + 1 + 4 + 4;
/** A file writer's buffer. */
const FILE_BUFFER_BYTES = 1 << 20;
/** The first key byte of active providers, then of deactivated ones (keys hold no such bytes). */
const ACTIVE_BYTE = 1, INACTIVE_BYTE = 2;

const encoder = new TextEncoder();

/** What a writer wrote: enough for {@linkcode rankProviders} to size its arrays exactly. */
export interface RankKeyCounts {
  entries: number;
  keyBytes: number;
}

/**
 * The number of a practice postal code that is a ZIP+4 (nine digits, as
 * {@linkcode postalKey} stores it), else -1: the only codes looked up whole.
 *
 * @example
 * ```ts
 * zip9Of("208171841"); // 208171841
 * zip9Of("20817"); // -1
 * ```
 */
export function zip9Of(postal: string | null): number {
  return postal?.length === 9 ? digitsValue(postal, 0, 9) : -1;
}

/**
 * Appends rank entries, in memory or to a file (1 MB writes).
 *
 * @example
 * ```ts
 * const writer = new RankKeyWriter();
 * writer.add(1003000126, true, "smith john", 100011234);
 * const bytes = writer.finish(); // the entries, for a RankSource
 * ```
 */
export class RankKeyWriter {
  #buffer: Uint8Array<ArrayBuffer>;
  #view: DataView;
  #at = 0;
  readonly #file: Deno.FsFile | null;
  readonly counts: RankKeyCounts = { entries: 0, keyBytes: 0 };

  /** Entries go to `file` (written, not closed), else stay in memory. */
  constructor(file: Deno.FsFile | null = null) {
    this.#file = file;
    this.#buffer = new Uint8Array(file ? FILE_BUFFER_BYTES : 1 << 16);
    this.#view = new DataView(this.#buffer.buffer);
  }

  /** Appends one provider's entry; `zip9` is a ZIP+4 as a number, or -1 ({@linkcode zip9Of}). */
  add(npi: number, active: boolean, sortKey: string, zip9: number): void {
    // UTF-8 takes at most three bytes a UTF-16 code unit.
    this.#room(HEAD_BYTES + 3 * sortKey.length);
    const view = this.#view, at = this.#at;
    view.setFloat64(at, npi, true);
    view.setUint8(at + 8, active ? 1 : 0);
    view.setUint32(at + 9, zip9 + 1, true);
    const key = encoder.encodeInto(sortKey, this.#buffer.subarray(at + HEAD_BYTES)).written;
    view.setUint32(at + 13, key, true);
    this.#at = at + HEAD_BYTES + key;
    this.counts.entries++;
    this.counts.keyBytes += key;
  }

  /** The entries (in memory), or null once written to the file. */
  finish(): Uint8Array | null {
    if (this.#file) {
      this.#flush();
      return null;
    }
    return this.#buffer.slice(0, this.#at);
  }

  /** Makes room for `bytes` more. */
  #room(bytes: number): void {
    if (this.#at + bytes <= this.#buffer.length) return;
    if (this.#file) this.#flush();
    if (this.#at + bytes <= this.#buffer.length) return;
    const next = new Uint8Array(Math.max(this.#buffer.length * 2, this.#at + bytes));
    next.set(this.#buffer.subarray(0, this.#at));
    this.#buffer = next;
    this.#view = new DataView(next.buffer);
  }

  #flush(): void {
    let done = 0;
    while (done < this.#at) done += this.#file!.writeSync(this.#buffer.subarray(done, this.#at));
    this.#at = 0;
  }
}

/**
 * The entries of one writer: `seqs[j]` is the seq of its `j`-th entry (0:
 * leave it out). The entries are `bytes`, or the file at `path`.
 */
export interface RankSource {
  bytes?: Uint8Array;
  path?: string;
  seqs: Uint32Array;
  counts: RankKeyCounts;
}

/** What decides the ranking besides the entries. */
export interface RankOptions {
  /** Seqs to leave out (a record replaced by a later row of its NPI). */
  dropped?: Uint32Array;
  /** Seqs whose active flag changed after their entry was written, and the new flags. */
  changed?: { seqs: Uint32Array; active: Uint8Array };
  /** The highest seq (sizes `idBySeq`). */
  lastSeq: number;
}

/** The providers ranked, and listed in the orders the lookup tables are written in. */
export interface RankedProviders {
  /** The number of providers; ids run from 1. */
  size: number;
  /** The seq of each id (index 0 unused). */
  seqById: Uint32Array;
  /** The id of each seq; 0 for a seq left out. */
  idBySeq: Uint32Array;
  /** Every id, in NPI order. */
  idsByNpi: Uint32Array;
  /** The ids whose practice postal code is a ZIP+4, in (ZIP+4, id) order, and their codes. */
  zip9Ids: Uint32Array;
  zip9Codes: Uint32Array;
}

/** The entries of every source, by item, as {@linkcode rankProviders} reads them. */
interface Items {
  n: number;
  seq: Uint32Array;
  /** Until the NPI order is known. */
  npi?: Float64Array;
  /** ZIP+4 plus one; 0 for none. */
  zip9: Uint32Array;
  /** Name keys, each after a byte that puts active providers first; until ranked. */
  keys?: ByteKeys;
}

/**
 * Ranks the providers of `sources`: active first, then by name key (bytes),
 * then by NPI.
 *
 * @example
 * ```ts
 * const writer = new RankKeyWriter();
 * writer.add(1003000134, true, "jones", -1);
 * writer.add(1003000126, true, "adams", 100011234);
 * const source = { bytes: writer.finish()!, seqs: Uint32Array.of(1, 2), counts: writer.counts };
 * rankProviders([source], { lastSeq: 2 }).seqById; // Uint32Array [0, 2, 1]
 * ```
 */
export function rankProviders(
  sources: readonly RankSource[],
  options: RankOptions,
): RankedProviders {
  // Ten million providers take hundreds of megabytes here: each array is let go once used, in
  // steps of their own (so that no stale reference of this frame keeps one).
  const items = readItems(sources, options);
  const byNpi = npiOrder(items);
  releaseMemory();
  const ranked = keyOrder(items, byNpi);
  releaseMemory();
  const { n, seq } = items;
  const seqById = new Uint32Array(n + 1);
  const idBySeq = new Uint32Array(options.lastSeq + 1);
  for (let k = 0; k < n; k++) {
    const s = seq[ranked[k]!]!;
    seqById[k + 1] = s;
    idBySeq[s] = k + 1;
  }
  const idsByNpi = byNpi;
  for (let k = 0; k < n; k++) idsByNpi[k] = idBySeq[seq[byNpi[k]!]!]!;
  return { size: n, seqById, idBySeq, idsByNpi, ...zip9Lookup(items.zip9, ranked) };
}

/** The items in NPI order; their NPIs are let go. */
function npiOrder(items: Items): Uint32Array {
  const order = sortByNpi(identity(items.n), items.npi!);
  delete items.npi;
  return order;
}

/**
 * The items in rank order: by key (the first byte puts active providers
 * first), then NPI; the keys are let go. Keys are sorted in the order they
 * are laid out (read in address order: fast); each item's position in NPI
 * order breaks ties.
 */
function keyOrder(items: Items, byNpi: Uint32Array): Uint32Array {
  const npiRank = new Uint32Array(items.n);
  for (let k = 0; k < items.n; k++) npiRank[byNpi[k]!] = k;
  const order = sortByKey(items.keys!, identity(items.n), { of: npiRank, key: byNpi });
  delete items.keys;
  return order;
}

/** The ZIP+4 lookup rows, in (code, id) order: packed in 64 bits and sorted natively. */
function zip9Lookup(zip9: Uint32Array, ranked: Uint32Array) {
  let rows = 0;
  for (let k = 0; k < ranked.length; k++) if (zip9[ranked[k]!]) rows++;
  const packed = new BigUint64Array(rows);
  const words = new Uint32Array(packed.buffer);
  for (let k = 0, j = 0; k < ranked.length; k++) {
    const zip = zip9[ranked[k]!]!;
    if (zip === 0) continue;
    words[2 * j] = k + 1;
    words[2 * j + 1] = zip - 1;
    j++;
  }
  packed.sort();
  const zip9Ids = new Uint32Array(rows), zip9Codes = new Uint32Array(rows);
  for (let j = 0; j < rows; j++) {
    zip9Ids[j] = words[2 * j]!;
    zip9Codes[j] = words[2 * j + 1]!;
  }
  return { zip9Ids, zip9Codes };
}

/** 0, 1, ... `n - 1`. */
function identity(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** Reads every source's entries into arrays by item, leaving out dropped seqs. */
function readItems(sources: readonly RankSource[], options: RankOptions): Items {
  const dropped = new Uint8Array(options.lastSeq + 1);
  for (const seq of options.dropped ?? []) dropped[seq] = 1;
  const flags = new Map<number, number>();
  const changed = options.changed;
  changed?.seqs.forEach((seq, k) => flags.set(seq, changed.active[k]!));
  let capacity = 0, keyBytes = 0;
  for (const s of sources) {
    capacity += s.counts.entries;
    keyBytes += s.counts.keyBytes + s.counts.entries;
  }
  const seq = new Uint32Array(capacity);
  const npi = new Float64Array(capacity);
  const zip9 = new Uint32Array(capacity);
  const bytes = new Uint8Array(keyBytes), offsets = new Uint32Array(capacity + 1);
  let n = 0, keyAt = 0;
  for (const source of sources) {
    let j = 0;
    const visit: Visit = (chunk, view, at) => {
      const end = at + HEAD_BYTES + view.getUint32(at + 13, true);
      const s = source.seqs[j++] ?? 0;
      if (s === 0 || dropped[s]) return end;
      seq[n] = s;
      npi[n] = view.getFloat64(at, true);
      zip9[n] = view.getUint32(at + 9, true);
      const active = flags.size > 0 ? flags.get(s) ?? chunk[at + 8]! : chunk[at + 8]!;
      offsets[n] = keyAt;
      bytes[keyAt++] = active ? ACTIVE_BYTE : INACTIVE_BYTE;
      for (let b = at + HEAD_BYTES; b < end; b++) bytes[keyAt++] = chunk[b]!;
      n++;
      return end;
    };
    if (source.bytes) eachEntry(source.bytes, visit);
    else readEntryFile(source.path!, visit);
    if (j !== source.counts.entries) {
      throw new Error(`Rank entries: expected ${source.counts.entries}, read ${j}`);
    }
  }
  offsets[n] = keyAt;
  return {
    n,
    seq: seq.subarray(0, n),
    npi: npi.subarray(0, n),
    zip9: zip9.subarray(0, n),
    keys: { bytes, offsets: offsets.subarray(0, n + 1) },
  };
}

type Visit = (chunk: Uint8Array, view: DataView, at: number) => number;

/** Visits the whole entries of `chunk`; returns where the first incomplete one starts. */
function eachEntry(chunk: Uint8Array, visit: Visit): number {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let at = 0;
  while (
    at + HEAD_BYTES <= chunk.length &&
    at + HEAD_BYTES + view.getUint32(at + 13, true) <= chunk.length
  ) {
    at = visit(chunk, view, at);
  }
  return at;
}

/** Visits the entries of the file at `path`, read 4 MB at a time. */
function readEntryFile(path: string, visit: Visit): void {
  using file = Deno.openSync(path, { read: true });
  let buffer = new Uint8Array(4 << 20);
  let held = 0;
  for (;;) {
    if (held === buffer.length) {
      // One entry longer than the buffer.
      const next = new Uint8Array(buffer.length * 2);
      next.set(buffer);
      buffer = next;
    }
    const read = file.readSync(buffer.subarray(held));
    if (read === null || read === 0) break;
    held += read;
    const used = eachEntry(buffer.subarray(0, held), visit);
    buffer.copyWithin(0, used, held);
    held -= used;
  }
  if (held > 0) throw new Error(`Rank entries in '${path}' end in the middle of an entry`);
}
