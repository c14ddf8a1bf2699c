/**
 * The precomputed prefix lists the index build writes (`ab*`, `abcd*`): for
 * every length of `PREFIX_LENGTHS`, a prefix shared by at least
 * `PREFIX_MIN_TERMS` longer terms gets the union of the lists of every term
 * starting with it, and a rarer one none (the reader then unites the
 * terms' lists itself).
 */
import { assert, assertEquals } from "@std/assert";
import { seededRandom } from "./_utils.ts";
import { type Numbered, type PostingSink, writeField } from "../lib/index/merge.ts";
import { FIELD, PREFIX_LENGTHS, PREFIX_MIN_TERMS } from "../lib/index/fields.ts";

const UNIVERSE = 400;

/** Random terms over `ab`, 1–8 letters (so prefixes of every length are shared), with sorted ids. */
function randomTerms(seed: number): [string, Uint32Array][] {
  const next = seededRandom(seed);
  const lists = new Map<string, Set<number>>();
  for (let i = 0; i < 1500; i++) {
    let term = "";
    const length = 1 + Math.floor(next() * 8);
    for (let k = 0; k < length; k++) term += next() < 0.5 ? "a" : "b";
    const ids = lists.get(term) ?? new Set<number>();
    for (let n = 1 + Math.floor(next() * 4); n > 0; n--) {
      ids.add(1 + Math.floor(next() * (UNIVERSE - 1)));
    }
    lists.set(term, ids);
  }
  return [...lists].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((
    [term, ids],
  ) => [term, Uint32Array.from([...ids].sort((x, y) => x - y))]);
}

Deno.test("[prefix lists] every length gets the union of its terms' lists when enough terms share the prefix", () => {
  const terms = randomTerms(11);
  const identity = Uint32Array.from({ length: UNIVERSE }, (_, i) => i);
  const merged: [string, Numbered[]][] = terms.map(([term, ids]) => [term, [{
    numbers: ids,
    toId: identity,
  }]]);
  const written = new Map<string, Uint32Array>();
  const sink: PostingSink = {
    put: (field, term, ids) => {
      assertEquals(field, FIELD.surname);
      written.set(term, ids.slice());
    },
    count: () => {},
  };
  writeField(FIELD.surname, merged, UNIVERSE, sink);
  let checked = 0, listed = 0;
  for (const length of PREFIX_LENGTHS) {
    const prefixes = new Set(
      terms.filter(([t]) => t.length >= length).map(([t]) => t.slice(0, length)),
    );
    for (const prefix of prefixes) {
      const sharing = terms.filter(([t]) => t.startsWith(prefix));
      const longer = sharing.filter(([t]) => t.length > prefix.length).length;
      const union = [...new Set(sharing.flatMap(([, ids]) => [...ids]))].sort((x, y) => x - y);
      const list = written.get(`${prefix}*`);
      if (longer >= PREFIX_MIN_TERMS) {
        assertEquals(list && [...list], union, `${prefix}*`);
        listed++;
      } else assertEquals(list, undefined, `${prefix}* (${longer} longer terms)`);
      checked++;
    }
  }
  // Both outcomes occur, at every length the build precomputes (four and five letters included).
  assert(PREFIX_LENGTHS.includes(4) && PREFIX_LENGTHS.includes(5));
  for (const length of PREFIX_LENGTHS) {
    assert(
      [...written.keys()].some((k) => k.length === length + 1 && k.endsWith("*")),
      `${length}`,
    );
  }
  assert(listed > 0 && listed < checked, `${listed} of ${checked}`);
  // The terms themselves are written as they came.
  for (const [term, ids] of terms) assertEquals(written.get(term), ids, term);
});
