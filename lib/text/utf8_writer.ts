/**
 * Texts written one after another as UTF-8 into one growing buffer outside
 * the V8 heap, then taken as bytes: a long body made of many short texts
 * without ever being one long string (a string over 128 KiB is a large
 * object, on pages mapped for it alone).
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * A reusable writer of UTF-8: {@linkcode Utf8Writer.write} appends,
 * {@linkcode Utf8Writer.take} returns a copy of what was written and
 * starts again. The buffer grows as needed and is kept for the next body.
 *
 * @example
 * ```ts
 * const out = new Utf8Writer();
 * out.write('{"a":');
 * out.write("1}");
 * new TextDecoder().decode(out.take()); // '{"a":1}'
 * ```
 */
export class Utf8Writer {
  #buffer: Uint8Array;
  #length = 0;

  /** @param capacity Bytes of the first buffer (it doubles when short). */
  constructor(capacity = 64 * 1024) {
    this.#buffer = new Uint8Array(Math.max(16, capacity));
  }

  /** Bytes written since the last {@linkcode Utf8Writer.take}. */
  get length(): number {
    return this.#length;
  }

  /** Appends `text` as UTF-8. */
  write(text: string): void {
    let rest = text;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, this.#buffer.subarray(this.#length));
      this.#length += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      // At most three bytes a UTF-16 unit: room for the rest at once.
      const grown = new Uint8Array(
        Math.max(this.#buffer.length * 2, this.#length + rest.length * 3),
      );
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
  }

  /** What was written, as bytes of their own buffer; the writer is then empty. */
  take(): Uint8Array<ArrayBuffer> {
    const out = this.#buffer.slice(0, this.#length);
    this.#length = 0;
    return out;
  }
}
