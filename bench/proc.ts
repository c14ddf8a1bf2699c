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
