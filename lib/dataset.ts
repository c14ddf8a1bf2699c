/**
 * The dataset being served and its life cycle: loading (the demo is being
 * built), ready (a store is open) or failed. Data routes ask it for the
 * store and get a 503 with `Retry-After` until there is one.
 *
 * @module
 */
import { UnavailableError } from "./http/errors.ts";
import type { ProviderStore } from "./store/store.ts";
import type { SearchPool } from "./search/pool.ts";
import { shortHash } from "./http/cache.ts";

const versions = new WeakMap<ProviderStore, string>();

/**
 * The version of a store's dataset: a hash of what `/v1/dataset` reports
 * (build time, record counts, source files, schema), so every new import —
 * the weekly update — has a new one. Names the dataset in `ETag`s.
 *
 * @example
 * ```ts
 * datasetVersion(store); // e.g. "q3VYb1kq2fJ0"
 * ```
 */
export function datasetVersion(store: ProviderStore): string {
  let version = versions.get(store);
  if (version === undefined) {
    const info = store.dataset();
    version = shortHash(JSON.stringify([
      info.built_at,
      info.records,
      info.active,
      info.schema_version,
      info.source,
      info.files,
    ])).slice(0, 12);
    versions.set(store, version);
  }
  return version;
}

/** Where the dataset is in its life cycle. */
export type DatasetState =
  | { kind: "loading"; message: string; progress: number }
  | { kind: "ready"; store: ProviderStore; pool?: SearchPool | null }
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

  /** The version of the dataset served ({@linkcode datasetVersion}), or `null` while none is. */
  version(): string | null {
    const state = this.#state;
    return state.kind === "ready" ? datasetVersion(state.store) : null;
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
   * Serves `store` (searched by `pool` when given) from now on. The previous
   * store is closed; its pool first finishes the searches it has (requests
   * in flight are answered), then stops.
   */
  ready(store: ProviderStore, pool: SearchPool | null = null): void {
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
