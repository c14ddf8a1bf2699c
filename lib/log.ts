/**
 * Structured logging: one JSON object per line.
 *
 * @module
 */

/** Fields of a log line. */
export type LogFields = Record<string, unknown>;

/** Where log lines go. */
export interface Logger {
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
  const encoder = new TextEncoder();
  const write = options.write ?? ((line: string, level: string) => {
    const bytes = encoder.encode(line + "\n");
    (level === "error" ? Deno.stderr : Deno.stdout).writeSync(bytes);
  });
  const now = options.now ?? (() => new Date());
  const emit = (level: string, message: string, fields: LogFields = {}) => {
    write(JSON.stringify({ time: now().toISOString(), level, msg: message, ...fields }), level);
  };
  return {
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
  };
}

/** A logger that drops everything. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
