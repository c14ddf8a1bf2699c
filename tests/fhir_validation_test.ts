/**
 * The FHIR directory against a real client and a real validator: a demo
 * dataset served by `Deno.serve` (searches through a search worker),
 * walked by `fhir-kit-client` through `next` links to the end of each
 * result set, every resource validated offline against FHIR R4 and the
 * Plan-Net profiles it claims.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { Client } from "fhir-kit-client";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { SearchPool } from "../lib/search/pool.ts";
import { renderBody } from "../lib/service/render.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { Metrics } from "../lib/service/metrics.ts";
import { createRoutes } from "../routes/mod.ts";
import { createApp } from "../lib/service/app.ts";
import { loadConfig } from "../lib/config.ts";
import { createLogger } from "../lib/log.ts";
import { planNetProfiles, validate } from "./_fhir_validator.ts";
import { PLAN_NET_PROFILES } from "../lib/fhir/resources.ts";

type Resource = { resourceType: string; id: string } & Record<string, unknown>;
type Bundle = Resource & {
  total: number;
  link: { relation: string; url: string }[];
  entry?: { fullUrl: string; resource: Resource; search: { mode: string } }[];
};

const RECORDS = 1500;
const dir = await Deno.makeTempDir();
const path = `${dir}/demo.db`;
buildDemoDatabase({ path, records: RECORDS, seed: 19 });

async function serve() {
  const store = openSearchableStore(path, { lazyIndex: true });
  const pool = await SearchPool.start({
    path,
    workers: 1,
    queue: 64,
    render: (job, page) => renderBody(store, job, page),
  });
  const dataset = new Dataset();
  dataset.ready(store, pool);
  const metrics = new Metrics(dataset);
  const app = createApp(
    { config: loadConfig({}), log: createLogger({ write: () => {} }), metrics },
    createRoutes({ dataset, metrics }),
  );
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.handler);
  const client = new Client({ baseUrl: `http://127.0.0.1:${server.addr.port}/fhir` });
  return {
    client,
    async close() {
      await server.shutdown();
      await dataset.close();
    },
  };
}

/** Walks a search to its end through `next` links; returns every bundle. */
async function walk(
  client: Client,
  resourceType: string,
  searchParams: Record<string, string | string[]>,
): Promise<Bundle[]> {
  const bundles: Bundle[] = [];
  let bundle = await client.search({ resourceType, searchParams }) as Bundle;
  while (bundle) {
    bundles.push(bundle);
    if (bundles.length > 500) throw new Error("paging does not end");
    const next = client.nextPage({ bundle });
    bundle = (next ? await next : undefined) as Bundle;
  }
  return bundles;
}

const tally = { validated: 0, planNet: 0 };

function assertValid(resource: Resource): void {
  const problems = validate(resource);
  assertEquals(problems, [], problems.slice(0, 10).join("\n"));
  tally.validated++;
  if ((resource.meta as { profile?: string[] } | undefined)?.profile?.length) tally.planNet++;
}

/** Walks, validates every bundle and resource, and checks paging and totals; returns the matches and includes. */
async function walkValidated(
  client: Client,
  resourceType: string,
  searchParams: Record<string, string | string[]>,
): Promise<{ matches: Resource[]; includes: Resource[] }> {
  const bundles = await walk(client, resourceType, searchParams);
  const matches: Resource[] = [];
  const includes: Resource[] = [];
  for (const bundle of bundles) {
    assertEquals(bundle.resourceType, "Bundle");
    assertEquals(bundle.type, "searchset");
    assertEquals(bundle.total, bundles[0]!.total);
    const { entry, ...head } = bundle;
    assertEquals(validate({ ...head, id: "bundle" }), []);
    for (const e of entry ?? []) {
      assert(e.fullUrl.endsWith(`/fhir/${e.resource.resourceType}/${e.resource.id}`));
      assertValid(e.resource);
      (e.search.mode === "match" ? matches : includes).push(e.resource);
    }
  }
  assertEquals(
    matches.length,
    bundles[0]!.total,
    `${resourceType}: total is the number of matches`,
  );
  assertEquals(
    new Set(matches.map((r) => r.id)).size,
    matches.length,
    "no duplicates across pages",
  );
  assert(matches.every((r) => r.resourceType === resourceType));
  return { matches, includes };
}

