/**
 * More serving threads (`SERVE_THREADS`): each a worker that builds the
 * same application, opens the database itself, searches on its own thread
 * and listens on the same port as the first thread (`reusePort`), so that
 * the kernel spreads connections over them and every core answers HTTP and
 * searches, with nothing handed from one thread to another on the way.
 * The first thread (`main.ts`) starts them once its own dataset is open,
 * forwards reloads and shutdown to them, and is the hub through which any
 * thread gathers the others' metrics for `/metrics`.
 *
 * Messages: the first thread sends `reload`, `close` and `metrics`
 * (a request, answered `metrics` with the same id); a serving thread sends
 * `failed` (when it cannot serve), `closed`, `metrics` answers and `gather`
 * (a request for every other thread's metrics, answered `gathered`); both
 * send `wordSets`, the word unions their engine built.
 *
 * @module
 */
import { flushLogs, type Logger } from "../log.ts";
import type { Metrics, MetricSnapshot } from "./metrics.ts";
import type { App } from "./app.ts";
import type { Config } from "../config.ts";
import type { Dataset } from "./dataset.ts";
import { listen, type Listening } from "./serve.ts";
import { reloadDataset } from "./startup.ts";
import type { SharedWordSet } from "../search/word_sets.ts";
import type { SearchableSqliteStore } from "../search/searcher.ts";

/** Messages the first thread sends a serving thread. */
export type ToServingThread =
  | { type: "reload" }
  | WordSetsMessage
  | { type: "close" }
  | { type: "metrics"; id: number }
  | { type: "gathered"; id: number; snapshots: MetricSnapshot[] };

/** Messages a serving thread sends the first thread. */
export type FromServingThread =
  | WordSetsMessage
  | { type: "failed"; message: string }
  | { type: "closed" }
  | { type: "metrics"; id: number; snapshot: MetricSnapshot }
  | { type: "gather"; id: number };

/** Word unions a thread built (in shared memory) over the release `version`, for the others. */
export interface WordSetsMessage {
  type: "wordSets";
  version: string;
  sets: SharedWordSet[];
}

/** How often a thread hands the word unions it built to the others (ms). */
export const WORD_SETS_EVERY_MS = 100;

/**
 * The word unions the store of `dataset` built since the last call, as a
 * message for the other threads; null when there are none.
 */
function freshWordSets(dataset: Dataset): WordSetsMessage | null {
  const state = dataset.state;
  const version = dataset.version();
  if (state.kind !== "ready" || version === null || !isSharing(state.store)) return null;
  const sets = state.store.takeWordSets();
  return sets.length > 0 ? { type: "wordSets", version, sets } : null;
}

/** Keeps word unions another thread built, when they are of the release this thread serves. */
function adoptWordSets(dataset: Dataset, message: WordSetsMessage): void {
  const state = dataset.state;
  if (state.kind !== "ready" || dataset.version() !== message.version) return;
  if (isSharing(state.store)) state.store.adoptWordSets(message.sets);
}

function isSharing(
  store: object,
): store is Pick<SearchableSqliteStore, "takeWordSets" | "adoptWordSets"> {
  return "takeWordSets" in store && "adoptWordSets" in store;
}

/** The name of serving thread `n` is this and `n`. */
const THREAD_NAME = "serve-";

/** This thread's serving thread number: 0 for the first thread (or any other than a serving thread's). */
export function servingThreadNumber(): number {
  const scope = globalThis as { WorkerGlobalScope?: unknown; name?: unknown };
  if (scope.WorkerGlobalScope === undefined || typeof scope.name !== "string") return 0;
  const match = /^serve-(\d+)$/.exec(scope.name);
  return match ? Number(match[1]) : 0;
}

/** How long a thread's metrics are waited for before `/metrics` answers without them (ms). */
export const METRICS_WAIT_MS = 2000;

/**
 * Requests sent to another thread by id, each waiting for its answer: an
 * answer not come within its time resolves to the fallback (and, late,
 * is dropped).
 */
class Replies<T> {
  readonly #waiting = new Map<number, (value: T) => void>();
  #nextId = 1;

  /** Sends a request with a new id; resolves with its answer, or `fallback` after `ms`. */
  ask(send: (id: number) => void, ms: number, fallback: T): Promise<T> {
    return new Promise<T>((resolve) => {
      const id = this.#nextId++;
      const timer = setTimeout(() => this.answer(id, fallback), ms);
      this.#waiting.set(id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      send(id);
    });
  }

