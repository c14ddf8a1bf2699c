/**
 * A pool of search workers with admission control. At most one search runs
 * per worker, and up to {@linkcode AHEAD} more are handed to it ahead, so
 * that it takes its next search the moment it answers, without waiting for this thread to
 * notice the answer and send another (a round trip through two event loops
 * that, at c=8 over a million-provider index, left the worker idle a third
 * of the time); further searches wait in a FIFO queue of bounded length, and a
 * search arriving when the queue is full, or when its expected wait (the
 * work ahead of it: the queued searches' recent service times for their
 * shape, plus what the running ones have left, plus twice the deviation
 * of that sum, ÷ workers) is over the wait
 * budget, is refused at once (503 `overloaded` with `Retry-After`) instead
 * of piling up. An admitted search must start within the budget of its
 * request's arrival: one the work ahead makes late (reckoned at mean service
 * times), or still queued when its budget runs out, is refused then, unrun
 * (`overdue`), so every search a worker runs waited the budget at most,
 * whatever slowed the queue after it was admitted. A search whose
 * deadline passes, or whose client goes away, while queued is dropped
 * without running; one running is answered at once and its worker told to
 * stop through a shared flag its search watches, as it watches its
 * deadline: the work really stops within milliseconds and the worker,
 * with its index and caches, takes the next search. Only a worker that has
 * not stopped within {@linkcode STOP_GRACE_MS} is terminated and a fresh one
 * (which reads the index again) takes the slot. A worker that crashes is
 * replaced the same way and its search answered 503, never left hanging.
 *
 * @module
 */
import { UnavailableError } from "../http/errors.ts";
import type { Logger } from "../log.ts";
import { StoreOpenError } from "../store/store.ts";
import { clock, DeadlineError, type Watch } from "../deadline.ts";
import type { SearchBody, SearchJob } from "./response.ts";
import type { SearchPage } from "./engine.ts";
import { BodyCache } from "./body_cache.ts";
import { addCacheCounters, type CacheCounters } from "../lru.ts";
import type { ColumnBytes } from "../index/reader.ts";
import type { SharedWordSet } from "./word_sets.ts";
import { searchShape, ServiceTimes, WaitCalibration } from "./service_times.ts";
import { ResultMailbox } from "./result_mailbox.ts";
import type { BodyChunk } from "../http/gzip_chunks.ts";

/**
 * Records to render as export text instead of searching: by internal id,
 * as NDJSON or CSV lines, deflated at `gzipLevel` as a piece of a gzip
 * stream (`lib/http/gzip_chunks.ts`) or UTF-8 as it is (`null`).
 */
export interface RecordsJob {
  ids: number[];
  format: "ndjson" | "csv";
  gzipLevel: number | null;
}

/** Cache budgets a worker opens its store with. */
export interface WorkerStoreOptions {
  postingCacheBytes?: number;
  /** Read the index's large columns into shared memory, to hand them to the other workers. */
  shareColumns?: boolean;
  /** Keep common words' unions in shared memory, to hand them to the other workers. */
  shareWordSets?: boolean;
  resultCacheBytes?: number;
  recordCacheBytes?: number;
  /** Read the index from the database's index map when it has one (default true). */
  indexMap?: boolean;
  /** Map every page of the records parts in the background (see `SqliteStoreOptions`). */
  holdRecords?: boolean;
}

/** Messages the pool sends a worker. */
export type ToWorker =
  | {
    type: "open";
    path: string;
    storeOptions: WorkerStoreOptions;
    delayMs: number;
    /** Whether that delay stops when the pool gives up on the search (default true). */
    delayStops?: boolean;
    /** Idle time after which the worker gives freed memory back (0 or absent: never). */
    idleReleaseMs?: number;
    /** Answer pages (the serving thread renders them) instead of bodies. */
    pages: boolean;
    /** Index columns another worker of the pool already read into shared memory. */
    columns: ColumnBytes;
    /**
     * Whether this worker reads the index's large columns while idle (default
     * true). The pool's other workers wait for them in shared memory instead,
     * so the columns are read and held once, not once a worker.
     */
    warmColumns?: boolean;
    /** Where to leave answers for the pool to read at once (`result_mailbox.ts`). */
    mailbox?: SharedArrayBuffer;
    /**
     * One Int32: the id of a search the pool gave up on (its client went
     * away, or its deadline passed). The worker's searches watch it and stop.
     */
    cancel?: SharedArrayBuffer;
  }
  | { type: "columns"; columns: ColumnBytes }
  /** Word unions another worker built (in shared memory). */
  | { type: "wordSets"; sets: SharedWordSet[] }
  | {
    type: "search";
    id: number;
    /** The search (`null` when the message renders `records` instead). */
    job: SearchJob | null;
    /** Render these records as export text instead of searching (answered `chunk`). */
    records?: RecordsJob;
    deadline: number;
    /**
     * When it must have started, on `clock()` (a search handed ahead): the
     * worker answers `overdue` instead of running it later. Absent: no limit.
     */
    startBy?: number;
    /** Answer the page (its ids) instead of the body, whatever the worker's mode. */
    page?: boolean;
  }
  | { type: "close" };

