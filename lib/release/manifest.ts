/**
 * Dataset releases: the identity of a built database and the manifest the
 * import and the demo builder write beside it (`<db>.release.json`), which a
 * replica fetching releases (`PROVIDERS_DB_URL`) reads first and checks the
 * downloaded file against.
 *
 * The release id is derived from the database itself (its source, the
 * latest date in its source files' names and its build time), so a database
 * without a manifest still has one; the manifest adds the size and SHA-256
 * of the main file and of each of its part files (`lib/store/parts.ts`).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { DatasetInfo } from "../store/store.ts";
import { basename } from "../paths.ts";
import { partFiles, partPath, readPartNames } from "../store/parts.ts";

/** The manifest format this version writes and reads (2: a release is a main file and its parts). */
export const MANIFEST_FORMAT_VERSION = 2;

/** A file of a release: its name (relative to the manifest), size and SHA-256 (hex). */
export interface ReleaseFile {
  file: string;
  bytes: number;
  sha256: string;
}

/** What `<db>.release.json` holds. */
export interface ReleaseManifest {
  /** {@linkcode MANIFEST_FORMAT_VERSION}. */
  format_version: number;
  /** The release id ({@linkcode releaseId}). */
  release: string;
  /** When the manifest was written (ISO 8601). */
  created_at: string;
  /** `nppes` or `demo`. */
  source: "nppes" | "demo";
  /** The latest date in the source files' names (YYYY-MM-DD), or null when they carry none. */
  source_date: string | null;
  /** When the database was built (ISO 8601). */
  built_at: string;
  /** The database's schema version. */
  schema_version: number;
  /** Providers in the database. */
  records: number;
  /** Active providers. */
  active: number;
  /** Deactivated providers. */
  deactivated: number;
  /** The source files, with their row counts. */
  files: { kind: string; name: string; rows: number; skipped: number }[];
  /** The database's main file. */
  database: ReleaseFile;
  /** The part files the main file names (they keep their names wherever the main file goes). */
  parts: ReleaseFile[];
}

/** The release being served, as `GET /v1/dataset` reports it. */
export interface ReleaseInfo {
  /** The release id. */
  id: string;
  /** The latest date in the source files' names (YYYY-MM-DD), or null. */
  source_date: string | null;
  /** The manifest's format version; null when the database has no (matching) manifest. */
  format_version: number | null;
  /** When the manifest was written; null without one. */
  created_at: string | null;
  /** The database file's SHA-256 from the manifest; null without one. */
  sha256: string | null;
  /** The database file's size from the manifest; null without one. */
  bytes: number | null;
}

/**
 * The manifest's path for a database path.
 *
 * @example
 * ```ts
 * manifestPath("data/providers.db"); // "data/providers.db.release.json"
 * ```
 */
export function manifestPath(db: string): string {
  return `${db}.release.json`;
}

/**
 * The latest calendar date (YYYY-MM-DD) written as YYYYMMDD in any of the
 * file names (NPPES names carry their period: `npidata_pfile_20050523-20260810.csv`),
 * or null when none has one.
 *
 * @example
 * ```ts
 * sourceDate(["npidata_pfile_20050523-20260810.csv"]); // "2026-08-10"
 * ```
 */
export function sourceDate(names: readonly string[]): string | null {
  let best: string | null = null;
  for (const name of names) {
    for (const match of name.matchAll(/(?<!\d)(\d{4})(\d{2})(\d{2})(?!\d)/g)) {
      const [, y, m, d] = match;
      const date = `${y}-${m}-${d}`;
      const parsed = new Date(`${date}T00:00:00Z`);
      if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) continue;
      if (Number(y) < 1990 || Number(y) > 2200) continue;
      if (best === null || date > best) best = date;
    }
  }
  return best;
}

/**
 * The source date of a dataset: the latest date in its source files' names;
 * null for the demo (its "files" are named by seed, not period).
 *
 * @example
 * ```ts
 * datasetSourceDate(store.dataset()); // "2026-08-10"
 * ```
 */
