import { assert, assertEquals } from "@std/assert";
import { assertJson, testApp } from "./_utils.ts";
import { openApiPath } from "../lib/api/openapi.ts";

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
        responses: Record<string, unknown>;
      }
    >
  >;
  components: { schemas: Record<string, unknown> };
};

Deno.test("[openapi] the document is OpenAPI 3.1 and matches its snapshot", async (t) => {
  const app = testApp();
  const doc = await assertJson<Doc>(await app.request("/openapi.json"));
  assertEquals(doc.openapi, "3.1.0");
  await t.assertSnapshot(doc);
});

Deno.test("[openapi] every routed path is documented and every documented path is routed", async () => {
  const app = testApp();
  const doc = await assertJson<Doc>(await app.request("/openapi.json"));
  const routed = app.routes.map((r) => openApiPath(r.path)).sort();
  const documented = Object.keys(doc.paths).sort();
  assertEquals(documented, routed);
  for (const route of app.routes) {
    const item = doc.paths[openApiPath(route.path)]!;
    const methods = Object.keys(item).filter((k) => k !== "description").map((m) => m.toUpperCase())
      .sort();
    assertEquals(methods, Object.keys(route.methods).sort(), route.path);
  }
});

Deno.test("[openapi] every query parameter is documented with a schema, every $ref resolves", async () => {
  const app = testApp();
  const doc = await assertJson<Doc>(await app.request("/openapi.json"));
  for (const route of app.routes) {
    for (const [method, endpoint] of Object.entries(route.methods)) {
      const op = doc.paths[openApiPath(route.path)]![method.toLowerCase()]!;
      const names = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name).sort();
      assertEquals(names, Object.keys(endpoint.operation.query?.params ?? {}).sort());
      for (const p of op.parameters ?? []) {
        assert(typeof p.schema.type === "string", `${p.name} has a type`);
      }
      assert(op.responses["500"], `${route.path} documents 500`);
    }
  }
  const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([A-Za-z]+)"/g)].map((
    m,
  ) => m[1]!);
  for (const name of refs) assert(name in doc.components.schemas, `schema ${name} exists`);
});
