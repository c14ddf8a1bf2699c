/** The byte-bounded LRU cache: least recently used out first, oversized values never in. */
import { assertEquals } from "@std/assert";
import { ByteLru } from "../lib/lru.ts";

Deno.test("[lru] evicts the least recently used first, by size", () => {
  const cache = new ByteLru<Uint8Array>(100, (v) => v.byteLength);
  cache.set("a", new Uint8Array(20));
  cache.set("b", new Uint8Array(20));
  cache.set("c", new Uint8Array(20));
  cache.get("a"); // a is now the most recently used
  cache.set("d", new Uint8Array(25)); // 85 bytes: all fit
  cache.set("e", new Uint8Array(25)); // 110: b goes
  assertEquals(["a", "b", "c", "d", "e"].map((k) => cache.get(k) !== undefined), [
    true,
    false,
    true,
    true,
    true,
  ]);
});

Deno.test("[lru] a value over a quarter of the budget is not kept; replacing a key counts once", () => {
  const cache = new ByteLru<{ bytes: number }, number>(100);
  cache.set(1, { bytes: 26 });
  assertEquals(cache.get(1), undefined);
  cache.set(2, { bytes: 25 });
  cache.set(2, { bytes: 25 });
  cache.set(3, { bytes: 25 });
  cache.set(4, { bytes: 25 });
  cache.set(5, { bytes: 25 });
  assertEquals([2, 3, 4, 5].map((k) => cache.get(k)?.bytes), [25, 25, 25, 25]);
});
