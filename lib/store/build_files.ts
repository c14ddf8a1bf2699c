/**
 * The files of a build in progress, all beside the target so the final
 * rename is atomic: the database being written (`<target>.building-<stamp>`),
 * the staging database (`<target>.stage-<stamp>`), and scratch files named
 * after the stage. The stamp starts with the building process's id.
 *
 * @module
 */

/** Pragmas of the databases a build writes: no journal, no syncs, one writer. */
export const BUILD_PRAGMAS = `
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA temp_store = FILE;
PRAGMA cache_size = -65536;
PRAGMA locking_mode = EXCLUSIVE;
`;

/**
 * Removes a file; one that is not there is fine.
 *
 * @example
 * ```ts
 * removeIfExists("data/providers.db-wal");
 * ```
 */
export function removeIfExists(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** Paths of one build's files, and their removal. */
export class BuildFiles {
  /** The database being written. */
  readonly tempPath: string;
  /** The staging database. */
  readonly stagePath: string;
  /** The build's stamp: this process's id and the time (the part files carry it). */
  readonly stamp: string;
  readonly #scratch = new Set<string>();

  /**
   * Names the files of a new build of `target`, stamped with this process's
   * id and the time.
   *
   * @example
   * ```ts
   * const files = new BuildFiles("data/providers.db");
   * files.tempPath; // "data/providers.db.building-4242-m1x2y3"
   * ```
   */
  constructor(target: string) {
    const stamp = `${Deno.pid}-${Date.now().toString(36)}`;
    this.stamp = stamp;
    this.tempPath = `${target}.building-${stamp}`;
    this.stagePath = `${target}.stage-${stamp}`;
  }

  /** A scratch database file beside the stage, removed with {@linkcode removeScratch}. */
  scratch(name: string): string {
    const path = `${this.stagePath}.${name}`;
    this.#scratch.add(path);
    return path;
  }

  /** Removes the stage and every scratch file with their journals. */
  removeScratch(): void {
    removeIfExists(this.stagePath);
    for (const path of this.#scratch) {
      for (const suffix of ["", "-journal", "-wal", "-shm"]) removeIfExists(path + suffix);
    }
  }

  /** Removes everything, the database being written included. */
  removeAll(): void {
    removeIfExists(this.tempPath);
    this.removeScratch();
  }
}