  /** Settles request `id` with `value` (nothing when it is no longer waited for). */
  answer(id: number, value: T): void {
    const settle = this.#waiting.get(id);
    this.#waiting.delete(id);
    settle?.(value);
  }
}

interface Thread {
  worker: Worker;
  number: number;
  closed: PromiseWithResolvers<void>;
}

/**
 * Serving threads started by the first one.
 *
 * @example
 * ```ts
 * const entry = new URL(Deno.mainModule);
 * const threads = ServingThreads.start(1, entry, { metrics, dataset }, log);
 * threads.reload();
 * await threads.close();
 * ```
 */
export class ServingThreads {
  readonly #threads: Thread[] = [];
  readonly #metrics: Metrics;
  readonly #log: Logger;
  readonly #sharing: ReturnType<typeof setInterval>;
  /** Metrics requests sent to threads, each waiting for its answer. */
  readonly #asked = new Replies<MetricSnapshot | null>();

  private constructor(
    count: number,
    entry: URL,
    service: { metrics: Metrics; dataset: Dataset },
    log: Logger,
  ) {
    const { metrics, dataset } = service;
    this.#metrics = metrics;
    this.#log = log;
    for (let number = 1; number <= count; number++) {
      const worker = new Worker(entry.href, { type: "module", name: `${THREAD_NAME}${number}` });
      const thread: Thread = { worker, number, closed: Promise.withResolvers() };
      worker.onmessage = (event: MessageEvent<FromServingThread>) => {
        const message = event.data;
        if (message.type === "failed") {
          log.error("serving thread failed to start", { thread: number, error: message.message });
        } else if (message.type === "closed") thread.closed.resolve();
        else if (message.type === "metrics") this.#asked.answer(message.id, message.snapshot);
        else if (message.type === "gather") void this.#answerGather(thread, message.id);
        else if (message.type === "wordSets") {
          adoptWordSets(dataset, message);
          this.#post(message, thread);
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        log.error("serving thread crashed", { thread: number, error: event.message });
        this.#remove(thread);
      };
      this.#threads.push(thread);
    }
    metrics.peers = () => this.snapshots();
    this.#sharing = setInterval(() => {
      const fresh = freshWordSets(dataset);
      if (fresh) this.#post(fresh);
    }, WORD_SETS_EVERY_MS);
    Deno.unrefTimer(this.#sharing);
  }

  /** Sends `message` to every thread but `except`. */
  #post(message: ToServingThread, except?: Thread): void {
    for (const thread of this.#threads) if (thread !== except) thread.worker.postMessage(message);
  }

  /**
   * Starts `count` serving threads beside this one, each running `entry`
   * (the service's main module, which calls {@linkcode serveAsThread} when
   * {@linkcode servingThreadNumber} is not 0); `service.metrics` (this
   * thread's) then adds theirs in, and the word unions each thread's search
   * engine builds are handed to the others (`service.dataset`'s included).
   */
  static start(
    count: number,
    entry: URL,
    service: { metrics: Metrics; dataset: Dataset },
    log: Logger,
  ): ServingThreads {
    return new ServingThreads(count, entry, service, log);
  }

  /** Tells every thread to open the database again (`SIGHUP`). */
  reload(): void {
    for (const { worker } of this.#threads) {
      worker.postMessage({ type: "reload" } satisfies ToServingThread);
    }
  }

