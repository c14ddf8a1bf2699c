import { assertEquals, assertMatch, assertThrows } from "@std/assert";
import { boolean, choice, decimal, defineQuery, integer, list, text } from "../lib/http/params.ts";
import { ValidationError } from "../lib/http/errors.ts";

const schema = defineQuery({
  q: text({ description: "q", maxLength: 5 }),
  limit: integer({ description: "limit", min: 1, max: 100, default: 10 }),
  radius: decimal({ description: "r", min: 0, exclusiveMin: true, max: 500 }),
  deleted: boolean({ description: "d", default: false }),
  unit: choice({ description: "u", values: ["mi", "km"], default: "mi" }),
  facets: list(choice({ description: "f", values: ["state", "sex"] }), { maxItems: 2 }),
  entity: choice({
    description: "e",
    values: ["individual", "organization"],
    aliases: { "NPI-1": "individual" },
  }),
});

function errorsOf(query: string): Record<string, string> {
  const error: ValidationError = assertThrows(
    () => schema.parse(new URLSearchParams(query)),
    ValidationError,
  );
  return Object.fromEntries((error.errors ?? []).map((e) => [e.parameter, e.message]));
}

Deno.test("[params] parses values and applies defaults", () => {
  assertEquals(schema.parse(new URLSearchParams("q=ab&radius=2.5&facets=state,sex&entity=npi-1")), {
    q: "ab",
    limit: 10,
    radius: 2.5,
    deleted: false,
    unit: "mi",
    facets: ["state", "sex"],
    entity: "individual",
  });
});

Deno.test("[params] each malformed value is named with a reason", () => {
  const errors = errorsOf("q=&limit=abc&radius=0&deleted=yes&unit=ft&facets=state,&entity=x");
  assertEquals(Object.keys(errors).sort(), [
    "deleted",
    "entity",
    "facets",
    "limit",
    "q",
    "radius",
    "unit",
  ]);
  assertMatch(errors.q!, /must not be empty/);
  assertMatch(errors.limit!, /integer from 1 to 100, got 'abc'/);
  assertMatch(errors.radius!, /greater than 0/);
  assertMatch(errors.deleted!, /'true' or 'false'/);
  assertMatch(errors.unit!, /'mi', 'km'/);
  assertMatch(errors.facets!, /item 2 of the list is empty/);
});

Deno.test("[params] bounds, lengths, repeats and unknown names", () => {
  assertMatch(errorsOf("limit=101").limit!, /got 101/);
  assertMatch(errorsOf("q=abcdef").q!, /at most 5 characters/);
  assertMatch(errorsOf("radius=500.1").radius!, /at most 500/);
  assertMatch(errorsOf("limit=1&limit=2").limit!, /more than once/);
  assertMatch(errorsOf("facets=state,sex,state").facets!, /at most 2 values/);
  assertMatch(errorsOf("raduis=3").raduis!, /did you mean 'radius'/);
  assertMatch(errorsOf("qqqqqqqqqq=3").qqqqqqqqqq!, /allowed are q, limit/);
  assertEquals(schema.parse(new URLSearchParams("radius=500&limit=100")).radius, 500);
});
