/**
 * Small typed-array helpers shared by the index builder, its vocabulary and
 * the importer: a growable list of 32-bit numbers, and blob views.
 *
 * @module
 */

/**
 * A growable list of unsigned 32-bit numbers; with `unique`, a value equal
 * to the last one is dropped (an id added twice in a row).
 *
 * @example
 * ```ts
 * const ids = new GrowableList(4, true);
 * ids.push(3);
 * ids.push(3);
 * ids.view(); // Uint32Array [3]
 * ```
 */
export class GrowableList {
  data: Uint32Array;
  length = 0;
  constructor(capacity = 4, private readonly unique = false) {
    this.data = new Uint32Array(capacity);
  }

  /** Appends `value`. */
  push(value: number): void {
    if (this.unique && this.length > 0 && this.data[this.length - 1] === value) return;
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  /** The values so far (a view, valid until the next push). */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/** The bytes of a typed array, for a blob. */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** A blob read as 32-bit numbers (copied only when it is not aligned). */
export function uint32Of(bytes: Uint8Array): Uint32Array {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
}
