/**
 * Letting go of memory: large arrays between the phases of a long job (an
 * import), and what a server freed once it sits idle.
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
  const gc = exposedGc();
  gc?.();
  gc?.();
}

/** V8's `gc()`, where the process runs with `--expose-gc`; else undefined. */
function exposedGc(): ((options?: object) => void) | undefined {
  return (globalThis as { gc?: (options?: object) => void }).gc;
}

/**
 * Where glibc's C library sits on the Linux layouts the service runs on
 * (Debian and Ubuntu, either architecture; Fedora and the like): the one
 * library the service calls through FFI (the start commands allow FFI).
 */
export const LIBC_PATHS: readonly string[] = [
  "/lib/x86_64-linux-gnu/libc.so.6",
  "/lib/aarch64-linux-gnu/libc.so.6",
  "/lib64/libc.so.6",
];

/**
 * The C library's one function the service calls, twice over: on the calling
 * thread, and on a thread of Deno's blocking pool (`nonblocking`, answering
 * a promise) for a caller that must not wait.
 */
const LIBC_SYMBOLS = {
  malloc_trim: { parameters: ["usize"], result: "i32" },
  malloc_trim_background: {
    name: "malloc_trim",
    parameters: ["usize"],
    result: "i32",
    nonblocking: true,
  },
} as const;

type Libc = Deno.DynamicLibrary<typeof LIBC_SYMBOLS>;

/** The C library, once opened on this thread; `null` when it cannot be had. */
let libc: Libc | null | undefined;

function openLibc(): Libc | null {
  if (Deno.build.os !== "linux" || typeof Deno.dlopen !== "function") return null;
  for (const path of LIBC_PATHS) {
    try {
      // Asked, never prompted: without the permission the search for it stops quietly.
      if (Deno.permissions.querySync({ name: "ffi", path }).state !== "granted") continue;
      return Deno.dlopen(path, LIBC_SYMBOLS);
    } catch {
      // Not there, or not glibc (musl has no malloc_trim): try the next.
    }
  }
  return null;
}

function glibc(): Libc | null {
  if (libc === undefined) libc = openLibc();
  return libc;
}

/**
 * Gives back to the system the memory glibc's allocator keeps after it was
 * freed (`malloc_trim(0)`, every arena): hundreds of megabytes after a burst
 * of searches, which glibc would otherwise hold for the next. Needs Linux
 * with glibc and FFI allowed for one of {@linkcode LIBC_PATHS}; elsewhere
 * (Deno Deploy, musl, macOS, no permission) does nothing and returns false.
 * Takes some milliseconds: call it when the thread is idle.
 *
 * @example
 * ```ts
 * releaseMemory();
 * trimMallocHeap(); // true where glibc and the permission are there
 * ```
 */
export function trimMallocHeap(): boolean {
  const library = glibc();
  library?.symbols.malloc_trim(0n);
  return library !== null;
}

/**
 * {@linkcode trimMallocHeap} on a thread of Deno's blocking pool: the
 * caller goes on at once, and the promise settles when the trim is done.
 * `null` where the trim cannot be had (as {@linkcode trimMallocHeap} is false).
 *
 * @example
 * ```ts
 * await backgroundMallocTrim()?.();
 * ```
 */
export function backgroundMallocTrim(): (() => Promise<unknown>) | null {
  const library = glibc();
  return library === null ? null : () => library.symbols.malloc_trim_background(0n);
}

/**
 * What {@linkcode IdleRelease} does by default: a last-resort collection
 * (V8 collects until nothing more is freed and shrinks the heap to what is
 * live; a plain full collection keeps the young generation's space), then
 * glibc's trim. Measured on an idle server after a national-scale run: the
 * serving thread's heap 316 → 66 MB, the search worker's 48 → 29 MB, and
 * 250–300 MB trimmed; 100–350 ms of collection and 15–70 ms of trim.
 */
export function releaseIdleMemory(): void {
  exposedGc()?.({ type: "major", execution: "sync", flavor: "last-resort" });
  trimMallocHeap();
}

/** How an {@linkcode IdleRelease} behaves. */
export interface IdleReleaseOptions {
  /**
   * Activity marks since the last release needed for the next (default
   * {@linkcode RELEASE_MIN_ACTIVITY}): a server asked a question now and then
   * has little to give back, and should not pause for it after each.
   */
  minActivity?: number;
  /** What a release does (default {@linkcode releaseIdleMemory}). */
  release?: () => void;
}

