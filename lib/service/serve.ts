/**
 * Runs the application on a TCP port with graceful shutdown: on SIGTERM or
 * SIGINT it stops accepting, lets in-flight requests finish, runs the
 * close hooks (the database) and exits 0.
 *
 * @module
 */
import type { App } from "./app.ts";
import type { Config } from "../config.ts";
import { flushLogs, type Logger } from "../log.ts";
import { IdleRelease } from "../memory.ts";

/** What {@linkcode serve} needs. */
export interface ServeOptions {
  app: App;
  config: Config;
  log: Logger;
  /** Called once the server has drained, before exit. */
  onClose?: () => void | Promise<void>;
}

/** Serves until a shutdown signal; resolves after the server has drained. */
export async function serve(options: ServeOptions): Promise<void> {
  const { app, config, log } = options;
  // Memory this thread freed goes back to the system once requests stop coming for a while.
  const idle = new IdleRelease(config.idleReleaseMs);
  const server = Deno.serve({
    port: config.port,
    hostname: config.host,
    onListen: ({ hostname, port }) => log.info("listening", { hostname, port }),
  }, (request, info) => {
    idle.touch();
    return app.handler(request, info);
  });

  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGTERM", "SIGINT"];
  let stopping = false;
  const onSignal = (signal: Deno.Signal) => () => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    server.shutdown();
  };
  const listeners = signals.map((signal) => ({ signal, listener: onSignal(signal) }));
  for (const { signal, listener } of listeners) {
    try {
      Deno.addSignalListener(signal, listener);
    } catch {
      // Some hosts (Deno Deploy) manage the process themselves and refuse signal listeners.
    }
  }
  await server.finished;
  idle.stop();
  for (const { signal, listener } of listeners) {
    try {
      Deno.removeSignalListener(signal, listener);
    } catch { /* not added */ }
  }
  await options.onClose?.();
  log.info("stopped");
  flushLogs();
}
