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
import { BusyTrim, IdleRelease } from "../memory.ts";

/** What {@linkcode serve} needs. */
export interface ServeOptions {
  app: App;
  config: Config;
  log: Logger;
  /** Called when a shutdown signal comes, before the server drains. */
  onShutdown?: () => void;
  /** Called once the server has drained, before exit. */
  onClose?: () => void | Promise<void>;
  /** Share the port with other serving threads (`SERVE_THREADS`): the kernel spreads connections. */
  reusePort?: boolean;
}

/** A listening server and the memory release of its thread. */
export interface Listening {
  server: Deno.HttpServer<Deno.NetAddr>;
  idle: IdleRelease;
}

/**
 * Starts answering `app` on the configured port. Every serving thread
 * listens this way; only the first ({@linkcode serve}) handles signals.
 */
export function listen(
  app: App,
  config: Config,
  log: Logger,
  options: { reusePort?: boolean; thread?: number } = {},
): Listening {
  // Memory this thread freed goes back to the system once requests stop coming for a while, and
  // with BUSY_TRIM_MS what glibc kept of the process's freed memory, while they come.
  const idle = new IdleRelease(config.idleReleaseMs);
  const trim = new BusyTrim(config.busyTrimMs);
  const server = Deno.serve({
    port: config.port,
    hostname: config.host,
    reusePort: options.reusePort ?? false,
    onListen: ({ hostname, port }) =>
      log.info("listening", {
        hostname,
        port,
        ...(options.thread ? { thread: options.thread } : {}),
      }),
  }, (request, info) => {
    idle.touch();
    trim.touch();
    return app.handler(request, info);
  });
  return { server, idle };
}

/**
 * Whether this runtime lets several listeners share a port (Linux, with
 * Deno's `net` API enabled: `"unstable": ["net"]` in `deno.json`).
 */
export function canSharePort(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    Deno.listen({ port: 0, hostname: "127.0.0.1", reusePort: true }).close();
    return true;
  } catch {
    return false;
  }
}

/** Serves until a shutdown signal; resolves after the server has drained. */
export async function serve(options: ServeOptions): Promise<void> {
  const { app, config, log } = options;
  const { server, idle } = listen(app, config, log, { reusePort: options.reusePort });

  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGTERM", "SIGINT"];
  let stopping = false;
  const onSignal = (signal: Deno.Signal) => () => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    options.onShutdown?.();
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
