/**
 * What the reading workers share: flow control between a worker and the
 * thread that consumes its batches (the worker takes a credit for each
 * batch it posts and gets it back when the batch is acknowledged, so that
 * memory stays flat however far ahead it could read), and how they report
 * rows they could not import.
 *
 * @module
 */

/** Batches posted and not yet acknowledged, at most. */
export const BATCHES_IN_FLIGHT = 4;

/** A row that could not be imported. */
export interface SkippedRow {
  line: number;
  reason: string;
}

/**
 * A count of batches that may still be posted.
 *
 * @example
 * ```ts
 * const credits = new Credits(4);
 * await credits.take(); // before posting a batch
 * credits.give(); // when the batch is acknowledged
 * ```
 */
export class Credits {
  #left: number;
  #wake: (() => void) | null = null;

  /** Starts with `count` credits. */
  constructor(count: number) {
    this.#left = count;
  }

  /** Waits until a credit is left, and takes it. */
  async take(): Promise<void> {
    while (this.#left === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
    this.#left--;
  }

  /** Gives a credit back (a batch was acknowledged). */
  give(): void {
    this.#left++;
    this.#wake?.();
    this.#wake = null;
  }
}
