/**
 * Opens the configured database at start-up, or, when it does not exist,
 * builds the demo dataset there in a worker while the server already answers.
 * Each opened database gets its pool of search workers.
 *
 * @module
 */
import { Dataset } from "./dataset.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { openSqliteStore } from "../store/sqlite_store.ts";
import { canMapFiles, PinnedFiles } from "../index/mapped_file.ts";
import { partFiles, partPath, readPartNames } from "../store/parts.ts";
import {
  openSearchableStore,
  type SearchableSqliteStore,
  type SearcherOptions,
  withSearch,
} from "../search/searcher.ts";
import { StoreOpenError } from "../store/store.ts";
import { type PoolObserver, SearchPool } from "../search/pool.ts";
import { renderBody } from "./render.ts";
import { dirname } from "../paths.ts";
import { readRelease } from "../release/manifest.ts";
import { writeReleaseManifest } from "../release/write.ts";

/** The module of the service's search workers (`search_worker.ts` here). */
export const SEARCH_WORKER_URL = new URL("./search_worker.ts", import.meta.url).href;

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A database ready to serve: its store, and the pool that searches it (`null`: in-process). */
export interface Serving {
  store: SearchableSqliteStore;
  pool: SearchPool | null;
}

/**
 * Opens `path` for serving. With `config.searchWorkers` > 0 the search
 * workers open it too (and load its index), and the serving thread's store
 * leaves the index unloaded; resolves once every worker is ready. Rejects
 * with {@linkcode StoreOpenError} when the file cannot be served. Where the
 * platform has no workers, searches run on the serving thread.
 *
 * @example
 * ```ts
 * const { store, pool } = await openServing("data/providers.db", config, log);
 * dataset.ready(store, pool);
 * ```
 */
export async function openServing(
  path: string,
  config: Config,
  log: Logger,
  observer?: PoolObserver,
): Promise<Serving> {
  const serving = await openStoreAndPool(path, config, log, observer, recordsHeld(path, config));
  serving.store.held?.then((outcome) =>
    "records" in outcome
      ? log.info("records held in memory", { path, records: outcome.records })
      : log.warn("records not held in memory", { path, error: outcome.error })
  );
  if (config.pinDataFiles) pinWhileServed(path, serving.store, log);
  return serving;
}

/**
 * Whether every page of the records parts of the database at `path` is
 * mapped by each connection that reads them (`HOLD_RECORDS`, see
 * `RecordParts.hold`): asked, and the parts take at most half the memory
 * the system has available now (`Deno.systemMemoryInfo`, which the start
 * commands allow). False when it cannot be told.
 */
export function recordsHeld(path: string, config: Config): boolean {
  if (!config.holdRecords) return false;
  const parts = readPartNames(path);
  if (!parts || parts.records.length === 0) return false;
  try {
    let bytes = 0;
    for (const { file } of parts.records) bytes += Deno.statSync(partPath(path, file)).size;
    return bytes * 2 <= Deno.systemMemoryInfo().available;
  } catch {
    return false;
  }
}

/**
 * Locks the files `store` reads in memory while it serves (`PIN_DATA_FILES`),
 * a chunk between tasks, and lets them go when it closes (the postings part
 * is left out when the index is read from the index map).
 */
function pinWhileServed(path: string, store: SearchableSqliteStore, log: Logger): void {
  const { parts } = store;
  const unread = parts.map && canMapFiles() ? parts.postings : null;
  const files = [
    path,
    ...partFiles(parts).filter((f) => f !== unread).map((f) => partPath(path, f)),
  ];
  const pins = new PinnedFiles();
  const close = store.close.bind(store);
  store.close = () => {
    pins.release();
    close();
  };
  pins.pin(files, () => new Promise((resolve) => setTimeout(resolve, 0))).then(
    (bytes) => log.info("data files pinned in memory", { path, files: files.length, bytes }),
    (error) =>
      log.warn("data files not pinned in memory", {
        path,
        error: error instanceof Error ? error.message : String(error),
      }),
  );
}

