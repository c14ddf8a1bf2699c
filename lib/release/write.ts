/**
 * Writing the release manifest of a freshly built database, as the import
 * and the demo builder do after putting it in place.
 *
 * @module
 */
import { openSqliteStore } from "../store/sqlite_store.ts";
import { buildManifest, manifestPath, type ReleaseManifest, writeManifest } from "./manifest.ts";

/**
 * Reads the database's description, hashes the file and writes
 * `<db>.release.json` beside it; returns the manifest.
 *
 * @example
 * ```ts
 * const manifest = await writeReleaseManifest("data/providers.db");
 * console.log(manifest.release);
 * ```
 */
export async function writeReleaseManifest(db: string): Promise<ReleaseManifest> {
  const store = openSqliteStore(db, { lazyIndex: true, recordCacheBytes: 0 });
  let info;
  try {
    info = store.dataset();
  } finally {
    store.close();
  }
  const manifest = await buildManifest(db, info);
  await writeManifest(manifestPath(db), manifest);
  return manifest;
}
