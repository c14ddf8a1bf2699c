/**
 * The name key that ranks providers: directory order, a last name ended
 * before the first name is read.
 */
import { assertEquals } from "@std/assert";
import type { Provider } from "../lib/provider.ts";
import { sortKey } from "../lib/store/sort_key.ts";

function person(last: string, first: string | null, middle: string | null = null): Provider {
  return {
    individual: { last_name: last, first_name: first, middle_name: middle },
    organization: null,
  } as unknown as Provider;
}

Deno.test("[sort key] people in directory order: the last name, then the first, then the middle", () => {
  const people = {
    smithAndradeJoyce: person("SMITH-ANDRADE", "JOYCE", "Y"),
    smitheAdam: person("SMITHE", "ADAM"),
    smithJohn: person("SMITH", "JOHN"),
    smithJoAnn: person("SMITH", "JO ANN"),
    smithJoB: person("Smith", "Jo", "B"),
    smithAaron: person("SMITH", "AARON"),
    smithAlone: person("SMITH", null),
  };
  const ranked = Object.entries(people)
    .sort(([, a], [, b]) => (sortKey(a) < sortKey(b) ? -1 : 1))
    .map(([name]) => name);
  assertEquals(ranked, [
    "smithAlone",
    "smithAaron",
    "smithJoB",
    "smithJoAnn",
    "smithJohn",
    "smithAndradeJoyce",
    "smitheAdam",
  ]);
});

Deno.test("[sort key] the first form joins the names with spaces; organizations and no name", () => {
  assertEquals(sortKey(person("SMITH", "JOHN", "A"), 1), "smith john a");
  assertEquals(sortKey(person("Núñez", "José"), 1), "nunez jose");
  assertEquals(sortKey(person("Núñez", "José")), "nunez\u0001jose");
  const organization = (name: string) =>
    ({ individual: null, organization: { name } }) as unknown as Provider;
  assertEquals(sortKey(organization("St. Mary's Clinic")), "st marys clinic");
  assertEquals(sortKey(organization("")), "~");
  assertEquals(sortKey(person("", null)), "~");
});
