/**
 * Leftovers of builds that were killed: an import or demo build killed with
 * SIGKILL (the OOM killer, a power cut) cannot clean up, and leaves its
 * `<db>.building-<pid>-<stamp>` and `<db>.stage-<pid>-<stamp>*` files (and
 * their journals) beside the database — gigabytes at full scale. A release
 * download leaves `<db>.download-<pid>-<stamp>`. The next build finds the
 * ones whose process no longer runs and removes them.
 *
 * @module
 */
import { basename, dirname } from "../import/paths.ts";

/** One file left by a build that no longer runs. */
export interface Leftover {
  /** Its path. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
  /** The process that wrote it. */
  pid: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The pattern of a build's temporary files beside `db`: the kind, the pid
 * and the stamp (base-36 milliseconds) in groups 1–3; the manifest's
 * temporary file has the pid in group 4.
 */
function leftoverPattern(db: string): RegExp {
  const base = escapeRegExp(basename(db));
  return new RegExp(
    `^${base}\\.(building|stage|download)-(\\d+)-([0-9a-z]+)(?:\\.[A-Za-z0-9_-]+)?(?:-journal|-wal|-shm)?$` +
      `|^${base}\\.release\\.json\\.tmp-(\\d+)$`,
  );
}

/** Seconds since the epoch at which the machine booted (Linux), or null. */
function bootTime(): number | null {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n").find((l) => l.startsWith("btime"));
    return line ? Number(line.split(/\s+/)[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Whether process `pid` that stamped its files at `stampMs` still runs:
 * true when it is this process; on Linux, when `/proc/<pid>` is a Deno
 * process that started before the stamp (a pid reused by a later process
 * does not count); where `/proc` is missing, true unless the stamp is more
 * than a day old. Exported for tests.
 */
export function buildStillRuns(pid: number, stampMs: number): boolean {
  if (pid === Deno.pid) return true;
  let hasProc = false;
  try {
    hasProc = Deno.statSync("/proc/self").isDirectory;
  } catch { /* not Linux */ }
  if (!hasProc) return Date.now() - stampMs < 24 * 3600 * 1000;
  let cmdline: string, stat: string;
  try {
    cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return false; // No such process.
  }
  if (!/deno/i.test(cmdline)) return false;
  // Field 22 (after the parenthesised name) is the start time in clock ticks after boot.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[19]);
  const boot = bootTime();
  if (boot === null || !Number.isFinite(ticks)) return true;
  const startedMs = (boot + ticks / 100) * 1000;
  // Started after the stamp (with slack for the tick size): the pid was reused.
  return startedMs <= stampMs + 5_000;
}

/**
 * The leftovers beside `db` of builds whose process no longer runs.
 *
 * @example
 * ```ts
 * for (const l of findLeftovers("data/providers.db")) console.log(l.path, l.bytes);
 * ```
 */
export function findLeftovers(db: string): Leftover[] {
  const folder = dirname(db);
  const pattern = leftoverPattern(db);
  const found: Leftover[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(folder)];
  } catch {
    return [];
  }
  const verdicts = new Map<string, boolean>();
  for (const entry of entries) {
    if (!entry.isFile) continue;
    const match = pattern.exec(entry.name);
    if (!match) continue;
    const path = folder === "." ? entry.name : `${folder}/${entry.name}`;
    let stat: Deno.FileInfo;
    try {
      stat = Deno.statSync(path);
    } catch {
      continue;
    }
    const pid = Number(match[2] ?? match[4]);
    const stampMs = match[3] ? parseInt(match[3], 36) : stat.mtime?.getTime() ?? Date.now();
    const key = `${pid}-${stampMs}`;
    let runs = verdicts.get(key);
    if (runs === undefined) verdicts.set(key, runs = buildStillRuns(pid, stampMs));
    if (!runs) found.push({ path, bytes: stat.size, pid });
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Removes the leftovers beside `db` of builds that no longer run; returns
 * what it removed (files that vanished meanwhile are skipped).
 *
 * @example
 * ```ts
 * const removed = removeLeftovers("data/providers.db");
 * if (removed.length) console.log(describeLeftovers(removed));
 * ```
 */
export function removeLeftovers(db: string): Leftover[] {
  const removed: Leftover[] = [];
  for (const leftover of findLeftovers(db)) {
    try {
      Deno.removeSync(leftover.path);
      removed.push(leftover);
    } catch { /* gone meanwhile, or not ours to remove */ }
  }
  return removed;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * One line saying what was removed, for the import's output.
 *
 * @example
 * ```ts
 * describeLeftovers([{ path: "p.db.stage-42-abc", bytes: 1048576, pid: 42 }]);
 * // "Removed 1 file (1.0 MB) left by killed builds (pid 42, no longer running): p.db.stage-42-abc"
 * ```
 */
export function describeLeftovers(removed: readonly Leftover[]): string {
  const bytes = removed.reduce((n, l) => n + l.bytes, 0);
  const pids = [...new Set(removed.map((l) => l.pid))].join(", ");
  const files = removed.map((l) => basename(l.path)).join(", ");
  return `Removed ${removed.length} file${removed.length === 1 ? "" : "s"} (${
    megabytes(bytes)
  }) left by killed builds (pid ${pids}, no longer running): ${files}`;
}