export function datasetSourceDate(
  info: { source: DatasetInfo["source"]; files: readonly { name: string }[] },
): string | null {
  return info.source === "nppes" ? sourceDate(info.files.map((f) => f.name)) : null;
}

/**
 * The release id of a database: `<source>-<source date>-<build time>`, e.g.
 * `nppes-20260810-20260811T101512345Z`. The source date is the latest date
 * in the source files' names (the build date for files without one, as the
 * demo); the build time tells apart two builds from the same files.
 *
 * @example
 * ```ts
 * releaseId(store.dataset()); // "demo-20261125-20261125T105634123Z"
 * ```
 */
export function releaseId(
  info: { source: DatasetInfo["source"]; built_at: string; files: readonly { name: string }[] },
): string {
  const built = info.built_at.replace(/[-:.]/g, "");
  const date = datasetSourceDate(info) ?? info.built_at.slice(0, 10);
  return `${info.source}-${date.replaceAll("-", "")}-${built}`;
}

/**
 * The SHA-256 (hex) and size of a file, read in a stream.
 *
 * @example
 * ```ts
 * const { sha256, bytes } = await hashFile("data/providers.db");
 * ```
 */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  using file = await Deno.open(path);
  const buffer = new Uint8Array(1 << 20);
  while (true) {
    const n = await file.read(buffer);
    if (n === null) break;
    hash.update(buffer.subarray(0, n));
    bytes += n;
  }
  return { sha256: hash.digest("hex"), bytes };
}

/**
 * Builds the manifest of the database at `db` (described by `info`, its
 * `/v1/dataset` body): hashes the file.
 *
 * @example
 * ```ts
 * const manifest = await buildManifest("data/providers.db", store.dataset());
 * ```
 */
export async function buildManifest(db: string, info: DatasetInfo): Promise<ReleaseManifest> {
  const { sha256, bytes } = await hashFile(db);
  const names = readPartNames(db);
  if (!names) throw new Error(`Cannot describe '${db}': it names no part files`);
  const parts: ReleaseFile[] = [];
  for (const file of partFiles(names)) {
    parts.push({ file, ...await hashFile(partPath(db, file)) });
  }
  return {
    format_version: MANIFEST_FORMAT_VERSION,
    release: releaseId(info),
    created_at: new Date().toISOString(),
    source: info.source,
    source_date: datasetSourceDate(info),
    built_at: info.built_at,
    schema_version: info.schema_version,
    records: info.records,
    active: info.active,
    deactivated: info.deactivated,
    files: info.files.map(({ kind, name, rows, skipped }) => ({ kind, name, rows, skipped })),
    database: { file: basename(db), bytes, sha256 },
    parts,
  };
}

/**
 * Writes `manifest` to `path` atomically (a temporary file renamed into place).
 *
 * @example
 * ```ts
 * await writeManifest(manifestPath(db), await buildManifest(db, info));
 * ```
 */
