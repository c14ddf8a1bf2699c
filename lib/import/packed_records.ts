/**
 * Prepared records packed for posting from a reading worker to the
 * importing thread: numbers in typed arrays (transferred, not copied) and
 * every string of the batch in one. Posting an object a record costs the
 * structured clone a property name and a value each, on both threads; a
 * packed batch is a few copies of memory.
 *
 * @module
 */
import type { StoredRecord } from "../store/prepare.ts";

/** A batch of prepared records, packed. */
export interface PackedRecords {
  size: number;
  npis: Float64Array<ArrayBuffer>;
  zipsNotFound: Uint8Array<ArrayBuffer>;
  /** Each record's doc, one after another. */
  text: string;
  /** Where each doc ends in `text`. */
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
 * unpackRecord(batch, 0).doc; // the provider's stored record
 * ```
 */
export class RecordPacker {
  #npis: number[] = [];
  #zips: number[] = [];
  #docs: string[] = [];

  /** The number of records added since the last {@linkcode take}. */
  get size(): number {
    return this.#npis.length;
  }

  /** Adds a record (anything else it carries is left out). */
  add(record: StoredRecord): void {
    this.#npis.push(record.npi);
    this.#zips.push(record.zipsNotFound);
    this.#docs.push(record.doc);
  }

  /** The records added so far, packed; the packer starts empty again. */
  take(): PackedRecords {
    const ends = new Uint32Array(this.#docs.length);
    let at = 0;
    for (let k = 0; k < this.#docs.length; k++) ends[k] = at += this.#docs[k]!.length;
    const packed: PackedRecords = {
      size: this.#npis.length,
      npis: Float64Array.from(this.#npis),
      zipsNotFound: Uint8Array.from(this.#zips),
      text: this.#docs.join(""),
      ends,
    };
    this.#npis = [];
    this.#zips = [];
    this.#docs = [];
    return packed;
  }
}

/** The buffers of a packed batch, to transfer with it. */
export function packedBuffers(batch: PackedRecords): ArrayBuffer[] {
  return [batch.npis.buffer, batch.zipsNotFound.buffer, batch.ends.buffer];
}

/** Record `i` of a packed batch. */
export function unpackRecord(batch: PackedRecords, i: number): StoredRecord {
  const { text, ends } = batch;
  return {
    npi: batch.npis[i]!,
    doc: text.slice(i === 0 ? 0 : ends[i - 1]!, ends[i]),
    zipsNotFound: batch.zipsNotFound[i]!,
  };
}
