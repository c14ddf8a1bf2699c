/**
 * Import progress: a bar with rows/s and ETA on a terminal, plain periodic
 * lines otherwise.
 *
 * @module
 */

/** Receives progress of one phase. */
export interface Progress {
  /** Starts a phase; `total` is in the unit of `update` (bytes, rows). */
  start(label: string, total: number): void;
  /** Reports `done` of the phase's total and the rows handled so far. */
  update(done: number, rows: number): void;
  /** Ends the phase with a final line. */
  finish(summary: string): void;
  /** A line of its own (a warning, a skipped row). */
  note(line: string): void;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "--:--";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = String(m).padStart(2, "0"), ss = String(r).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

function formatRate(rowsPerSecond: number): string {
  if (!Number.isFinite(rowsPerSecond)) return "-- rows/s";
  return rowsPerSecond >= 1000
    ? `${(rowsPerSecond / 1000).toFixed(1)}k rows/s`
    : `${Math.round(rowsPerSecond)} rows/s`;
}

/**
 * A progress reporter writing to `out` (stderr by default). On a terminal it
 * redraws one bar at most 10 times a second; otherwise it prints a line every
 * `intervalMs`.
 *
 * @example
 * ```ts
 * const progress = createProgress();
 * progress.start("npidata", fileSize);
 * progress.update(bytesRead, rows);
 * progress.finish("9,726,865 rows");
 * ```
 */
export function createProgress(
  options: {
    terminal?: boolean;
    write?: (text: string) => void;
    intervalMs?: number;
    now?: () => number;
  } = {},
): Progress {
  const encoder = new TextEncoder();
  const write = options.write ?? ((text: string) => Deno.stderr.writeSync(encoder.encode(text)));
  const terminal = options.terminal ?? Deno.stderr.isTerminal();
  const interval = options.intervalMs ?? (terminal ? 100 : 5000);
  const now = options.now ?? (() => performance.now());
  let label = "", total = 0, started = 0, last = -Infinity, drawn = false;

  function line(done: number, rows: number): string {
    const elapsed = (now() - started) / 1000;
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    // Under a tenth of a second a rate says nothing (a phase that starts with every row counted).
    const rate = elapsed >= 0.1 ? rows / elapsed : NaN;
    const eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : NaN;
    const percent = `${(fraction * 100).toFixed(1).padStart(5)}%`;
    const stats = `${rows.toLocaleString("en-US")} rows  ${formatRate(rate)}  elapsed ${
      formatDuration(elapsed)
    }  ETA ${formatDuration(eta)}`;
    if (!terminal) return `${label}: ${percent}  ${stats}\n`;
    const width = 28;
    const filled = Math.round(fraction * width);
    return `\r\x1b[2K${label} [${"#".repeat(filled)}${
      ".".repeat(width - filled)
    }] ${percent}  ${stats}`;
  }

  return {
    start(newLabel, newTotal) {
      label = newLabel;
      total = newTotal;
      started = now();
      last = -Infinity;
      drawn = false;
    },
    update(done, rows) {
      const t = now();
      if (t - last < interval) return;
      last = t;
      write(line(done, rows));
      drawn = true;
    },
    finish(summary) {
      write(`${terminal && drawn ? "\r\x1b[2K" : ""}${label}: ${summary}\n`);
    },
    note(text) {
      write(`${terminal && drawn ? "\r\x1b[2K" : ""}${text}\n`);
      drawn = false;
    },
  };
}
