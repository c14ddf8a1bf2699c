/**
 * Compression: gzip and brotli as `Accept-Encoding` (with q-values) prefers,
 * for compressible bodies over the threshold, on every route through the
 * one wrapper; the decompressed bytes are the uncompressed answer.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";
import {
  addVary,
  isCompressible,
  negotiateEncoding,
  streamEncoding,
} from "../lib/http/compression.ts";
import type { Route } from "../lib/http/router.ts";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

const dir = await Deno.makeTempDir();
const store = openSearchableStore(await searchFixtureDatabase(dir));

function app(config: { compressionMinBytes?: number } = {}, routes?: Route[]) {
  return testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) }, config, routes });
}

function decode(bytes: Uint8Array, encoding: string | null): string {
  const plain = encoding === "br"
    ? brotliDecompressSync(bytes)
    : encoding === "gzip"
    ? gunzipSync(bytes)
    : bytes;
  return new TextDecoder().decode(plain);
}

const withoutTook = (body: string) => body.replace(/,"took_ms":[0-9.e-]+\}$/, "}");
const SEARCH = "/v1/providers/search?limit=100&facets=state,city,taxonomy";

Deno.test("[compression] Accept-Encoding negotiation honours q-values", () => {
  const cases: [string | null, string | null][] = [
    [null, null],
    ["", null],
    ["identity", null],
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br", "br"],
    ["gzip, br;q=0.5", "gzip"],
    ["br;q=0.2, gzip;q=0.8", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0, br;q=0", null],
    ["*", "br"],
    ["*;q=0", null],
    ["gzip;q=0.5, *;q=0.9", "br"],
    ["br;q=0, *", "gzip"],
    ["GZIP;Q=1", "gzip"],
    ["x-gzip", "gzip"],
    ["gzip;q=nonsense, br;q=0.1", "br"],
    ["deflate", null],
  ];
  for (const [header, expected] of cases) {
    assertEquals(negotiateEncoding(header), expected, header ?? "null");
  }
});

Deno.test("[compression] which media types are compressed", () => {
  for (
    const type of [
      "application/json; charset=utf-8",
      "application/x-ndjson",
      "text/csv",
      "text/html; charset=utf-8",
      "text/javascript",
      "text/css",
      "image/svg+xml",
      "application/problem+json",
      "application/fhir+json",
    ]
  ) {
    assert(isCompressible(type), type);
  }
  for (const type of [null, "image/png", "font/woff2", "application/octet-stream"]) {
    assert(!isCompressible(type), String(type));
  }
  const headers = new Headers();
  addVary(headers, "Accept-Encoding");
  addVary(headers, "accept-encoding");
  addVary(headers, "Accept");
  assertEquals(headers.get("vary"), "Accept-Encoding, Accept");
});

Deno.test("[compression] a search answer is sent as the client prefers, same bytes inside", async (t) => {
  const service = app();
  const plain = await service.request(SEARCH);
  assertEquals(plain.headers.get("content-encoding"), null);
  assertMatch(plain.headers.get("vary") ?? "", /Accept-Encoding/);
  const text = await plain.text();
  assert(text.length > 2000, "the fixture answer is over the threshold");
  for (
    const [accept, expected] of [
      ["gzip, deflate, br", "br"],
      ["gzip", "gzip"],
      ["br;q=0.1, gzip;q=0.9", "gzip"],
      ["identity", null],
      ["*;q=0", null],
    ] as const
  ) {
    await t.step(`Accept-Encoding: ${accept}`, async () => {
      const response = await service.request(SEARCH, { headers: { "Accept-Encoding": accept } });
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("content-encoding"), expected);
      assertMatch(response.headers.get("vary") ?? "", /Accept-Encoding/);
      assertEquals(response.headers.get("content-type"), "application/json; charset=utf-8");
      assert(response.headers.get("etag"), "the ETag survives compression");
      const bytes = await response.bytes();
      if (expected) assert(bytes.length < text.length / 2, `${expected} is smaller`);
      assertEquals(withoutTook(decode(bytes, expected)), withoutTook(text));
    });
  }
});

Deno.test("[compression] bodies under the threshold go out as they are, without Vary", async () => {
  const service = app({ compressionMinBytes: 1_000_000 });
  const response = await service.request(SEARCH, { headers: { "Accept-Encoding": "br, gzip" } });
  assertEquals(response.headers.get("content-encoding"), null);
  await response.body?.cancel();
  const health = await app().request("/health?full=1", { headers: { "Accept-Encoding": "gzip" } });
  assertEquals(health.headers.get("content-encoding"), null);
  assertEquals(health.headers.get("vary"), null);
  assertEquals(await health.text(), '{"status":"ok"}');
});

Deno.test("[compression] static assets: compressed, weak ETag, still revalidated", async () => {
  const service = app();
  const plain = await service.request("/static/app.js");
  const strong = plain.headers.get("etag")!;
  const text = await plain.text();
  assert(!strong.startsWith("W/"));
  for (let round = 0; round < 2; round++) {
    const response = await service.request("/static/app.js", {
      headers: { "Accept-Encoding": "gzip, br" },
    });
    assertEquals(response.headers.get("content-encoding"), "br");
    assertEquals(response.headers.get("etag"), `W/${strong}`);
    assertEquals(response.headers.get("content-type"), "text/javascript; charset=utf-8");
    assertEquals(decode(await response.bytes(), "br"), text);
    const again = await service.request("/static/app.js", {
      headers: { "Accept-Encoding": "gzip, br", "If-None-Match": `W/${strong}` },
    });
    assertEquals(again.status, 304);
    assertMatch(again.headers.get("vary") ?? "", /Accept-Encoding/);
    await again.body?.cancel();
  }
});

Deno.test("[compression] NDJSON and CSV from any route; images untouched", async () => {
  const rows = Array.from({ length: 500 }, (_, i) => `{"npi":"${1000000000 + i}","n":${i}}`);
  const csv = Array.from({ length: 500 }, (_, i) => `${1000000000 + i},SMITH,NY`).join("\n");
  const png = new Uint8Array(4096).fill(7);
  const route = (path: string, body: BodyInit, type: string): Route => ({
    path,
    methods: {
      GET: {
        // A streamed body: the wrapper has to read it.
        handler: () => new Response(body, { headers: { "Content-Type": type } }),
        operation: { operationId: path, summary: path, tags: [], responses: {} },
      },
    },
  });
  const service = app({}, [
    route("/rows", new Blob([rows.join("\n")]).stream(), "application/x-ndjson"),
    route("/rows.csv", csv, "text/csv; charset=utf-8"),
    route("/image", png, "image/png"),
  ]);
  const ndjson = await service.request("/rows", { headers: { "Accept-Encoding": "gzip" } });
  assertEquals(ndjson.headers.get("content-encoding"), "gzip");
  assertEquals(decode(await ndjson.bytes(), "gzip"), rows.join("\n"));
  const table = await service.request("/rows.csv", { headers: { "Accept-Encoding": "br" } });
  assertEquals(table.headers.get("content-encoding"), "br");
  assertEquals(decode(await table.bytes(), "br"), csv);
  const image = await service.request("/image", { headers: { "Accept-Encoding": "br" } });
  assertEquals(image.headers.get("content-encoding"), null);
  assertEquals((await image.bytes()).length, 4096);
});

Deno.test("[compression] a streamed body is compressed as it flows, never read whole", async () => {
  // A stream that stays open until the test says so: a wrapper reading it whole would never answer.
  let more!: ReadableStreamDefaultController<Uint8Array>;
  const line = new TextEncoder().encode(
    `${JSON.stringify({ npi: "1003000126", pad: "x".repeat(3000) })}\n`,
  );
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (more = c) });
  more.enqueue(line);
  const service = app({}, [{
    path: "/stream",
    methods: {
      GET: {
        handler: () => new Response(body, { headers: { "Content-Type": "application/x-ndjson" } }),
        operation: { operationId: "stream", summary: "stream", tags: [], responses: {} },
      },
    },
  }]);
  const response = await Promise.race([
    service.request("/stream", { headers: { "Accept-Encoding": "br, gzip" } }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("buffered")), 2000)),
  ]);
  assertEquals(response.headers.get("content-encoding"), "gzip", "gzip for streams when accepted");
  assertEquals(response.headers.get("vary"), "Accept-Encoding");
  more.enqueue(line);
  more.close();
  assertEquals(decode(await response.bytes(), "gzip"), new TextDecoder().decode(line).repeat(2));
  assertEquals(streamEncoding("br"), "br");
  assertEquals(streamEncoding("gzip;q=0, br"), "br");
  assertEquals(streamEncoding("identity"), null);
});

Deno.test("[compression] configuration is validated", async () => {
  const { loadConfig } = await import("../lib/config.ts");
  assertEquals(loadConfig({}).compressionMinBytes, 1024);
  assertEquals(loadConfig({ COMPRESSION_MIN_BYTES: "0" }).compressionMinBytes, 0);
  let message = "";
  try {
    loadConfig({ COMPRESSION_MIN_BYTES: "1kb" });
  } catch (error) {
    message = (error as Error).message;
  }
  assertMatch(message, /COMPRESSION_MIN_BYTES must be an integer/);
});

Deno.test("[compression] cleanup", async () => {
  store.close();
  await Deno.remove(dir, { recursive: true });
});
