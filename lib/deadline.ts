/**
 * Request deadlines shared by the HTTP layer, the search engine and the
 * search workers. A deadline is an absolute time in milliseconds on
 * {@linkcode clock}, which every thread of the process reads alike (unlike
 * `performance.now()`, whose origin differs per worker).
 *
 * @module
 */

/**
 * Milliseconds since the Unix epoch, with sub-millisecond resolution; the
 * same in every worker of the process.
 *
 * @example
 * ```ts
 * const deadline = clock() + 10_000;
 * ```
 */
export function clock(): number {
  return performance.timeOrigin + performance.now();
}

/** The work passed its deadline and was abandoned; the HTTP layer answers 503. */
export class DeadlineError extends Error {
  constructor(message = "The request's deadline passed") {
    super(message);
    this.name = "DeadlineError";
  }
}

/** What long work watches to know when to stop. */
export interface Watch {
  /** Aborted when the request is abandoned. */
  signal?: AbortSignal;
  /** When the work must stop, on {@linkcode clock}; absent or `Infinity` = no limit. */
  deadline?: number;
  /**
   * Asked in the same places as the deadline: true when whoever waits for
   * the work has given up on it (a search worker reads its pool's shared
   * cancel flag here, since no message reaches it while it searches).
   */
  stopped?: () => boolean;
}

/**
 * Throws when `watch` says stop: the signal's reason when it is aborted, a
 * {@linkcode DeadlineError} when the deadline has passed.
 *
 * @example
 * ```ts
 * for (let i = 0; i < n; i++) if ((i & 0xffff) === 0) checkWatch(watch);
 * ```
 */
export function checkWatch(watch: Watch): void {
  const { signal, deadline } = watch;
  if (signal?.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
  if (deadline !== undefined && deadline !== Infinity && clock() > deadline) {
    throw new DeadlineError();
  }
  if (watch.stopped?.()) throw new DeadlineError("The work was abandoned by its caller");
}
