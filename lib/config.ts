/**
 * Service configuration, read from environment variables once at start-up.
 *
 * @module
 */

/** Everything the service can be told from its environment. */
export interface Config {
  /** `PORT`: TCP port to listen on. */
  port: number;
  /** `HOST`: address to bind. */
  host: string;
  /** `PROVIDERS_DB`: the SQLite database to serve (built with the demo data when missing). */
  databasePath: string;
  /** `REQUEST_TIMEOUT_MS`: longest time a request may take before a 503. */
  requestTimeoutMs: number;
  /**
   * `SEARCH_WORKERS`: searches that run at once, each in its own worker
   * thread; 0 runs them on the serving thread (no workers).
   */
  searchWorkers: number;
  /**
   * `SERVE_THREADS`: threads that each accept connections on the port (the
   * kernel spreads connections over them) and search on their own; with 1
   * (the default), one serving thread hands searches to `SEARCH_WORKERS`
   * workers.
   */
  serveThreads: number;
  /** `SEARCH_QUEUE`: most searches waiting for a worker; beyond, 503 `overloaded`. */
  searchQueue: number;
  /**
   * `SEARCH_MAX_WAIT_MS`: longest expected wait for a worker (searches queued
   * × recent service time ÷ workers) a search is admitted with; beyond, 503
   * `overloaded`. 0 turns the wait test off (only `SEARCH_QUEUE` sheds).
   */
  searchMaxWaitMs: number;
  /** `CACHE_MAX_AGE_SECONDS`: `max-age` of data answers (search, provider, dataset, specialties). */
  cacheMaxAgeSeconds: number;
  /** `CACHE_STALE_SECONDS`: `stale-while-revalidate` of data answers. */
  cacheStaleSeconds: number;
  /** `COMPRESSION_MIN_BYTES`: smallest body compressed (gzip or brotli, as the client accepts). */
  compressionMinBytes: number;
  /** `RATE_LIMIT_PER_MINUTE`: requests a minute per client; 0 turns limiting off. */
  rateLimitPerMinute: number;
  /** `TRUST_PROXY_HEADER`: header holding the client address behind a proxy (e.g. `X-Forwarded-For`); unset = use the socket address. */
  trustProxyHeader: string | null;
  /** `DEMO_RECORDS`: size of the demo dataset built on first start. */
  demoRecords: number;
  /** `DEMO_SEED`: seed of the demo dataset. */
  demoSeed: number;
  /**
   * `PROVIDERS_DB_URL`: where releases are published, as the URL (`http:`,
   * `https:`, `file:`) or path of a release manifest; null = serve
   * `PROVIDERS_DB` as it is.
   */
  releaseUrl: string | null;
  /** `PROVIDERS_DB_POLL_SECONDS`: how often to look for a new release at `PROVIDERS_DB_URL`; 0 = only on SIGHUP. */
  releasePollSeconds: number;
  /**
   * `NPPES_API_MAX_SKIP`: the largest `skip` the NPI Registry API route
   * (`/api/`) accepts; 1000 by default, as the real API. Raising it lets a
   * paging client walk a whole result set.
   */
  registryMaxSkip: number;
  /** `MATCH_MAX_ROWS`: most roster rows in one `POST /v1/match`. */
  matchMaxRows: number;
  /** `MATCH_MAX_BYTES`: most bytes of roster in one `POST /v1/match`. */
  matchMaxBytes: number;
  /** `STREAM_TIMEOUT_MS`: longest a streamed answer (export, match) may run. */
  streamTimeoutMs: number;
  /**
   * `IDLE_RELEASE_MS`: how long the server (each thread on its own) sits
   * without a request or search before it gives freed memory back; 0 = never.
   */
  idleReleaseMs: number;
  /**
   * `BUSY_TRIM_MS`: while requests come, how often (at most) the server
   * gives the memory glibc kept of what it freed back, off the serving
   * thread; 0 (the default) = never. Half of the lean-memory setting, with
   * V8's `--heap-growing-percent` (see `BusyTrim`).
   */
  busyTrimMs: number;
  /**
   * `PIN_DATA_FILES`: 1 locks the served database's files in memory (see
   * `PinnedFiles`), so that no search waits for a page read back from disk.
   */
  pinDataFiles: boolean;
  /**
   * `HOLD_RECORDS`: 1 (default) maps every page of the records parts into
   * each connection that reads them, where the parts fit in half the memory
   * available at start (see `recordsHeld`).
   */
  holdRecords: boolean;
}

