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

/** Where the dataset is in its life cycle. */
export type DatasetState =
  | { kind: "loading"; message: string; progress: number }
  | { kind: "ready"; store: SearchableStore; pool?: SearchPool | null }
  | { kind: "failed"; message: string };

/** Holds the current store; swapped atomically when a new one is ready. */
export class Dataset {
  #state: DatasetState;

  constructor(initial: DatasetState = { kind: "loading", message: "Starting", progress: 0 }) {
    this.#state = initial;
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

  /** The search workers of the current store; `null` when searches run in-process. */
  pool(): SearchPool | null {
    return this.#state.kind === "ready" ? this.#state.pool ?? null : null;
  }

  /** Reports loading progress (0–1). */
  loading(message: string, progress: number): void {
    if (this.#state.kind !== "ready") this.#state = { kind: "loading", message, progress };
  }

  /**
   * Serves `store` (searched by `pool` when given) from now on. The previous
   * store is closed; its pool first finishes the searches it has (requests
   * in flight are answered), then stops.
   */
  ready(store: SearchableStore, pool: SearchPool | null = null): void {
    const previous = this.#state;
    this.#state = { kind: "ready", store, pool };
    if (previous.kind !== "ready") return;
    if (previous.pool && previous.pool !== pool) void previous.pool.close();
    if (previous.store !== store) previous.store.close();
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
