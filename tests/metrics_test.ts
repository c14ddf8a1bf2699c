/**
 * `GET /metrics`: the Prometheus text format, read back by a real parser
 * (npm `parse-prometheus-text-format`) and by a strict line grammar here;
 * the metric families the operations guide names; counts that follow the
 * requests made; cache counters reported by search workers.
 */
import { assert, assertEquals, assertGreater, assertMatch } from "@std/assert";
import parsePrometheus from "parse-prometheus-text-format";
import { testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SearchPool } from "../lib/search/pool.ts";
import { renderSearchBody } from "../lib/search/response.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";
import { Metrics } from "../lib/service/metrics.ts";
import { parseSmapsRollup, readMemory } from "../lib/service/process_memory.ts";

const dir = await Deno.makeTempDir();
const path = await searchFixtureDatabase(dir);

/** `value`, failing the test with `message` when it is missing. */
function must<T>(value: T | null | undefined, message: string): T {
  assert(value !== null && value !== undefined, message);
  return value as T;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A strict reader of the text format (0.0.4): every line is a `# HELP`, a
 * `# TYPE`, a sample of a family declared before it, or empty; label values
 * are quoted with `\\`, `\"` and `\n` escapes; values are floats.
 */
function strictParse(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  const sampleLine = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
  const labelPair = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)/;
  text.split("\n").forEach((line, i) => {
    const where = `line ${i + 1}: ${line}`;
    if (line === "") return;
    if (line.startsWith("# HELP ")) {
      assertMatch(line, new RegExp(`^# HELP ${NAME} .+$`), where);
      return;
    }
    if (line.startsWith("# TYPE ")) {
      const match = must(
        new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line),
        where,
      );
      assert(!types.has(match[1]!), `TYPE given twice: ${where}`);
      types.set(match[1]!, match[2]!);
      return;
    }
    assert(!line.startsWith("#"), `unknown comment: ${where}`);
    const match = must(sampleLine.exec(line), where);
    const [, name, rawLabels = "", rawValue] = match;
    const labels: Record<string, string> = {};
    let rest = rawLabels;
    while (rest.length > 0) {
      const pair = must(labelPair.exec(rest), `bad labels: ${where}`);
      labels[pair[1]!] = pair[2]!;
      rest = rest.slice(pair[0].length);
    }
    const value = rawValue === "+Inf"
      ? Infinity
      : rawValue === "-Inf"
      ? -Infinity
      : Number(rawValue);
    assert(rawValue === "NaN" || !Number.isNaN(value), `bad value: ${where}`);
    const family = name!.replace(/_(bucket|sum|count)$/, "");
    assert(types.has(name!) || types.has(family), `sample before its TYPE: ${where}`);
    samples.push({ name: name!, labels, value });
  });
  return { types, samples };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = must(
    samples.find((s) =>
      s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)
    ),
    `no sample ${name} ${JSON.stringify(labels)}`,
  );
  return found.value;
}

/** Families the operations guide (docs/operations.md) documents. */
const FAMILIES: Record<string, string> = {
  http_requests_total: "counter",
  http_request_duration_seconds: "histogram",
  http_cache_validations_total: "counter",
  http_responses_encoded_total: "counter",
  http_response_body_bytes_total: "counter",
  search_queue_depth: "gauge",
  search_workers: "gauge",
  search_expected_wait_seconds: "gauge",
  search_wait_calibration: "gauge",
  search_queue_wait_seconds: "histogram",
  search_service_seconds: "histogram",
  search_shed_total: "counter",
  search_timeouts_total: "counter",
  search_abandoned_total: "counter",
  cache_lookups_total: "counter",
  cache_hit_ratio: "gauge",
  dataset_ready: "gauge",
  dataset_info: "gauge",
  dataset_records: "gauge",
  process_memory_bytes: "gauge",
};

