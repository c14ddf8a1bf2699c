/**
 * The ring of texts kept outside the heap: what comes back is what was kept
 * last for its key, whole, through every lap of the ring; the oldest go
 * first unless read again; nothing outgrows the budget.
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import { hashKey, TextRing } from "../lib/text_ring.ts";
import { Rng } from "../lib/demo/prng.ts";

/** What an entry takes in the ring besides its text's bytes. */
const HEADER = 8;

Deno.test("[text ring] texts come back whole, ASCII or not, the latest kept for a key", () => {
  const ring = new TextRing(1 << 16);
  const texts = ['{"npi":"1234567893"}', "Peña Muñoz", "北京 клиника", "🩺 care", ""];
  texts.forEach((text, key) => ring.set(key, text));
  texts.forEach((text, key) => assertEquals(ring.get(key), text));
  ring.set(1, "second");
  assertEquals(ring.get(1), "second");
  // A lead and a text are kept as one, ASCII or not in either.
  ring.set(7, "body", "key\u0000");
  ring.set(8, "corps", "clé\u0000");
  ring.set(9, "Muñoz", "k\u0000");
  assertEquals([ring.get(7), ring.get(8), ring.get(9)], [
    "key\u0000body",
    "clé\u0000corps",
    "k\u0000Muñoz",
  ]);
  assertEquals(ring.get(99), undefined);
  assertEquals([ring.size, ring.hits, ring.misses], [8, 9, 1]);
});

Deno.test("[text ring] bytes are kept as they are, after a lead, and read back as bytes or text", () => {
  const ring = new TextRing(1 << 16);
  const utf8 = (text: string) => new TextEncoder().encode(text);
  ring.set(1, utf8("Peña 🩺"));
  ring.set(2, utf8("body"), "clé\u0000"); // a lead longer in bytes than in characters
  ring.set(3, new Uint8Array([0xff, 0, 7])); // not UTF-8: kept byte for byte
  assertEquals(ring.getBytes(1), utf8("Peña 🩺"));
  assertEquals(ring.get(1), "Peña 🩺");
  assertEquals(ring.getBytes(2), utf8("clé\u0000body"));
  assertEquals(ring.getBytes(3), new Uint8Array([0xff, 0, 7]));
  // A copy: changing it leaves the ring's bytes alone.
  const copy = ring.getBytes(1)!;
  copy.fill(0);
  assertEquals(ring.getBytes(1), utf8("Peña 🩺"));
  assertEquals(ring.getBytes(4), undefined);
  // Bytes over the share are not kept, nor what the key held before.
  const small = new TextRing(1_000);
  small.set(5, utf8("x"));
  small.set(5, new Uint8Array(250 - HEADER + 1));
  assertEquals(small.getBytes(5), undefined);
});

Deno.test("[text ring] the oldest go first, a text read in the older half stays, none over its share", () => {
  // 100 bytes an entry (8 + 92): ten fill the ring.
  const ring = new TextRing(1_000);
  const text = (k: number) => String(k).padEnd(92, ".");
  for (let k = 0; k < 10; k++) ring.set(k, text(k));
  assertEquals(ring.size, 10);
  ring.set(10, text(10));
  assertEquals([ring.has(0), ring.has(1), ring.has(10)], [false, true, true]);
  // Key 1 is now the oldest and older than half the ring: read, it is written again at the head.
  assertEquals(ring.get(1), text(1));
  for (let k = 11; k < 16; k++) ring.set(k, text(k));
  assert(ring.has(1), "read again, kept");
  for (const k of [2, 3, 4, 5, 6]) assert(!ring.has(k), `${k} not read, gone`);
  assertEquals(ring.get(1), text(1));
  // A quarter of the ring at most (the default share).
  ring.set(20, "x".repeat(1_000 / 4 - HEADER + 1));
  assert(!ring.has(20));
  ring.set(21, "x".repeat(1_000 / 4 - HEADER));
  assert(ring.has(21));
  // Three bytes a character do not fit where one did: not kept either, nor what was kept before.
  ring.set(21, "€".repeat(100));
  assert(!ring.has(21));
});

Deno.test("[text ring] off at 0; a budget it cannot count ages in is refused", () => {
  const off = new TextRing(0);
  off.set(1, "a");
  assertEquals(off.get(1), undefined);
  assertThrows(() => new TextRing(2 ** 31), RangeError, "budget");
  assertThrows(() => new TextRing(-1), RangeError, "budget");
});

Deno.test("[text ring] many laps of mixed sizes and reads: every text found is the last kept, the newest always found", () => {
  const rng = new Rng(7);
  const budget = 4_096;
  const ring = new TextRing(budget);
  const last = new Map<number, string>();
  const order: number[] = [];
  let found = 0;
  for (let step = 0; step < 20_000; step++) {
    const key = rng.int(20);
    if (rng.chance(0.4)) {
      const got = ring.get(key);
      if (got !== undefined) {
        found++;
        assertEquals(got, last.get(key), `key ${key} at step ${step}`);
      }
      continue;
    }
    const size = rng.int(budget / 4 - HEADER);
    const text = `${key}:${step}:`.padEnd(size, rng.chance(0.2) ? "é" : "a").slice(0, size);
    ring.set(key, text);
    if (ring.has(key)) {
      last.set(key, text);
      order.push(key);
    } else last.delete(key);
    // The last texts written (a quarter of the ring at most, each) are all there.
    const recent = new Set(order.slice(-2));
    for (const k of recent) assertEquals(ring.get(k), last.get(k), `recent key ${k}`);
  }
  assert(found > 1_000, `texts were found (${found})`);
  assert(ring.size <= budget / HEADER);
});

Deno.test("[text ring] hashKey: a small integer, the same for the same text", () => {
  const keys = ["", "a", "b", "/v1/providers/search?q=smith", "/v1/providers/search?q=smitj"];
  for (const k of keys) {
    const h = hashKey(k);
    assert(Number.isInteger(h) && h >= 0 && h < 2 ** 30, `${h}`);
    assertEquals(hashKey(k), h);
  }
  assertEquals(new Set(keys.map(hashKey)).size, keys.length);
});
