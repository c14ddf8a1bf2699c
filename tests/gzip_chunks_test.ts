/**
 * Pieces deflated apart join into one gzip stream any reader takes: the
 * CRC-32 combination against zlib's over random splits, and whole streams
 * (empty, one piece, many, large and multi-byte text) decompressed by
 * `node:zlib` and `DecompressionStream`.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { crc32, gunzipSync } from "node:zlib";
import { crc32Combine, GzipJoiner, textChunk } from "../lib/http/gzip_chunks.ts";
import { seededRandom } from "./_utils.ts";

const random = seededRandom(2026);
const encoder = new TextEncoder();

function randomText(length: number): string {
  const alphabet = 'abc ,"\n\\é€😀0123456789{}[]';
  const chars = Array.from(alphabet);
  let out = "";
  for (let i = 0; i < length; i++) out += chars[Math.floor(random() * chars.length)];
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

Deno.test("[gzip chunks] crc32Combine gives zlib's CRC of the joined bytes", () => {
  for (let round = 0; round < 200; round++) {
    const whole = encoder.encode(randomText(Math.floor(random() * 5000)));
    const cut = Math.floor(random() * (whole.byteLength + 1));
    const a = whole.subarray(0, cut), b = whole.subarray(cut);
    assertEquals(crc32Combine(crc32(a), crc32(b), b.byteLength), crc32(whole) >>> 0);
  }
  assertEquals(crc32Combine(0, 0, 0), 0);
});

Deno.test("[gzip chunks] pieces at any level join into one stream with the same text", async () => {
  for (const pieces of [0, 1, 2, 7, 40]) {
    const texts = Array.from({ length: pieces }, () => randomText(Math.floor(random() * 20_000)));
    const gzip = new GzipJoiner();
    const parts = texts.map((t) => gzip.add(textChunk(t, 1 + Math.floor(random() * 9))));
    parts.push(gzip.end());
    const body = concat(parts);
    const expected = texts.join("");
    assertEquals(new TextDecoder().decode(gunzipSync(body)), expected);
    const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip"));
    assertEquals(await new Response(stream).text(), expected);
  }
});

Deno.test("[gzip chunks] without a level the text is UTF-8 as it is", () => {
  const chunk = textChunk("é\n", null);
  assertEquals(chunk.bytes, encoder.encode("é\n"));
  assertEquals(chunk.size, 3);
});
