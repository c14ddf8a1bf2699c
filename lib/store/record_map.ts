/**
 * The record map: a database's stored provider records in one flat file,
 * read in place through a read-only mapping (`mapped_file.ts`). Reading a
 * page of records from SQLite costs two B-tree searches a record (the
 * provider row, then its record in a records part of 1.5 GB), most of a
 * page's rendering time at 9.7 million; from the map a record is two
 * column reads and the decoding of its bytes.
 *
 * The map is derived from the main file's `provider` table and the records
 * parts, which stay the record of truth: a database without one, or a
 * process that cannot map files, reads its records from SQLite. Reference
 * rows (other names, secondary locations, endpoints) are always read from
 * SQLite: a few providers have them.
 *
 * Layout (little-endian, every section at a multiple of 8 bytes):
 *
 * - 8 bytes `NPIRMAP1`, a `u32` header length, the header (JSON: the
 *   records part the map starts with, the number of ids, the sections),
 *   padded with spaces to {@linkcode HEADER_BYTES};
 * - `npi` (`f64` per provider id, 0 for an id no provider has);
 * - `start` (`f64` per id): where the id's stored record starts in `docs`;
 * - `length` (`u32` per id): its length in bytes;
 * - `sides` (`u8` per id): the provider row's `sides` bits;
 * - `docs`: every stored record's UTF-8 bytes, in arrival order.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { mapReadOnly } from "../index/mapped_file.ts";
import { align8, ChunkWriter, writeWhole } from "../index/chunk_writer.ts";

const MAGIC = "NPIRMAP1";
const VERSION = 1;
/** Bytes of the magic, the header's length and the header, padded. */
const HEADER_BYTES = 1024;

/** Where a section lies in the file: byte offset and length in its units. */
type Section = [offset: number, length: number];

/** The header of a record map. */
interface RecordMapHeader {
  version: number;
  /** The first records part the records were read from (its file name). */
  records: string;
  /** Provider ids the columns hold (the largest id plus 1). */
  ids: number;
  npi: Section;
  start: Section;
  length: Section;
  sides: Section;
  docs: Section;
}

/** A provider's stored record as the map holds it. */
export interface MappedRecord {
  npi: number;
  /** The provider row's `sides` bits (`SIDE` in `sides.ts`). */
  sides: number;
  /** The stored record (`encodeProvider`). */
  doc: string;
}

/** The sections of a map of `ids` ids whose stored records take `docBytes` bytes. */
function layout(records: string, ids: number, docBytes: number): RecordMapHeader {
  let at = HEADER_BYTES;
  const next = (count: number, width: number): Section => {
    const s: Section = [at, count];
    at = align8(at + count * width);
    return s;
  };
  return {
    version: VERSION,
    records,
    ids,
    npi: next(ids, 8),
    start: next(ids, 8),
    length: next(ids, 4),
    sides: next(ids, 1),
    docs: next(docBytes, 1),
  };
}

/**
 * A database's record map, mapped. Records are decoded from views of the
 * mapping; nothing is copied but the text each read returns.
 */
export class RecordMap {
  readonly #npi: Float64Array;
  readonly #start: Float64Array;
  readonly #length: Uint32Array;
  readonly #sides: Uint8Array;
  readonly #docs: Uint8Array;
  readonly #decoder = new TextDecoder();
  /** The first records part the map was made of. */
  readonly records: string;

  private constructor(buffer: ArrayBuffer, header: RecordMapHeader) {
    this.records = header.records;
    this.#npi = new Float64Array(buffer, header.npi[0], header.npi[1]);
    this.#start = new Float64Array(buffer, header.start[0], header.start[1]);
    this.#length = new Uint32Array(buffer, header.length[0], header.length[1]);
    this.#sides = new Uint8Array(buffer, header.sides[0], header.sides[1]);
    this.#docs = new Uint8Array(buffer, header.docs[0], header.docs[1]);
  }

  /**
   * Maps the record map at `path`; null where files cannot be mapped (see
   * `canMapFiles`). Throws when the file is not a record map of this
   * version or is cut short.
   *
   * @example
   * ```ts
   * const map = RecordMap.open("data/providers.db.4242-m1x2y3.docs");
   * map?.get(1)?.npi;
   * ```
   */
  static open(path: string): RecordMap | null {
    const bad = (why: string) => new Error(`'${path}' is not a usable record map: ${why}`);
    if (Deno.statSync(path).size < HEADER_BYTES) throw bad("it is cut short");
    const buffer = mapReadOnly(path);
    if (!buffer) return null;
    const decoder = new TextDecoder();
    if (decoder.decode(new Uint8Array(buffer, 0, 8)) !== MAGIC) throw bad("no record map header");
    const headerBytes = new DataView(buffer).getUint32(8, true);
    if (12 + headerBytes > HEADER_BYTES) throw bad("its header is not readable");
    let header: RecordMapHeader;
    try {
      header = JSON.parse(decoder.decode(new Uint8Array(buffer, 12, headerBytes)));
    } catch {
      throw bad("its header is not readable");
    }
    if (header?.version !== VERSION) throw bad(`version ${header?.version}, not ${VERSION}`);
    if (!Number.isSafeInteger(header.ids) || !Number.isSafeInteger(header.docs?.[1])) {
      throw bad("its header is not readable");
    }
    const expected = layout(header.records, header.ids, header.docs?.[1]);
    for (const name of ["npi", "start", "length", "sides", "docs"] as const) {
      if (String(header[name]) !== String(expected[name])) {
        throw bad(`its ${name} section is amiss`);
      }
    }
    if (align8(header.docs[0] + header.docs[1]) > buffer.byteLength) throw bad("it is cut short");
    return new RecordMap(buffer, header);
  }

