/**
 * Support for driving the web page in headless Chromium: start the real
 * server on a free port, wait until its dataset is served, and launch the
 * system Chromium through `playwright-core`. Used by `browser_test.ts` and
 * `scripts/screenshot.ts`.
 *
 * @module
 */
import { freePort, serverCommand, waitForStatus } from "../scripts/processes.ts";
import fs from "node:fs";
import type { Browser } from "playwright-core";

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags for a quiet, sandbox-free headless Chromium that makes no background requests. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Whether Chromium is installed at {@linkcode CHROMIUM_PATH}.
 *
 * @example
 * ```ts
 * Deno.test({ name: "[browser] ...", ignore: !chromiumPresent(), fn: async () => {} });
 * ```
 */
export function chromiumPresent(): boolean {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
}

let existsSyncPatched = false;

/**
 * Node's `fs.existsSync` never throws, but Deno's throws `NotCapable` for
 * privileged paths such as `/proc/sys/fs/binfmt_misc/WSLInterop`, which
 * playwright-core probes while loading (its WSL check) unless the process has
 * `--allow-all`. Restores Node's contract so the browser tests run with the
 * test task's explicit permissions.
 */
function makeExistsSyncTotal(): void {
  if (existsSyncPatched) return;
  existsSyncPatched = true;
  const existsSync = fs.existsSync;
  fs.existsSync = (path: fs.PathLike): boolean => {
    try {
      return existsSync(path);
    } catch {
      return false;
    }
  };
}

/**
 * Launches the system Chromium headless (playwright-core is loaded on first use).
 *
 * @example
 * ```ts
 * const browser = await launchChromium();
 * await browser.close();
 * ```
 */
export async function launchChromium(): Promise<Browser> {
  makeExistsSyncTotal();
  const { chromium } = await import("playwright-core");
  return await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
}

/** A server started by {@linkcode startServer}. */
export interface RunningServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Stops the server (SIGTERM), waits for it, and returns its exit code and log. */
  stop(): Promise<{ code: number; log: string }>;
}

/** Options of {@linkcode startServer}. */
export interface StartServerOptions {
  /** The database to serve (built as a demo when missing). */
  db: string;
  /** Records in the demo built on first start. */
  demoRecords?: number;
  /** Port to listen on; a free one when absent. */
  port?: number;
  /** How long to wait for `/v1/dataset` to answer 200, in ms. */
  timeoutMs?: number;
}

/**
 * Starts `main.ts` in a subprocess and resolves once its dataset is served.
 *
 * @example
 * ```ts
 * const server = await startServer({ db: "/tmp/demo.db", demoRecords: 3000 });
 * await server.stop();
 * ```
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const port = options.port ?? freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = serverCommand(
    {
      PORT: String(port),
      PROVIDERS_DB: options.db,
      DEMO_RECORDS: String(options.demoRecords ?? 3000),
      RATE_LIMIT_PER_MINUTE: "0",
    },
    { stdout: "piped", stderr: "piped" },
  ).spawn();
  // Drain the output as it comes, so a chatty server never blocks on a full pipe.
  const output = Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  let stopped: Promise<{ code: number; log: string }> | null = null;
  const stop = (): Promise<{ code: number; log: string }> => {
    stopped ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      const [status, [stdout, stderr]] = await Promise.all([child.status, output]);
      return { code: status.code, log: stdout + stderr };
    })();
    return stopped;
  };
  try {
    await waitForStatus(`${origin}/v1/dataset`, { timeoutMs: options.timeoutMs ?? 60_000 });
  } catch (error) {
    const { log } = await stop();
    throw new Error(`${(error as Error).message}\n${log.slice(-2000)}`);
  }
  return { origin, stop };
}
