/**
 * Unique, pseudo-random NPIs for demo records: record `i` of a seed gets
 * NPI `f(i)` where `f` is a seeded permutation of the 200 million possible
 * NPI stems (`100000000` to `299999999`), so NPIs never repeat, do not run
 * in sequence, and record `i` gets the same NPI however many records a run
 * makes. The permutation is a 4-round Feistel network on 28 bits with
 * cycle-walking into the 200 million range.
 *
 * @module
 */

import { npiCheckDigit } from "../npi.ts";
import { hash32 } from "./prng.ts";

/** How many distinct NPIs exist (first digit 1 or 2, 8 free digits, check digit). */
export const NPI_SPACE_SIZE = 200_000_000;

const HALF_BITS = 14;
const HALF_MASK = (1 << HALF_BITS) - 1;
const ROUNDS = 4;

/**
 * A seeded bijection from record index to NPI.
 *
 * @example
 * ```ts
 * import { isValidNpi } from "../npi.ts";
 * const space = new NpiSpace(20260810);
 * isValidNpi(space.npi(0)); // true
 * ```
 */
export class NpiSpace {
  readonly #keys: Uint32Array;

  /** Derives the round keys from the seed. */
  constructor(seed: number) {
    this.#keys = new Uint32Array(ROUNDS);
    for (let r = 0; r < ROUNDS; r++) this.#keys[r] = hash32(hash32(seed ^ 0x5eed) + r * 0x9e3779b9);
  }

  #encrypt(x: number): number {
    let left = x >>> HALF_BITS;
    let right = x & HALF_MASK;
    for (let r = 0; r < ROUNDS; r++) {
      const f = hash32(right ^ this.#keys[r]!) & HALF_MASK;
      const next = left ^ f;
      left = right;
      right = next;
    }
    return (left << HALF_BITS) | right;
  }

  /** The 9-digit stem (first 9 digits) of record `index`'s NPI. */
  stem(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= NPI_SPACE_SIZE) {
      throw new RangeError(`Cannot make an NPI for record '${index}': out of range`);
    }
    let y = this.#encrypt(index);
    while (y >= NPI_SPACE_SIZE) y = this.#encrypt(y);
    return 100_000_000 + y;
  }

  /**
   * The NPI of record `index`.
   *
   * @example
   * ```ts
   * const space = new NpiSpace(1);
   * space.npi(0) !== space.npi(1); // true
   * /^[12][0-9]{9}$/.test(space.npi(0)); // true
   * ```
   */
  npi(index: number): string {
    const stem = String(this.stem(index));
    return stem + npiCheckDigit(stem);
  }
}
