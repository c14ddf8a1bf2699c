/**
 * A replica following published releases (`PROVIDERS_DB_URL`): at start it
 * serves the local copy at `PROVIDERS_DB` if there is one, then looks for a
 * newer release; it looks again on `SIGHUP` and, with
 * `PROVIDERS_DB_POLL_SECONDS`, every so often. A new release is downloaded
 * beside the served file, checked (size, SHA-256, contents), put in place
 * and swapped in once its search workers are ready: requests in flight
 * finish on the old release, none fails. A failed or corrupt download is
 * logged and the current release keeps serving.
 *
 * @module
 */
import type { Config } from "../config.ts";
import type { Dataset } from "./dataset.ts";
import type { Logger } from "../log.ts";
import { openServing } from "./startup.ts";
import type { PoolObserver } from "../search/pool.ts";
import { readRelease } from "../release/manifest.ts";
import { downloadRelease, fetchManifest, installRelease } from "../release/fetch.ts";
import { describeLeftovers, removeLeftovers } from "../store/build_leftovers.ts";
import { dirname } from "../paths.ts";

/** What one look for a release did. */
export type SyncOutcome =
  | { kind: "current"; release: string }
  | { kind: "installed"; release: string; previous: string | null; seconds: number }
  | { kind: "failed"; error: string };

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Seconds to wait before trying again while no release is served at all. */
const RETRY_WITHOUT_DATASET_SECONDS = 30;

/** The follower's controls. */
export interface ReleaseFollower {
  /** Looks for a new release now (after any look in progress); resolves with what it did. */
  sync(): Promise<SyncOutcome>;
  /** Stops listening and polling, and abandons a download in progress. */
  stop(): void;
  /** The first look (after opening the local copy) has finished. */
  started: Promise<SyncOutcome>;
}

/**
 * Follows the releases at `config.releaseUrl` into `config.databasePath`,
 * serving them through `dataset`.
 *
 * @example
 * ```ts
 * const follower = followReleases(config, log, dataset);
 * // later: follower.stop();
 * ```
 */
export function followReleases(
  config: Config,
  log: Logger,
  dataset: Dataset,
  observer?: PoolObserver,
): ReleaseFollower {
  const url = config.releaseUrl;
  if (!url) throw new TypeError("followReleases needs PROVIDERS_DB_URL");
  const db = config.databasePath;
  const abort = new AbortController();
  let stopped = false;
  let queue: Promise<unknown> = Promise.resolve();
  let pending: Promise<SyncOutcome> | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const current = (): string | null => dataset.state.kind === "ready" ? dataset.release().id : null;

  async function openLocal(): Promise<void> {
    if (!exists(db)) {
      dataset.loading("fetching the first release", 0);
      return;
    }
    dataset.loading("opening the local copy of the release", 0);
    try {
      const { store, pool } = await openServing(db, config, log, observer);
      const release = readRelease(db, store.dataset());
      dataset.ready(store, pool, release);
      log.info("dataset open", { path: db, release: release.id, records: store.dataset().records });
    } catch (error) {
      log.warn("local copy unusable; fetching the release", { path: db, error: reason(error) });
      dataset.loading("fetching the first release", 0);
    }
  }

  async function look(): Promise<SyncOutcome> {
    const started = performance.now();
    const previous = current();
    try {
      const published = await fetchManifest(url!, abort.signal);
      const release = published.manifest.release;
      if (release === previous) return { kind: "current", release };
      await Deno.mkdir(dirname(db), { recursive: true });
      const leftovers = removeLeftovers(db);
      if (leftovers.length) log.info("removed leftovers", { detail: describeLeftovers(leftovers) });
      log.info("release download started", {
        release,
        previous,
        bytes: published.manifest.database.bytes,
        from: published.databaseUrl.href,
      });
      const temp = await downloadRelease(published, db, {
        signal: abort.signal,
        onProgress: (bytes, total) => {
          if (previous === null) dataset.loading(`downloading release ${release}`, bytes / total);
        },
      });
      await installRelease(temp, db, published.manifest);
      const { store, pool } = await openServing(db, config, log, observer);
      const info = readRelease(db, store.dataset());
      if (stopped) {
        await pool?.close();
        store.close();
        return { kind: "failed", error: "stopped" };
      }
      dataset.ready(store, pool, info);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      log.info("release installed", {
        release,
        previous,
        seconds,
        records: store.dataset().records,
        sha256: info.sha256,
      });
      return { kind: "installed", release, previous, seconds };
    } catch (error) {
      const message = reason(error);
      if (previous === null) {
        dataset.failed(`No release could be fetched from PROVIDERS_DB_URL: ${message}`);
      }
      log.error(
        previous === null
          ? "release fetch failed; no dataset yet, trying again"
          : "release fetch failed; still serving the current release",
        { url, current: previous, error: message },
      );
      return { kind: "failed", error: message };
    }
  }

  function sync(): Promise<SyncOutcome> {
    // Looks asked for while one waits to start are the same look.
    if (pending) return pending;
    const run = queue.then(() => {
      pending = null;
      return stopped ? { kind: "failed", error: "stopped" } as SyncOutcome : look();
    });
    pending = run;
    queue = run.then(schedule);
    return run;
  }

  /** Plans the next look: every poll interval (±10%, so replicas spread), sooner without a dataset. */
  function schedule(): void {
    if (stopped) return;
    clearTimeout(timer);
    let seconds = config.releasePollSeconds;
    if (current() === null) {
      seconds = seconds > 0 ? Math.min(seconds, RETRY_WITHOUT_DATASET_SECONDS) : 30;
    }
    if (seconds <= 0) return;
    const ms = seconds * 1000 * (0.9 + 0.2 * Math.random());
    const next = setTimeout(() => void sync(), ms);
    Deno.unrefTimer(next);
    timer = next;
  }

  const onHangup = () => void sync();
  let listening = false;
  try {
    Deno.addSignalListener("SIGHUP", onHangup);
    listening = true;
  } catch { /* no SIGHUP on this platform: polling only */ }

  const started = openLocal().then(() => sync());

  return {
    sync,
    started,
    stop() {
      stopped = true;
      clearTimeout(timer);
      abort.abort();
      if (listening) Deno.removeSignalListener("SIGHUP", onHangup);
    },
  };
}
