/**
 * The service's Prometheus metrics (npm `prom-client`), served at
 * `GET /metrics`: requests by route and status, latency per route, the
 * search queue (depth, waits, service time, refusals, timeouts, abandoned
 * searches), cache hit counts and ratios (bodies on the serving thread;
 * posting lists, result sets, word sets, filters and records in the search
 * workers, reported with their answers), HTTP revalidations and
 * compression, the dataset served, and process memory.
 *
 * @module
 */
import client from "prom-client";
import type { Dataset } from "./dataset.ts";
import type { PoolObserver, ShedReason } from "../search/pool.ts";
import { addCacheCounters, type CacheCounters } from "../lru.ts";
import { readMemory } from "./process_memory.ts";

/** Seconds buckets of request latency: 1 ms to 10 s. */
export const LATENCY_BUCKETS: readonly number[] = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  1.5,
  2,
  2.5,
  5,
  10,
];

const METHODS = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

/** One registry's metrics as values (`Registry.getMetricsAsJSON`), to add up across threads. */
export type MetricSnapshot = Awaited<ReturnType<client.Registry["getMetricsAsJSON"]>>;

/** Everything `/metrics` reports, and the hooks that feed it. */
export class Metrics {
  /** The registry `/metrics` renders. */
  readonly registry: client.Registry = new client.Registry();
  /** The other serving threads' metrics (`SERVE_THREADS`), or null with one. */
  peers: (() => Promise<MetricSnapshot[]>) | null = null;
  readonly #requests: client.Counter<"route" | "method" | "status">;
  readonly #latency: client.Histogram<"route" | "status">;
  readonly #validations: client.Counter<"result">;
  readonly #encoded: client.Counter<"encoding">;
  readonly #bodyBytes: client.Counter<"stage">;
  readonly #queueWait: client.Histogram;
  readonly #service: client.Histogram;
  readonly #shed: client.Counter<"reason">;
  readonly #timeouts: client.Counter<"where">;
  readonly #abandoned: client.Counter<"where">;

