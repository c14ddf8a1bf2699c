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
  /** `SEARCH_QUEUE`: most searches waiting for a worker; beyond, 503 `overloaded`. */
  searchQueue: number;
  /** `RATE_LIMIT_PER_MINUTE`: requests a minute per client; 0 turns limiting off. */
  rateLimitPerMinute: number;
  /** `TRUST_PROXY_HEADER`: header holding the client address behind a proxy (e.g. `X-Forwarded-For`); unset = use the socket address. */
  trustProxyHeader: string | null;
  /** `DEMO_RECORDS`: size of the demo dataset built on first start. */
  demoRecords: number;
  /** `DEMO_SEED`: seed of the demo dataset. */
  demoSeed: number;
  /** `MATCH_MAX_ROWS`: most roster rows in one `POST /v1/match`. */
  matchMaxRows: number;
  /** `MATCH_MAX_BYTES`: most bytes of roster in one `POST /v1/match`. */
  matchMaxBytes: number;
  /** `STREAM_TIMEOUT_MS`: longest a streamed answer (export, match) may run. */
  streamTimeoutMs: number;
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
  { name: "SEARCH_QUEUE", default: "64", meaning: "searches waiting for a worker before 503" },
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
];

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
  const config: Config = {
    port: integerVar(env, "PORT", 7860, 0, 65535, problems),
    host: env.HOST?.trim() || "0.0.0.0",
    databasePath: env.PROVIDERS_DB?.trim() || "data/providers.db",
    requestTimeoutMs: integerVar(env, "REQUEST_TIMEOUT_MS", 10_000, 1, 600_000, problems),
    searchWorkers: integerVar(env, "SEARCH_WORKERS", defaultSearchWorkers(), 0, 64, problems),
    searchQueue: integerVar(env, "SEARCH_QUEUE", 64, 0, 100_000, problems),
    rateLimitPerMinute: integerVar(env, "RATE_LIMIT_PER_MINUTE", 0, 0, 1_000_000, problems),
    trustProxyHeader: header || null,
    demoRecords: integerVar(env, "DEMO_RECORDS", 100_000, 1, 20_000_000, problems),
    demoSeed: integerVar(env, "DEMO_SEED", 20260810, 0, 2 ** 32 - 1, problems),
    matchMaxRows: integerVar(env, "MATCH_MAX_ROWS", 10_000, 1, 1_000_000, problems),
    matchMaxBytes: integerVar(env, "MATCH_MAX_BYTES", 10 * 1024 * 1024, 1024, 2 ** 31, problems),
    streamTimeoutMs: integerVar(env, "STREAM_TIMEOUT_MS", 600_000, 1000, 86_400_000, problems),
  };
  if (problems.length > 0) throw new TypeError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}
