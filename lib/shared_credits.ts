/**
 * Flow control between a worker that produces batches synchronously and the
 * thread that consumes them: a count of batches that may be in flight, in
 * shared memory. The worker blocks (`Atomics.wait`) when none is left; the
 * consumer gives one back for each batch it has handled. A worker can so
 * stream out the results of a synchronous loop without being able to run
 * ahead of the consumer.
 *
 * @module
 */

/**
 * Credits over a `SharedArrayBuffer`, one side each.
 *
 * @example
 * ```ts
 * const buffer = SharedCredits.buffer(4); // post it to the worker
 * // In the worker: new SharedCredits(buffer).takeBlocking() before posting a batch.
 * // Here, once a batch is handled: new SharedCredits(buffer).give().
 * ```
 */
export class SharedCredits {
  readonly #count: Int32Array;

  /** The credits in `buffer` (from {@linkcode SharedCredits.buffer}). */
  constructor(buffer: SharedArrayBuffer) {
    this.#count = new Int32Array(buffer);
  }

  /** A new shared count starting at `credits`. */
  static buffer(credits: number): SharedArrayBuffer {
    const buffer = new SharedArrayBuffer(4);
    new Int32Array(buffer)[0] = credits;
    return buffer;
  }

  /** Takes a credit, blocking the thread until one is free (not on a main thread). */
  takeBlocking(): void {
    for (;;) {
      const left = Atomics.load(this.#count, 0);
      if (left > 0) {
        if (Atomics.compareExchange(this.#count, 0, left, left - 1) === left) return;
        continue;
      }
      Atomics.wait(this.#count, 0, left);
    }
  }

  /** Gives a credit back and wakes the waiting side. */
  give(): void {
    Atomics.add(this.#count, 0, 1);
    Atomics.notify(this.#count, 0);
  }
}
