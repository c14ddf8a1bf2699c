import { assertEquals } from "@std/assert";
import { EndpointNameIndex } from "../lib/fhir/endpoint_search.ts";
import { Rng } from "../lib/demo/prng.ts";

const LETTERS = "abcd";

function word(rng: Rng, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += LETTERS[rng.int(LETTERS.length)];
  return out;
}

Deno.test("endpoint name index: the keys and rows a test of every key finds", () => {
  const rng = new Rng(23);
  for (let round = 0; round < 20; round++) {
    const keys = [""];
    const seen = new Set(keys);
    for (let k = rng.int(60); k > 0; k--) {
      const key = word(rng, 1 + rng.int(5));
      if (!seen.has(key)) keys.push(key), seen.add(key);
    }
    const rows = Uint32Array.from({ length: rng.int(300) }, () => rng.int(keys.length));
    const index = new EndpointNameIndex({ keys, rows });
    for (let q = 0; q < 30; q++) {
      const matches = Array.from(
        { length: 1 + rng.int(2) },
        () => ({ key: word(rng, rng.int(4)), prefix: rng.chance(0.6) }),
      );
      const meets = (key: string) =>
        key !== "" && matches.some((m) => (m.prefix ? key.startsWith(m.key) : key === m.key));
      const numbers = index.numbers(matches);
      assertEquals([...numbers], keys.map((k) => (meets(k) ? 1 : 0)), JSON.stringify(matches));
      const expected = [...rows.keys()].filter((r) => meets(keys[rows[r]!]!));
      assertEquals([...index.rowsOf(numbers, Infinity)!], expected);
      const several = new Set(expected.map((r) => rows[r])).size > 1;
      if (several) assertEquals(index.rowsOf(numbers, expected.length), null);
    }
  }
});
