/**
 * A search worker's answer in shared memory, which the serving thread can
 * read without waiting for its event loop to deliver the worker's message.
 *
 * Under overload the serving thread is busy every moment answering new
 * requests (most of them refusals), and a worker's `postMessage` waits
 * behind them: at 1 million records, wrk c=256 on searches the worker
 * finished in 30–120 ms, their answers sat 1.7–3.5 s in the serving
 * thread's queue, so admitted searches were answered late and the pool
 * measured seconds of "service time". With a mailbox, the worker writes its
 * answer here (JSON, one answer at a time) and only then posts a small
 * notice; the pool looks into its workers' mailboxes on every search
 * request it receives — exactly what keeps arriving under overload — as
 * well as when the notice comes, and settles the search from whichever
 * comes first.
 *
 * Layout: a header of 32-bit integers (state: 0 empty / 1 full; byte
 * length) and the answer's UTF-8 JSON after it. The worker fills an empty
 * mailbox and then marks it full (`Atomics.store`); the pool reads a full
 * one and then empties it. A replacement worker gets a new mailbox, so a
 * terminated worker still writing cannot touch its successor's answers.
 *
 * @module
 */

const STATE = 0;
const LENGTH = 1;
/** Bytes before the answer. */
const HEADER_BYTES = 16;

/** Default size of a mailbox: answers larger go by `postMessage`. */
export const MAILBOX_BYTES = 1 << 20;

/**
 * One worker's mailbox, over a `SharedArrayBuffer` both threads hold.
 *
 * @example
 * ```ts
 * const box = new ResultMailbox(ResultMailbox.buffer());
 * box.put({ type: "timeout", id: 7 }); // true: written
 * box.take(); // { type: "timeout", id: 7 }
 * box.take(); // null: empty again
 * ```
 */
export class ResultMailbox<T = unknown> {
  readonly #header: Int32Array;
  readonly #bytes: Uint8Array;

  /** A new shared buffer for a mailbox of `bytes` bytes. */
  static buffer(bytes = MAILBOX_BYTES): SharedArrayBuffer {
    return new SharedArrayBuffer(HEADER_BYTES + bytes);
  }

  constructor(readonly shared: SharedArrayBuffer) {
    this.#header = new Int32Array(shared, 0, 2);
    this.#bytes = new Uint8Array(shared, HEADER_BYTES);
  }

  /**
   * Writes `answer` (worker side). False when the mailbox is still full or
   * the answer does not fit: send it by `postMessage` instead.
   */
  put(answer: T): boolean {
    if (Atomics.load(this.#header, STATE) !== 0) return false;
    const text = JSON.stringify(answer);
    // At most 3 bytes per UTF-16 unit: skip the encoding when it cannot fit.
    if (text.length * 3 > this.#bytes.length && text.length > this.#bytes.length) return false;
    const { read, written } = new TextEncoder().encodeInto(text, this.#bytes);
    if (read < text.length) return false;
    Atomics.store(this.#header, LENGTH, written);
    Atomics.store(this.#header, STATE, 1);
    return true;
  }

  /** Takes the answer waiting (pool side), or `null` when the mailbox is empty. */
  take(): T | null {
    if (Atomics.load(this.#header, STATE) !== 1) return null;
    const length = Atomics.load(this.#header, LENGTH);
    const text = new TextDecoder().decode(this.#bytes.slice(0, length));
    Atomics.store(this.#header, STATE, 0);
    return JSON.parse(text) as T;
  }
}
