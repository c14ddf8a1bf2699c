/** The in-memory posting buffer and its string table, checked against plain maps. */
import { assertEquals, assertThrows } from "@std/assert";
import { seededRandom } from "./_utils.ts";
import { PostingBuffer } from "../lib/index/postings.ts";
import { hashString, TermTable } from "../lib/index/term_table.ts";

/** `count` random short words over a small alphabet, so that many repeat. */
function randomWords(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  const letters = "abcdeéz'";
  return Array.from({ length: count }, () => {
    let word = "";
    const length = 1 + Math.floor(next() * 4);
    for (let i = 0; i < length; i++) word += letters[Math.floor(next() * letters.length)];
    return word;
  });
}

Deno.test("[term table] numbers strings in first-seen order, through growth and collisions", () => {
  const table = new TermTable(4);
  const want = new Map<string, number>();
  for (const word of randomWords(20_000, 1)) {
    if (!want.has(word)) want.set(word, want.size);
    assertEquals(table.number(word), want.get(word), word);
  }
  assertEquals(table.size, want.size);
  assertEquals(table.terms, [...want.keys()]);
  // Two strings with the same hash stay apart.
  assertEquals(hashString("w4pvu"), hashString("wb3ea"));
  const pair = new TermTable();
  assertEquals([pair.number("w4pvu"), pair.number("wb3ea"), pair.number("w4pvu")], [0, 1, 0]);
  table.clear();
  assertEquals(table.size, 0);
  assertEquals(table.number("zz"), 0);
});

Deno.test("[term table] the hash is FNV-1a over UTF-16 code units", () => {
  assertEquals(hashString("") >>> 0, 0x811c9dc5);
  assertEquals(hashString("a") >>> 0, 0xe40c292c);
  assertEquals(hashString("foobar") >>> 0, 0xbf9cf968);
});

Deno.test("[postings] drains each field's terms in order with their seqs as added", () => {
  const buffer = new PostingBuffer([1, 4, 2]);
  const want = new Map<number, Map<string, number[]>>([[1, new Map()], [2, new Map()]]);
  const next = seededRandom(7);
  const words = randomWords(5000, 2);
  words.forEach((word, k) => {
    const field = next() < 0.5 ? 1 : 2;
    const seq = 1 + Math.floor(next() * 300);
    buffer.add(field, word, seq);
    const lists = want.get(field)!;
    lists.set(word, [...(lists.get(word) ?? []), seq]);
    assertEquals(buffer.size, k + 1);
  });
  const drained = [...buffer.drain()].map(([field, lists]) =>
    [field, lists.map(([term, seqs]) => [term, [...seqs]])] as const
  );
  const sorted = (lists: Map<string, number[]>) =>
    [...lists].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // Field 4 had no terms: skipped.
  assertEquals(drained, [[1, sorted(want.get(1)!)], [2, sorted(want.get(2)!)]]);
  assertEquals(buffer.size, 0);
  // Drained means empty, and usable again.
  assertEquals([...buffer.drain()], []);
  buffer.add(4, "x", 3);
  assertEquals([...buffer.drain()].map(([f, l]) => [f, l.map(([t, s]) => [t, [...s]])]), [
    [4, [["x", [3]]]],
  ]);
});

Deno.test("[postings] rejects a field it does not hold", () => {
  const buffer = new PostingBuffer([1]);
  assertThrows(() => buffer.add(3, "smith", 1), RangeError, "Field 3 has no posting lists");
  assertEquals(buffer.size, 0);
});
