/**
 * Prepared records packed for posting from a reading worker to the
 * importing thread: numbers in typed arrays (transferred, not copied) and
 * every string of the batch in one. Posting an object a record costs the
 * structured clone a property name and a value each, on both threads; a
 * packed batch is a few copies of memory.
 *
 * @module
 */
import type { PreparedRecord } from "../store/prepare.ts";

/** A batch of prepared records, packed. */
export interface PackedRecords {
  size: number;
  npis: Float64Array<ArrayBuffer>;
  active: Uint8Array<ArrayBuffer>;
  zipsNotFound: Uint8Array<ArrayBuffer>;
  /** Each record's doc, sort key and postal code ("" for none), one after another. */
  text: string;
  /** Where each of those strings ends in `text`: three a record. */
  ends: Uint32Array<ArrayBuffer>;
}

/**
 * Packs prepared records, batch after batch.
 *
 * @example
 * ```ts
 * const packer = new RecordPacker();
 * packer.add(prepareProvider(provider));
 * const batch = packer.take();
 * unpackRecord(batch, 0).sortKey; // the provider's sort key
 * ```
 */
export class RecordPacker {
  #npis: number[] = [];
  #active: number[] = [];
  #zips: number[] = [];
  #strings: string[] = [];

  /** The number of records added since the last {@linkcode take}. */
  get size(): number {
    return this.#npis.length;
  }

  /** Adds a record (an index entry it carries is left out). */
  add(record: PreparedRecord): void {
    this.#npis.push(record.npi);
    this.#active.push(record.active ? 1 : 0);
    this.#zips.push(record.zipsNotFound);
    this.#strings.push(record.doc, record.sortKey, record.postal ?? "");
  }

  /** The records added so far, packed; the packer starts empty again. */
  take(): PackedRecords {
    const ends = new Uint32Array(this.#strings.length);
    let at = 0;
    for (let k = 0; k < this.#strings.length; k++) ends[k] = at += this.#strings[k]!.length;
    const packed: PackedRecords = {
      size: this.#npis.length,
      npis: Float64Array.from(this.#npis),
      active: Uint8Array.from(this.#active),
      zipsNotFound: Uint8Array.from(this.#zips),
      text: this.#strings.join(""),
      ends,
    };
    this.#npis = [];
    this.#active = [];
    this.#zips = [];
    this.#strings = [];
    return packed;
  }
}

/** The buffers of a packed batch, to transfer with it. */
export function packedBuffers(batch: PackedRecords): ArrayBuffer[] {
  return [batch.npis.buffer, batch.active.buffer, batch.zipsNotFound.buffer, batch.ends.buffer];
}

/** Record `i` of a packed batch. */
export function unpackRecord(batch: PackedRecords, i: number): PreparedRecord {
  const { text, ends } = batch;
  const k = i * 3;
  const docStart = k === 0 ? 0 : ends[k - 1]!;
  const doc = text.slice(docStart, ends[k]);
  const sortKey = text.slice(ends[k], ends[k + 1]);
  const postal = text.slice(ends[k + 1], ends[k + 2]);
  return {
    npi: batch.npis[i]!,
    active: batch.active[i] === 1,
    sortKey,
    postal: postal === "" ? null : postal,
    doc,
    zipsNotFound: batch.zipsNotFound[i]!,
  };
}
