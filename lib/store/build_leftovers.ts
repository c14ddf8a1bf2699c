/**
 * Leftovers of builds that were killed: an import or demo build killed with
 * SIGKILL (the OOM killer, a power cut) cannot clean up, and leaves its
 * `<db>.building-<pid>-<stamp>` and `<db>.stage-<pid>-<stamp>*` files (and
 * their journals) and its part files `<db>.<pid>-<stamp>.<kind>` (see
 * `parts.ts`) beside the database — gigabytes at full scale. A release
 * download leaves `<db>.download-<pid>-<stamp>*`. A part file is a
 * leftover only when the database does not name it. A running build holds an
 * advisory lock on its main file ({@linkcode holdBuildLock}), which the
 * kernel drops when the process dies however it dies, so the next build
 * tells the leftovers of dead builds from the files of live ones (even in
 * another container sharing the volume, where pids say nothing) and
 * removes them.
 *
 * @module
 */
import { basename, dirname } from "../paths.ts";
import { partFiles, readPartNames } from "./parts.ts";

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
 * temporary file has the pid in group 4; a part file the pid and stamp of
 * its build in groups 5–6.
 */
function leftoverPattern(db: string): RegExp {
  const base = escapeRegExp(basename(db));
  return new RegExp(
    `^${base}\\.(building|stage|download)-(\\d+)-([0-9a-z]+)(?:\\.[A-Za-z0-9_-]+)?(?:-journal|-wal|-shm)?$` +
      `|^${base}\\.release\\.json\\.tmp-(\\d+)$` +
      `|^${base}\\.(\\d+)-([0-9a-z]+)\\.(?:postings|records-\\d+|map(?:\\.partial)?|unions(?:\\.writing)?)(?:-journal)?$`,
  );
}

/** Locks are advisory (flock) here; on Windows they are mandatory and would stop SQLite writing. */
const ADVISORY_LOCKS = Deno.build.os !== "windows";

/**
 * Marks the build whose main file is `path` as running: opens it (creating
 * it empty when `create`) and holds an exclusive advisory lock on it until
 * the returned file is closed, or the process ends in any way (the kernel
 * drops the lock of a killed process). Null where locks are not advisory.
 *
 * @example
 * ```ts
 * const lock = holdBuildLock(`${db}.building-${Deno.pid}-${stamp}`, true);
 * // ... build ...
 * lock?.close();
 * ```
 */
export function holdBuildLock(path: string, create: boolean): Deno.FsFile | null {
  if (!ADVISORY_LOCKS) return null;
  const file = Deno.openSync(path, { read: true, write: create, create });
  try {
    file.tryLockSync(true);
  } catch { /* a file system without locks: the build is then only kept while young */ }
  return file;
}

/**
 * Whether the build whose main file is `ownerPath` still runs: true while
 * a process holds the lock {@linkcode holdBuildLock} takes; false when the
 * lock is free or the file is gone (the build ended or was killed). Where
 * locks are mandatory (Windows), builds are left alone.
 *
 * @example
 * ```ts
 * buildStillRuns("data/providers.db.building-4242-mww0jf57"); // false once 4242 was killed
 * ```
 */
export function buildStillRuns(ownerPath: string): boolean {
  if (!ADVISORY_LOCKS) return true;
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(ownerPath, { read: true });
  } catch {
    return false;
  }
  try {
    if (!file.tryLockSync(true)) return true;
    file.unlockSync();
    return false;
  } catch {
    return true; // Cannot tell: keep it.
  } finally {
    file.close();
  }
}

/** A manifest's temporary file is a leftover once this old (it lives for milliseconds). */
const MANIFEST_TEMP_MAX_AGE_MS = 3600 * 1000;

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
  let named: Set<string> | null = null;
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
    const [, kind, pid, stamp, manifestPid, partPid, partStamp] = match;
    let runs: boolean;
    if (manifestPid !== undefined) {
      runs = Date.now() - (stat.mtime?.getTime() ?? 0) < MANIFEST_TEMP_MAX_AGE_MS;
    } else if (partPid !== undefined) {
      // A part the database names is served; one of a running build is being written.
      named ??= new Set(partFiles(readPartNames(db) ?? { postings: "", records: [] }));
      const owner = `${db}.building-${partPid}-${partStamp}`;
      const building = verdicts.get(owner) ?? buildStillRuns(owner);
      verdicts.set(owner, building);
      runs = building || named.has(entry.name.replace(/-journal$/, ""));
    } else {
      // A build's stage files belong to its main (building) file, which holds the lock.
      const owner = `${db}.${kind === "download" ? "download" : "building"}-${pid}-${stamp}`;
      runs = verdicts.get(owner) ?? buildStillRuns(owner);
      verdicts.set(owner, runs);
    }
    if (!runs) {
      found.push({ path, bytes: stat.size, pid: Number(pid ?? manifestPid ?? partPid) });
    }
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