Deno.test("[fhir-validation] the vendored Plan-Net profiles are the five served", () => {
  assertEquals([...planNetProfiles().keys()].sort(), Object.values(PLAN_NET_PROFILES).sort());
});

Deno.test("[fhir-validation] every resource validates, read and searched through fhir-kit-client", async (t) => {
  const { client, close } = await serve();
  try {
    await t.step("CapabilityStatement", async () => {
      const cs = await client.capabilityStatement() as Resource;
      assertEquals(cs.resourceType, "CapabilityStatement");
      assertEquals(validate(cs), []);
    });

    let practitioners: Resource[] = [];
    await t.step("Practitioner: all, walked to the end with _revinclude of roles", async () => {
      const { matches, includes } = await walkValidated(client, "Practitioner", {
        _count: "100",
        _revinclude: "PractitionerRole:practitioner",
        "_include:iterate": ["PractitionerRole:location", "PractitionerRole:endpoint"],
      });
      practitioners = matches;
      assert(matches.length > RECORDS / 2, `${matches.length} practitioners`);
      const roles = includes.filter((r) => r.resourceType === "PractitionerRole");
      assertEquals(roles.length, matches.length, "one role per practitioner");
      assert(includes.some((r) => r.resourceType === "Location" && !r.id.endsWith("-0")));
      assert(includes.some((r) => r.resourceType === "Endpoint"));
    });

    await t.step("Organization: all, with partOf, endpoints and locations", async () => {
      const { matches, includes } = await walkValidated(client, "Organization", {
        _count: "100",
        _include: "Organization:partof",
        _revinclude: ["Endpoint:organization", "Location:organization"],
      });
      assert(matches.length > 0 && matches.length + practitioners.length <= RECORDS);
      assert(includes.some((r) => r.resourceType === "Endpoint"));
    });

    await t.step("Location: primary locations near a point, by distance", async () => {
      const { matches } = await walkValidated(client, "Location", {
        near: "39.0|-77.1|500|km",
        _count: "50",
      });
      assert(matches.length > 0);
    });

    await t.step("PractitionerRole: all, with practitioner, locations and endpoints", async () => {
      const { matches, includes } = await walkValidated(client, "PractitionerRole", {
        _count: "100",
        _include: [
          "PractitionerRole:practitioner",
          "PractitionerRole:location",
          "PractitionerRole:endpoint",
        ],
      });
      assertEquals(matches.length, practitioners.length);
      assertEquals(
        includes.filter((r) => r.resourceType === "Practitioner").length,
        matches.length,
      );
    });

    await t.step("read: each type by id, same as in searches", async () => {
      const practitioner = practitioners[0]!;
      assertEquals(
        await client.read({ resourceType: "Practitioner", id: practitioner.id }),
        practitioner,
      );
      const role = await client.read({ resourceType: "PractitionerRole", id: practitioner.id });
      assertValid(role as Resource);
    });

    await t.step("most resources meet Plan-Net", () => {
      assert(tally.validated > RECORDS, `${tally.validated} validated`);
      assert(tally.planNet / tally.validated > 0.9, `${tally.planNet} of ${tally.validated}`);
      console.log(`${tally.validated} resources valid R4, ${tally.planNet} of them Plan-Net`);
    });

    await t.step("errors are valid OperationOutcomes", async () => {
      for (const url of ["Practitioner?bogus=1", "Practitioner/123", "Patient?name=x"]) {
        const response = await client.request(url).catch((e) => e.response);
        const body = await (response?.data ?? response?.json?.()) as Resource;
        assertEquals(body?.resourceType, "OperationOutcome", url);
        assertEquals(validate({ ...body, id: "oo" }), []);
      }
    });
  } finally {
    await close();
  }
});