  /** Provider ids the map holds columns for (the largest plus 1). */
  get ids(): number {
    return this.#npi.length;
  }

  /** The stored record of provider `id`, or undefined when no provider has it. */
  get(id: number): MappedRecord | undefined {
    const npi = this.#npi[id];
    if (!npi) return undefined;
    const start = this.#start[id]!;
    return {
      npi,
      sides: this.#sides[id]!,
      doc: this.#decoder.decode(this.#docs.subarray(start, start + this.#length[id]!)),
    };
  }
}

/** How a record map was written. */
export interface RecordMapStats {
  /** Providers it holds. */
  providers: number;
  bytes: number;
}

/**
 * Writes the record map of a database to `path` (through a temporary file
 * renamed when whole): the stored records `rows` (every record of its
 * records parts, in ascending seq, the highest `lastSeq`; the first part
 * named `recordsName`) placed by the `provider` table of its main file
 * `db`. Throws when a provider's record is not among `rows`.
 *
 * @example
 * ```ts
 * writeRecordMap("data/p.db.4242-m1x2y3.docs", db, parts.rows(), parts.lastSeq, "p.db.4242-m1x2y3.records-0");
 * ```
 */
export function writeRecordMap(
  path: string,
  db: DatabaseSync,
  rows: Iterable<{ seq: number; doc: string }>,
  lastSeq: number,
  recordsName: string,
): RecordMapStats {
  const { ids: largest } = db.prepare("SELECT coalesce(max(id), 0) AS ids FROM provider").get() as {
    ids: number;
  };
  const ids = largest + 1;
  // Where each seq's record lands in `docs` (-1: none), known once the docs are written.
  const seqStart = new Float64Array(lastSeq + 1).fill(-1);
  const seqLength = new Uint32Array(lastSeq + 1);
  let providers = 0;
  const bytes = writeWhole(path, (file) => {
    const docsAt = layout(recordsName, ids, 0).docs[0];
    file.seekSync(docsAt, Deno.SeekMode.Start);
    const docs = new ChunkWriter(file);
    const encoder = new TextEncoder();
    let scratch = new Uint8Array(1 << 16);
    for (const { seq, doc } of rows) {
      if (seq > lastSeq) throw new RangeError(`Record ${seq} is past the last seq ${lastSeq}`);
      if (doc.length * 3 > scratch.length) scratch = new Uint8Array(doc.length * 3);
      const { written } = encoder.encodeInto(doc, scratch);
      seqStart[seq] = docs.written;
      seqLength[seq] = written;
      docs.write(scratch.subarray(0, written));
    }
    docs.pad();
    docs.flush();
    const header = layout(recordsName, ids, docs.written);
    const npi = new Float64Array(ids), start = new Float64Array(ids);
    const length = new Uint32Array(ids), sides = new Uint8Array(ids);
    const providerRows = db.prepare("SELECT id, npi, sides, record FROM provider").iterate();
    for (const row of providerRows as Iterable<Record<string, number>>) {
      const { id, record } = row as { id: number; record: number };
      const at = seqStart[record] ?? -1;
      if (at < 0) throw new Error(`The record of provider ${id} is in no records part`);
      npi[id] = row.npi!;
      sides[id] = row.sides!;
      start[id] = at;
      length[id] = seqLength[record]!;
      providers++;
    }
    file.seekSync(0, Deno.SeekMode.Start);
    const out = new ChunkWriter(file);
    const headerText = new TextEncoder().encode(JSON.stringify(header));
    const lead = new Uint8Array(HEADER_BYTES).fill(0x20);
    lead.set(new TextEncoder().encode(MAGIC));
    new DataView(lead.buffer).setUint32(8, headerText.length, true);
    if (12 + headerText.length > HEADER_BYTES) throw new Error("The record map header is too long");
    lead.set(headerText, 12);
    out.write(lead);
    for (const column of [npi, start, length, sides]) {
      out.write(new Uint8Array(column.buffer));
      out.pad();
    }
    out.flush();
    if (out.written !== docsAt) throw new Error("Record map sections overlap");
  });
  return { providers, bytes };
}
