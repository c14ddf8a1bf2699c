/**
 * Provider Search API: serves `PROVIDERS_DB` on `HOST:PORT`.
 *
 * @module
 */
import { createApp } from "./lib/app.ts";
import { loadConfig } from "./lib/config.ts";
import { createLogger } from "./lib/log.ts";
import { Dataset } from "./lib/dataset.ts";
import { Metrics } from "./lib/metrics/service.ts";

const config = loadConfig(Deno.env.toObject());
const log = createLogger();
const dataset = new Dataset();
const metrics = new Metrics(dataset);

/** The application as configured by this process's environment. */
export const app = createApp({ config, log, dataset, metrics });

/** The request handler, for tests and for `deno serve`-style hosts. */
export const handler = app.handler;

if (import.meta.main) {
  const { serve } = await import("./lib/serve.ts");
  const { reloadOnHangup, startDataset } = await import("./lib/startup.ts");
  startDataset(config, log, dataset, metrics.poolObserver);
  const stopReloading = reloadOnHangup(config, log, dataset, metrics.poolObserver);
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
