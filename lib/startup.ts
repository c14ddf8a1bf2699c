/**
 * Opens the configured database at start-up, or, when it does not exist,
 * builds the demo dataset there in a worker while the server already answers.
 *
 * @module
 */
import { Dataset } from "./dataset.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import { openSqliteStore } from "./store/sqlite_store.ts";
import { StoreOpenError } from "./store/store.ts";
import { dirname } from "./import/paths.ts";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
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
): Dataset {
  const path = config.databasePath;
  if (exists(path)) {
    try {
      const store = openSqliteStore(path);
      dataset.ready(store);
      log.info("dataset open", { path, ...summary(store.dataset()) });
    } catch (error) {
      const message = error instanceof StoreOpenError
        ? error.message
        : `Cannot open '${path}': ${error}`;
      log.error("dataset unavailable", { path, error: message });
      dataset.failed(message);
    }
    return dataset;
  }
  buildDemo(dataset, config, log);
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

function buildDemo(dataset: Dataset, config: Config, log: Logger): void {
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
  const worker = new Worker(new URL("./demo/build_worker.ts", import.meta.url).href, {
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
    try {
      const store = openSqliteStore(path);
      dataset.ready(store);
      log.info("dataset open", {
        path,
        build_seconds: Math.round((performance.now() - started) / 100) / 10,
        ...summary(store.dataset()),
      });
    } catch (error) {
      log.error("dataset unavailable", { path, error: String(error) });
      dataset.failed(String(error instanceof Error ? error.message : error));
    }
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
 * Reloads the database on `SIGHUP`: opens the file at `config.databasePath`
 * again (an import renames its new file there) and swaps it in; requests in
 * flight finish on the old one. A file that cannot be opened is logged and
 * the current dataset keeps serving. Returns a function that stops listening.
 */
export function reloadOnHangup(config: Config, log: Logger, dataset: Dataset): () => void {
  const reload = () => {
    try {
      const store = openSqliteStore(config.databasePath);
      dataset.ready(store);
      log.info("dataset reloaded", { path: config.databasePath, ...summary(store.dataset()) });
    } catch (error) {
      log.error("dataset reload failed; still serving the previous one", {
        path: config.databasePath,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  try {
    Deno.addSignalListener("SIGHUP", reload);
  } catch {
    return () => {}; // No SIGHUP here (Windows, Deno Deploy): restart to pick up a new file.
  }
  return () => Deno.removeSignalListener("SIGHUP", reload);
}