/** Requests or searches between two idle releases, at least (see {@linkcode IdleReleaseOptions}). */
export const RELEASE_MIN_ACTIVITY = 200;

/**
 * Gives memory back once a thread has been idle for a while: every
 * {@linkcode IdleRelease.touch} marks activity (a request, a search), and
 * when `delayMs` pass without one after enough activity, the release runs
 * once (by default {@linkcode releaseIdleMemory}), and not again until there
 * has been as much activity again. Under load a touch costs a clock read;
 * the timer never keeps the process alive. A `delayMs` of 0 turns it off.
 *
 * This is the allocator's work done when nobody waits for it, as jemalloc's
 * decay and tcmalloc's background release do: the garbage of a burst of
 * searches, and what glibc keeps of it once freed, leave the process instead
 * of staying with it until the next burst. A request that comes while a
 * release runs waits for it (a few hundred milliseconds at most).
 *
 * @example
 * ```ts
 * const idle = new IdleRelease(1000);
 * idle.touch(); // on each request; a second after the last of a burst, memory goes back
 * idle.stop(); // on shutdown
 * ```
 */
export class IdleRelease {
  readonly #delayMs: number;
  readonly #minActivity: number;
  readonly #release: () => void;
  #last = 0;
  #activity = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** Releases once `delayMs` pass without a {@linkcode IdleRelease.touch}, after enough of them. */
  constructor(delayMs: number, options: IdleReleaseOptions = {}) {
    this.#delayMs = delayMs;
    this.#minActivity = Math.max(1, options.minActivity ?? RELEASE_MIN_ACTIVITY);
    this.#release = options.release ?? releaseIdleMemory;
  }

  /** Marks activity now; a release due comes `delayMs` after the last mark. */
  touch(): void {
    if (this.#delayMs <= 0) return;
    this.#last = performance.now();
    if (++this.#activity >= this.#minActivity && this.#timer === null) this.#arm(this.#delayMs);
  }

  /** Cancels a pending release (on shutdown). */
  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(ms: number): void {
    const timer = setTimeout(() => this.#due(), ms);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  #due(): void {
    this.#timer = null;
    const quiet = performance.now() - this.#last;
    if (quiet < this.#delayMs) {
      this.#arm(this.#delayMs - quiet);
      return;
    }
    this.#activity = 0;
    this.#release();
  }
}

/**
 * Gives back, while a server is busy, what glibc's allocator kept of the
 * memory it freed: on a {@linkcode BusyTrim.touch} at least `everyMs` after
 * the last trim began, `malloc_trim(0)` runs on a thread of Deno's blocking
 * pool ({@linkcode backgroundMallocTrim}), so that no request waits for it,
 * and never two at once. An `everyMs` of 0, or no trim to be had, turns it off.
 *
 * glibc returns a freed block to the system only from the top of its heaps;
 * the space freed between blocks still in use stays the process's until a
 * trim. A trim gives back little while V8 keeps the garbage that holds those
 * blocks: with V8 told to collect a heap once it grows 15% past what is live
 * (`--heap-growing-percent=15`; by default it lets a heap grow up to
 * fourfold), what a burst of searches freed leaves the process within a
 * second instead of at the idle release, for more collections' work. The
 * trim locks one arena at a time while it walks it: a thread allocating in
 * that arena waits for it (measured at national scale: 6–10 ms a trim,
 * 75–135 ms at the most, on a thread of its own).
 *
 * @example
 * ```ts
 * const trim = new BusyTrim(1000);
 * trim.touch(); // on each request: a trim now, then none for a second
 * ```
 */
export class BusyTrim {
  readonly #everyMs: number;
  readonly #trim: (() => Promise<unknown>) | null;
  #last = -Infinity;
  #running = false;

  /** Trims at most once per `everyMs`, with `trim` ({@linkcode backgroundMallocTrim} by default). */
  constructor(everyMs: number, trim?: (() => Promise<unknown>) | null) {
    this.#everyMs = everyMs;
    this.#trim = everyMs > 0 ? (trim === undefined ? backgroundMallocTrim() : trim) : null;
  }

  /** Marks activity: starts a trim when one is due and none is running. */
  touch(): void {
    if (this.#trim === null || this.#running) return;
    const now = performance.now();
    if (now - this.#last < this.#everyMs) return;
    this.#last = now;
    this.#running = true;
    const done = () => {
      this.#running = false;
    };
    this.#trim().then(done, done);
  }
}
