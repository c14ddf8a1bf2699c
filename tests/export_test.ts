/**
 * `GET /v1/providers/export`: the whole result set, the same NPIs in the
 * same order as paging through the search, in NDJSON and CSV, in-process
 * and through the search workers; headers and bad input.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { assertJson, assertProblem, type TestApp, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { SearchPool } from "../lib/search/pool.ts";
import { renderSearchBody } from "../lib/search/response.ts";
import { readCsv } from "../lib/nppes/csv.ts";
import { EXPORT_COLUMNS } from "../lib/store/flat_records.ts";

const dir = await Deno.makeTempDir();
const path = `${dir}/demo.db`;
buildDemoDatabase({ path, records: 2500, seed: 5 });
const inProcess: TestApp = testApp({
  deps: { dataset: new Dataset({ kind: "ready", store: openSearchableStore(path) }) },
});

/** The NPIs of a search, paged through with its cursor to the end. */
async function pagedNpis(app: TestApp, query: string): Promise<string[]> {
  const npis: string[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `/v1/providers/search?${query}&limit=100${
      cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""
    }`;
    const body = await assertJson<{ results: { npi: string }[]; next_cursor: string | null }>(
      await app.request(url),
    );
    npis.push(...body.results.map((r) => r.npi));
    cursor = body.next_cursor;
  } while (cursor);
  return npis;
}

async function exportNdjson(app: TestApp, query: string) {
  const response = await app.request(`/v1/providers/export?${query}`);
  assertEquals(response.status, 200, await response.clone().text());
  assertEquals(response.headers.get("content-type"), "application/x-ndjson; charset=utf-8");
  const text = await response.text();
  const records = text === "" ? [] : text.trimEnd().split("\n").map((l) => JSON.parse(l));
  return { response, records: records as { npi: string; status: string }[] };
}

const QUERIES = [
  "",
  "state=CA",
  "q=smith",
  "q=family%20medicine&state=TX",
  "near=10001&radius=200",
  "specialty=dentist&sort=name",
  "entity_type=organization&include_deactivated=true",
  "last_name=zzzzqq",
];

/** The body of an export asked for with `Accept-Encoding`, its coding checked and undone. */
async function exportBody(
  app: TestApp,
  query: string,
  encoding: "gzip" | "br" | "identity",
): Promise<string> {
  const response = await app.request(`/v1/providers/export?${query}`, {
    headers: { "Accept-Encoding": encoding },
  });
  assertEquals(response.status, 200);
  assertMatch(response.headers.get("vary") ?? "", /Accept-Encoding/);
  if (encoding === "identity") {
    assertEquals(response.headers.get("content-encoding"), null);
    return await response.text();
  }
  assertEquals(response.headers.get("content-encoding"), encoding);
  const format = (encoding === "gzip" ? "gzip" : "brotli") as CompressionFormat;
  return await new Response(response.body!.pipeThrough(new DecompressionStream(format))).text();
}

async function equivalence(app: TestApp, label: string) {
  for (const query of QUERIES) {
    const paged = await pagedNpis(app, query);
    const { response, records } = await exportNdjson(app, query);
    assertEquals(records.map((r) => r.npi), paged, `${label}: ${query || "(no filter)"}`);
    assertEquals(response.headers.get("x-total-count"), String(paged.length));
  }
  // The records are those of the search (the record text of GET /v1/providers/{npi}), whatever
  // the coding: gzip is written in pieces on both threads, brotli by the compression wrapper.
  for (
    const query of ["state=NY", "entity_type=organization&include_deactivated=true&format=csv"]
  ) {
    const plain = await exportBody(app, query, "identity");
    assertEquals(await exportBody(app, query, "gzip"), plain, `${label}: ${query} gzip`);
    assertEquals(await exportBody(app, query, "br"), plain, `${label}: ${query} brotli`);
  }
  const lines = (await exportBody(app, "", "gzip")).trimEnd().split("\n");
  assert(lines.length > 1500, `${lines.length} records`);
  for (const line of lines.filter((_, i) => i % 97 === 0)) {
    const npi = JSON.parse(line).npi;
    assertEquals(line, await (await app.request(`/v1/providers/${npi}`)).text(), npi);
  }
  assertEquals(await exportBody(app, "last_name=zzzzqq", "gzip"), "");
}

Deno.test("[export] the same NPIs in the same order as paging through the search", async () => {
  await equivalence(inProcess, "in-process");
  // The browse export crosses several export pages (500 records each).
  const all = await exportNdjson(inProcess, "");
  assert(all.records.length > 1500, `${all.records.length} records`);
  assert(all.records.every((r) => r.status === "active"));
});

Deno.test("[export] through the search workers, the same answers", async () => {
  const store = openSearchableStore(path, { lazyIndex: true });
  const pool = await SearchPool.start({
    path,
    workers: 1,
    queue: 64,
    render: (job, page) => renderSearchBody(store, job, page),
  });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  try {
    await equivalence(testApp({ deps: { dataset } }), "pool");
  } finally {
    await dataset.close();
  }
});

Deno.test("[export] CSV: the documented columns, one row per record, by format or Accept", async () => {
  const { records } = await exportNdjson(inProcess, "state=NY");
  const asks: { path: string; headers: Record<string, string> }[] = [
    { path: "/v1/providers/export?state=NY&format=csv", headers: {} },
    { path: "/v1/providers/export?state=NY", headers: { Accept: "text/csv" } },
  ];
  for (const init of asks) {
    const response = await inProcess.request(init.path, { headers: init.headers });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("content-type"), "text/csv; charset=utf-8; header=present");
    assertMatch(
      response.headers.get("content-disposition") ?? "",
      /^attachment; filename="providers-demo-\d{8}-\d{8}T\d{9}Z\.csv"$/,
    );
    assertMatch(response.headers.get("dataset-release") ?? "", /^demo-\d{8}-/);
    const rows: string[][] = [];
    for await (const batch of readCsv(response.body!)) {
      for (const item of batch) {
        if ("error" in item) throw new Error(`line ${item.line}: ${item.error}`);
        rows.push(item.fields);
      }
    }
    assertEquals(rows[0], EXPORT_COLUMNS.map((c) => c.name));
    assert(rows.slice(1).every((r) => r.length === EXPORT_COLUMNS.length));
    assertEquals(rows.slice(1).map((r) => r[0]), records.map((r) => r.npi));
    assert(rows.slice(1).every((r) => r[20] === "NY"), "practice_state column");
  }
});

Deno.test("[export] headers, HEAD, and bad parameters as 400", async () => {
  const head = await inProcess.request("/v1/providers/export?state=CA", { method: "HEAD" });
  assertEquals(head.status, 200);
  assert(Number(head.headers.get("x-total-count")) > 0);
  assertEquals(await head.text(), "");
  const get = await inProcess.request("/v1/providers/export?state=CA");
  assert(get.headers.get("x-request-id"));
  assertMatch(get.headers.get("access-control-expose-headers") ?? "", /X-Total-Count/);
  assertMatch(get.headers.get("content-disposition") ?? "", /\.ndjson"$/);
  await get.body?.cancel();
  for (const bad of ["limit=10", "cursor=abc", "facets=state", "format=xml", "radius=5"]) {
    const problem = await assertProblem(
      await inProcess.request(`/v1/providers/export?${bad}`),
      400,
    );
    assertEquals(problem.errors?.[0]?.parameter, bad.split("=")[0]);
  }
});

Deno.test("[export] a client that stops reading stops the export", async () => {
  const response = await inProcess.request("/v1/providers/export");
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert(first.value && first.value.byteLength > 0);
  await reader.cancel();
});