/**
 * When a worker started a search and how long it ran (ms), by the worker's
 * `clock()`, with its cache counters as of the answer.
 */
interface Timing {
  startedAt?: number;
  ms?: number;
  caches?: CacheCounters;
}

/** Messages a worker sends the pool. */
export type FromWorker =
  | { type: "ready" }
  | { type: "open-failed"; message: string }
  /** Index columns this worker read into shared memory, for the others. */
  | { type: "columns"; columns: ColumnBytes }
  /** Word unions this worker built, in shared memory, for the others. */
  | { type: "wordSets"; sets: SharedWordSet[] }
  | { type: "result"; id: number; body: SearchBody } & Timing
  | { type: "page"; id: number; page: SearchPage } & Timing
  | { type: "chunk"; id: number; chunk: BodyChunk } & Timing
  | { type: "timeout"; id: number } & Timing
  | { type: "failed"; id: number; message: string } & Timing
  /** A search handed ahead that came after its `startBy`: refused unrun. */
  | { type: "overdue"; id: number } & Timing
  /** The answer to search `id` is in the worker's mailbox. */
  | { type: "mailbox"; id: number };

/**
 * Why a search was refused: the queue was full, its expected wait was over
 * the budget on arrival, or it was admitted but could no longer start within
 * the budget (`overdue`: refused while queued, without running).
 */
export type ShedReason = "queue_full" | "wait_budget" | "overdue";

/** What the pool tells as it works, for metrics; every method optional. */
export interface PoolObserver {
  /** A worker took a search that had waited `ms` for it since it arrived (about 0: a worker was free). */
  waited?(ms: number): void;
  /** A worker finished a search in `ms`. */
  served?(ms: number): void;
  /** A search was refused at once. */
  shed?(reason: ShedReason): void;
  /** A search passed its deadline while waiting or running. */
  timedOut?(where: "queued" | "running"): void;
  /** A search's client went away (its signal aborted, not by the deadline). */
  abandoned?(where: "queued" | "running"): void;
}

/** How a pool is made. */
export interface SearchPoolOptions {
  /** The database file every worker opens read-only. */
  path: string;
  /** Searches that run at once: one worker each (at least 1). */
  workers: number;
  /** Most searches waiting for a worker (0: refuse when all are busy). */
  queue: number;
  /** Where worker failures and replacements are logged. */
  log?: Logger;
  /** Cache budgets of each worker's store. */
  storeOptions?: WorkerStoreOptions;
  /**
   * Makes every search block its worker this long first, as a heavy query
   * would: for tests and drills of the queue and the timeout. Default 0.
   */
  workerDelayMs?: number;
  /**
   * Whether that delay ends when the pool gives up on the search, as a
   * search that checks its watch does (default true); false drills a worker
   * that does not stop, which is terminated after `stopGraceMs`.
   */
  workerDelayStops?: boolean;
  /**
   * How long each worker sits without a search before it gives freed memory
   * back (`IdleRelease` in `memory.ts`); 0 or absent: never.
   */
  idleReleaseMs?: number;
  /**
   * How long a worker told to stop a search may take before it is
   * terminated and replaced, ms. Default {@linkcode STOP_GRACE_MS}.
   */
  stopGraceMs?: number;
  /**
   * Longest expected wait (ms) for a worker a search is admitted with;
   * beyond, it is refused. The expected wait is the work ahead of it — the
   * queued searches' recent service times (per shape: `service_times.ts`)
   * plus what the running ones have left, plus twice the deviation of that
   * sum — divided by the workers. 0 or absent: only the queue's length
   * sheds.
   */
  maxWaitMs?: number;
  /** Told of waits, service times, refusals, timeouts and abandoned searches. */
  observer?: PoolObserver;
  /**
   * Searches handed to a busy worker ahead, each started the moment it
   * answers the one before (default {@linkcode AHEAD}; 0: none).
   */
  ahead?: number;
  /** Wait before reopening the database in a replacement worker that failed to open it. Default 1000. */
  reopenDelayMs?: number;
  /**
   * Bytes of finished bodies kept on the serving thread, so a search asked
   * again is answered without a worker. Default 16 MB; 0 turns it off.
   */
  bodyCacheBytes?: number;
  /**
   * Renders a page found by a worker into the response body on the serving
   * thread (reading the records there), so the worker is free for the next
   * search meanwhile. Without it, workers render bodies themselves.
   */
  render?: (job: SearchJob, page: SearchPage) => SearchBody;
  /**
   * The module each worker runs: `search_worker.ts` here (the default), or
   * one of a higher layer that imports it and gives it a writer of bodies
   * (`renderBodiesWith`), as the service's does.
   */
  workerUrl?: string;
}

/** What the pool is doing, for tests and diagnostics. */
export interface PoolStats {
  workers: number;
  ready: number;
  busy: number;
  queued: number;
  /** Workers terminated or lost and replaced since start. */
  replaced: number;
  /** Recent service time of a search in a worker, ms (exponentially weighted; 0 before any). */
  serviceMs: number;
  /** Recent mean deviation of the service time from `serviceMs`, ms (exponentially weighted). */
  serviceDeviationMs: number;
  /** What a search arriving now would wait for a worker, ms (0 when one is free). */
  expectedWaitMs: number;
  /** Index columns one worker read into shared memory and the others use. */
  sharedColumns: number;
  /** Index columns read by the workers in all: one read each when only one worker warms them. */
  columnReads: number;
  /** Word unions one worker built and handed to the others since start. */
  sharedWordSets: number;
  /** What waits estimated from service times are multiplied by (`WaitCalibration`). */
  waitCalibration: number;
}

