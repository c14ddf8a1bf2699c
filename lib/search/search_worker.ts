/**
 * A search worker of {@linkcode SearchPool}: opens the database read-only
 * and answers whole search requests with the finished response body, off
 * the serving thread.
 *
 * Messages in and out are {@linkcode ToWorker} and {@linkcode FromWorker}:
 * `open` (answered `ready` or `open-failed`), then any number of `search`
 * (answered `result`, `page`, or `chunk` for export records — their bytes
 * transferred, not copied — or `timeout` or `failed`, with the request's id;
 * `overdue`, unrun, when it comes to a search after the time by which it had
 * to start), then `close`. Every answer carries when the search started and
 * how long it ran, by this thread's clock (the pool may be busy when it
 * comes), and the worker's cache counters (hits and misses so far), which
 * the pool sums for `/metrics`.
 *
 * @module
 */
import { openSearchableStore, type SearchableSqliteStore } from "./searcher.ts";
import {
  RECORDS_WITH_PAGE,
  renderSearchBody,
  type SearchBody,
  type SearchJob,
} from "./response.ts";
import type { SearchPage } from "./engine.ts";
import type { ProviderStore } from "../store/store.ts";
import { clock, DeadlineError } from "../deadline.ts";
import { textChunk } from "../http/gzip_chunks.ts";
import type { FromWorker, ToWorker } from "./pool.ts";
import type { ColumnBytes } from "../index/reader.ts";
import { ResultMailbox } from "./result_mailbox.ts";
import { IdleRelease } from "../memory.ts";
import { unmapAll } from "../index/mapped_file.ts";

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
  close(): void;
};

let store: SearchableSqliteStore | null = null;

/** How a worker writes a page's body (`render.ts` of the service chooses the form by job). */
export type BodyRenderer = (store: ProviderStore, job: SearchJob, page: SearchPage) => SearchBody;

/** This worker's writer of bodies in every form, when a module above gave one (see below). */
let renderer: BodyRenderer | null = null;

/**
 * Lets this worker write bodies in every form the service answers (this
 * API's and the NPI Registry API's), not only this API's: a worker module
 * of a higher layer imports this one and calls it at its top level, before
 * any message comes (`lib/service/search_worker.ts`). The worker then
 * writes the short pages of jobs whose records are read on the worker
 * (`SearchJob.recordsWithPage`) itself, and the serving thread only sends
 * them.
 */
export function renderBodiesWith(write: BodyRenderer): void {
  renderer = write;
}

/** What a message carrying `body` hands over instead of copying: a body of bytes' buffer. */
function transferOf(body: SearchBody): Transferable[] {
  return typeof body === "string" ? [] : [body.buffer];
}

let mailbox: ResultMailbox<FromWorker> | null = null;
/** The id of a search the pool gave up on (see `ToWorker` `open`). */
let cancel: Int32Array | null = null;

/**
 * Sends the answer to a search: into the mailbox when it fits (the pool
 * reads it without waiting for its event loop), with a notice after it;
 * else as a message.
 */
function answer(message: FromWorker & { id: number }): void {
  if (mailbox?.put(message)) scope.postMessage({ type: "mailbox", id: message.id });
  else scope.postMessage(message);
}
let delayMs = 0;
let delayStops = true;
/** Whether warming waits for another worker's columns (see `ToWorker` `open`). */
let waitingForColumns = false;
let pages = false;
let sharing = false;
/** Gives this worker's freed memory back once searches stop coming (see `ToWorker` `open`). */
let idle: IdleRelease | null = null;

/**
 * Blocks this worker's thread, as a heavy query would (the pool's
 * `workerDelayMs` option): one that watches for the pool giving up on
 * search `id` and stops then, or with `stoppable` false one that does not.
 */
function block(ms: number, id: number, stoppable: boolean): void {
  if (!cancel || !stoppable) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    return;
  }
  const end = clock() + ms;
  for (let seen = Atomics.load(cancel, 0); seen !== id && clock() < end;) {
    Atomics.wait(cancel, 0, seen, end - clock());
    seen = Atomics.load(cancel, 0);
  }
  if (stopped(id)) throw new DeadlineError("The work was abandoned by its caller");
}

/** Whether the pool gave up on search `id` (see `ToWorker` `open`). */
function stopped(id: number): boolean {
  return cancel !== null && Atomics.load(cancel, 0) === id;
}

/**
 * Reads the rest of the search index between searches, a column per turn of
 * the event loop: the worker reports ready before reading most of it.
 */
function warmSoon(): void {
  setTimeout(() => {
    try {
      const more = store?.warm() ?? false;
      shareColumns();
      if (more) warmSoon();
    } catch {
      // A column that cannot be read fails the searches that need it, with their own error.
    }
  }, 0);
}

/** Columns of this worker's index already sent to the pool (or received from it). */
const shared = new Set<string>();

