/**
 * Publishing a built database as a release in a folder that replicas fetch
 * from (served over HTTP(S) or shared as files): the database under its
 * release name, its manifest, and `current.release.json`, the pointer
 * `PROVIDERS_DB_URL` names, replaced last and atomically, so a replica never
 * reads a manifest whose database is not complete.
 *
 * @module
 */
import { openSqliteStore } from "../store/sqlite_store.ts";
import {
  buildManifest,
  manifestPath,
  parseManifest,
  releaseId,
  type ReleaseManifest,
  writeManifest,
} from "./manifest.ts";
import { partPath } from "../store/parts.ts";

/** The name of the pointer to the current release in a release folder. */
export const CURRENT_MANIFEST = "current.release.json";

/** What {@linkcode publishRelease} wrote. */
export interface Published {
  manifest: ReleaseManifest;
  /** The database's copy in the folder. */
  database: string;
  /** The pointer `PROVIDERS_DB_URL` names. */
  current: string;
}

/** The manifest beside `db` when it describes `db` as it is, else a new one (hashing the file). */
async function manifestOf(db: string): Promise<ReleaseManifest> {
  const store = openSqliteStore(db, { lazyIndex: true, recordCacheBytes: 0 });
  let info;
  try {
    info = store.dataset();
  } finally {
    store.close();
  }
  try {
    const manifest = parseManifest(await Deno.readTextFile(manifestPath(db)));
    const size = (await Deno.stat(db)).size;
    if (manifest.release === releaseId(info) && manifest.database.bytes === size) return manifest;
  } catch { /* none beside it, or stale */ }
  return await buildManifest(db, info);
}

/**
 * Copies the database at `db` into `folder` as `<release>.db`, its part
 * files under their own names, with `<release>.release.json`, then points
 * `current.release.json` at it. Parts go first, the pointer last, so a
 * replica never reads a manifest whose files are not all there.
 *
 * @example
 * ```ts
 * const { manifest } = await publishRelease("data/providers.db", "/srv/releases");
 * ```
 */
export async function publishRelease(db: string, folder: string): Promise<Published> {
  const manifest = await manifestOf(db);
  await Deno.mkdir(folder, { recursive: true });
  const name = `${manifest.release}.db`;
  const database = `${folder}/${name}`;
  const copy = async (from: string, to: string) => {
    const temp = `${to}.tmp-${Deno.pid}`;
    await Deno.copyFile(from, temp);
    await Deno.rename(temp, to);
  };
  for (const part of manifest.parts) {
    await copy(partPath(db, part.file), `${folder}/${part.file}`);
  }
  await copy(db, database);
  const published = { ...manifest, database: { ...manifest.database, file: name } };
  await writeManifest(`${folder}/${manifest.release}.release.json`, published);
  const current = `${folder}/${CURRENT_MANIFEST}`;
  await writeManifest(current, published);
  return { manifest: published, database, current };
}
