/**
 * The dataset being served and its life cycle: loading (the demo is being
 * built), ready (a store is open) or failed. Data routes ask it for the
 * store and get a 503 with `Retry-After` until there is one.
 *
 * @module
 */
import { UnavailableError } from "../http/errors.ts";
import type { SearchableStore } from "../search/searcher.ts";
import type { SearchPool } from "../search/pool.ts";
import { bareRelease, type ReleaseInfo } from "../release/manifest.ts";

/** The response header naming the dataset release that answered (search and dataset answers). */
export const RELEASE_HEADER = "Dataset-Release";
import { shortHash } from "../http/cache.ts";

/** Where the dataset is in its life cycle. */
export type DatasetState =
  | { kind: "loading"; message: string; progress: number }
  | { kind: "ready"; store: SearchableStore; pool?: SearchPool | null; release?: ReleaseInfo }
  | { kind: "failed"; message: string };

/** Holds the current store; swapped atomically when a new one is ready. */
export class Dataset {
  #state: DatasetState;
  readonly #opened: PromiseWithResolvers<void> = Promise.withResolvers();

  constructor(initial: DatasetState = { kind: "loading", message: "Starting", progress: 0 }) {
    this.#state = initial;
    if (initial.kind === "ready") this.#opened.resolve();
  }

  /** Resolves once a store is first served ({@linkcode Dataset.ready}); never when none is. */
  opened(): Promise<void> {
    return this.#opened.promise;
  }

  /** The current state. */
  get state(): DatasetState {
    return this.#state;
  }

  /**
   * The store to answer from; throws a 503 problem while loading or failed.
   *
   * @example
   * ```ts
   * const store = dataset.store();
   * ```
   */
  store(): SearchableStore {
    const state = this.#state;
    if (state.kind === "ready") return state.store;
    if (state.kind === "loading") {
      throw new UnavailableError(
        `The dataset is loading (${state.message}, ${
          Math.round(state.progress * 100)
        }%): try again shortly`,
        5,
        "loading",
      );
    }
    throw new UnavailableError(`No dataset is being served: ${state.message}`, 60, "no-dataset");
  }

  /**
   * The release being served (its id binds cursors and tells answers of
   * different releases apart); throws a 503 problem as {@linkcode store} does.
   *
   * @example
   * ```ts
   * dataset.release().id; // "nppes-20260810-20260811T101512345Z"
   * ```
   */
  release(): ReleaseInfo {
    const store = this.store(); // Throws unless ready.
    const ready = this.#state as Extract<DatasetState, { kind: "ready" }>;
    return ready.release ??= bareRelease(store.dataset());
  }

  /**
   * The version of the dataset served, naming it in `ETag`s: a hash of its
   * release id (which changes with every import, the weekly update too), or
   * `null` while none is served.
   *
   * @example
   * ```ts
   * dataset.version(); // e.g. "q3VYb1kq2fJ0"
   * ```
   */
  version(): string | null {
    if (this.#state.kind !== "ready") return null;
    return shortHash(this.release().id).slice(0, 12);
  }

  /**
   * Whether searches can be answered now: a store is open and, when
   * searches run in workers, at least one worker is ready.
   */
  searchable(): boolean {
    const state = this.#state;
    if (state.kind !== "ready") return false;
    return !state.pool || state.pool.stats.ready > 0;
  }

  /** The search workers of the current store; `null` when searches run in-process. */
  pool(): SearchPool | null {
    return this.#state.kind === "ready" ? this.#state.pool ?? null : null;
  }

  /** Reports loading progress (0–1). */
  loading(message: string, progress: number): void {
    if (this.#state.kind !== "ready") this.#state = { kind: "loading", message, progress };
  }

  /**
   * Serves `store` (searched by `pool` when given) as `release` (by default
   * the id derived from the store) from now on. The previous pool first
   * finishes the searches it has, then stops; the previous store closes
   * after that, since those searches' answers are rendered from it
   * (requests in flight are answered from the release they started on).
   */
  ready(store: SearchableStore, pool: SearchPool | null = null, release?: ReleaseInfo): void {
    const previous = this.#state;
    this.#state = { kind: "ready", store, pool, release };
    this.#opened.resolve();
    if (previous.kind !== "ready") return;
    const drained = previous.pool && previous.pool !== pool
      ? previous.pool.close()
      : Promise.resolve();
    if (previous.store !== store) {
      void drained.then(() => {
        try {
          previous.store.close();
        } catch { /* already closed */ }
      });
    }
  }

  /** Marks the dataset failed (kept serving the previous store if there is one). */
  failed(message: string): void {
    if (this.#state.kind !== "ready") this.#state = { kind: "failed", message };
  }

  /** Stops the search workers (after their searches) and closes the store. */
  async close(): Promise<void> {
    if (this.#state.kind !== "ready") return;
    const { store, pool } = this.#state;
    await pool?.close();
    store.close();
  }
}
