/**
 * Compression speed: Deno's `CompressionStream` against `node:zlib`'s
 * synchronous codings, on a real search answer (about 75 KB: 60 results
 * with facets) from a database, to choose what the compression wrapper
 * uses. Also says whether `CompressionStream` takes `"brotli"` and `"br"`.
 *
 *     deno run -A bench/compression.ts --db data/small.db
 *
 * @module
 */
import { parseArgs } from "@std/cli/parse-args";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { createApp } from "../lib/service/app.ts";
import { loadConfig } from "../lib/config.ts";
import { createLogger } from "../lib/log.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { Metrics } from "../lib/service/metrics.ts";
import { createRoutes } from "../routes/mod.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";

const args = parseArgs(Deno.args, { string: ["db", "rounds"] });
const store = openSearchableStore(args.db ?? "data/providers.db");
const dataset = new Dataset({ kind: "ready", store });
const metrics = new Metrics(dataset);
const app = createApp(
  { config: loadConfig({ SEARCH_WORKERS: "0" }), log: createLogger({ write() {} }), metrics },
  createRoutes({ dataset, metrics }),
);
const response = await app.handler(
  new Request("http://bench/v1/providers/search?q=smith&limit=60&facets=state,city,taxonomy"),
);
const body = await response.bytes();
const rounds = Number(args.rounds ?? 200);

function supports(format: string): boolean {
  try {
    new CompressionStream(format as CompressionFormat);
    return true;
  } catch {
    return false;
  }
}

async function viaStream(format: string): Promise<number> {
  const stream = new Blob([body]).stream().pipeThrough(
    new CompressionStream(format as CompressionFormat),
  );
  return (await new Response(stream).bytes()).length;
}

async function measure(name: string, run: () => number | Promise<number>, n = rounds) {
  let bytes = 0;
  for (let i = 0; i < 20; i++) bytes = await run();
  const started = performance.now();
  for (let i = 0; i < n; i++) bytes = await run();
  return { name, ms: Math.round(((performance.now() - started) / n) * 1000) / 1000, bytes };
}

const brotli = (quality: number) => () =>
  brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  }).length;

const results = [
  await measure("CompressionStream gzip", () => viaStream("gzip")),
  ...(supports("brotli")
    ? [await measure("CompressionStream brotli", () => viaStream("brotli"))]
    : []),
  await measure("zlib gzipSync level 6", () => gzipSync(body, { level: 6 }).length),
  await measure("zlib gzipSync level 1", () => gzipSync(body, { level: 1 }).length),
  await measure("zlib brotliCompressSync q4", brotli(4)),
  await measure("zlib brotliCompressSync q5", brotli(5)),
  await measure("zlib brotliCompressSync q11", brotli(11), 10),
];
console.log(JSON.stringify({
  body_bytes: body.length,
  compression_stream: { gzip: supports("gzip"), brotli: supports("brotli"), br: supports("br") },
  results,
}));
store.close();