async function openStoreAndPool(
  path: string,
  config: Config,
  log: Logger,
  observer: PoolObserver | undefined,
  holdRecords: boolean,
): Promise<Serving> {
  if (config.searchWorkers === 0) {
    return {
      store: readWhole(
        openSearchableStore(path, { ...threadCaches(config.serveThreads), holdRecords }),
      ),
      pool: null,
    };
  }
  // The workers search; this thread only reads records (detail, dataset, specialties).
  // Its index, loaded only for the few lookups the FHIR routes make here, reads the index map in
  // place (or, without one, takes the workers' large columns from shared memory) and keeps a small
  // posting cache. Those lookups match no query words, so the kept unions are not mapped here.
  let pool: SearchPool | null = null;
  const store = withSearch(
    openSqliteStore(path, {
      lazyIndex: true,
      recordCacheBytes: 8 * 1024 * 1024,
      postingCacheBytes: 16 * 1024 * 1024,
      holdRecords,
      sharedColumns: () => pool?.columns ?? {},
    }),
    { lazy: true, keptUnions: false },
  );
  try {
    pool = await SearchPool.start({
      path,
      workers: config.searchWorkers,
      queue: config.searchQueue,
      maxWaitMs: config.searchMaxWaitMs,
      idleReleaseMs: config.idleReleaseMs,
      storeOptions: { holdRecords },
      observer,
      log,
      render: (job, page) => renderBody(store, job, page),
      workerUrl: SEARCH_WORKER_URL,
    });
    return { store, pool };
  } catch (error) {
    store.close();
    if (error instanceof StoreOpenError) throw error;
    log.warn("search workers unavailable; searching on the serving thread", {
      error: error instanceof Error ? error.message : String(error),
    });
    return { store: readWhole(openSearchableStore(path, { holdRecords })), pool: null };
  }
}

/**
 * The caches of one of `threads` serving threads' stores: they hand each
 * other the word unions they build (`serving_threads.ts`); the other caches
 * are each thread's own, at their default budgets (split between two
 * threads, the FHIR listings' filter unions no longer fit and those classes
 * ran at half the speed: the benchmarks' eighteenth round).
 */
export function threadCaches(threads: number): SearcherOptions {
  return threads > 1 ? { shareWordSets: true } : {};
}

/** Reads the whole search index now: searching on the serving thread, no search should pay for it. */
function readWhole(store: SearchableSqliteStore): SearchableSqliteStore {
  while (store.warm());
  return store;
}

function openFailure(path: string, error: unknown): string {
  return error instanceof StoreOpenError
    ? error.message
    : `Cannot open '${path}': ${error instanceof Error ? error.message : error}`;
}

/**
 * Starts the dataset: opens `config.databasePath`, or builds the demo there.
 * Never throws: a database that cannot be served is logged with what to do,
 * and data routes answer 503 until it is fixed; health keeps answering.
 */
export function startDataset(
  config: Config,
  log: Logger,
  dataset: Dataset = new Dataset(),
  observer?: PoolObserver,
): Dataset {
  const path = config.databasePath;
  if (exists(path)) {
    dataset.loading("opening the database", 0);
    openServing(path, config, log, observer).then(({ store, pool }) => {
      const release = readRelease(path, store.dataset());
      dataset.ready(store, pool, release);
      log.info("dataset open", {
        path,
        release: release.id,
        ...summary(store.dataset()),
        ...serving(store, pool),
      });
    }, (error) => {
      const message = openFailure(path, error);
      log.error("dataset unavailable", { path, error: message });
      dataset.failed(message);
    });
    return dataset;
  }
  buildDemo(dataset, config, log, observer);
  return dataset;
}

function summary(info: { source: string; records: number; active: number; built_at: string }) {
  return {
    source: info.source,
    records: info.records,
    active: info.active,
    built_at: info.built_at,
  };
}

/**
 * How the dataset is served: its search workers, where its index is read
 * from — in place from its index map, or copied out of SQLite (and why: no
 * map, or no FFI to map it) — and whether the commonest words' unions are
 * read from its kept unions or built as searches meet them (and why).
 */