async function scrape(app: ReturnType<typeof testApp>): Promise<string> {
  const response = await app.request("/metrics");
  assertEquals(response.status, 200);
  assertMatch(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  assertEquals(response.headers.get("cache-control"), "no-store");
  return await response.text();
}

Deno.test("[metrics] /metrics is valid text format with every documented family", async () => {
  const store = openSearchableStore(path);
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  try {
    for (const url of ["/v1/providers/search?q=smith", "/v1/providers/search?limit=0", "/nope"]) {
      await (await app.request(url)).body?.cancel();
    }
    const text = await scrape(app);
    const { types, samples } = strictParse(text);
    for (const [name, type] of Object.entries(FAMILIES)) assertEquals(types.get(name), type, name);

    // The real parser reads it all, and agrees on the families.
    const families = parsePrometheus(text) as { name: string; type: string; metrics: unknown[] }[];
    for (const [name, type] of Object.entries(FAMILIES)) {
      const family = must(families.find((f) => f.name === name), name);
      assertEquals(family.type, type.toUpperCase(), name);
    }

    // Requests by route pattern and status; unknown paths are one label, not one each.
    assertEquals(
      value(samples, "http_requests_total", {
        route: "/v1/providers/search",
        method: "GET",
        status: "200",
      }),
      1,
    );
    assertEquals(
      value(samples, "http_requests_total", { route: "/v1/providers/search", status: "400" }),
      1,
    );
    assertEquals(value(samples, "http_requests_total", { route: "unmatched", status: "404" }), 1);
    for (const status of ["200", "400"]) {
      assertEquals(
        value(samples, "http_request_duration_seconds_count", {
          route: "/v1/providers/search",
          status,
        }),
        1,
      );
    }
    // Histogram buckets are cumulative and end at the count.
    const buckets = samples.filter((s) =>
      s.name === "http_request_duration_seconds_bucket" &&
      s.labels.route === "/v1/providers/search" && s.labels.status === "200"
    );
    const le = (sample: Sample) =>
      sample.labels.le === "+Inf" ? Infinity : Number(sample.labels.le);
    for (let i = 1; i < buckets.length; i++) {
      assert(le(buckets[i]!) > le(buckets[i - 1]!));
      assert(buckets[i]!.value >= buckets[i - 1]!.value);
    }
    assertEquals(buckets.at(-1)!.labels.le, "+Inf");
    assertEquals(buckets.at(-1)!.value, 1);

    // The dataset: ready, its version and counts.
    assertEquals(value(samples, "dataset_ready"), 1);
    const info = store.dataset();
    assertEquals(value(samples, "dataset_records", { status: "all" }), info.records);
    assertEquals(value(samples, "dataset_records", { status: "active" }), info.active);
    const version = new Dataset({ kind: "ready", store }).version()!;
    assertEquals(value(samples, "dataset_info", { version, source: info.source }), 1);
    // In-process searching: the store's own caches are counted.
    assertGreater(value(samples, "cache_lookups_total", { cache: "postings", result: "miss" }), 0);
    assertGreater(value(samples, "process_memory_bytes", { kind: "rss" }), 0);
    assertGreater(value(samples, "process_memory_bytes", { kind: "heap_used" }), 0);
  } finally {
    store.close();
  }
});

Deno.test("[metrics] revalidations, codings and the health fast lane are counted", async () => {
  const store = openSearchableStore(path);
  const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
  try {
    const first = await app.request("/v1/providers/search?limit=100", {
      headers: { "Accept-Encoding": "gzip" },
    });
    await first.body?.cancel();
    const again = await app.request("/v1/providers/search?limit=100", {
      headers: { "If-None-Match": first.headers.get("etag")! },
    });
    await again.body?.cancel();
    await (await app.request("/health")).body?.cancel();
    const { samples } = strictParse(await scrape(app));
    assertEquals(value(samples, "http_cache_validations_total", { result: "not_modified" }), 1);
    assertEquals(value(samples, "http_cache_validations_total", { result: "full" }), 1);
    assertEquals(value(samples, "http_responses_encoded_total", { encoding: "gzip" }), 1);
    assert(
      value(samples, "http_response_body_bytes_total", { stage: "sent" }) <
        value(samples, "http_response_body_bytes_total", { stage: "uncompressed" }),
    );
    assertEquals(value(samples, "http_requests_total", { route: "/health", status: "200" }), 1);
    assertEquals(
      value(samples, "http_requests_total", { route: "/v1/providers/search", status: "304" }),
      1,
    );
  } finally {
    store.close();
  }
});

Deno.test("[metrics] search workers report their cache counters and the queue", async () => {
  const store = openSearchableStore(path, { lazyIndex: true });
  const dataset = new Dataset();
  const metrics = new Metrics(dataset);
  const pool = await SearchPool.start({
    path,
    workers: 1,
    queue: 8,
    observer: metrics.poolObserver,
    render: (job, page) => renderSearchBody(store, job, page),
  });
  dataset.ready(store, pool);
  const app = testApp({ deps: { dataset, metrics } });
  try {
    for (const q of ["smith", "smith", "jones"]) {
      await (await app.request(`/v1/providers/search?q=${q}`)).body?.cancel();
    }
    const { samples } = strictParse(await scrape(app));
    // The second "smith" came from the body cache on the serving thread.
    assertEquals(value(samples, "cache_lookups_total", { cache: "bodies", result: "hit" }), 1);
    assertEquals(value(samples, "cache_lookups_total", { cache: "bodies", result: "miss" }), 2);
    assertEquals(value(samples, "cache_hit_ratio", { cache: "bodies" }), 1 / 3);
    // Posting lists live in the worker: its counters came back with its answers.
    assertGreater(value(samples, "cache_lookups_total", { cache: "postings", result: "miss" }), 0);
    assertEquals(value(samples, "search_service_seconds_count"), 2);
    assertEquals(value(samples, "search_queue_wait_seconds_count"), 2);
    assertEquals(value(samples, "search_queue_depth"), 0);
    assertEquals(value(samples, "search_workers", { state: "idle" }), 1);
    assertEquals(value(samples, "search_shed_total", { reason: "wait_budget" }), 0);
    // Every reason is exposed from the start, at 0.
    assertEquals(value(samples, "search_shed_total", { reason: "overdue" }), 0);
    assertEquals(value(samples, "search_shed_total", { reason: "queue_full" }), 0);
  } finally {
    await dataset.close();
  }
});

Deno.test("[metrics] memory: smaps_rollup is parsed; anonymous and mapped where Linux has them", () => {
  assertEquals(parseSmapsRollup("Rss:  2048 kB\nAnonymous:  1024 kB\nbad line\n"), {
    Rss: 2097152,
    Anonymous: 1048576,
  });
  const memory = readMemory();
  assertGreater(memory.rss!, 0);
  // Deno lets a process read /proc/self only with --allow-all; without, the V8 figures alone.
  let readable = false;
  try {
    Deno.readTextFileSync("/proc/self/smaps_rollup");
    readable = true;
  } catch { /* not Linux, or not --allow-all */ }
  assertEquals(memory.anonymous !== undefined, readable);
  if (readable) {
    assertGreater(memory.anonymous!, 0);
    assertEquals(memory.rss, memory.anonymous! + memory.file_mapped!);
  }
});

Deno.test("[metrics] cleanup", async () => {
  await Deno.remove(dir, { recursive: true });
});