  /**
   * @example
   * ```ts
   * const metrics = new Metrics(dataset);
   * const text = await metrics.text();
   * ```
   */
  constructor(dataset: Dataset) {
    const registers = [this.registry];
    this.#requests = new client.Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by route pattern, method and status",
      labelNames: ["route", "method", "status"],
      registers,
    });
    this.#latency = new client.Histogram({
      name: "http_request_duration_seconds",
      help: "Time to answer a request (to the response head), by route pattern and status",
      labelNames: ["route", "status"],
      buckets: [...LATENCY_BUCKETS],
      registers,
    });
    this.#validations = new client.Counter({
      name: "http_cache_validations_total",
      help: "Data requests by outcome: not_modified (If-None-Match matched: 304) or full",
      labelNames: ["result"],
      registers,
    });
    this.#encoded = new client.Counter({
      name: "http_responses_encoded_total",
      help: "Compressible answers by the coding sent (br, gzip, identity)",
      labelNames: ["encoding"],
      registers,
    });
    this.#bodyBytes = new client.Counter({
      name: "http_response_body_bytes_total",
      help: "Bytes of compressible answers before (uncompressed) and after (sent) compression",
      labelNames: ["stage"],
      registers,
    });
    this.#queueWait = new client.Histogram({
      name: "search_queue_wait_seconds",
      help: "Time a search waited for a search worker, from its request's arrival",
      buckets: [...LATENCY_BUCKETS],
      registers,
    });
    this.#service = new client.Histogram({
      name: "search_service_seconds",
      help: "Time a search worker spent on a search",
      buckets: [...LATENCY_BUCKETS],
      registers,
    });
    this.#shed = new client.Counter({
      name: "search_shed_total",
      help: "Searches refused with 503: queue_full (SEARCH_QUEUE) or wait_budget " +
        "(expected wait over SEARCH_MAX_WAIT_MS), at once; overdue (admitted, but could no " +
        "longer start within SEARCH_MAX_WAIT_MS), while queued, unrun",
      labelNames: ["reason"],
      registers,
    });
    this.#timeouts = new client.Counter({
      name: "search_timeouts_total",
      help: "Searches that passed REQUEST_TIMEOUT_MS, while queued or running",
      labelNames: ["where"],
      registers,
    });
    this.#abandoned = new client.Counter({
      name: "search_abandoned_total",
      help: "Searches whose client went away, while queued or running",
      labelNames: ["where"],
      registers,
    });
    for (const reason of ["queue_full", "wait_budget", "overdue"]) this.#shed.inc({ reason }, 0);
    for (const where of ["queued", "running"]) {
      this.#timeouts.inc({ where }, 0);
      this.#abandoned.inc({ where }, 0);
    }
    this.#pullGauges(dataset);
  }

  /** The pool hooks that feed the search metrics. */
  readonly poolObserver: PoolObserver = {
    waited: (ms) => this.#queueWait.observe(ms / 1000),
    served: (ms) => this.#service.observe(ms / 1000),
    shed: (reason: ShedReason) => this.#shed.inc({ reason }),
    timedOut: (where) => this.#timeouts.inc({ where }),
    abandoned: (where) => this.#abandoned.inc({ where }),
  };

  /** Counts one answered request (`route`: the route's pattern, or `unmatched`). */
  request(route: string, method: string, status: number, seconds: number): void {
    const code = String(status);
    this.#requests.inc({ route, method: METHODS.has(method) ? method : "other", status: code });
    this.#latency.observe({ route, status: code }, seconds);
  }

  /** Counts a data request answered 304 (`hit`) or in full (`miss`). */
  conditional(result: "hit" | "miss"): void {
    this.#validations.inc({ result: result === "hit" ? "not_modified" : "full" });
  }

  /** Counts one compressible answer and its bytes before and after. */
  encoded(encoding: string, bytesIn: number, bytesOut: number): void {
    this.#encoded.inc({ encoding });
    this.#bodyBytes.inc({ stage: "uncompressed" }, bytesIn);
    this.#bodyBytes.inc({ stage: "sent" }, bytesOut);
  }

  /**
   * The exposition text (Prometheus text format 0.0.4): with other serving
   * threads, their metrics added in (counters and histograms summed, each
   * gauge as its `aggregator` says).
   */
  async text(): Promise<string> {
    if (!this.peers) return this.registry.metrics();
    const [own, others] = await Promise.all([this.snapshot(), this.peers()]);
    return client.AggregatorRegistry.aggregate([own, ...others]).metrics();
  }

  /** This thread's metrics as values, for the thread that answers `/metrics`. */
  snapshot(): Promise<MetricSnapshot> {
    return this.registry.getMetricsAsJSON();
  }

  /** The media type of {@linkcode Metrics.text}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Gauges read when scraped: the dataset, the search pool, the caches, memory. */
  #pullGauges(dataset: Dataset): void {
    const registers = [this.registry];
    new client.Gauge({
      name: "dataset_ready",
      aggregator: "min",
      help: "1 when a dataset is loaded and searchable (what /ready answers 200 for), else 0",
      registers,
      collect() {
        this.set(dataset.searchable() ? 1 : 0);
      },
    });
    new client.Gauge({
      name: "dataset_info",
      aggregator: "first",
      help: "The dataset served (always 1): its version (in every ETag), source and build time",
      labelNames: ["version", "source", "built_at"],
      registers,
      collect() {
        this.reset();
        const state = dataset.state;
        if (state.kind !== "ready") return;
        const info = state.store.dataset();
        this.set(
          { version: dataset.version() ?? "", source: info.source, built_at: info.built_at },
          1,
        );
      },
    });
    new client.Gauge({
      name: "dataset_records",
      aggregator: "first",
      help: "Provider records served, by status (all, active, deactivated)",
      labelNames: ["status"],
      registers,
      collect() {
        this.reset();
        const state = dataset.state;
        if (state.kind !== "ready") return;
        const info = state.store.dataset();
        this.set({ status: "all" }, info.records);
        this.set({ status: "active" }, info.active);
        this.set({ status: "deactivated" }, info.deactivated);
      },
    });
    new client.Gauge({
      name: "search_queue_depth",
      help: "Searches waiting for a search worker",
      registers,
      collect() {
        this.set(dataset.pool()?.stats.queued ?? 0);
      },
    });
    new client.Gauge({
      name: "search_workers",
      help: "Search worker threads by state (busy, idle, starting)",
      labelNames: ["state"],
      registers,
      collect() {
        const stats = dataset.pool()?.stats;
        this.set({ state: "busy" }, stats?.busy ?? 0);
        this.set({ state: "idle" }, stats ? stats.ready - stats.busy : 0);
        this.set({ state: "starting" }, stats ? stats.workers - stats.ready : 0);
      },
    });
    new client.Gauge({
      name: "search_expected_wait_seconds",
      aggregator: "max",
      help: "What a search arriving now would wait for a worker (the admission estimate)",
      registers,
      collect() {
        this.set((dataset.pool()?.stats.expectedWaitMs ?? 0) / 1000);
      },
    });
    new client.Gauge({
      name: "search_wait_calibration",
      aggregator: "average",
      help:
        "What waits estimated from service times are multiplied by (99th percentile of actual / estimated waits)",
      registers,
      collect() {
        this.set(dataset.pool()?.stats.waitCalibration ?? 1);
      },
    });
    const caches = (): CacheCounters => {
      const state = dataset.state;
      if (state.kind !== "ready") return {};
      const store = state.store as { cacheCounters?: () => CacheCounters };
      const served = store.cacheCounters?.() ?? {};
      const pool = state.pool?.cacheCounters() ?? {};
      // With workers, the serving thread's store holds only the records cache.
      return addCacheCounters(served, pool);
    };
    new client.Counter({
      name: "cache_lookups_total",
      help: "Cache lookups by cache (bodies, postings, results, word_sets, filters, records) " +
        "and result (hit, miss), since the dataset was opened",
      labelNames: ["cache", "result"],
      registers,
      collect() {
        this.reset();
        for (const [cache, counts] of Object.entries(caches())) {
          this.inc({ cache, result: "hit" }, counts.hits);
          this.inc({ cache, result: "miss" }, counts.misses);
        }
      },
    });
    new client.Gauge({
      name: "cache_hit_ratio",
      aggregator: "average",
      help: "Hits over lookups of each cache since the dataset was opened (0 before any lookup; " +
        "the mean over the serving threads when there are several)",
      labelNames: ["cache"],
      registers,
      collect() {
        this.reset();
        for (const [cache, { hits, misses }] of Object.entries(caches())) {
          this.set({ cache }, hits + misses === 0 ? 0 : hits / (hits + misses));
        }
      },
    });
    new client.Gauge({
      name: "process_memory_bytes",
      aggregator: "first",
      help:
        "Memory of this process: rss; anonymous and file_mapped (from /proc/self/smaps_rollup, " +
        "Linux); heap_used, heap_total and external (V8, of the thread that answered)",
      labelNames: ["kind"],
      registers,
      collect() {
        this.reset();
        for (const [kind, bytes] of Object.entries(readMemory())) this.set({ kind }, bytes);
      },
    });
  }
}
