/**
 * Small path helpers (no dependency on a path library).
 *
 * @module
 */

/**
 * The last segment of a path.
 *
 * @example
 * ```ts
 * basename("/data/npidata_pfile.csv"); // "npidata_pfile.csv"
 * ```
 */
export function basename(path: string): string {
  return path.split(/[\\/]/).filter((p) => p).at(-1) ?? path;
}

/**
 * The folder of a path (`.` for a bare file name).
 *
 * @example
 * ```ts
 * dirname("data/providers.db"); // "data"
 * ```
 */
export function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return i < 0 ? "." : i === 0 ? "/" : path.slice(0, i);
}
