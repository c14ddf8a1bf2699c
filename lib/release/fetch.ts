/**
 * Fetching a published release: its manifest, then the database it names
 * (its part files, then its main file), each streamed to a temporary file
 * beside the served one while its SHA-256 is computed; a file whose size,
 * checksum or contents do not match the manifest is deleted and never
 * served. Works over `http:`, `https:` and
 * `file:` URLs and plain paths alike (Deno's `fetch` reads files).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import {
  hashFile,
  manifestPath,
  parseManifest,
  type ReleaseFile,
  releaseId,
  type ReleaseManifest,
  writeManifest,
} from "./manifest.ts";
import { basename } from "../paths.ts";
import { openSqliteStore } from "../store/sqlite_store.ts";
import { partFiles, partPath, readPartNames, removeReplacedParts } from "../store/parts.ts";

/** A release could not be fetched or did not check out; the message says why. */
export class ReleaseFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReleaseFetchError";
  }
}

/** The manifests this service reads are small; anything larger is not one. */
const MAX_MANIFEST_BYTES = 1 << 20;

/**
 * The URL of a `PROVIDERS_DB_URL` value: URLs as they are, paths as `file:` URLs.
 *
 * @example
 * ```ts
 * releaseLocation("/srv/releases/current.release.json").href;
 * // "file:///srv/releases/current.release.json"
 * ```
 */
export function releaseLocation(raw: string): URL {
  if (/^(https?|file):/i.test(raw)) return new URL(raw);
  return pathToFileURL(resolve(raw));
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A download that receives nothing for this long is abandoned (a stalled server or network). */
const IDLE_TIMEOUT_MS = 60_000;

/**
 * A signal that aborts after `ms` without {@linkcode Watchdog.feed}, or
 * with `outer`; {@linkcode Watchdog.stop} clears its timer.
 */
class Watchdog {
  readonly #controller = new AbortController();
  readonly #ms: number;
  readonly #what: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly signal: AbortSignal;

  constructor(ms: number, what: string, outer?: AbortSignal) {
    this.#ms = ms;
    this.#what = what;
    this.signal = outer
      ? AbortSignal.any([outer, this.#controller.signal])
      : this.#controller.signal;
    this.feed();
  }

  feed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#controller.abort(
        new ReleaseFetchError(`${this.#what}: nothing received for ${this.#ms / 1000} s`),
      );
    }, this.#ms);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

async function open(url: URL, signal?: AbortSignal): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { "Cache-Control": "no-cache" } });
  } catch (error) {
    if (signal?.reason instanceof ReleaseFetchError) throw signal.reason;
    throw new ReleaseFetchError(`Cannot fetch '${url.href}': ${reason(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ReleaseFetchError(`Cannot fetch '${url.href}': HTTP ${response.status}`);
  }
  return response;
}

/** A manifest and the URL of the database it names. */
export interface PublishedRelease {
  manifest: ReleaseManifest;
  /** Where the database file is. */
  databaseUrl: URL;
}

/**
 * Reads and checks the manifest at `location` (a URL or path).
 *
 * @example
 * ```ts
 * const { manifest, databaseUrl } = await fetchManifest("https://example.org/current.release.json");
 * ```
 */
export async function fetchManifest(
  location: string,
  signal?: AbortSignal,
): Promise<PublishedRelease> {
  const url = releaseLocation(location);
  const watchdog = new Watchdog(IDLE_TIMEOUT_MS, `Cannot fetch '${url.href}'`, signal);
  try {
    return await readManifest(url, watchdog.signal);
  } finally {
    watchdog.stop();
  }
}

async function readManifest(url: URL, signal: AbortSignal): Promise<PublishedRelease> {
  const response = await open(url, signal);
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > MAX_MANIFEST_BYTES) {
    await response.body?.cancel();
    throw new ReleaseFetchError(`'${url.href}' is not a release manifest: ${declared} bytes`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new ReleaseFetchError(`Cannot read '${url.href}': ${reason(error)}`);
  }
  if (text.length > MAX_MANIFEST_BYTES) {
    throw new ReleaseFetchError(`'${url.href}' is not a release manifest: too large`);
  }
  let manifest: ReleaseManifest;
  try {
    manifest = parseManifest(text);
  } catch (error) {
    throw new ReleaseFetchError(`${reason(error)} (at '${url.href}')`);
  }
  return { manifest, databaseUrl: new URL(manifest.database.file, url) };
}

/** Progress of a download: bytes so far of the manifest's total. */
export type DownloadProgress = (bytes: number, total: number) => void;

/** A file being downloaded: its source, where it goes, and what it must be. */
interface Transfer {
  url: URL;
  path: string;
  expected: ReleaseFile;
}

/**
 * Streams `url` into `file` (open at `path`), checking its size and
 * SHA-256 against `expected`; `fed` counts the bytes as they come.
 */
async function transfer(
  { url, path, expected }: Transfer,
  watchdog: Watchdog,
  fed: (bytes: number) => void,
  file: Deno.FsFile,
): Promise<void> {
  const response = await open(url, watchdog.signal);
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    for await (const chunk of response.body!) {
      watchdog.feed();
      bytes += chunk.length;
      if (bytes > expected.bytes) {
        throw new ReleaseFetchError(
          `'${url.href}' is larger than the manifest's ${expected.bytes} bytes`,
        );
      }
      hash.update(chunk);
      let written = 0;
      while (written < chunk.length) written += await file.write(chunk.subarray(written));
      fed(chunk.length);
    }
  } catch (error) {
    if (error instanceof ReleaseFetchError) throw error;
    if (watchdog.signal.reason instanceof ReleaseFetchError) throw watchdog.signal.reason;
    throw new ReleaseFetchError(`Download of '${url.href}' failed: ${reason(error)}`);
  }
  if (bytes !== expected.bytes) {
    throw new ReleaseFetchError(
      `'${url.href}' has ${bytes} bytes, the manifest says ${expected.bytes}: ` +
        "the download was cut short or the file changed; publish the database before its manifest",
    );
  }
  const sha256 = hash.digest("hex");
  if (sha256 !== expected.sha256) {
    throw new ReleaseFetchError(
      `'${url.href}' has SHA-256 ${sha256}, the manifest says ${expected.sha256}: ` +
        `the file is corrupt or belongs to another release (${basename(path)})`,
    );
  }
}

