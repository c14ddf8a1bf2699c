/**
 * The serving thread's cache of finished bodies: a native body's `took_ms`
 * is counted anew on a hit, a body without one (the NPI Registry API's) is
 * answered as kept, and the budget bounds what is kept.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { BodyCache } from "../lib/search/body_cache.ts";
import { clock } from "../lib/deadline.ts";

Deno.test("[body cache] a native body comes back with took_ms counted from the new request", () => {
  const cache = new BodyCache(1 << 20);
  cache.set("k", '{"total":3,"hits":[],"took_ms":812.5}');
  const body = cache.get("k", clock());
  assertMatch(body!, /^\{"total":3,"hits":\[\],"took_ms":\d+(\.\d+)?\}$/);
  assert(JSON.parse(body!).took_ms < 812.5, "the time of this request, not the first one's");
  assertEquals([cache.hits, cache.misses], [1, 0]);
});

Deno.test("[body cache] a registry body (no took_ms) is kept and answered whole", () => {
  const cache = new BodyCache(1 << 20);
  // A took_ms inside the records is data, not the body's own member.
  const text = `2\n${JSON.stringify({ result_count: 2, results: [{ x: ',"took_ms":1' }, {}] })}`;
  cache.set("r", text);
  assertEquals(cache.get("r", clock()), text);
  assertEquals(cache.get("other", clock()), undefined);
  assertEquals([cache.hits, cache.misses], [1, 1]);
});

Deno.test("[body cache] bounded: the least recently used go first, and a body over a sixteenth of the budget is not kept", () => {
  // `{"a":"xx…x"` (87 characters) and a key of 2: (87 + 2) * 2 = 178 bytes an entry, 17 in 3,200.
  const body = (n: number) => `{"a":"${"x".repeat(n)}","took_ms":1}`;
  const cache = new BodyCache(3_200);
  const keys = Array.from({ length: 17 }, (_, k) => `k${String.fromCharCode(97 + k)}`);
  for (const key of keys) cache.set(key, body(80));
  for (const key of keys) assert(cache.get(key, clock()) !== undefined, `${key} kept`);
  assert(cache.get("ka", clock()) !== undefined); // now the most recently used
  cache.set("zz", body(80));
  assertEquals(cache.get("kb", clock()), undefined, "the least recently used went");
  for (const key of ["ka", "kc", "zz"]) assert(cache.get(key, clock()) !== undefined, key);
  cache.set("huge", body(200)); // (207 + 4) * 2 bytes: over 3,200 / 16
  assertEquals(cache.get("huge", clock()), undefined);
  const off = new BodyCache(0);
  off.set("k", body(1));
  assertEquals(off.get("k", clock()), undefined);
});