  /**
   * Every thread's metrics but `except`'s, each waited for at most
   * {@linkcode METRICS_WAIT_MS} (one that does not answer is left out).
   */
  snapshots(except?: Thread): Promise<MetricSnapshot[]> {
    const asks = this.#threads.filter((t) => t !== except).map((thread) =>
      this.#asked.ask(
        (id) => thread.worker.postMessage({ type: "metrics", id } satisfies ToServingThread),
        METRICS_WAIT_MS,
        null,
      )
    );
    return Promise.all(asks).then((all) => all.filter((s): s is MetricSnapshot => s !== null));
  }

  /** Answers a thread's `gather`: this thread's metrics and every other thread's. */
  async #answerGather(asker: Thread, id: number): Promise<void> {
    const [own, others] = await Promise.all([this.#metrics.snapshot(), this.snapshots(asker)]);
    asker.worker.postMessage(
      { type: "gathered", id, snapshots: [own, ...others] } satisfies ToServingThread,
    );
  }

  /**
   * Stops every thread: each stops accepting, finishes its requests, closes
   * its database and ends; one that takes longer than `graceMs` is
   * terminated.
   */
  async close(graceMs = 30_000): Promise<void> {
    const threads = [...this.#threads];
    for (const { worker } of threads) {
      worker.postMessage({ type: "close" } satisfies ToServingThread);
    }
    await Promise.all(threads.map(async (thread) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => timer = setTimeout(resolve, graceMs));
      await Promise.race([thread.closed.promise, late]);
      clearTimeout(timer);
      thread.worker.terminate();
      this.#remove(thread);
    }));
    this.#metrics.peers = null;
  }

  #remove(thread: Thread): void {
    const at = this.#threads.indexOf(thread);
    if (at >= 0) this.#threads.splice(at, 1);
    this.#log.info("serving thread stopped", { thread: thread.number });
  }
}

/** What a serving thread serves: the application as the main module builds it. */
export interface ThreadService {
  app: App;
  config: Config;
  log: Logger;
  dataset: Dataset;
  metrics: Metrics;
}

/**
 * How every serving thread opens the database when there are several: it
 * searches on its own thread (no search workers), and only the first thread
 * pins the files in memory (`PIN_DATA_FILES`) and trims glibc's heaps while
 * busy (`BUSY_TRIM_MS`: one trim serves the whole process). Each holds the
 * records parts (`HOLD_RECORDS`) in its own connections' mappings: the
 * pages are shared (their page tables are not).
 */
export function threadConfig(config: Config, first: boolean): Config {
  return {
    ...config,
    searchWorkers: 0,
    pinDataFiles: first && config.pinDataFiles,
    busyTrimMs: first ? config.busyTrimMs : 0,
  };
}

/**
 * Runs this worker as serving thread `number`: opens the database, listens
 * on the shared port once it can search, and answers the first thread's
 * messages (reload, close, metrics, word unions) until told to close.
 * Resolves when it listens, or has reported that it could not.
 */
export async function serveAsThread(service: ThreadService, number: number): Promise<void> {
  const { app, log, dataset, metrics } = service;
  const config = threadConfig(service.config, false);
  const scope = self as unknown as {
    onmessage: ((event: MessageEvent<ToServingThread>) => void) | null;
    postMessage(message: FromServingThread): void;
    close(): void;
  };
  const gathering = new Replies<MetricSnapshot[]>();
  metrics.peers = () =>
    gathering.ask((id) => scope.postMessage({ type: "gather", id }), 2 * METRICS_WAIT_MS, []);
  let listening: Listening | null = null;
  let reloading = Promise.resolve();
  const sharing = setInterval(() => {
    const fresh = freshWordSets(dataset);
    if (fresh) scope.postMessage(fresh);
  }, WORD_SETS_EVERY_MS);
  const close = async () => {
    clearInterval(sharing);
    await reloading;
    if (listening) {
      listening.server.shutdown();
      await listening.server.finished;
      listening.idle.stop();
    }
    await dataset.close();
    flushLogs();
    scope.postMessage({ type: "closed" });
    scope.close();
  };
  scope.onmessage = (event) => {
    const message = event.data;
    if (message.type === "metrics") {
      void metrics.snapshot().then((snapshot) =>
        scope.postMessage({ type: "metrics", id: message.id, snapshot })
      );
    } else if (message.type === "gathered") gathering.answer(message.id, message.snapshots);
    else if (message.type === "wordSets") adoptWordSets(dataset, message);
    else if (message.type === "reload") {
      reloading = reloading.then(() => reloadDataset(config, log, dataset));
    } else if (message.type === "close") void close();
  };
  reloading = reloadDataset(config, log, dataset, undefined, "dataset open");
  await reloading;
  if (!dataset.searchable()) {
    scope.postMessage({ type: "failed", message: `thread ${number} could not open the database` });
    return;
  }
  try {
    listening = listen(app, config, log, { reusePort: true, thread: number });
  } catch (error) {
    scope.postMessage({
      type: "failed",
      message: error instanceof Error ? error.message : String(error),
    });
  }
}