interface Task {
  id: number;
  job: SearchJob | null;
  /** Records to render instead of a search (see {@linkcode SearchPool.renderRecords}). */
  records?: RecordsJob;
  deadline: number;
  signal: AbortSignal | undefined;
  /** When its request arrived, when it was queued and when a worker took it, on `clock()`. */
  arrivedAt: number;
  queuedAt: number;
  startedAt: number;
  /**
   * When it must have started (arrival + the wait budget), on `clock()`: a
   * queued search that cannot is refused unrun. `Infinity`: no budget (none
   * set, or a later search of a request already admitted).
   */
  startBy: number;
  /** Resolve with the page found, not a body (exports, roster matching and FHIR read records themselves). */
  wantsPage: boolean;
  /** What kind of work it is, for its service time estimate (`service_times.ts`). */
  shape: string;
  /** Its wait as estimated from service times when it was queued, before calibration (ms). */
  estimatedWaitMs: number;
  resolve(body: SearchBody | SearchPage | BodyChunk): void;
  reject(error: unknown): void;
  onAbort: (() => void) | null;
  /** Given up on while running: answered already, its worker told to stop (see `#abandon`). */
  abandoned?: boolean;
  /** Gives up on it when its deadline passes (queued, handed ahead or running). */
  timer?: ReturnType<typeof setTimeout>;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** The search the worker runs. */
  task: Task | null;
  /** The searches handed to the worker ahead, in order: it starts each when it answers the one before. */
  ahead: Task[];
  /**
   * Answers to searches handed ahead that came before the running one's:
   * read from the mailbox while the earlier answers were still on their
   * way as messages. By search id.
   */
  early: Map<number, FromWorker & { id: number }>;
  /** The grace a worker told to stop has before it is replaced (see `#abandon`). */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The worker's cache counters, as of its last answer. */
  caches: CacheCounters;
  /** Where the worker leaves its answers (a new one per worker). */
  mailbox: ResultMailbox<FromWorker> | null;
  /** The id of the search this slot's worker is to stop (see `ToWorker` `open`). */
  cancel: Int32Array;
}

const WORKER_URL = new URL("./search_worker.ts", import.meta.url).href;

/**
 * How long a worker told to stop a search may take to stop before it is
 * terminated and replaced (ms): a search checks its watch every few
 * milliseconds, and a replacement reads the whole index again.
 */
export const STOP_GRACE_MS = 1000;

/** Searches handed to a busy worker ahead by default (see `SearchPoolOptions.ahead`). */
export const AHEAD = 2;

/** How long a client is told to wait after a refusal, in seconds. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The search worker pool of one database file.
 *
 * @example
 * ```ts
 * const pool = await SearchPool.start({ path: "data/providers.db", workers: 1, queue: 64 });
 * const body = await pool.run({ query, cursorScope, startedAt: clock() }, { deadline });
 * await pool.close();
 * ```
 */
export class SearchPool {
  readonly #options: SearchPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Task[] = [];
  #nextId = 1;
  #replaced = 0;
  #closing = false;
  #drained: (() => void) | null = null;
  readonly #bodies: BodyCache;
  readonly #times = new ServiceTimes();
  readonly #calibration = new WaitCalibration();
  /** Cache counters of workers terminated (their last report). */
  #retiredCaches: CacheCounters = {};
  /** Index columns read into shared memory by a worker: every other worker adopts them. */
  #columns: ColumnBytes = {};
  #columnReads = 0;
  /** Word unions handed from one worker to the others so far. */
  #sharedWordSets = 0;

  private constructor(options: SearchPoolOptions) {
    this.#options = options;
    this.#bodies = new BodyCache(options.bodyCacheBytes ?? 16 * 1024 * 1024);
  }