/** Documentation of every variable, for the README and start-up errors. */
export const CONFIG_VARIABLES: readonly { name: string; default: string; meaning: string }[] = [
  { name: "PORT", default: "7860", meaning: "TCP port to listen on" },
  { name: "HOST", default: "0.0.0.0", meaning: "address to bind" },
  { name: "PROVIDERS_DB", default: "data/providers.db", meaning: "SQLite database to serve" },
  { name: "REQUEST_TIMEOUT_MS", default: "10000", meaning: "time limit of one request" },
  {
    name: "SEARCH_WORKERS",
    default: "CPU cores − 1 (at least 1)",
    meaning: "searches run at once, one worker thread each; 0 = on the serving thread",
  },
  {
    name: "SERVE_THREADS",
    default: "1",
    meaning: "threads that each accept connections and search; 1 = one thread and SEARCH_WORKERS",
  },
  { name: "SEARCH_QUEUE", default: "64", meaning: "searches waiting for a worker before 503" },
  {
    name: "SEARCH_MAX_WAIT_MS",
    default: "1000",
    meaning: "longest expected queue wait a search is admitted with, else 503; 0 = off",
  },
  { name: "CACHE_MAX_AGE_SECONDS", default: "300", meaning: "max-age of data answers" },
  {
    name: "CACHE_STALE_SECONDS",
    default: "3600",
    meaning: "stale-while-revalidate of data answers",
  },
  {
    name: "COMPRESSION_MIN_BYTES",
    default: "1024",
    meaning: "smallest body sent gzip- or brotli-compressed",
  },
  { name: "RATE_LIMIT_PER_MINUTE", default: "0 (off)", meaning: "requests a minute per client" },
  {
    name: "TRUST_PROXY_HEADER",
    default: "(unset)",
    meaning: "client-address header set by a trusted proxy",
  },
  {
    name: "DEMO_RECORDS",
    default: "100000",
    meaning: "providers in the demo built on first start",
  },
  { name: "DEMO_SEED", default: "20260810", meaning: "seed of the demo dataset" },
  {
    name: "PROVIDERS_DB_URL",
    default: "(unset)",
    meaning: "release manifest to fetch releases from (http(s) URL, file: URL or path)",
  },
  {
    name: "PROVIDERS_DB_POLL_SECONDS",
    default: "0 (SIGHUP only)",
    meaning: "seconds between looks for a new release at PROVIDERS_DB_URL",
  },
  {
    name: "NPPES_API_MAX_SKIP",
    default: "1000",
    meaning: "largest `skip` of the NPI Registry API route /api/ (1000 as the real API)",
  },
  { name: "MATCH_MAX_ROWS", default: "10000", meaning: "most roster rows a match request" },
  {
    name: "MATCH_MAX_BYTES",
    default: "10485760 (10 MB)",
    meaning: "most roster bytes a match request",
  },
  {
    name: "STREAM_TIMEOUT_MS",
    default: "600000 (10 min)",
    meaning: "time limit of a streamed answer (export, match)",
  },
  {
    name: "IDLE_RELEASE_MS",
    default: "5000",
    meaning: "idle time after which freed memory goes back to the system; 0 = never",
  },
  {
    name: "BUSY_TRIM_MS",
    default: "0 (off)",
    meaning: "while busy, least time between two returns of freed memory to the system; 0 = never",
  },
  {
    name: "PIN_DATA_FILES",
    default: "0",
    meaning: "1 = lock the database's files in memory (needs CAP_IPC_LOCK and the memory)",
  },
  {
    name: "HOLD_RECORDS",
    default: "1",
    meaning: "1 = map every page of the records where they fit in half the memory",
  },
];

/**
 * Checks a `PROVIDERS_DB_URL` value: an `http:`, `https:` or `file:` URL,
 * or a file path; returns a problem to report, or null.
 *
 * @example
 * ```ts
 * releaseUrlProblem("ftp://host/x"); // "PROVIDERS_DB_URL must be an http(s) or file: URL ..."
 * ```
 */
export function releaseUrlProblem(raw: string): string | null {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase();
  // A Windows drive letter ("C:\\releases") is a path, not a scheme.
  if (scheme === undefined || /^[A-Za-z]:[\\/]/.test(raw)) return null;
  if (scheme !== "http" && scheme !== "https" && scheme !== "file") {
    return `PROVIDERS_DB_URL must be an http(s) or file: URL or a file path, got '${raw}'`;
  }
  try {
    const url = new URL(raw);
    if (scheme !== "file" && !url.hostname) throw new TypeError("no host");
  } catch {
    return `PROVIDERS_DB_URL is not a valid URL: '${raw}'`;
  }
  return null;
}

/**
 * The default `SEARCH_WORKERS`: one core is left to the serving thread
 * (HTTP, validation, record lookups), the others search; at least 1.
 *
 * @example
 * ```ts
 * defaultSearchWorkers(2); // 1
 * ```
 */
export function defaultSearchWorkers(cores: number = navigator.hardwareConcurrency ?? 2): number {
  return Math.max(1, Math.min(16, Math.floor(cores) - 1));
}

