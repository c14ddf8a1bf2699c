/**
 * Process memory for the benchmark: resident set size from /proc.
 *
 * @module
 */

/**
 * Resident set size of a process, current and peak, in MB (Linux /proc,
 * read through `cat`: Deno lets a script read another process's /proc
 * files only with all permissions).
 */
export async function memoryOf(pid: number): Promise<{ rss_mb: number; peak_mb: number } | null> {
  try {
    const { code, stdout } = await new Deno.Command("cat", {
      args: [`/proc/${pid}/status`],
      stderr: "null",
    }).output();
    if (code !== 0) return null;
    const status = new TextDecoder().decode(stdout);
    const kb = (key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return {
      rss_mb: Math.round(kb("VmRSS") / 102.4) / 10,
      peak_mb: Math.round(kb("VmHWM") / 102.4) / 10,
    };
  } catch {
    return null;
  }
}

/** Samples a process's peak RSS every `ms` until `done` resolves; returns the highest seen (MB). */
export async function watchPeak(pid: number, done: Promise<unknown>, ms = 250): Promise<number> {
  let peak = 0;
  let finished = false;
  done.finally(() => (finished = true));
  while (!finished) {
    const m = await memoryOf(pid);
    if (m) peak = Math.max(peak, m.peak_mb, m.rss_mb);
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
  return peak;
}

/** Whether a path exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A process's memory split by kind, in MB (from `/proc/PID/smaps_rollup`). */
export interface MemorySplit {
  /** Resident, in all. */
  rss_mb: number;
  /** Anonymous memory: the heap, the runtime's own and copies of data. */
  anonymous_mb: number;
  /** Resident pages of mapped files (the database file's pages among them). */
  file_mb: number;
}

/**
 * Anonymous and file-mapped memory of a process, separately.
 *
 * @example
 * ```ts
 * const m = await memorySplit(child.pid); // { rss_mb: 812.4, anonymous_mb: 640.1, file_mb: 172.3 }
 * ```
 */
export async function memorySplit(pid: number): Promise<MemorySplit | null> {
  const { code, stdout } = await new Deno.Command("cat", {
    args: [`/proc/${pid}/smaps_rollup`],
    stderr: "null",
  }).output().catch(() => ({ code: 1, stdout: new Uint8Array() }));
  if (code !== 0) return null;
  const text = new TextDecoder().decode(stdout);
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  const mb = (n: number) => Math.round(n / 102.4) / 10;
  const rss = kb("Rss"), anonymous = kb("Anonymous");
  return { rss_mb: mb(rss), anonymous_mb: mb(anonymous), file_mb: mb(rss - anonymous) };
}

/**
 * CPU seconds a process has used so far (user + system, all its threads),
 * from `/proc/PID/stat` (clock ticks of 1/100 s); `"self"` for this process.
 * Unlike wall time, it does not grow when other processes share the cores.
 *
 * @example
 * ```ts
 * const before = await cpuSeconds(child.pid);
 * ```
 */
export async function cpuSeconds(pid: number | "self"): Promise<number | null> {
  const { code, stdout } = await new Deno.Command("cat", {
    args: [`/proc/${pid === "self" ? Deno.pid : pid}/stat`],
    stderr: "null",
  }).output().catch(() => ({ code: 1, stdout: new Uint8Array() }));
  if (code !== 0) return null;
  const text = new TextDecoder().decode(stdout);
  // Fields after the command name (which may hold spaces, in parentheses): utime is the 14th.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / 100 : null;
}
