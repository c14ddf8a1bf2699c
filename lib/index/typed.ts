/**
 * Small typed-array helpers shared by the index builder, its vocabulary and
 * the importer: a growable list of 32-bit numbers, a growable column of a
 * number per seq, and blob views.
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

  /** Makes room for `capacity` values in all, at once (growth by doubling leaves slack). */
  reserve(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new Uint32Array(capacity);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  /** The values so far (a view, valid until the next push). */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/** The typed arrays a {@linkcode GrowableColumn} can hold. */
export type NumberArray = Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array;

/**
 * A number per seq (what `make` fills a new array with by default), growing
 * by half as needed.
 *
 * @example
 * ```ts
 * const parts = new GrowableColumn((n) => new Uint8Array(n));
 * parts.set(5000, 1);
 * parts.get(5000); // 1
 * ```
 */
export class GrowableColumn<T extends NumberArray> {
  data: T;
  constructor(private readonly make: (length: number) => T, capacity = 1024) {
    this.data = make(capacity);
  }

  /** Sets the value of `seq`. */
  set(seq: number, value: number): void {
    if (seq >= this.data.length) this.reserve(Math.max(seq + 1, Math.ceil(this.data.length * 1.5)));
    this.data[seq] = value;
  }

  /** Keeps seqs below `length` only, in an array of that size (no room left to grow into). */
  trim(length: number): void {
    if (length < this.data.length) this.data = this.data.slice(0, length) as T;
  }

  /** Makes room for seqs below `length`. */
  reserve(length: number): void {
    if (length <= this.data.length) return;
    const next = this.make(length);
    next.set(this.data as never);
    this.data = next;
  }

  /** The value of `seq` (0 beyond the column). */
  get(seq: number): number {
    return seq < this.data.length ? this.data[seq]! : 0;
  }

  /**
   * The values in rank order (`out[id] = data[seqById[id]]` for ids 1 to
   * `size`); the column by seq is released.
   */
  ranked(ranking: { size: number; seqById: Uint32Array }, out: T): T {
    for (let id = 1; id <= ranking.size; id++) out[id] = this.data[ranking.seqById[id]!]!;
    this.data = this.make(0);
    return out;
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
