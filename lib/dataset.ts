/**
 * The dataset being served and its life cycle: loading (the demo is being
 * built), ready (a store is open) or failed. Data routes ask it for the
 * store and get a 503 with `Retry-After` until there is one.
 *
 * @module
 */
import { UnavailableError } from "./http/errors.ts";
import type { ProviderStore } from "./store/store.ts";

/** Where the dataset is in its life cycle. */
export type DatasetState =
  | { kind: "loading"; message: string; progress: number }
  | { kind: "ready"; store: ProviderStore }
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
  store(): ProviderStore {
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

  /** Reports loading progress (0–1). */
  loading(message: string, progress: number): void {
    if (this.#state.kind !== "ready") this.#state = { kind: "loading", message, progress };
  }

  /** Serves `store` from now on; the previous store, if any, is closed. */
  ready(store: ProviderStore): void {
    const previous = this.#state;
    this.#state = { kind: "ready", store };
    if (previous.kind === "ready" && previous.store !== store) previous.store.close();
  }

  /** Marks the dataset failed (kept serving the previous store if there is one). */
  failed(message: string): void {
    if (this.#state.kind !== "ready") this.#state = { kind: "failed", message };
  }

  /** Closes the store. */
  close(): void {
    if (this.#state.kind === "ready") this.#state.store.close();
  }
}
