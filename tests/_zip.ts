/**
 * A small zip writer for test fixtures: stored or deflated entries, with or
 * without data descriptors, no ZIP64, no encryption.
 *
 * @module
 */

/**
 * One file of the archive.
 *
 * @example
 * ```ts
 * const file: ZipFile = { name: "xl/workbook.xml", data: "<workbook/>", method: 0 };
 * ```
 */
export interface ZipFile {
  /** The path inside the archive, e.g. `xl/workbook.xml`. */
  name: string;
  /** The content; strings are written as UTF-8. */
  data: string | Uint8Array;
  /** 0 stores the content, 8 (the default) deflates it. */
  method?: 0 | 8;
  /**
   * Writes sizes and CRC after the data (flag bit 3), leaving zeros in the
   * local header, as streaming zip writers do.
   */
  dataDescriptor?: boolean;
  /** Extra general-purpose flag bits, e.g. 1 to mark the entry encrypted. */
  extraFlags?: number;
}

/** The CRC-32 (IEEE) of `data`, bit by bit. */
function crc32(data: Uint8Array): number {
  let crc = ~0;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** Deflates `data` without a zlib header. */
async function deflateRaw(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Little-endian byte writer. */
class Bytes {
  #parts: number[] = [];
  u16(value: number): this {
    this.#parts.push(value & 0xff, (value >>> 8) & 0xff);
    return this;
  }
  u32(value: number): this {
    return this.u16(value & 0xffff).u16(value >>> 16);
  }
  bytes(data: Uint8Array): this {
    for (const byte of data) this.#parts.push(byte);
    return this;
  }
  get length(): number {
    return this.#parts.length;
  }
  toUint8Array(): Uint8Array {
    return new Uint8Array(this.#parts);
  }
}

/**
 * Builds a zip archive.
 *
 * @example
 * ```ts
 * const zip = await makeZip([{ name: "a.txt", data: "hello", method: 0 }]);
 * ```
 */
export async function makeZip(files: ZipFile[]): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const out = new Bytes();
  const central = new Bytes();
  for (const file of files) {
    const name = encoder.encode(file.name);
    const data = typeof file.data === "string" ? encoder.encode(file.data) : file.data.slice();
    const method = file.method ?? 8;
    const stored = method === 0 ? data : await deflateRaw(data);
    const crc = crc32(data);
    const flags = 0x0800 | (file.dataDescriptor ? 0x0008 : 0) | (file.extraFlags ?? 0);
    const offset = out.length;
    const [localCrc, localCompressed, localSize] = file.dataDescriptor
      ? [0, 0, 0]
      : [crc, stored.length, data.length];
    out.u32(0x04034b50).u16(20).u16(flags).u16(method).u16(0).u16(0x21)
      .u32(localCrc).u32(localCompressed).u32(localSize).u16(name.length).u16(0)
      .bytes(name).bytes(stored);
    if (file.dataDescriptor) {
      out.u32(0x08074b50).u32(crc).u32(stored.length).u32(data.length);
    }
    central.u32(0x02014b50).u16(20).u16(20).u16(flags).u16(method).u16(0).u16(0x21)
      .u32(crc).u32(stored.length).u32(data.length).u16(name.length).u16(0).u16(0)
      .u16(0).u16(0).u32(0).u32(offset).bytes(name);
  }
  const directoryOffset = out.length;
  out.bytes(central.toUint8Array());
  out.u32(0x06054b50).u16(0).u16(0).u16(files.length).u16(files.length)
    .u32(central.length).u32(directoryOffset).u16(0);
  return out.toUint8Array();
}
