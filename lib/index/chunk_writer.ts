/**
 * Writing the flat files a database is read in place from: large chunks,
 * sections at multiples of 8 bytes.
 *
 * @module
 */

/** Rounds up to a multiple of 8. */
export function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** Bytes written to the file at a time. */
const WRITE_CHUNK = 8 * 1024 * 1024;

/**
 * A file written from the start in large chunks: what the maps of a
 * database (`index_map.ts`, `record_map.ts`) are written through.
 */
export class ChunkWriter {
  readonly #file: Deno.FsFile;
  readonly #buffer = new Uint8Array(WRITE_CHUNK);
  #used = 0;
  /** Bytes appended so far. */
  written = 0;
  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Appends `bytes`. */
  write(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      const n = Math.min(bytes.length - from, WRITE_CHUNK - this.#used);
      this.#buffer.set(bytes.subarray(from, from + n), this.#used);
      this.#used += n;
      from += n;
      if (this.#used === WRITE_CHUNK) this.flush();
    }
    this.written += bytes.length;
  }

  /** Zero bytes up to the next multiple of 8. */
  pad(): void {
    const gap = align8(this.written) - this.written;
    if (gap > 0) this.write(new Uint8Array(gap));
  }

  /** Writes out what is buffered. */
  flush(): void {
    let at = 0;
    while (at < this.#used) at += this.#file.writeSync(this.#buffer.subarray(at, this.#used));
    this.#used = 0;
  }
}

/**
 * Writes the file at `path` whole or not at all: `write` fills a temporary
 * file beside it (`<path>.partial`), which is synced and renamed over
 * `path` once `write` returns; when it throws, the temporary file is
 * removed and the error passed on. Returns the file's size in bytes.
 *
 * @example
 * ```ts
 * writeWhole("data/x.map", (file) => new ChunkWriter(file).write(new Uint8Array(8)));
 * ```
 */
export function writeWhole(path: string, write: (file: Deno.FsFile) => void): number {
  const temp = `${path}.partial`;
  const file = Deno.openSync(temp, { write: true, create: true, truncate: true });
  let bytes: number;
  try {
    write(file);
    file.syncSync();
    bytes = file.statSync().size;
  } catch (error) {
    file.close();
    try {
      Deno.removeSync(temp);
    } catch { /* never written */ }
    throw error;
  }
  file.close();
  Deno.renameSync(temp, path);
  return bytes;
}