/** Whether `path` already is the file `expected` (a part kept from an earlier install). */
async function alreadyThere(path: string, expected: ReleaseFile): Promise<boolean> {
  try {
    if ((await Deno.stat(path)).size !== expected.bytes) return false;
    return (await hashFile(path)).sha256 === expected.sha256;
  } catch {
    return false;
  }
}

/**
 * Downloads the release beside `db`: each part file the manifest lists to
 * its own name (one already there with the right checksum is kept), then
 * the main file to a temporary file (`<db>.download-<pid>-<stamp>`, locked
 * while the download runs, so a sweep of leftovers leaves it and the
 * parts' temporary files alone), each checked against the manifest's size
 * and SHA-256, and the main file opened to check that it is the provider
 * database the manifest describes. Returns the temporary file's path; on
 * any failure the temporary files are removed and a
 * {@linkcode ReleaseFetchError} says why.
 *
 * @example
 * ```ts
 * const published = await fetchManifest(config.releaseUrl);
 * const temp = await downloadRelease(published, "data/providers.db");
 * await installRelease(temp, "data/providers.db", published.manifest);
 * ```
 */
export async function downloadRelease(
  release: PublishedRelease,
  db: string,
  options: {
    signal?: AbortSignal;
    onProgress?: DownloadProgress;
    /** Abandon the download after this long without data; default 60 s. */
    idleTimeoutMs?: number;
  } = {},
): Promise<string> {
  const { manifest, databaseUrl } = release;
  const temp = `${db}.download-${Deno.pid}-${Date.now().toString(36)}`;
  const total = manifest.database.bytes + manifest.parts.reduce((n, p) => n + p.bytes, 0);
  let done = 0, reported = 0;
  const fed = (bytes: number) => {
    done += bytes;
    if (done - reported >= 8 << 20) {
      reported = done;
      options.onProgress?.(done, total);
    }
  };
  const temporary = [temp];
  /** Parts this download put in place: removed again if the release is not installed. */
  const placed: string[] = [];
  const watchdog = new Watchdog(
    options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    `Download of '${databaseUrl.href}' stalled`,
    options.signal,
  );
  try {
    {
      using main = await Deno.open(temp, { write: true, createNew: true });
      // Marks the download as running (lib/store/build_leftovers.ts) while its files are written.
      if (Deno.build.os !== "windows") main.tryLockSync(true);
      for (const [k, part] of manifest.parts.entries()) {
        const path = partPath(db, part.file);
        if (await alreadyThere(path, part)) {
          fed(part.bytes);
          continue;
        }
        const partTemp = `${temp}.part${k}`;
        temporary.push(partTemp);
        {
          using file = await Deno.open(partTemp, { write: true, createNew: true });
          const url = new URL(part.file, databaseUrl);
          await transfer({ url, path: partTemp, expected: part }, watchdog, fed, file);
        }
        await Deno.rename(partTemp, path);
        placed.push(path);
      }
      const whole = { url: databaseUrl, path: temp, expected: manifest.database };
      await transfer(whole, watchdog, fed, main);
    }
    watchdog.stop();
    checkDatabase(temp, manifest);
    return temp;
  } catch (error) {
    watchdog.stop();
    const served = new Set(
      (readPartNames(db) ? partFiles(readPartNames(db)!) : []).map((file) => partPath(db, file)),
    );
    for (const path of [...temporary, ...placed.filter((p) => !served.has(p))]) {
      try {
        Deno.removeSync(path);
      } catch { /* never created, or renamed */ }
    }
    throw error instanceof ReleaseFetchError
      ? error
      : new ReleaseFetchError(`Cannot download the release: ${reason(error)}`);
  }
}

/** Opens the downloaded file as a provider database and checks it is the manifest's release. */
function checkDatabase(path: string, manifest: ReleaseManifest): void {
  let store;
  try {
    store = openSqliteStore(path, { lazyIndex: true, recordCacheBytes: 0 });
  } catch (error) {
    throw new ReleaseFetchError(`The release's database cannot be served: ${reason(error)}`);
  }
  try {
    const id = releaseId(store.dataset());
    if (id !== manifest.release) {
      throw new ReleaseFetchError(
        `The database is release '${id}', the manifest names '${manifest.release}'`,
      );
    }
  } finally {
    store.close();
  }
}

/**
 * Puts a downloaded release in place at `db` (an atomic rename; open
 * stores keep reading the files they opened), removes the part files of
 * the release it replaced, and writes its manifest beside.
 *
 * @example
 * ```ts
 * await installRelease(temp, "data/providers.db", published.manifest);
 * ```
 */
export async function installRelease(
  temp: string,
  db: string,
  manifest: ReleaseManifest,
): Promise<void> {
  const replaced = readPartNames(db);
  await Deno.rename(temp, db);
  if (replaced) removeReplacedParts(db, replaced, readPartNames(db));
  for (const suffix of ["-wal", "-shm"]) {
    try {
      await Deno.remove(db + suffix);
    } catch { /* none */ }
  }
  const local = { ...manifest, database: { ...manifest.database, file: basename(db) } };
  await writeManifest(manifestPath(db), local);
}
