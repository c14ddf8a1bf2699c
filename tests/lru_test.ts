/** The byte-bounded LRU cache: least recently used out first, oversized values never in. */
import { assertEquals } from "@std/assert";
import { ByteLru, ENTRY_BYTES } from "../lib/lru.ts";
import { Rng } from "../lib/demo/prng.ts";

Deno.test("[lru] evicts the least recently used first, by size", () => {
  const cache = new ByteLru<Uint8Array>(100, (v) => v.byteLength, 0);
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
  const cache = new ByteLru<{ bytes: number }, number>(100, undefined, 0);
  cache.set(1, { bytes: 26 });
  assertEquals(cache.get(1), undefined);
  cache.set(2, { bytes: 25 });
  cache.set(2, { bytes: 25 });
  cache.set(3, { bytes: 25 });
  cache.set(4, { bytes: 25 });
  cache.set(5, { bytes: 25 });
  assertEquals([2, 3, 4, 5].map((k) => cache.get(k)?.bytes), [25, 25, 25, 25]);
});

Deno.test("[lru] agrees with a plain model over random gets and sets", () => {
  const rng = new Rng(17);
  const cache = new ByteLru<{ bytes: number }, number>(400, undefined, 0);
  // The model: keys from least to most recently used, with their sizes.
  let model: { key: number; bytes: number }[] = [];
  for (let step = 0; step < 20_000; step++) {
    const key = rng.int(60);
    if (rng.chance(0.5)) {
      const at = model.findIndex((e) => e.key === key);
      const want = at < 0 ? undefined : model[at]!.bytes;
      if (at >= 0) model.push(...model.splice(at, 1));
      assertEquals(cache.get(key)?.bytes, want, `step ${step}: get ${key}`);
    } else {
      const bytes = 1 + rng.int(120);
      cache.set(key, { bytes });
      if (bytes > 100) continue;
      model = model.filter((e) => e.key !== key);
      model.push({ key, bytes });
      let total = model.reduce((sum, e) => sum + e.bytes, 0);
      while (total > 400) total -= model.shift()!.bytes;
    }
    assertEquals(cache.has(key), model.some((e) => e.key === key), `step ${step}: has ${key}`);
  }
});

Deno.test("[lru] entries of empty values count their own cost, so their number is bounded", () => {
  const cache = new ByteLru<Uint32Array>(ENTRY_BYTES * 100, (v) => v.byteLength);
  for (let k = 0; k < 10_000; k++) cache.set(`absent ${k}`, new Uint32Array(0));
  const kept = Array.from({ length: 10_000 }, (_, k) => cache.has(`absent ${k}`));
  assertEquals(kept.filter(Boolean).length, 100, "a hundred entries' worth");
  assertEquals(kept.slice(-100).every(Boolean), true, "the most recent");
});
