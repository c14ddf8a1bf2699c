/**
 * A search worker of {@linkcode SearchPool}: opens the database read-only
 * and answers whole search requests with the finished response body, off
 * the serving thread.
 *
 * Messages in and out are {@linkcode ToWorker} and {@linkcode FromWorker}:
 * `open` (answered `ready` or `open-failed`), then any number of `search`
 * (answered `result`, `page`, or `chunk` for export records — their bytes
 * transferred, not copied — or `timeout` or `failed`, with the request's id), then
 * `close`. Every answer carries the worker's cache counters (hits and
 * misses so far), which the pool sums for `/metrics`.
 *
 * @module
 */
import { openSearchableStore, type SearchableSqliteStore } from "./searcher.ts";
import { searchResponseBody } from "./response.ts";
import { DeadlineError } from "../deadline.ts";
import { textChunk } from "../http/gzip_chunks.ts";
import type { FromWorker, ToWorker } from "./pool.ts";

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
  close(): void;
};

let store: SearchableSqliteStore | null = null;
let delayMs = 0;
let pages = false;

/** Blocks this worker's thread, as a heavy query would (the pool's `workerDelayMs` option). */
function block(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Reads the rest of the search index between searches, a column per turn of
 * the event loop: the worker reports ready before reading most of it.
 */
function warmSoon(): void {
  setTimeout(() => {
    try {
      if (store?.warm()) warmSoon();
    } catch {
      // A column that cannot be read fails the searches that need it, with their own error.
    }
  }, 0);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

scope.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case "open":
      try {
        store = openSearchableStore(message.path, message.storeOptions);
        delayMs = message.delayMs;
        pages = message.pages;
        scope.postMessage({ type: "ready" });
        warmSoon();
      } catch (error) {
        scope.postMessage({ type: "open-failed", message: messageOf(error) });
      }
      return;
    case "search": {
      const { id, job, deadline } = message;
      if (!store) {
        scope.postMessage({ type: "failed", id, message: "The search worker has no database" });
        return;
      }
      try {
        if (delayMs > 0) block(delayMs);
        if (message.records) {
          const { ids, format, gzipLevel } = message.records;
          const chunk = textChunk(store.exportText(ids, format), gzipLevel);
          scope.postMessage({ type: "chunk", id, chunk, caches: store.cacheCounters() }, [
            chunk.bytes.buffer,
          ]);
        } else if (!job) {
          scope.postMessage({ type: "failed", id, message: "A search message without a search" });
        } else if (pages || message.page) {
          const page = store.search(job.query, { deadline });
          scope.postMessage({ type: "page", id, page, caches: store.cacheCounters() });
        } else {
          const body = searchResponseBody(store, job, { deadline });
          scope.postMessage({ type: "result", id, body, caches: store.cacheCounters() });
        }
      } catch (error) {
        const caches = store.cacheCounters();
        scope.postMessage(
          error instanceof DeadlineError
            ? { type: "timeout", id, caches }
            : { type: "failed", id, message: messageOf(error), caches },
        );
      }
      return;
    }
    case "close":
      store?.close();
      store = null;
      scope.close();
      return;
  }
};