/** Sends the pool the columns read into shared memory since the last call. */
function shareColumns(): void {
  if (!store || !sharing) return;
  const fresh = Object.fromEntries(
    Object.entries(store.index.columnBytes()).filter(([name]) => !shared.has(name)),
  );
  if (Object.keys(fresh).length === 0) return;
  for (const name of Object.keys(fresh)) shared.add(name);
  scope.postMessage({ type: "columns", columns: fresh });
}

/** Sends the pool the word unions kept since the last call (when the pool shares them). */
function shareWordSets(): void {
  const sets = store?.takeWordSets() ?? [];
  if (sets.length > 0) scope.postMessage({ type: "wordSets", sets });
}

/** Takes the pool's shared columns (those this worker has not read itself). */
function adopt(columns: ColumnBytes): void {
  if (!store || Object.keys(columns).length === 0) return;
  store.index.adopt(columns);
  for (const name of Object.keys(columns)) shared.add(name);
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
        sharing = message.storeOptions.shareColumns ?? false;
        try {
          adopt(message.columns);
        } catch {
          // Columns that do not fit this file are not taken: this worker reads its own.
        }
        delayMs = message.delayMs;
        delayStops = message.delayStops ?? true;
        idle = new IdleRelease(message.idleReleaseMs ?? 0);
        pages = message.pages;
        mailbox = message.mailbox ? new ResultMailbox(message.mailbox) : null;
        cancel = message.cancel ? new Int32Array(message.cancel) : null;
        scope.postMessage({ type: "ready" });
        // Another worker reads the large columns; this one warms the rest once they are shared.
        waitingForColumns = message.warmColumns === false && !store.index.columnsHeld;
        if (!waitingForColumns) warmSoon();
      } catch (error) {
        scope.postMessage({ type: "open-failed", message: messageOf(error) });
      }
      return;
    case "search": {
      const { id, job, deadline } = message;
      const startedAt = clock();
      idle?.touch();
      if (!store) {
        answer({ type: "failed", id, message: "The search worker has no database", startedAt });
        return;
      }
      if (startedAt > (message.startBy ?? Infinity) && !stopped(id)) {
        // Handed ahead, it comes after the time it had to start by: refused, not run.
        answer({ type: "overdue", id, startedAt });
        return;
      }
      const timing = () => ({ startedAt, ms: clock() - startedAt, caches: store!.cacheCounters() });
      try {
        if (delayMs > 0) block(delayMs, id, delayStops);
        const watch = { deadline, stopped: () => stopped(id) };
        if (message.records) {
          const { ids, format, gzipLevel } = message.records;
          const chunk = textChunk(store.exportText(ids, format), gzipLevel);
          scope.postMessage({ type: "chunk", id, chunk, ...timing() }, [chunk.bytes.buffer]);
        } else if (!job) {
          answer({ type: "failed", id, message: "A search message without a search", startedAt });
        } else if (pages || message.page) {
          const page = store.search(job.query, watch);
          // A page asked for as a page (its caller renders it) takes its records whatever its size.
          const withRecords = job.recordsWithPage && page.hits.length > 0 &&
            (message.page || page.hits.length >= RECORDS_WITH_PAGE);
          if (withRecords) {
            page.records = store.storedRecords(page.hits.map((h) => h.id));
            // By message: the mailbox's JSON would escape the record texts and read them back,
            // twice the cost of a structured clone (0.7 against 0.3 ms for 200 records).
            scope.postMessage({ type: "page", id, page, ...timing() });
          } else if (!message.page && job.recordsWithPage && renderer) {
            // A short page of such a job is written here whole: by message, as above.
            const body = renderer(store, job, page);
            scope.postMessage({ type: "result", id, body, ...timing() }, transferOf(body));
          } else answer({ type: "page", id, page, ...timing() });
        } else {
          const body = (renderer ?? renderSearchBody)(store, job, store.search(job.query, watch));
          // Bytes go by message (their buffer handed over); the mailbox carries text.
          if (typeof body === "string") answer({ type: "result", id, body, ...timing() });
          else scope.postMessage({ type: "result", id, body, ...timing() }, transferOf(body));
        }
      } catch (error) {
        answer(
          error instanceof DeadlineError
            ? { type: "timeout", id, ...timing() }
            : { type: "failed", id, message: messageOf(error), ...timing() },
        );
      }
      // A column read on first use by this search (the update days) goes to the others too, and so
      // do the word unions it kept.
      shareColumns();
      shareWordSets();
      return;
    }
    case "wordSets":
      store?.adoptWordSets(message.sets);
      return;
    case "columns":
      try {
        adopt(message.columns);
      } catch {
        // Columns that do not fit are not taken: this worker reads its own.
      }
      if (waitingForColumns && store?.index.columnsHeld) {
        waitingForColumns = false;
        warmSoon();
      }
      return;
    case "close":
      idle?.stop();
      store?.close();
      store = null;
      // Nothing reads the index map past this point: its mapping goes now, not with the process.
      unmapAll();
      scope.close();
      return;
  }
};