/** What only one serving thread does, when set: each refuses `SERVE_THREADS` above 1. */
function serveThreadsConflicts(env: Record<string, string | undefined>): string[] {
  const reasons: string[] = [];
  for (const name of ["SEARCH_WORKERS", "SEARCH_QUEUE", "SEARCH_MAX_WAIT_MS"]) {
    if (env[name]?.trim()) reasons.push(`${name} (the search pool of one serving thread)`);
  }
  if (Number(env.RATE_LIMIT_PER_MINUTE?.trim() || 0) > 0) {
    reasons.push("RATE_LIMIT_PER_MINUTE (each thread would count a client on its own)");
  }
  if (env.PROVIDERS_DB_URL?.trim()) {
    reasons.push("PROVIDERS_DB_URL (a replica installs releases on one thread)");
  }
  return reasons.map((reason) =>
    `SERVE_THREADS above 1 cannot go with ${reason}: set SERVE_THREADS=1 or leave that unset`
  );
}

function integerVar(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
    return fallback;
  }
  return Number(raw);
}

/**
 * Reads the configuration from an environment; throws one `TypeError`
 * listing every invalid variable.
 *
 * @example
 * ```ts
 * loadConfig({ PORT: "8080" }).port; // 8080
 * ```
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const problems: string[] = [];
  const header = env.TRUST_PROXY_HEADER?.trim();
  if (header && !/^[A-Za-z0-9-]{1,64}$/.test(header)) {
    problems.push(`TRUST_PROXY_HEADER must be a header name, got '${header}'`);
  }
  const releaseUrl = env.PROVIDERS_DB_URL?.trim() || null;
  if (releaseUrl) {
    const problem = releaseUrlProblem(releaseUrl);
    if (problem) problems.push(problem);
  }
  const config: Config = {
    port: integerVar(env, "PORT", 7860, 0, 65535, problems),
    host: env.HOST?.trim() || "0.0.0.0",
    databasePath: env.PROVIDERS_DB?.trim() || "data/providers.db",
    requestTimeoutMs: integerVar(env, "REQUEST_TIMEOUT_MS", 10_000, 1, 600_000, problems),
    searchWorkers: integerVar(env, "SEARCH_WORKERS", defaultSearchWorkers(), 0, 64, problems),
    serveThreads: integerVar(env, "SERVE_THREADS", 1, 1, 64, problems),
    searchQueue: integerVar(env, "SEARCH_QUEUE", 64, 0, 100_000, problems),
    searchMaxWaitMs: integerVar(env, "SEARCH_MAX_WAIT_MS", 1000, 0, 600_000, problems),
    cacheMaxAgeSeconds: integerVar(env, "CACHE_MAX_AGE_SECONDS", 300, 0, 31_536_000, problems),
    cacheStaleSeconds: integerVar(env, "CACHE_STALE_SECONDS", 3600, 0, 31_536_000, problems),
    compressionMinBytes: integerVar(env, "COMPRESSION_MIN_BYTES", 1024, 0, 1_000_000_000, problems),
    rateLimitPerMinute: integerVar(env, "RATE_LIMIT_PER_MINUTE", 0, 0, 1_000_000, problems),
    trustProxyHeader: header || null,
    demoRecords: integerVar(env, "DEMO_RECORDS", 100_000, 1, 20_000_000, problems),
    demoSeed: integerVar(env, "DEMO_SEED", 20260810, 0, 2 ** 32 - 1, problems),
    releaseUrl,
    releasePollSeconds: integerVar(env, "PROVIDERS_DB_POLL_SECONDS", 0, 0, 7 * 24 * 3600, problems),
    registryMaxSkip: integerVar(env, "NPPES_API_MAX_SKIP", 1000, 0, 100_000_000, problems),
    matchMaxRows: integerVar(env, "MATCH_MAX_ROWS", 10_000, 1, 1_000_000, problems),
    matchMaxBytes: integerVar(env, "MATCH_MAX_BYTES", 10 * 1024 * 1024, 1024, 2 ** 31, problems),
    streamTimeoutMs: integerVar(env, "STREAM_TIMEOUT_MS", 600_000, 1000, 86_400_000, problems),
    idleReleaseMs: integerVar(env, "IDLE_RELEASE_MS", 5000, 0, 3_600_000, problems),
    busyTrimMs: integerVar(env, "BUSY_TRIM_MS", 0, 0, 3_600_000, problems),
    pinDataFiles: integerVar(env, "PIN_DATA_FILES", 0, 0, 1, problems) === 1,
    holdRecords: integerVar(env, "HOLD_RECORDS", 1, 0, 1, problems) === 1,
  };
  if (config.serveThreads > 1) problems.push(...serveThreadsConflicts(env));
  if (config.releasePollSeconds > 0 && !releaseUrl) {
    problems.push("PROVIDERS_DB_POLL_SECONDS needs PROVIDERS_DB_URL (where to look for releases)");
  }
  if (problems.length > 0) throw new TypeError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}
