/**
 * The OpenAPI document against a standard linter: Redocly's rules, the
 * `recommended` set, every problem reported (errors and warnings alike).
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { testApp } from "./_utils.ts";

/** The part of a Redocly problem a failure message needs. */
interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer?: string }[];
}

Deno.test("[openapi] the document passes Redocly's recommended rules", async () => {
  const app = testApp();
  const text = await (await app.request("/openapi.json")).text();
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({
    source: text,
    absoluteRef: "openapi.json",
    config,
  }) as Problem[];
  const found = problems.map((p) =>
    `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`
  );
  assertEquals(found, []);
});