export async function writeManifest(path: string, manifest: ReleaseManifest): Promise<void> {
  const temp = `${path}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(temp, JSON.stringify(manifest, null, 2) + "\n");
  await Deno.rename(temp, path);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks a {@linkcode ReleaseFile} of a manifest; a part's name must be a
 * plain file name (it is kept as is beside the main file).
 */
function checkFile(
  value: unknown,
  field: string,
  fail: (field: string, expected: string) => never,
  plain: boolean,
): void {
  if (!isObject(value)) return fail(field, "an object");
  const file = value.file;
  if (
    typeof file !== "string" || file === "" || /(^|[\\/])\.\.([\\/]|$)/.test(file) ||
    /^[a-z][a-z0-9+.-]*:/i.test(file) || (plain && !/^[A-Za-z0-9._-]{1,200}$/.test(file))
  ) {
    fail(`${field}.file`, plain ? "a plain file name" : "a file name relative to the manifest");
  }
  if (!Number.isSafeInteger(value.bytes) || (value.bytes as number) <= 0) {
    fail(`${field}.bytes`, "a positive integer");
  }
  if (typeof value.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(value.sha256)) {
    fail(`${field}.sha256`, "64 lowercase hex digits");
  }
}

/**
 * Parses and checks a manifest's text; throws a `TypeError` naming the
 * first field that is wrong.
 *
 * @example
 * ```ts
 * const manifest = parseManifest(await Deno.readTextFile("data/providers.db.release.json"));
 * ```
 */
export function parseManifest(text: string): ReleaseManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(
      `Cannot parse the release manifest: not JSON (${
        error instanceof Error ? error.message : error
      })`,
    );
  }
  const fail = (field: string, expected: string): never => {
    throw new TypeError(`Invalid release manifest: '${field}' must be ${expected}`);
  };
  if (!isObject(value)) return fail("(document)", "an object");
  if (value.format_version !== MANIFEST_FORMAT_VERSION) {
    fail(
      "format_version",
      `${MANIFEST_FORMAT_VERSION} (this server reads format ${MANIFEST_FORMAT_VERSION}; ` +
        "publish the release again with this version)",
    );
  }
  if (typeof value.release !== "string" || !/^[A-Za-z0-9._-]{1,128}$/.test(value.release)) {
    fail("release", "an id of letters, digits, '.', '_' and '-'");
  }
  for (const key of ["created_at", "built_at"]) {
    if (typeof value[key] !== "string" || Number.isNaN(Date.parse(value[key] as string))) {
      fail(key, "an ISO 8601 time");
    }
  }
  if (value.source !== "nppes" && value.source !== "demo") fail("source", "'nppes' or 'demo'");
  if (value.source_date !== null && typeof value.source_date !== "string") {
    fail("source_date", "a date or null");
  }
  for (const key of ["schema_version", "records", "active", "deactivated"]) {
    if (!Number.isSafeInteger(value[key]) || (value[key] as number) < 0) {
      fail(key, "a non-negative integer");
    }
  }
  if (!Array.isArray(value.files)) fail("files", "an array");
  checkFile(value.database, "database", fail, false);
  if (!Array.isArray(value.parts) || value.parts.length < 2) {
    fail("parts", "an array of the database's part files (postings and records)");
  }
  (value.parts as unknown[]).forEach((part, i) => checkFile(part, `parts[${i}]`, fail, true));
  return value as unknown as ReleaseManifest;
}

/**
 * The release of the database at `db` described by `info`: its id, and the
 * manifest's checksum and times when `<db>.release.json` exists and
 * describes this very database (same release id and size). Never throws: a
 * missing or unreadable manifest gives the id alone.
 *
 * @example
 * ```ts
 * const release = readRelease("data/providers.db", store.dataset());
 * dataset.ready(store, pool, release);
 * ```
 */
export function readRelease(db: string, info: DatasetInfo): ReleaseInfo {
  const release = bareRelease(info);
  try {
    const manifest = parseManifest(Deno.readTextFileSync(manifestPath(db)));
    if (manifest.release !== release.id || manifest.database.bytes !== Deno.statSync(db).size) {
      return release;
    }
    release.format_version = manifest.format_version;
    release.created_at = manifest.created_at;
    release.sha256 = manifest.database.sha256;
    release.bytes = manifest.database.bytes;
  } catch { /* no manifest, or not readable: the id alone */ }
  return release;
}

/** The release of a database without a manifest file (fixtures, stores built in memory). *
 * @example
 * ```ts
 * bareRelease(store.dataset()).sha256; // null
 * ```
 */
export function bareRelease(info: DatasetInfo): ReleaseInfo {
  return {
    id: releaseId(info),
    source_date: datasetSourceDate(info),
    format_version: null,
    created_at: null,
    sha256: null,
    bytes: null,
  };
}
