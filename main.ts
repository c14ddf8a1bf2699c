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
  const { serve } = await import("./lib/service/serve.ts");
  const { reloadOnHangup, startDataset } = await import("./lib/service/startup.ts");
  const { followReleases } = await import("./lib/service/replica.ts");
  let stopReloading: () => void;
  if (config.releaseUrl) {
    // A replica: fetches releases from PROVIDERS_DB_URL (at start, on SIGHUP, every poll interval).
    const follower = followReleases(config, log, dataset, metrics.poolObserver);
    stopReloading = follower.stop;
  } else {
    startDataset(config, log, dataset, metrics.poolObserver);
    stopReloading = reloadOnHangup(config, log, dataset, metrics.poolObserver);
  }
  await serve({
    app,
    config,
    log,
    onClose: async () => {
      stopReloading();
      await dataset.close();
    },
  });
  Deno.exit(0);
}