function serving(store: SearchableSqliteStore, pool: SearchPool | null) {
  const mapped = canMapFiles();
  const index = !store.parts.map
    ? "sqlite (no index map: deno task index-map)"
    : mapped
    ? "index map"
    : "sqlite (the index map cannot be mapped: run with --allow-ffi on Linux)";
  const unions = !store.parts.unions
    ? "built by searches (none kept: deno task unions)"
    : mapped
    ? "kept"
    : "built by searches (the kept unions cannot be mapped: run with --allow-ffi on Linux)";
  return { search_workers: pool?.stats.workers ?? 0, index, unions };
}

function buildDemo(
  dataset: Dataset,
  config: Config,
  log: Logger,
  observer?: PoolObserver,
): void {
  const path = config.databasePath;
  const started = performance.now();
  dataset.loading("building the demo dataset", 0);
  log.info("building demo dataset", { path, records: config.demoRecords, seed: config.demoSeed });
  try {
    Deno.mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    const message = `Cannot create the folder of '${path}': ${
      error instanceof Error ? error.message : error
    }`;
    log.error("demo build failed", { error: message });
    dataset.failed(message);
    return;
  }
  const worker = new Worker(new URL("./demo_worker.ts", import.meta.url).href, {
    type: "module",
  });
  worker.onmessage = (event: MessageEvent) => {
    const message = event.data as
      | { type: "progress"; done: number; total: number }
      | { type: "done" }
      | { type: "error"; message: string };
    if (message.type === "progress") {
      dataset.loading("building the demo dataset", message.done / message.total);
      return;
    }
    worker.terminate();
    if (message.type === "error") {
      log.error("demo build failed", { error: message.message });
      dataset.failed(`The demo dataset could not be built: ${message.message}`);
      return;
    }
    // The demo is a release like any other: its manifest lets it be published as it is.
    writeReleaseManifest(path).catch((error) =>
      log.warn("release manifest not written", {
        path,
        error: error instanceof Error ? error.message : String(error),
      })
    ).then(() => openServing(path, config, log, observer)).then(({ store, pool }) => {
      dataset.ready(store, pool, readRelease(path, store.dataset()));
      log.info("dataset open", {
        path,
        build_seconds: Math.round((performance.now() - started) / 100) / 10,
        ...summary(store.dataset()),
        ...serving(store, pool),
      });
    }, (error) => {
      const message = openFailure(path, error);
      log.error("dataset unavailable", { path, error: message });
      dataset.failed(message);
    });
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    worker.terminate();
    log.error("demo build failed", { error: event.message });
    dataset.failed(`The demo dataset could not be built: ${event.message}`);
  };
  worker.postMessage({ path, records: config.demoRecords, seed: config.demoSeed });
}

/**
 * Opens the file at `config.databasePath` again (an import renames its new
 * file there), with new search workers, and swaps it in once they are
 * ready; requests in flight finish on the old store and workers, which then
 * stop. A file that cannot be opened is logged and the current dataset
 * keeps serving. Logs `done` when it serves the file. Never rejects.
 */
export async function reloadDataset(
  config: Config,
  log: Logger,
  dataset: Dataset,
  observer?: PoolObserver,
  done = "dataset reloaded",
): Promise<void> {
  try {
    const { store, pool } = await openServing(config.databasePath, config, log, observer);
    const release = readRelease(config.databasePath, store.dataset());
    dataset.ready(store, pool, release);
    log.info(done, {
      path: config.databasePath,
      release: release.id,
      ...summary(store.dataset()),
      ...serving(store, pool),
    });
  } catch (error) {
    log.error("dataset reload failed; still serving the previous one", {
      path: config.databasePath,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * Reloads the database on `SIGHUP` ({@linkcode reloadDataset}), and calls
 * `alsoReload` (the other serving threads reload theirs). Signals during a
 * reload queue up behind it. Returns a function that stops listening.
 */
export function reloadOnHangup(
  config: Config,
  log: Logger,
  dataset: Dataset,
  observer?: PoolObserver,
  alsoReload?: () => void,
): () => void {
  let reloading = Promise.resolve();
  const reload = () => {
    alsoReload?.();
    reloading = reloading.then(() => reloadDataset(config, log, dataset, observer));
  };
  try {
    Deno.addSignalListener("SIGHUP", reload);
  } catch {
    return () => {}; // No SIGHUP here (Windows, Deno Deploy): restart to pick up a new file.
  }
  return () => Deno.removeSignalListener("SIGHUP", reload);
}
