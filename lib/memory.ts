/**
 * Letting go of large arrays between the phases of a long job (an import).
 *
 * V8 frees the memory of a typed array only when a collection finds it
 * unreachable, and a thread whose JavaScript heap stays small collects
 * rarely, however many hundreds of megabytes of arrays it dropped. Run with
 * `--v8-flags=--expose-gc` (`deno task import` does), a phase can ask for a
 * full collection at its end; without the flag, nothing happens.
 *
 * @module
 */

/**
 * Runs full garbage collections when the process exposes them, else does
 * nothing; a few milliseconds when the JavaScript heap is small. Two: the
 * first finds the arrays unreachable, the second gives their memory back
 * (measured: one alone leaves it held).
 *
 * @example
 * ```ts
 * let scratch: Uint32Array | null = new Uint32Array(10_000_000);
 * scratch = null;
 * releaseMemory(); // its 40 MB are freed now, not at some later collection
 * ```
 */
export function releaseMemory(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
}
