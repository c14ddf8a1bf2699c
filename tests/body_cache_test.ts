/**
 * The serving thread's cache of finished bodies: a native body's `took_ms`
 * is counted anew on a hit, a body without one (the NPI Registry API's) is
 * answered as kept, a body of bytes as bytes, the budget bounds what is
 * kept, and a body is answered only for its own key.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { BodyCache } from "../lib/search/body_cache.ts";
import { hashKey } from "../lib/text_ring.ts";
import { clock } from "../lib/deadline.ts";

Deno.test("[body cache] a native body comes back with took_ms counted from the new request", () => {
  const cache = new BodyCache(1 << 20);
  cache.set("k", '{"total":3,"hits":[],"took_ms":812.5}');
  const body = cache.get("k", clock());
  if (typeof body !== "string") throw new Error(`text is answered as text, not ${body}`);
  assertMatch(body, /^\{"total":3,"hits":\[\],"took_ms":\d+(\.\d+)?\}$/);
  assert(JSON.parse(body).took_ms < 812.5, "the time of this request, not the first one's");
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

Deno.test("[body cache] a body of bytes comes back as the same bytes, its own copy, never as text", () => {
  const cache = new BodyCache(1 << 20);
  // Keys and bodies beyond ASCII: the key is compared as UTF-8, the bytes are not decoded.
  const key = 'registry\u0000q\u0000{"last":"Núñez"}';
  const bytes = new TextEncoder().encode('2\n{"result_count":2,"results":["Ø",{"took_ms":1}]}');
  cache.set(key, bytes);
  const first = cache.get(key, clock());
  if (!(first instanceof Uint8Array)) throw new Error(`bytes are answered as bytes, not ${first}`);
  assertEquals(first, bytes);
  first[0] = 0;
  assertEquals(cache.get(key, clock()), bytes, "a caller's changes do not reach the cache");
  // The same key later given as text is answered as text, and the other way round.
  cache.set(key, "{}");
  assertEquals(cache.get(key, clock()), "{}");
  cache.set(key, bytes);
  assertEquals(cache.get(key, clock()), bytes);
  assertEquals(cache.get(key.slice(0, -1), clock()), undefined, "a key's prefix is another key");
});

Deno.test("[body cache] bounded: the oldest go first unless asked again, and a body over a sixteenth of the budget is not kept", () => {
  // An entry is its key, a separator and `{"a":"xx…x","took_ms":1}` (100 characters) with 8 bytes
  // of header: 111 bytes, so 28 fill 3,200 and the twenty-ninth sends the first out.
  const body = (n: number) => `{"a":"${"x".repeat(n)}","took_ms":1}`;
  const cache = new BodyCache(3_200);
  const keys = Array.from({ length: 28 }, (_, k) => `k${String.fromCharCode(65 + k)}`);
  for (const key of keys) cache.set(key, body(80));
  for (const key of keys) assert(cache.get(key, clock()) !== undefined, `${key} kept`);
  cache.set("zz", body(80));
  assertEquals(cache.get("kA", clock()), undefined, "the oldest went");
  // kB, now the oldest, was asked for in the older half of the ring: written again, it stays.
  assert(cache.get("kB", clock()) !== undefined);
  for (const key of ["y1", "y2", "y3"]) cache.set(key, body(80));
  assert(cache.get("kB", clock()) !== undefined, "asked again, kept");
  assertEquals(cache.get("kC", clock()), undefined, "not asked again since, gone");
  for (const key of [keys.at(-1)!, "zz", "y3"]) assert(cache.get(key, clock()) !== undefined, key);
  cache.set("huge", body(200)); // over 3,200 / 16 bytes
  assertEquals(cache.get("huge", clock()), undefined);
  const off = new BodyCache(0);
  off.set("k", body(1));
  assertEquals(off.get("k", clock()), undefined);
});

Deno.test("[body cache] a body is answered only for its own key, whatever keys share a hash", () => {
  const cache = new BodyCache(1 << 20);
  // Keys of the same hash (found by search): the later one takes the slot, the earlier one misses.
  const [a, b] = collidingKeys();
  assertEquals(hashKey(a), hashKey(b));
  cache.set(a, '{"total":1,"took_ms":2}');
  assertEquals(cache.get(b, clock()), undefined, "another key of the same hash is not answered");
  cache.set(a, new TextEncoder().encode('{"total":1}'));
  assertEquals(cache.get(b, clock()), undefined, "nor its bytes");
  cache.set(b, '{"total":2,"took_ms":2}');
  assertEquals(cache.get(a, clock()), undefined);
  assertMatch(cache.get(b, clock()) as string, /^\{"total":2,"took_ms":/);
});

/** Two different keys with the same {@linkcode hashKey}, found by trying. */
function collidingKeys(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0;; i++) {
    const key = `/v1/providers/search?q=${i.toString(36)}`;
    const other = seen.get(hashKey(key));
    if (other !== undefined) return [other, key];
    seen.set(hashKey(key), key);
  }
}
