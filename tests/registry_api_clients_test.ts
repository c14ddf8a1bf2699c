/**
 * The NPI Registry API route driven the way published clients call the real
 * API (R `npi`, Python `npyi` and `nppes`, curl), over HTTP against a running
 * service (`Deno.serve` on a free port, with the search worker pool the
 * service runs with), asserting what those clients read from the answer.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { createApp } from "../lib/service/app.ts";
import { loadConfig } from "../lib/config.ts";
import { silentLogger } from "../lib/log.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { Metrics } from "../lib/service/metrics.ts";
import { createRoutes } from "../routes/mod.ts";
import { openServing } from "../lib/service/startup.ts";
import { LOOPERS, REG, registryFixtureDatabase } from "./_registry_fixtures.ts";

type Json = Record<string, unknown>;

const dir = await Deno.makeTempDir();
const path = await registryFixtureDatabase(dir);

/** Runs `body` against a served app (search workers included) with `env` as its environment. */
async function withServer(
  env: Record<string, string>,
  body: (base: string) => Promise<void>,
): Promise<void> {
  const config = loadConfig({ SEARCH_WORKERS: "1", ...env });
  const serving = await openServing(path, config, silentLogger);
  assert(serving.pool, "the test drives the worker pool, as the service runs");
  const dataset = new Dataset({ kind: "ready", store: serving.store, pool: serving.pool });
  const metrics = new Metrics(dataset);
  const app = createApp(
    { config, log: silentLogger, metrics },
    createRoutes({ dataset, metrics, config }),
  );
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.handler);
  try {
    await body(`http://127.0.0.1:${server.addr.port}/api/`);
  } finally {
    await server.shutdown();
    await dataset.close();
  }
}

/** GET with a query, as `httr::GET(url, query = list(...))` or `requests.get(url, params=...)` build it. */
async function get(base: string, params: Record<string, string | number>): Promise<Response> {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v));
  return await fetch(url);
}

/**
 * R `npi::npi_search(..., limit = n)`: pages of at most 200 with `skip`
 * raised by 200 until `limit` records or a short page; a response with
 * `Errors` stops with the error's description.
 */
async function rNpiSearch(base: string, criteria: Record<string, string>, limit: number) {
  const records: Json[] = [];
  let skip = 0;
  while (records.length < limit) {
    const size = Math.min(200, limit - records.length);
    const response = await get(base, { version: "2.1", ...criteria, limit: size, skip });
    assertEquals(response.status, 200);
    const body = await response.json() as Json;
    if ("Errors" in body) throw new Error((body.Errors as Json[])[0]!.description as string);
    const page = body.results as Json[];
    assertEquals(body.result_count, page.length);
    records.push(...page);
    if (page.length < size) break;
    skip += size;
  }
  return records;
}

/**
 * The Python paging loop of `nppes`-style loaders: `limit=200`, `skip += 200`
 * until a short page or the API's cap (skip 1000).
 */
async function pythonPagingLoop(base: string, criteria: Record<string, string>, cap = 1000) {
  const results: Json[] = [];
  let skip = 0;
  let requests = 0;
  while (true) {
    const response = await get(base, { version: "2.1", ...criteria, limit: 200, skip });
    requests++;
    const body = await response.json() as Json;
    assert(!("Errors" in body), JSON.stringify(body));
    results.push(...(body.results as Json[]));
    if ((body.result_count as number) < 200 || skip >= cap) break;
    skip += 200;
  }
  return { results, requests };
}

