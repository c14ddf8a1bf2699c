/**
 * Reading a file as a stream of large chunks: a CSV parser's work per
 * chunk is fixed, and `file.readable`'s 64 KB chunks cost more in
 * overhead than 1 MB ones.
 *
 * @module
 */

/** The size of the chunks {@linkcode byteRange} reads. */
export const CHUNK_BYTES = 1 << 20;

/**
 * The bytes `start` to `end` of an open file, in chunks of 1 MB; the file
 * is not closed.
 *
 * @example
 * ```ts
 * using file = await Deno.open("npidata_pfile.csv");
 * for await (const chunk of byteRange(file, 0, (await file.stat()).size)) console.log(chunk.length);
 * ```
 */
export function byteRange(
  file: Deno.FsFile,
  start: number,
  end: number,
): ReadableStream<Uint8Array> {
  let at = start;
  return new ReadableStream({
    async start() {
      await file.seek(start, Deno.SeekMode.Start);
    },
    async pull(controller) {
      if (at >= end) {
        controller.close();
        return;
      }
      const buffer = new Uint8Array(Math.min(CHUNK_BYTES, end - at));
      const n = await file.read(buffer);
      if (n === null || n === 0) {
        controller.close();
        return;
      }
      at += n;
      controller.enqueue(n === buffer.length ? buffer : buffer.subarray(0, n));
    },
  });
}
