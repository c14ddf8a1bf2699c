/**
 * Structured logging: one JSON object per line.
 *
 * @module
 */

/** Fields of a log line. */
export type LogFields = Record<string, unknown>;

/** One request's log line. */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

/** Where log lines go. */
export interface Logger {
  /** The per-request line: time, request_id, method, path, status, duration_ms. */
  request(line: RequestLine): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * A logger writing JSON lines through `write` (stdout by default, stderr for
 * errors). The clock is injectable for tests.
 *
 * @example
 * ```ts
 * const lines: string[] = [];
 * const log = createLogger({ write: (line) => lines.push(line) });
 * log.info("started", { port: 7860 });
 * ```
 */
export function createLogger(
  options: { write?: (line: string, level: string) => void; now?: () => Date } = {},
): Logger {
  const write = options.write ?? bufferedWriter();
  const now = options.now ?? (() => new Date());
  // The ISO time changes once a millisecond: format it once per millisecond.
  let lastMs = -1;
  let lastIso = "";
  const iso = () => {
    const date = now();
    if (date.getTime() !== lastMs) {
      lastMs = date.getTime();
      lastIso = date.toISOString();
    }
    return lastIso;
  };
  const emit = (level: string, message: string, fields?: LogFields) => {
    // The fixed head is written by hand; only the fields go through JSON.stringify.
    const head = `{"time":"${iso()}","level":"${level}","msg":${JSON.stringify(message)}`;
    const rest = fields ? JSON.stringify(fields) : "{}";
    write(rest === "{}" ? `${head}}` : `${head},${rest.slice(1)}`, level);
  };
  const SAFE = /^[A-Za-z0-9._:+\/=-]*$/;
  const text = (value: string) => (SAFE.test(value) ? `"${value}"` : JSON.stringify(value));
  return {
    // Written by hand: this runs for every request. Values that may need escaping are escaped.
    request: (r) =>
      write(
        `{"time":"${iso()}","level":"info","msg":"request","request_id":${
          text(r.requestId)
        },"method":${text(r.method)},"path":${
          text(r.path)
        },"status":${r.status},"duration_ms":${r.durationMs}}`,
        "info",
      ),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
  };
}

const pendingFlushes = new Set<() => void>();

/** Writes out every buffered log line now (before exiting). */
export function flushLogs(): void {
  for (const flush of pendingFlushes) flush();
}

/**
 * Writes lines to stdout (stderr for errors) in batches: at most every
 * 20 ms or 32 KB, and at once on exit, so logging one line per request does
 * not cost a system call per request.
 */
function bufferedWriter(): (line: string, level: string) => void {
  const encoder = new TextEncoder();
  let lines: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const bytes = encoder.encode(lines.join(""));
    lines = [];
    size = 0;
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  };
  globalThis.addEventListener("unload", flush);
  pendingFlushes.add(flush);
  return (line, level) => {
    if (level === "error") {
      flush();
      Deno.stderr.writeSync(encoder.encode(line + "\n"));
      return;
    }
    lines.push(line + "\n");
    size += line.length + 1;
    if (size >= 32_768) flush();
    else if (timer === undefined) {
      const t = setTimeout(flush, 20);
      Deno.unrefTimer(t);
      timer = t;
    }
  };
}

/** A logger that drops everything. */
export const silentLogger: Logger = { request() {}, info() {}, warn() {}, error() {} };
