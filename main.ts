/**
 * Provider Search API: serves `PROVIDERS_DB` on `HOST:PORT`.
 *
 * @module
 */
import { createApp } from "./lib/service/app.ts";
import { loadConfig } from "./lib/config.ts";
import { createLogger } from "./lib/log.ts";
import { Dataset } from "./lib/service/dataset.ts";
import { Metrics } from "./lib/service/metrics.ts";
import { createRoutes } from "./routes/mod.ts";

const config = loadConfig(Deno.env.toObject());
const log = createLogger();
const dataset = new Dataset();
const metrics = new Metrics(dataset);

/** The application as configured by this process's environment. */
export const app = createApp(
  { config, log, metrics },
  createRoutes({
    dataset,
    metrics,
    config,
    cache: { maxAgeSeconds: config.cacheMaxAgeSeconds, staleSeconds: config.cacheStaleSeconds },
  }),
);

/** The request handler, for tests and for `deno serve`-style hosts. */
export const handler = app.handler;

if (import.meta.main) {
  const { serveAsThread, servingThreadNumber, ServingThreads, threadConfig } = await import(
    "./lib/service/serving_threads.ts"
  );
  const thread = servingThreadNumber();
  if (thread > 0) {
    await serveAsThread({ app, config, log, dataset, metrics }, thread);
  } else {
    const { canSharePort, serve } = await import("./lib/service/serve.ts");
    const { reloadOnHangup, startDataset } = await import("./lib/service/startup.ts");
    const { followReleases } = await import("./lib/service/replica.ts");
    // SERVE_THREADS > 1: this thread and the others each listen and search (SO_REUSEPORT).
    const threads = config.serveThreads > 1 && canSharePort() ? config.serveThreads : 1;
    if (threads < config.serveThreads) {
      log.warn("one serving thread: this runtime cannot share the port (Linux, unstable net API)");
    }
    const first = threads > 1 ? threadConfig(config, true) : config;
    let others: ReturnType<typeof ServingThreads.start> | null = null;
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
          if (!stopping) {
            others = ServingThreads.start(threads - 1, new URL(import.meta.url), {
              metrics,
              dataset,
            }, log);
          }
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
}
