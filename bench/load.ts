/**
 * Load generation with `wrk` (from Debian), run as another process, reading
 * its latency histogram through a small Lua reporter.
 *
 * @module
 */

import { exists } from "./proc.ts";

/** Latency and throughput of one load run. */
export interface LoadResult {
  requests: number;
  rps: number;
  errors: number;
  non2xx: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
  /** True when no request finished within the run: the latencies are then the run's length, a lower bound. */
  incomplete?: boolean;
}

const REPORTER = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '@@{"requests":%d,"duration_us":%d,"errors":%d,"non2xx":%d,"p50":%d,"p95":%d,"p99":%d,"max":%d,"mean":%.1f}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max, latency.mean))
end
`;

/** Script files written so far, by their Lua source. */
const scripts = new Map<string, string>();

async function scriptFile(lua: string): Promise<string> {
  let path = scripts.get(lua);
  if (!path) {
    path = await Deno.makeTempFile({ suffix: ".lua" });
    await Deno.writeTextFile(path, REPORTER + lua);
    scripts.set(lua, path);
  }
  return path;
}

/** Makes sure `wrk` is installed (installs it with apt-get when missing). */
export async function ensureWrk(log: (line: string) => void): Promise<void> {
  if (await exists("/usr/bin/wrk")) return;
  log("installing wrk (apt-get install wrk)");
  const run = async (args: string[]) => {
    const { code, stderr } = await new Deno.Command(args[0]!, {
      args: args.slice(1),
      stdout: "null",
      stderr: "piped",
    })
      .output();
    if (code !== 0) {
      throw new Error(
        `'${args.join(" ")}' failed: ${new TextDecoder().decode(stderr).slice(-400)}`,
      );
    }
  };
  await run(["apt-get", "update", "-qq"]);
  await run(["apt-get", "install", "-y", "-qq", "wrk"]);
}

/** How one load run is driven. */
export interface LoadOptions {
  connections: number;
  seconds: number;
  /** Lua added to the reporter (`request`, `init`...), for scripted runs. */
  lua?: string;
  /** Arguments handed to the script's `init(args)`. */
  args?: readonly string[];
  /**
   * End the run (SIGINT: wrk then reports what it measured until then) once
   * the script has printed this many lines `@@done`, one per finished thread.
   */
  doneLines?: number;
}

/**
 * Drives `url` with `connections` connections for `seconds` seconds.
 *
 * @example
 * ```ts
 * const r = await runLoad("http://127.0.0.1:7860/health", { connections: 8, seconds: 10 });
 * ```
 */
export async function runLoad(
  url: string,
  options: LoadOptions,
): Promise<LoadResult> {
  const script = await scriptFile(options.lua ?? "");
  const threads = loadThreads(options.connections);
  const child = new Deno.Command("wrk", {
    args: [
      `-t${threads}`,
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      "--timeout",
      "10s",
      "-s",
      script,
      url,
      ...(options.args?.length ? ["--", ...options.args] : []),
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderrText = new Response(child.stderr).text();
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    const before = text.split("@@done").length;
    text += decoder.decode(chunk, { stream: true });
    const done = text.split("@@done").length - 1;
    if (options.doneLines && before - 1 < options.doneLines && done >= options.doneLines) {
      try {
        child.kill("SIGINT");
      } catch (error) {
        // wrk may have ended on its own (its duration was up) since it printed the lines.
        if (!(error instanceof TypeError)) throw error;
      }
    }
  }
  const { code } = await child.status;
  const stderr = await stderrText;
  const line = text.split("\n").find((l) => l.startsWith("@@{"));
  if (code !== 0 || !line) {
    throw new Error(
      `wrk failed on ${url}: ${stderr.slice(-300)}${text.slice(-300)}`,
    );
  }
  const r = JSON.parse(line.slice(2)) as Record<string, number>;
  const ms = (us: number) => Math.round(us / 10) / 100;
  if (r.requests === 0) {
    const bound = options.seconds * 1000;
    return {
      requests: 0,
      rps: 0,
      errors: r.errors!,
      non2xx: r.non2xx!,
      p50_ms: bound,
      p95_ms: bound,
      p99_ms: bound,
      max_ms: bound,
      mean_ms: bound,
      incomplete: true,
    };
  }
  return {
    requests: r.requests!,
    rps: Math.round((r.requests! / (r.duration_us! / 1e6)) * 10) / 10,
    errors: r.errors!,
    non2xx: r.non2xx!,
    p50_ms: ms(r.p50!),
    p95_ms: ms(r.p95!),
    p99_ms: ms(r.p99!),
    max_ms: ms(r.max!),
    mean_ms: ms(r.mean!),
  };
}

/** The wrk threads a run with this many connections uses. */
export function loadThreads(connections: number): number {
  return Math.min(2, connections);
}
