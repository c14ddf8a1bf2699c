/**
 * One gzip stream made of pieces compressed apart, on any thread (as
 * `pigz` does): each piece is deflated on its own and ended with a sync
 * flush (no final block), so the pieces concatenate into one deflate
 * stream; the CRC-32 of the whole is combined from the pieces' CRCs and
 * lengths. The result is an ordinary single-member gzip stream any client
 * reads, and an export can compress its pages on the search workers and the
 * serving thread at once instead of through one `CompressionStream`.
 *
 * @module
 */
import { constants, crc32, deflateRawSync } from "node:zlib";

/** A piece of a body: its bytes (deflated or not), and the CRC-32 and length of its text. */
export interface BodyChunk {
  bytes: Uint8Array<ArrayBuffer>;
  /** CRC-32 of the uncompressed bytes (0 when not compressed). */
  crc: number;
  /** Length of the uncompressed bytes. */
  size: number;
}

const encoder = new TextEncoder();

/** The bytes as an array of their own (so its buffer can be transferred to another thread). */
function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength &&
      bytes.buffer instanceof ArrayBuffer
    ? bytes as Uint8Array<ArrayBuffer>
    : new Uint8Array(bytes);
}

/**
 * `text` as UTF-8, deflated at `level` (a piece of a gzip stream, see
 * {@linkcode GzipJoiner}) or as it is when `level` is `null`.
 *
 * @example
 * ```ts
 * const chunk = textChunk("a line\n", 1);
 * chunk.size; // 7
 * ```
 */
export function textChunk(text: string, level: number | null): BodyChunk {
  const raw = encoder.encode(text);
  if (level === null) return { bytes: raw, crc: 0, size: raw.byteLength };
  const deflated = deflateRawSync(raw, { level, finishFlush: constants.Z_SYNC_FLUSH });
  return { bytes: own(deflated), crc: crc32(raw) >>> 0, size: raw.byteLength };
}

/** The CRC-32 polynomial, bit-reversed; in this form bit 31 stands for x⁰. */
const POLY = 0xedb88320;

/** a·b modulo the CRC polynomial (both bit-reversed polynomials). */
function multiplyModPoly(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    if (m === 0) break;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31. */
const X_POW_2K: number[] = (() => {
  const table = [0x40000000]; // x¹
  for (let k = 1; k < 32; k++) table.push(multiplyModPoly(table[k - 1]!, table[k - 1]!));
  return table;
})();

/** x^(8·bytes) modulo the polynomial: what appending `bytes` bytes multiplies a CRC by. */
function shiftFor(bytes: number): number {
  let p = 0x80000000; // x⁰
  let n = bytes;
  let k = 3; // 8 = 2³ bits a byte
  while (n > 0) {
    if (n % 2 === 1) p = multiplyModPoly(X_POW_2K[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/**
 * The CRC-32 of `A` followed by `B`, from `crc(A)`, `crc(B)` and the length
 * of `B`.
 *
 * @example
 * ```ts
 * import { crc32 } from "node:zlib";
 * const a = new TextEncoder().encode("abc"), b = new TextEncoder().encode("def");
 * crc32Combine(crc32(a), crc32(b), 3) === crc32(new TextEncoder().encode("abcdef")); // true
 * ```
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multiplyModPoly(shiftFor(lengthB), crcA >>> 0) ^ crcB) >>> 0;
}

/** The gzip header: deflate, no name or time, unknown OS. */
const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final block (fixed Huffman codes, end of block only). */
const FINAL_BLOCK = [0x03, 0x00];

/**
 * Joins deflated pieces ({@linkcode textChunk} with a level) into one gzip
 * stream: `add` gives the bytes to send for each piece in order (the header
 * first), `end` the final block and trailer.
 *
 * @example
 * ```ts
 * const gzip = new GzipJoiner();
 * const body = [gzip.add(textChunk("a\n", 6)), gzip.add(textChunk("b\n", 6)), gzip.end()];
 * ```
 */
export class GzipJoiner {
  #started = false;
  #crc = 0;
  #size = 0;

  /** The bytes to send for `chunk`, a deflated piece. */
  add(chunk: BodyChunk): Uint8Array<ArrayBuffer> {
    this.#crc = crc32Combine(this.#crc, chunk.crc, chunk.size);
    this.#size += chunk.size;
    if (this.#started) return chunk.bytes;
    this.#started = true;
    const out = new Uint8Array(GZIP_HEADER.length + chunk.bytes.byteLength);
    out.set(GZIP_HEADER);
    out.set(chunk.bytes, GZIP_HEADER.length);
    return out;
  }

  /** The end of the stream (the header too when no piece was added). */
  end(): Uint8Array<ArrayBuffer> {
    const head = this.#started ? 0 : GZIP_HEADER.length;
    const out = new Uint8Array(head + FINAL_BLOCK.length + 8);
    if (head) out.set(GZIP_HEADER);
    out.set(FINAL_BLOCK, head);
    const view = new DataView(out.buffer);
    view.setUint32(head + 2, this.#crc, true);
    view.setUint32(head + 6, this.#size % 2 ** 32, true);
    this.#started = true;
    return out;
  }
}
