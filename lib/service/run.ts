/**
 * The server as a process runs it: the first serving thread (signals,
 * dataset, reloads or release following, the other serving threads), or,
 * in a worker started as one of those others, that thread.
 *
 * @module
 */
import { canSharePort, serve } from "./serve.ts";
import { reloadOnHangup, startDataset } from "./startup.ts";
import { followReleases } from "./replica.ts";
import {
  serveAsThread,
  servingThreadNumber,
  ServingThreads,
  threadConfig,
  type ThreadService,
} from "./serving_threads.ts";

/**
 * Serves `service` until a shutdown signal, then exits 0; in a serving
 * thread's worker, serves as that thread. `entry` is the module the other
 * serving threads run (the main module, which calls this again in them).
 */
export async function runServer(service: ThreadService, entry: URL): Promise<void> {
  const { app, config, log, dataset, metrics } = service;
  const thread = servingThreadNumber();
  if (thread > 0) {
    await serveAsThread(service, thread);
    return;
  }
  // SERVE_THREADS > 1: this thread and the others each listen and search (SO_REUSEPORT).
  const threads = config.serveThreads > 1 && canSharePort() ? config.serveThreads : 1;
  if (threads < config.serveThreads) {
    log.warn("one serving thread: this runtime cannot share the port (Linux, unstable net API)");
  }
  const first = threads > 1 ? threadConfig(config, true) : config;
  let others: ServingThreads | null = null;
  let stopping = false;
  let stopReloading: () => void;
  if (config.releaseUrl) {
    // A replica: fetches releases from PROVIDERS_DB_URL (at start, on SIGHUP, every poll interval).
    const follower = followReleases(config, log, dataset, metrics.poolObserver);
    stopReloading = follower.stop;
  } else {
    startDataset(first, log, dataset, metrics.poolObserver);
    stopReloading = reloadOnHangup(
      first,
      log,
      dataset,
      metrics.poolObserver,
      () => others?.reload(),
    );
    if (threads > 1) {
      void dataset.opened().then(() => {
        if (!stopping) others = ServingThreads.start(threads - 1, entry, { metrics, dataset }, log);
      });
    }
  }
  let othersClosed: Promise<void> = Promise.resolve();
  await serve({
    app,
    config,
    log,
    reusePort: threads > 1,
    onShutdown: () => {
      stopping = true;
      othersClosed = others?.close() ?? Promise.resolve();
    },
    onClose: async () => {
      stopReloading();
      await othersClosed;
      await dataset.close();
    },
  });
  Deno.exit(0);
}
