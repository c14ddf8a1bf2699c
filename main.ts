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
  const { runServer } = await import("./lib/service/run.ts");
  await runServer({ app, config, log, dataset, metrics }, new URL(import.meta.url));
}