  /**
   * Starts `options.workers` workers and resolves once every one has opened
   * the database. Rejects with {@linkcode StoreOpenError} (its message says
   * what to do) when the file cannot be served, having stopped the workers;
   * rejects with the platform's error when it has no workers.
   */
  static async start(options: SearchPoolOptions): Promise<SearchPool> {
    if (!Number.isInteger(options.workers) || options.workers < 1) {
      throw new RangeError(`A search pool needs at least 1 worker, got ${options.workers}`);
    }
    const pool = new SearchPool(options);
    const opened: Promise<void>[] = [];
    for (let i = 0; i < options.workers; i++) {
      const slot: Slot = {
        worker: undefined!,
        ready: false,
        task: null,
        ahead: [],
        early: new Map(),
        timer: undefined,
        caches: {},
        mailbox: null,
        cancel: undefined!,
      };
      pool.#slots.push(slot);
      opened.push(pool.#spawn(slot));
    }
    try {
      await Promise.all(opened);
    } catch (error) {
      pool.#closing = true;
      for (const slot of pool.#slots) slot.worker?.terminate();
      throw error;
    }
    return pool;
  }

  /** Workers, busy ones, queued searches and replacements so far. */
  get stats(): PoolStats {
    this.#collect();
    return {
      workers: this.#slots.length,
      ready: this.#slots.filter((s) => s.ready).length,
      busy: this.#slots.filter((s) => s.task).length,
      queued: this.#waiting(),
      replaced: this.#replaced,
      serviceMs: this.#times.overall?.ms ?? 0,
      serviceDeviationMs: this.#times.overall?.deviationMs ?? 0,
      expectedWaitMs: this.#expectedWait(),
      sharedColumns: Object.keys(this.#columns).length,
      columnReads: this.#columnReads,
      sharedWordSets: this.#sharedWordSets,
      waitCalibration: this.#calibration.factor,
    };
  }

  /**
   * Hits and misses of the caches: `bodies` on this thread, and the
   * workers' `postings`, `results`, `word_sets`, `filters` and `records`
   * (as of each worker's last answer, terminated workers included).
   */
  cacheCounters(): CacheCounters {
    return addCacheCounters(
      { bodies: { hits: this.#bodies.hits, misses: this.#bodies.misses } },
      this.#retiredCaches,
      ...this.#slots.map((slot) => slot.caches),
    );
  }

  /**
   * What a search arriving now would wait for a worker, ms: 0 with a free
   * worker, else the work ahead of it divided by the workers. The work
   * ahead is, for each queued search, the recent mean service time of its
   * shape, and for each running one what it has left of that (at least the
   * shape's deviation, when it runs longer than expected); to their sum
   * come twice the deviation of that sum (the square root of the summed
   * squared deviations), so a queue of a few slow shapes is reckoned long
   * and a long queue of steady ones near its mean. Before any search has
   * finished, a search is reckoned at a quarter of the wait budget (so a
   * burst at start-up queues a few searches per worker, not the whole
   * queue). That estimate is then multiplied by how far such estimates have
   * recently been from the waits seen (`WaitCalibration`: the 99th
   * percentile of actual ÷ estimated), which covers the slow spells that
   * hit every search at once (a busy machine).
   */
  #expectedWait(): number {
    return this.#estimatedWait() * this.#calibration.factor;
  }

  /** The wait {@linkcode SearchPool.#expectedWait} calibrates: from service times alone. */
  #estimatedWait(): number {
    const fallback = (this.#options.maxWaitMs ?? 0) / 4;
    let ready = 0, work = 0, variance = 0;
    const now = clock();
    for (const slot of this.#slots) {
      if (!slot.ready) continue;
      if (!slot.task) return 0;
      ready++;
      const { ms, deviationMs } = this.#times.estimate(slot.task.shape, fallback);
      work += Math.max(ms - (now - slot.task.startedAt), deviationMs);
      variance += deviationMs * deviationMs;
      for (const task of slot.ahead) {
        const ahead = this.#times.estimate(task.shape, fallback);
        work += ahead.ms;
        variance += ahead.deviationMs * ahead.deviationMs;
      }
    }
    for (const task of this.#queue) {
      const { ms, deviationMs } = this.#times.estimate(task.shape, fallback);
      work += ms;
      variance += deviationMs * deviationMs;
    }
    return (work + 2 * Math.sqrt(variance)) / Math.max(1, ready);
  }

  /**
   * Answers a search: at once from the body cache when it was asked before,
   * else as {@linkcode SearchPool.run} does (and the body is kept).
   */
  answer(job: SearchJob, watch: Watch = {}): SearchBody | Promise<SearchBody> {
    if (this.#bodies.budget === 0) return this.run(job, watch);
    const key = BodyCache.key(job);
    const hit = this.#bodies.get(key, job.startedAt);
    if (hit !== undefined) return hit;
    return this.run(job, watch).then((body) => {
      this.#bodies.set(key, body);
      return body;
    });
  }

  /**
   * Runs a search in a worker and resolves with the response body. Rejects with
   * {@linkcode DeadlineError} when `watch.deadline` passes (queued or
   * running) or `watch.signal` aborts, and with a 503
   * {@linkcode UnavailableError} when the queue is full, the worker crashed
   * or the pool is closing.
   */
  run(job: SearchJob, watch: Watch = {}): Promise<SearchBody> {
    return this.#submit(job, watch, false) as Promise<SearchBody>;
  }

  /**
   * Runs a search in a worker and resolves with its page: the ids of the
   * hits and where the next page starts (exports page through whole result
   * sets this way; roster matching gathers candidates). Rejects as
   * {@linkcode SearchPool.run} does, except that with `admitted` (a later
   * search of a request already under way: an export's next page, a
   * roster's next row) the wait budget does not refuse it; only a full
   * queue, the deadline or the signal stop it.
   */
  page(job: SearchJob, watch: Watch = {}, admitted = false): Promise<SearchPage> {
    return this.#submit(job, watch, true, undefined, admitted) as Promise<SearchPage>;
  }

  /**
   * Renders records (by internal id, in that order) as export text — NDJSON
   * lines or CSV lines, UTF-8, deflated as a piece of a gzip stream when
   * `job.gzipLevel` is set — in a worker, whose bytes are transferred, not
   * copied: an export's pages are read, encoded and compressed on two
   * threads at once. Rejects as {@linkcode SearchPool.run} does, but not
   * for the wait budget: it is part of an export under way.
   */
  renderRecords(job: RecordsJob, watch: Watch = {}): Promise<BodyChunk> {
    return this.#submit(null, watch, false, job, true) as Promise<BodyChunk>;
  }

  #submit(
    job: SearchJob | null,
    watch: Watch,
    wantsPage: boolean,
    records?: RecordsJob,
    admitted = false,
  ): Promise<SearchBody | SearchPage | BodyChunk> {
    if (this.#closing) {
      return Promise.reject(
        new UnavailableError("The search workers are shutting down: try again", 1, "unavailable"),
      );
    }
    // Answers waiting in mailboxes first: under overload, requests keep coming while the
    // workers' messages wait behind them.
    this.#collect();
    const deadline = watch.deadline ?? Infinity;
    if (watch.signal?.aborted || clock() >= deadline) return Promise.reject(new DeadlineError());
    return new Promise<SearchBody | SearchPage | BodyChunk>((resolve, reject) => {
      const now = clock();
      const maxWait = this.#options.maxWaitMs ?? 0;
      // The request's arrival (the route's clock), so the serving thread's own delays count.
      const arrivedAt = Math.min(now, job?.startedAt ?? now);
      const task: Task = {
        id: this.#nextId++,
        job,
        deadline,
        signal: watch.signal,
        arrivedAt,
        queuedAt: now,
        startedAt: now,
        startBy: maxWait > 0 && !admitted ? arrivedAt + maxWait : Infinity,
        wantsPage,
        records,
        shape: job ? searchShape(job.query) : `records:${records?.format}`,
        estimatedWaitMs: 0,
        resolve,
        reject,
        onAbort: null,
      };
      const free = this.#slots.find((s) => s.ready && !s.task);
      if (free) {
        this.#dispatch(free, task);
        return;
      }
      this.#dropExpired();
      this.#refuseLate();
      if (this.#waiting() >= this.#options.queue) {
        this.#options.observer?.shed?.("queue_full");
        reject(
          new UnavailableError(
            `The server is busy: ${this.#slots.length} search(es) running and ${this.#waiting()} ` +
              `waiting, the most it takes; retry after ${RETRY_AFTER_SECONDS} s, with backoff`,
            RETRY_AFTER_SECONDS,
            "overloaded",
          ),
        );
        return;
      }
      task.estimatedWaitMs = this.#estimatedWait();
      // What it has waited already (the serving thread's delays) counts against the budget too.
      const wait = now - arrivedAt + task.estimatedWaitMs * this.#calibration.factor;
      if (maxWait > 0 && wait > maxWait && !admitted) {
        this.#options.observer?.shed?.("wait_budget");
        // Come back when the work ahead has drained to within the budget.
        const retry = Math.max(RETRY_AFTER_SECONDS, Math.ceil((wait - maxWait) / 1000));
        reject(
          new UnavailableError(
            `The server is busy: a search would wait about ${Math.round(wait)} ms for a worker, ` +
              `over the ${maxWait} ms budget; retry after ${retry} s, with backoff`,
            retry,
            "overloaded",
          ),
        );
        return;
      }
      this.#queue.push(task);
      if (task.signal) {
        task.onAbort = () => this.#abandon(task);
        task.signal.addEventListener("abort", task.onAbort, { once: true });
      }
      if (task.deadline !== Infinity) {
        task.timer = setTimeout(() => this.#abandon(task), Math.max(0, task.deadline - now));
      }
      // A worker without a search handed ahead takes it now.
      this.#pump();
    });
  }

  /**
   * Stops taking searches, lets the running and queued ones finish (each
   * ends by its deadline), then stops the workers.
   */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#busy()) await new Promise<void>((resolve) => this.#drained = resolve);
    for (const slot of this.#slots) {
      clearTimeout(slot.timer);
      if (slot.ready) slot.worker.postMessage({ type: "close" } satisfies ToWorker);
      else slot.worker.terminate();
      slot.ready = false;
    }
  }

  /** Searches waiting for a worker: queued, or handed to a busy worker ahead (and not given up on). */
  #waiting(): number {
    let n = this.#queue.length;
    for (const slot of this.#slots) for (const task of slot.ahead) if (!task.abandoned) n++;
    return n;
  }

  #busy(): boolean {
    return this.#queue.length > 0 || this.#slots.some((s) => s.task || s.ahead.length > 0);
  }

  /** Settles the searches whose answers wait in their workers' mailboxes. */
  #collect(): void {
    for (const slot of this.#slots) {
      const answer = slot.task ? slot.mailbox?.take() : null;
      if (answer && "id" in answer) this.#settle(slot, answer);
    }
  }

  /** Starts a worker in `slot`; resolves when it has opened the database. */
  #spawn(slot: Slot): Promise<void> {
    const worker = new Worker(this.#options.workerUrl ?? WORKER_URL, { type: "module" });
    slot.worker = worker;
    slot.ready = false;
    const mailbox = new ResultMailbox<FromWorker>(ResultMailbox.buffer());
    slot.mailbox = mailbox;
    slot.cancel = new Int32Array(new SharedArrayBuffer(4));
    return new Promise<void>((resolve, reject) => {
      let opening = true;
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.type === "ready") {
          opening = false;
          slot.ready = true;
          resolve();
          this.#pump();
        } else if (message.type === "columns") {
          this.#share(slot, message.columns);
        } else if (message.type === "wordSets") {
          this.#sharedWordSets += message.sets.length;
          for (const other of this.#slots) {
            if (other !== slot) other.worker.postMessage(message satisfies ToWorker);
          }
        } else if (message.type === "open-failed") {
          opening = false;
          worker.terminate();
          reject(new StoreOpenError(message.message));
        } else if (message.type === "mailbox") {
          // The answer may have been collected already, on a request's arrival.
          const answer = slot.worker === worker ? mailbox.take() : null;
          if (answer && "id" in answer) this.#settle(slot, answer);
        } else {
          this.#settle(slot, message);
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        if (slot.worker !== worker) return;
        if (opening) {
          opening = false;
          worker.terminate();
          reject(new Error(`A search worker failed to start: ${event.message}`));
          return;
        }
        this.#options.log?.error("search worker crashed; replacing it", { error: event.message });
        this.#fail(
          slot,
          new UnavailableError(
            "The search worker answering this request failed: try again",
            1,
            "worker-failed",
          ),
        );
      };
      worker.postMessage(
        {
          type: "open",
          path: this.#options.path,
          // The first worker to read a large column shares it (with the others and the serving thread).
          // ...and so does the worker that builds a common word's union, when there are others.
          storeOptions: {
            shareColumns: true,
            shareWordSets: this.#options.workers > 1,
            ...this.#options.storeOptions,
          },
          delayMs: this.#options.workerDelayMs ?? 0,
          delayStops: this.#options.workerDelayStops ?? true,
          idleReleaseMs: this.#options.idleReleaseMs ?? 0,
          pages: this.#options.render !== undefined,
          columns: this.#columns,
          warmColumns: this.#slots.indexOf(slot) === 0,
          mailbox: mailbox.shared,
          cancel: slot.cancel.buffer as SharedArrayBuffer,
        } satisfies ToWorker,
      );
    });
  }

