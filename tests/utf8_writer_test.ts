/**
 * The writer of UTF-8 bodies: what is taken is every text written since,
 * as UTF-8, in its own buffer, whatever the buffer had to grow through.
 */
import { assertEquals, assertNotStrictEquals } from "@std/assert";
import { Utf8Writer } from "../lib/text/utf8_writer.ts";
import { Rng } from "../lib/demo/prng.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

Deno.test("[utf8 writer] texts come out as UTF-8 in the order written, the writer empty after", () => {
  const out = new Utf8Writer(16);
  out.write('{"name":"');
  out.write("Peña Muñoz 🩺 北京");
  out.write('"}');
  assertEquals(out.length, utf8('{"name":"Peña Muñoz 🩺 北京"}').length);
  assertEquals(out.take(), utf8('{"name":"Peña Muñoz 🩺 北京"}'));
  assertEquals(out.length, 0);
  assertEquals(out.take(), new Uint8Array(0));
  out.write("");
  out.write("again");
  assertEquals(out.take(), utf8("again"));
});

Deno.test("[utf8 writer] growing through many buffers, each taking its own copy", () => {
  const rng = new Rng(11);
  const pieces = ["a", "ñ", "€", "🩺", '"', "\u0000", "abcdefghij".repeat(30)];
  const out = new Utf8Writer(16);
  const taken: Uint8Array[] = [];
  const expected: string[] = [];
  for (let body = 0; body < 20; body++) {
    let text = "";
    for (let i = rng.int(400); i > 0; i--) {
      const piece = rng.pick(pieces).repeat(1 + rng.int(5));
      out.write(piece);
      text += piece;
    }
    taken.push(out.take());
    expected.push(text);
  }
  // Taken earlier, still whole after later bodies reused the writer's buffer.
  taken.forEach((bytes, i) => assertEquals(bytes, utf8(expected[i]!), `body ${i}`));
  assertNotStrictEquals(taken[0]!.buffer, taken[1]!.buffer);
  assertEquals(taken[0]!.byteLength, taken[0]!.buffer.byteLength, "a buffer of its own, no larger");
});
