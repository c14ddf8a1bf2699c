/** The benchmark's cold classes: distinct paths, disjoint parts, real one-edit typos. */
import { assert, assertEquals, assertNotEquals } from "@std/assert";
import {
  COLD_CLASSES,
  coldPaths,
  type HarvestedProvider,
  splitPaths,
  withTypo,
} from "../bench/cold.ts";
import { COLD_SIZES, coldPlan } from "../bench/cold_mix.ts";
import { Rng } from "../lib/demo/prng.ts";

const FIRST = ["anna", "brian", "carla", "derek", "elena", "farid", "gwen", "hiro"];
const LAST = ["fowler", "nakamura", "obrien", "kowalczyk", "garcia", "smith", "lindqvist"];
const STATES = ["MD", "CA", "TX", "NY"];

/** A harvest of made-up providers, people and organizations. */
function harvest(count: number): HarvestedProvider[] {
  const rng = new Rng(4);
  return Array.from({ length: count }, (_, i) => {
    const person = i % 5 !== 0;
    return {
      npi: String(1000000000 + i),
      first: person ? rng.pick(FIRST) : null,
      last: person ? rng.pick(LAST) : null,
      organization: person ? null : `${rng.pick(LAST)} family health center ${i}`,
      city: rng.pick(["BALTIMORE", "AUSTIN", "FRESNO"]),
      state: rng.pick(STATES),
      zip: String(10000 + rng.int(80000)),
      specialties: [rng.pick(["Dentist", "Family Medicine", "Pharmacist"])],
    };
  });
}

Deno.test("[bench] every cold class yields distinct paths from the harvest", () => {
  const providers = harvest(400);
  for (const cls of COLD_CLASSES) {
    const paths = coldPaths(cls, providers, 200, 1);
    assert(paths.length > 0, `${cls} has paths`);
    assertEquals(new Set(paths).size, paths.length, `${cls} paths are distinct`);
    assert(paths.length <= 200);
    const root = cls.startsWith("registry_api")
      ? "/api/?version=2.1&"
      : cls.startsWith("fhir_")
      ? "/fhir/"
      : "/v1/providers/";
    for (const p of paths) assert(p.startsWith(root), p);
  }
  // The same seed gives the same paths.
  assertEquals(coldPaths("surname", providers, 50, 3), coldPaths("surname", providers, 50, 3));
});

Deno.test("[bench] the warm-up, c=1, c=8 and mix parts never share a path", () => {
  const plan = coldPlan(harvest(600), { ...COLD_SIZES, warm: 20, c1: 30, c8: 100, mix: 10 }, 7);
  for (const cls of COLD_CLASSES) {
    const { warm, c1, c8, mix } = plan[cls];
    const all = [...warm, ...c1, ...c8, ...mix];
    assertEquals(new Set(all).size, all.length, `${cls}: parts are disjoint`);
  }
  const split = splitPaths(["a", "b", "c", "d", "e"], { warm: 1, c1: 2 });
  assertEquals(split, { warm: ["a"], c1: ["b", "c"], c8: ["d", "e"] });
});

Deno.test("[bench] a typo changes exactly one inner letter", () => {
  const rng = new Rng(9);
  for (const word of ["fowler", "nakamura", "smith", "garcia"]) {
    for (let k = 0; k < 20; k++) {
      const typo = withTypo(word, rng);
      assertNotEquals(typo, word);
      assertEquals(typo.length, word.length);
      assertEquals([...typo].filter((c, i) => c !== word[i]).length, 1);
      assertEquals([typo[0], typo.at(-1)], [word[0], word.at(-1)]);
    }
  }
});