Deno.test("[registry clients] over HTTP, with the search workers", async (t) => {
  await withServer({}, async (base) => {
    await t.step(
      "Python paging loop: six pages of 200, 1,200 distinct records, then the cap",
      async () => {
        const { results, requests } = await pythonPagingLoop(base, {
          last_name: "LOOPER",
          state: "KS",
        });
        assertEquals(requests, 6);
        assertEquals(results.length, 1200);
        assertEquals(new Set(results.map((r) => r.number)).size, 1200, "no page overlaps another");
        const first = results.map((r) => (r.basic as Json).first_name as string);
        assertEquals(first, [...first].sort(), "one order across pages");
      },
    );
    await t.step("a loop past the cap gets error 05 on skip, not a repeated page", async () => {
      const response = await get(base, {
        version: "2.1",
        last_name: "LOOPER",
        limit: 200,
        skip: 1200,
      });
      const body = await response.json() as Json;
      assertEquals((body.Errors as Json[])[0]!.field, "skip");
    });
    await t.step("X-Total-Count tells a loop how many there are", async () => {
      const response = await get(base, { version: "2.1", last_name: "LOOPER", limit: 1 });
      assertEquals(response.headers.get("x-total-count"), String(LOOPERS));
      await response.body?.cancel();
    });
    await t.step(
      "R npi: npi_search(first_name, last_name, state) reads the flattened fields",
      async () => {
        const records = await rNpiSearch(base, {
          first_name: "PAUL",
          last_name: "FOWLER",
          state: "MD",
        }, 10);
        assertEquals(records.length, 1);
        const r = records[0]!;
        assertEquals(r.number, REG.fowler);
        assertEquals(r.enumeration_type, "NPI-1");
        const basic = r.basic as Json;
        assertEquals([basic.first_name, basic.last_name, basic.credential], [
          "PAUL",
          "FOWLER",
          "M.D.",
        ]);
        const addresses = r.addresses as Json[];
        assertEquals(addresses.map((a) => a.address_purpose).sort(), ["LOCATION", "MAILING"]);
        assertEquals((r.taxonomies as Json[])[0]!.desc, "Specialist");
        assertEquals(String(Number(r.created_epoch) / 1000), String(Date.UTC(2005, 4, 23) / 1000));
      },
    );
    await t.step("R npi: limit above 200 pages until a short page", async () => {
      const records = await rNpiSearch(base, { last_name: "LOOPER" }, 450);
      assertEquals(records.length, 450);
      assertEquals(new Set(records.map((r) => r.number)).size, 450);
    });
    await t.step("R npi: an Errors answer (HTTP 200) is raised as the client's error", async () => {
      let message = "";
      try {
        await rNpiSearch(base, { enumeration_type: "NPI-1" }, 10);
      } catch (error) {
        message = (error as Error).message;
      }
      assertEquals(message.toLowerCase(), "enumeration_type requires additional search criteria");
    });
    await t.step(
      "Python npyi: search(search_params={'number': ...}) reads results[0]",
      async () => {
        const response = await get(base, { version: "2.1", number: REG.sandySprings });
        const body = await response.json() as Json;
        assertEquals(body.result_count, 1);
        const result = (body.results as Json[])[0]!;
        const basic = result.basic as Json;
        assertEquals(basic.organization_name, "SANDY SPRINGS HEALTH CENTER");
        assertEquals(basic.authorized_official_last_name, "KATKOWSKY");
        assertEquals(result.enumeration_type, "NPI-2");
      },
    );
    await t.step("Python: a search by first_name, last_name and state with nicknames", async () => {
      const response = await get(base, {
        version: "2.1",
        first_name: "Bob",
        last_name: "Browning",
        state: "CO",
      });
      const body = await response.json() as Json;
      assertEquals((body.results as Json[]).map((r) => (r.basic as Json).first_name), ["ROBERT"]);
    });
    await t.step("curl with pretty=on: indented JSON that parses the same", async () => {
      const pretty = await (await get(base, { version: "2.1", number: REG.inova, pretty: "on" }))
        .text();
      const plain = await (await get(base, { version: "2.1", number: REG.inova })).text();
      assert(pretty.startsWith('{\n  "result_count": 1'));
      assertEquals(JSON.parse(pretty), JSON.parse(plain));
    });
    await t.step("the base URL without the slash works too", async () => {
      const response = await fetch(`${base.slice(0, -1)}?version=2.1&number=${REG.barnes}`);
      const body = await response.json() as Json;
      assertEquals((body.results as Json[])[0]!.number, REG.barnes);
    });
  });
});

Deno.test("[registry clients] NPPES_API_MAX_SKIP: the paging loop walks the whole set", async () => {
  await withServer({ NPPES_API_MAX_SKIP: "100000" }, async (base) => {
    const { results, requests } = await pythonPagingLoop(
      base,
      { last_name: "LOOPER", state: "KS" },
      100_000,
    );
    assertEquals(results.length, LOOPERS);
    assertEquals(requests, Math.ceil(LOOPERS / 200));
    assertEquals(new Set(results.map((r) => r.number)).size, LOOPERS);
  });
});

Deno.test("[registry clients] teardown", async () => {
  await Deno.remove(dir, { recursive: true });
});