  /**
   * The index columns the workers have read into shared memory so far, for
   * another index of the same file to adopt (the serving thread's).
   */
  get columns(): ColumnBytes {
    return { ...this.#columns };
  }

  /** Keeps columns a worker read into shared memory and hands them to every other worker. */
  #share(from: Slot, columns: ColumnBytes): void {
    this.#columns = { ...this.#columns, ...columns };
    this.#columnReads += Object.keys(columns).length;
    for (const slot of this.#slots) {
      if (slot !== from) slot.worker.postMessage({ type: "columns", columns } satisfies ToWorker);
    }
  }

  /**
   * Terminates `slot`'s worker, rejects its task with `error`, puts the
   * search handed ahead back at the head of the queue and starts a
   * replacement.
   */
  #fail(slot: Slot, error: unknown): void {
    const ahead = slot.ahead.filter((task) => !task.abandoned);
    slot.ahead = [];
    slot.early.clear();
    this.#queue.unshift(...ahead);
    const task = this.#finish(slot);
    this.#retiredCaches = addCacheCounters(this.#retiredCaches, slot.caches);
    slot.caches = {};
    slot.worker.terminate();
    slot.ready = false;
    this.#replaced++;
    task?.reject(error);
    this.#replace(slot);
    this.#pump();
  }

  #replace(slot: Slot): void {
    if (this.#closing && !this.#busy()) return;
    this.#spawn(slot).catch((error) => {
      this.#options.log?.error("search worker could not reopen the database; retrying", {
        path: this.#options.path,
        error: error instanceof Error ? error.message : String(error),
      });
      setTimeout(() => this.#replace(slot), this.#options.reopenDelayMs ?? 1000);
    });
  }

  /** Sends `task` to `slot`'s worker: to run now, or next when the worker runs one already. */
  #dispatch(slot: Slot, task: Task): void {
    if (slot.task) slot.ahead.push(task);
    else this.#begin(slot, task);
    if (task.signal && !task.onAbort) {
      task.onAbort = () => this.#abandon(task);
      task.signal.addEventListener("abort", task.onAbort, { once: true });
    }
    if (task.deadline !== Infinity && task.timer === undefined) {
      task.timer = setTimeout(() => this.#abandon(task), Math.max(0, task.deadline - clock()));
    }
    slot.worker.postMessage(
      {
        type: "search",
        id: task.id,
        job: task.job,
        records: task.records,
        deadline: task.deadline,
        startBy: task.startBy === Infinity ? undefined : task.startBy,
        page: task.wantsPage,
      } satisfies ToWorker,
    );
  }

  /**
   * The worker of `slot` runs `task` from now, as far as this thread knows
   * (the worker's answer tells when it really started).
   */
  #begin(slot: Slot, task: Task): void {
    slot.task = task;
    task.startedAt = clock();
    if (task.abandoned) {
      // Given up on while handed ahead: the worker is told to skip it (see `#abandon`).
      Atomics.store(slot.cancel, 0, task.id);
      Atomics.notify(slot.cancel, 0);
    }
  }

  /** A task leaves the pool: its deadline timer and abort listener go. */
  #release(task: Task): void {
    clearTimeout(task.timer);
    task.timer = undefined;
    if (task.onAbort) task.signal?.removeEventListener("abort", task.onAbort);
  }

  /**
   * Clears `slot`'s task (timer and abort listener) and returns it; the
   * search handed ahead, if any, is the worker's task from now.
   */
  #finish(slot: Slot): Task | null {
    const task = slot.task;
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.task = null;
    if (task) this.#release(task);
    const next = slot.ahead.shift();
    if (next) this.#begin(slot, next);
    return task;
  }

  #settle(slot: Slot, message: FromWorker & { id: number }): void {
    if (slot.ahead.some((task) => task.id === message.id)) {
      // The worker answered a search handed ahead into its mailbox, and this thread read it
      // there before the message with an earlier search's answer: kept until that comes.
      slot.early.set(message.id, message);
      return;
    }
    if (slot.task?.id !== message.id) return; // An answer to a search already abandoned.
    this.#settleTask(slot, message);
    for (
      let early = slot.early.get(slot.task?.id ?? -1);
      early;
      early = slot.early.get(slot.task?.id ?? -1)
    ) {
      slot.early.delete(early.id);
      this.#settleTask(slot, early);
    }
  }

  /** Ends `slot`'s task with the worker's answer `message`. */
  #settleTask(slot: Slot, message: FromWorker & { id: number }): void {
    const task = this.#finish(slot)!;
    if ("caches" in message && message.caches) slot.caches = message.caches;
    if (task.abandoned) {
      // Answered already (its service time counted then): the worker is free again.
      this.#pump();
      return;
    }
    const timing = message as Timing;
    const startedAt = timing.startedAt ?? task.startedAt;
    if (message.type === "overdue") {
      this.#refuseOverdue(task, startedAt);
      this.#pump();
      return;
    }
    this.#options.observer?.waited?.(startedAt - task.arrivedAt);
    this.#calibration.observe(task.estimatedWaitMs, startedAt - task.queuedAt);
    this.#served(task, timing.ms);
    if (message.type === "timeout") this.#options.observer?.timedOut?.("running");
    // The worker takes its next search first; the page is rendered here meanwhile.
    this.#pump();
    if (message.type === "chunk" && task.records) task.resolve(message.chunk);
    else if (message.type === "chunk") {
      task.reject(new Error("The search worker answered export text, not a search"));
    } else if (message.type === "result" && !task.wantsPage) task.resolve(message.body);
    else if (message.type === "result") {
      task.reject(new Error("The search worker answered a body, not a page"));
    } else if (message.type === "page" && task.wantsPage) task.resolve(message.page);
    else if (message.type === "page") {
      try {
        task.resolve(this.#options.render!(task.job!, message.page));
      } catch (error) {
        task.reject(error);
      }
    } else if (message.type === "timeout") task.reject(new DeadlineError());
    else if (message.type === "failed") task.reject(new Error(message.message));
  }

  /**
   * Counts a search's service time (`ms` as its worker measured it, else
   * since it started here) into the estimates of its shape and overall.
   */
  #served(task: Task, ms = clock() - task.startedAt): void {
    this.#times.add(task.shape, ms);
    this.#options.observer?.served?.(ms);
  }

  /** Tells the observer a task ended unanswered: its deadline, or its client gone. */
  #ended(task: Task, where: "queued" | "running"): void {
    const reason: unknown = task.signal?.aborted ? task.signal.reason : undefined;
    const clientGone = task.signal?.aborted && task.deadline > clock() &&
      !(reason instanceof DOMException && reason.name === "TimeoutError");
    if (clientGone) this.#options.observer?.abandoned?.(where);
    else this.#options.observer?.timedOut?.(where);
  }

  /** A task's deadline passed or its signal aborted: drop it from the queue, or stop its worker. */
  #abandon(task: Task): void {
    const queued = this.#queue.indexOf(task);
    if (queued >= 0) {
      this.#ended(task, "queued");
      this.#queue.splice(queued, 1);
      this.#release(task);
      task.reject(new DeadlineError());
      this.#checkDrained();
      return;
    }
    const ahead = this.#slots.find((s) => s.ahead.includes(task));
    if (ahead) {
      // Not started: answered now; the worker skips it when it comes to it. The cancel flag is set
      // now unless it still tells the running search to stop (then it is set when this one starts).
      if (task.abandoned) return;
      this.#ended(task, "queued");
      task.abandoned = true;
      this.#release(task);
      task.reject(new DeadlineError());
      if (!ahead.task?.abandoned) {
        Atomics.store(ahead.cancel, 0, task.id);
        Atomics.notify(ahead.cancel, 0);
      }
      return;
    }
    const slot = this.#slots.find((s) => s.task === task);
    if (!slot || task.abandoned) return;
    // Answered now; the worker is told to stop and keeps the slot until it does. Only a worker
    // that does not stop within the grace period is terminated (a new one reads the index again).
    this.#ended(task, "running");
    this.#served(task);
    task.abandoned = true;
    this.#release(task);
    task.reject(new DeadlineError());
    Atomics.store(slot.cancel, 0, task.id);
    Atomics.notify(slot.cancel, 0);
    clearTimeout(slot.timer);
    const graceMs = this.#options.stopGraceMs ?? STOP_GRACE_MS;
    slot.timer = setTimeout(() => {
      if (slot.task !== task) return;
      this.#options.log?.warn("search did not stop when abandoned; replacing its worker", {
        ms: task.job ? Math.round(clock() - task.job.startedAt) : undefined,
        grace_ms: graceMs,
      });
      this.#fail(slot, new DeadlineError());
    }, graceMs);
  }

  /** Rejects queued tasks whose deadline has passed. */
  #dropExpired(): void {
    const now = clock();
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      const task = this.#queue[i]!;
      if (task.deadline <= now) this.#abandon(task);
    }
  }

  /**
   * Gives queued tasks to workers, oldest first: to free workers, then
   * ahead to busy ones (up to `ahead` each); expired ones are dropped unrun.
   */
  #pump(): void {
    for (const slot of this.#slots) {
      if (!slot.ready || slot.task) continue;
      const task = this.#nextQueued();
      if (!task) break;
      this.#dispatch(slot, task);
    }
    // Before handing a search ahead: those the work ahead makes late are refused, not handed. Then
    // a level at a time across the workers: each one's first search ahead, then its second.
    this.#refuseLate();
    const depth = this.#options.ahead ?? AHEAD;
    for (let level = 0; level < depth && this.#queue.length > 0; level++) {
      for (const slot of this.#slots) {
        if (!slot.ready || !slot.task || slot.ahead.length > level) continue;
        const task = this.#nextQueued();
        if (!task) break;
        this.#dispatch(slot, task);
      }
    }
    this.#refuseLate();
    this.#checkDrained();
  }

  /** The oldest queued task that can still run; those past their deadline or budget are dropped. */
  #nextQueued(): Task | undefined {
    let task = this.#queue.shift();
    while (task && (task.deadline <= clock() || task.signal?.aborted || clock() > task.startBy)) {
      this.#release(task);
      if (clock() > task.startBy && !task.signal?.aborted && task.deadline > clock()) {
        this.#refuseOverdue(task, clock());
      } else {
        this.#ended(task, "queued");
        task.reject(new DeadlineError());
      }
      task = this.#queue.shift();
    }
    return task;
  }

  /**
   * Refuses the queued searches that can no longer start within the wait
   * budget: those whose start is expected after their `startBy`, the work
   * ahead of each reckoned at the mean service times of its shapes (no
   * deviation, no calibration: only searches that would be late on
   * average), what the running ones have left included. A slow spell or a
   * stall of the serving thread after they were admitted is then answered
   * with a `503` as soon as it shows, not with a wait past the budget.
   */
  #refuseLate(): void {
    if (this.#queue.length === 0 || !(this.#options.maxWaitMs! > 0)) return;
    const now = clock();
    let ready = 0, work = 0;
    for (const slot of this.#slots) {
      if (!slot.ready) continue;
      ready++;
      if (!slot.task) continue;
      const { ms } = this.#times.estimate(slot.task.shape, this.#options.maxWaitMs! / 4);
      work += Math.max(0, ms - (now - slot.task.startedAt));
      for (const task of slot.ahead) {
        work += this.#times.estimate(task.shape, this.#options.maxWaitMs! / 4).ms;
      }
    }
    if (ready === 0) return;
    for (let i = 0; i < this.#queue.length; i++) {
      const task = this.#queue[i]!;
      const startsAt = now + work / ready;
      if (startsAt > task.startBy) {
        this.#queue.splice(i--, 1);
        this.#release(task);
        this.#refuseOverdue(task, startsAt);
        continue;
      }
      work += this.#times.estimate(task.shape, this.#options.maxWaitMs! / 4).ms;
    }
  }

  /**
   * Refuses a queued search (unrun) that would start at `startsAt`, after
   * its `startBy`: a `503` `overloaded` with `Retry-After`. The wait it
   * would have had is told to the calibration, so that the searches
   * admitted next are reckoned longer.
   */
  #refuseOverdue(task: Task, startsAt: number): void {
    const now = clock();
    this.#calibration.observe(task.estimatedWaitMs, startsAt - task.queuedAt);
    this.#options.observer?.shed?.("overdue");
    const budget = this.#options.maxWaitMs ?? 0;
    const retry = Math.max(RETRY_AFTER_SECONDS, Math.ceil((startsAt - task.startBy) / 1000));
    task.reject(
      new UnavailableError(
        `The server is busy: this search waited ${Math.round(now - task.arrivedAt)} ms and ` +
          `could not start within the ${budget} ms budget (the searches ahead took longer than ` +
          `expected); retry after ${retry} s, with backoff`,
        retry,
        "overloaded",
      ),
    );
  }

  #checkDrained(): void {
    if (this.#drained && !this.#busy()) {
      const drained = this.#drained;
      this.#drained = null;
      drained();
    }
  }
}
