/**
 * A minimal .xlsx reader, enough for the monthly NPPES deactivation report:
 * the rows of the first worksheet, as strings. It reads the ZIP container
 * itself (stored and deflated entries) and scans the machine-written XML
 * parts with regular expressions; it does not evaluate formulas or apply
 * number formats, so a date stored as a number comes back as its serial
 * number (see {@linkcode excelSerialToIsoDate}).
 *
 * @module
 */

const REMEDY =
  "open it in a spreadsheet program and export it as CSV with columns NPI,date instead";
const DOWNLOAD_AGAIN = `download it again, or ${REMEDY}`;

/** The default location of the first worksheet. */
const SHEET1 = "xl/worksheets/sheet1.xml";

/** The largest serial number Excel accepts: 9999-12-31. */
const MAX_SERIAL = 2958465;
const DAY_MS = 86_400_000;

/** An error about the workbook, saying what is wrong and what to do. */
function xlsxError(problem: string, remedy: string = REMEDY): Error {
  return new Error(`Cannot read xlsx: ${problem}; ${remedy}`);
}

/**
 * Reads every row of the first worksheet of an .xlsx workbook, in order.
 *
 * Cells are placed by their reference (`C5` goes to index 2), missing cells
 * are `""`, so a row is as long as its last present cell. Rows without any
 * cell are left out. Values are strings: shared and inline strings as
 * written, numbers as stored (`"45000"`, `"1.5E-3"`), booleans as `"TRUE"`
 * or `"FALSE"`, formula results as cached.
 *
 * Throws an `Error` naming the problem when the bytes are not a readable
 * workbook (not a zip, truncated, ZIP64, encrypted, parts missing).
 *
 * @example
 * ```ts
 * const rows = await readXlsxRows(await Deno.readFile("NPPES_Deactivated_NPI_Report.xlsx"));
 * // [["NPPES Deactivated NPI Report 20250609"], ["NPI", "NPPES Deactivation Date"],
 * //  ["1003000142", "05/12/2008"], ...]
 * ```
 */
export async function readXlsxRows(bytes: Uint8Array): Promise<string[][]> {
  const zip = readZip(bytes);
  const workbook = zip.find("xl/workbook.xml");
  const relations = zip.find("xl/_rels/workbook.xml.rels");
  const rels = relations ? parseRelationships(decodeXml(await zip.extract(relations))) : [];

  let sheetPath: string | undefined;
  if (workbook) {
    const id = firstSheetRelationId(decodeXml(await zip.extract(workbook)));
    const target = rels.find((rel) => rel.id === id);
    if (target) sheetPath = resolvePart("xl/", target.target);
  }
  const sheet = (sheetPath ? zip.find(sheetPath) : undefined) ?? zip.find(SHEET1);
  if (!sheet) {
    if (!workbook) {
      const inner = zip.names().find((name) => /\.xlsx$/i.test(name));
      if (inner) {
        throw xlsxError(
          `'xl/workbook.xml' is missing: this is a zip holding '${inner}'`,
          `extract '${inner}' from it and read that, or ${REMEDY}`,
        );
      }
      throw xlsxError(`'xl/workbook.xml' is missing, so this zip is not a workbook`);
    }
    throw xlsxError(`the first worksheet '${sheetPath ?? SHEET1}' is missing`);
  }

  const sharedRel = rels.find((rel) => /\/sharedStrings$/.test(rel.type));
  const sharedEntry = (sharedRel ? zip.find(resolvePart("xl/", sharedRel.target)) : undefined) ??
    zip.find("xl/sharedStrings.xml");
  const shared = sharedEntry ? parseSharedStrings(decodeXml(await zip.extract(sharedEntry))) : [];
  return parseSheet(decodeXml(await zip.extract(sheet)), shared, sheet.name);
}

/**
 * Converts an Excel serial date number (1900 date system) to `YYYY-MM-DD`.
 * A time of day (the fraction) is dropped. Like Excel, serial 60 stands for
 * the 29 February 1900 that never was: it is rejected.
 *
 * @example
 * ```ts
 * excelSerialToIsoDate(45000); // "2023-03-15"
 * excelSerialToIsoDate(1); // "1900-01-01"
 * ```
 */
export function excelSerialToIsoDate(serial: number): string {
  // Round to the millisecond first, so 44999.99999999999 is still 45000.
  const days = Math.floor(Math.round(serial * DAY_MS) / DAY_MS);
  if (!(days >= 1 && days <= MAX_SERIAL)) {
    throw new RangeError(
      `Cannot convert Excel serial '${serial}' to a date: must be from 1 to ${MAX_SERIAL}`,
    );
  }
  if (days === 60) {
    throw new RangeError(
      "Cannot convert Excel serial '60' to a date: it stands for 1900-02-29, which does not exist",
    );
  }
  // Excel counts 1900 as a leap year: from serial 61 on, day 0 is 1899-12-30.
  const offset = days < 60 ? days + 1 : days;
  return new Date(Date.UTC(1899, 11, 30) + offset * DAY_MS).toISOString().slice(0, 10);
}

// --- ZIP container -------------------------------------------------------

/** An entry of the central directory. */
interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** The entries of a zip archive, extracted on demand. */
interface Zip {
  /** The entry called `name`, compared exactly, then ignoring case. */
  find(name: string): ZipEntry | undefined;
  /** Every entry name, in directory order. */
  names(): string[];
  /** The entry's content, inflated and checked. */
  extract(entry: ZipEntry): Promise<Uint8Array>;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;

/** Reads the central directory of a zip archive. */
function readZip(bytes: Uint8Array): Zip {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.length;
  const u16 = (at: number): number => view.getUint16(at, true);
  const u32 = (at: number): number => view.getUint32(at, true);
  const startsWithZip = length >= 4 && u32(0) === SIG_LOCAL;

  // The end-of-central-directory record: 22 bytes plus a comment of at most
  // 65,535 bytes, at the very end.
  let end = -1;
  for (let at = length - 22; at >= 0 && at >= length - 22 - 0xffff; at--) {
    if (u32(at) === SIG_END && at + 22 + u16(at + 20) <= length) {
      end = at;
      break;
    }
  }
  if (end === -1) {
    if (startsWithZip) {
      throw xlsxError(
        "the zip has no end-of-central-directory record, so it is truncated",
        DOWNLOAD_AGAIN,
      );
    }
    if (length >= 4 && u32(0) === 0xe011cfd0) {
      throw xlsxError("this is an old binary .xls workbook, not an .xlsx (a zip)");
    }
    throw xlsxError("this is not a zip archive, which an .xlsx file is");
  }
  if (u16(end + 4) !== 0 || u16(end + 6) !== 0) {
    throw xlsxError("split (multi-disk) zip archives are not supported");
  }
  const count = u16(end + 10);
  const directorySize = u32(end + 12);
  const directoryOffset = u32(end + 16);
  if (
    count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff ||
    (end >= 20 && u32(end - 20) === SIG_ZIP64_LOCATOR)
  ) {
    throw xlsxError("ZIP64 archives are not supported");
  }
  if (directoryOffset + directorySize > end) {
    throw xlsxError("the zip's central directory lies outside the file", DOWNLOAD_AGAIN);
  }

  const entries: ZipEntry[] = [];
  const nameDecoder = new TextDecoder();
  let at = directoryOffset;
  const directoryEnd = directoryOffset + directorySize;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directoryEnd || u32(at) !== SIG_CENTRAL) {
      throw xlsxError(`the zip's central directory is corrupt at entry ${i + 1}`, DOWNLOAD_AGAIN);
    }
    const nameLength = u16(at + 28);
    const next = at + 46 + nameLength + u16(at + 30) + u16(at + 32);
    if (next > directoryEnd) {
      throw xlsxError(`the zip's central directory is corrupt at entry ${i + 1}`, DOWNLOAD_AGAIN);
    }
    entries.push({
      name: nameDecoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      flags: u16(at + 8),
      method: u16(at + 10),
      crc: u32(at + 16),
      compressedSize: u32(at + 20),
      size: u32(at + 24),
      localOffset: u32(at + 42),
    });
    at = next;
  }

  const byName = new Map<string, ZipEntry>();
  const byLowerName = new Map<string, ZipEntry>();
  for (const entry of entries) {
    if (!byName.has(entry.name)) byName.set(entry.name, entry);
    const lower = entry.name.toLowerCase();
    if (!byLowerName.has(lower)) byLowerName.set(lower, entry);
  }

  return {
    find: (name) => byName.get(name) ?? byLowerName.get(name.toLowerCase()),
    names: () => entries.map((entry) => entry.name),
    async extract(entry) {
      const { name } = entry;
      if (entry.flags & 0x41 || entry.method === 99) {
        throw xlsxError(
          `'${name}' is encrypted`,
          `save the workbook without a password, or ${REMEDY}`,
        );
      }
      if (
        entry.compressedSize === 0xffffffff || entry.size === 0xffffffff ||
        entry.localOffset === 0xffffffff
      ) {
        throw xlsxError("ZIP64 archives are not supported");
      }
      const local = entry.localOffset;
      if (local + 30 > length || u32(local) !== SIG_LOCAL) {
        throw xlsxError(`the zip's local header of '${name}' is missing`, DOWNLOAD_AGAIN);
      }
      // Sizes come from the central directory: with a data descriptor
      // (flag bit 3) the local header holds zeros.
      const start = local + 30 + u16(local + 26) + u16(local + 28);
      const stop = start + entry.compressedSize;
      if (stop > length) throw xlsxError(`'${name}' is cut short`, DOWNLOAD_AGAIN);
      let data: Uint8Array;
      if (entry.method === 0) {
        if (entry.compressedSize !== entry.size) {
          throw xlsxError(`'${name}' is stored with inconsistent sizes`, DOWNLOAD_AGAIN);
        }
        data = bytes.subarray(start, stop);
      } else if (entry.method === 8) {
        // A copy: the stream wants a buffer of its own (never a shared one).
        data = await inflateRaw(bytes.slice(start, stop), entry.size, name);
      } else {
        throw xlsxError(
          `'${name}' uses compression method ${entry.method}, which is not supported`,
        );
      }
      if (crc32(data) !== entry.crc) {
        throw xlsxError(`'${name}' is corrupt (its CRC-32 does not match)`, DOWNLOAD_AGAIN);
      }
      return data;
    },
  };
}

/** Inflates raw deflate data that must come to exactly `size` bytes. */
async function inflateRaw(
  raw: Uint8Array<ArrayBuffer>,
  size: number,
  name: string,
): Promise<Uint8Array> {
  const stream = new DecompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  // Errors surface on the reading side; these promises only need handling.
  writer.write(raw).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > size) {
        await reader.cancel().catch(() => {});
        throw xlsxError(`'${name}' inflates to more than its stated ${size} bytes`, DOWNLOAD_AGAIN);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("Cannot read xlsx:")) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw xlsxError(`'${name}' cannot be inflated (${detail})`, DOWNLOAD_AGAIN);
  }
  if (total !== size) {
    throw xlsxError(`'${name}' inflates to ${total} bytes instead of ${size}`, DOWNLOAD_AGAIN);
  }
  if (chunks.length === 1) return chunks[0]!;
  const data = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    data.set(chunk, offset);
    offset += chunk.length;
  }
  return data;
}

let crcTable: Uint32Array | undefined;

/** The CRC-32 (IEEE) of `data`, as zip uses it. */
function crc32(data: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  const table = crcTable;
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// --- XML parts -----------------------------------------------------------

/** Decodes an XML part: UTF-8 unless it starts with a UTF-16 byte order mark. */
function decodeXml(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  return new TextDecoder().decode(bytes);
}

/** An optional namespace prefix before an element name, as in `<x:row>`. */
const NS = String.raw`(?:[\w.-]+:)?`;

/**
 * Matches `<name ...>content</name>` or `<name .../>`, capturing 1 the
 * attributes and 2 the content.
 */
function elementPattern(name: string, flags = ""): RegExp {
  return new RegExp(`<${NS}${name}\\b([^>]*?)(?:/>|>([\\s\\S]*?)</${NS}${name}\\s*>)`, flags);
}

const ROW = elementPattern("row", "g");
const CELL = elementPattern("c", "g");
const SI = elementPattern("si", "g");
const T = elementPattern("t", "g");
const RPH = elementPattern("rPh", "g");
const V = elementPattern("v");
const IS = elementPattern("is");
const SHEET_DATA = elementPattern("sheetData");
const SHEET = new RegExp(`<${NS}sheet\\b([^>]*)>`);
const RELATIONSHIP = new RegExp(`<${NS}Relationship\\b([^>]*)>`, "g");
const ATTRIBUTE = /([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));/g;
const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};
const OOXML_ESCAPE = /_x([0-9a-fA-F]{4})_/g;

/** The attributes of a start tag, by name as written (prefix included). */
function attributes(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const match of text.matchAll(ATTRIBUTE)) {
    result.set(match[1]!, decodeEntities(match[2] ?? match[3] ?? ""));
  }
  return result;
}

/**
 * The value of the attribute `name` in the start-tag text `tag`, or
 * undefined. Faster than {@linkcode attributes} for the per-cell lookups; it
 * assumes no attribute value contains ` name=`, true of the row and cell
 * attributes of SpreadsheetML.
 */
function attribute(tag: string, name: string): string | undefined {
  for (let i = tag.indexOf(name); i !== -1; i = tag.indexOf(name, i + name.length)) {
    const before = i === 0 ? 0x20 : tag.charCodeAt(i - 1);
    if (before !== 0x20 && before !== 0x09 && before !== 0x0a && before !== 0x0d) continue;
    let j = i + name.length;
    while (tag.charCodeAt(j) <= 0x20) j++;
    if (tag.charCodeAt(j) !== 0x3d) continue; // "="
    j++;
    while (tag.charCodeAt(j) <= 0x20) j++;
    const quote = tag[j];
    if (quote !== '"' && quote !== "'") continue;
    const end = tag.indexOf(quote, j + 1);
    if (end === -1) return undefined;
    return decodeEntities(tag.slice(j + 1, end));
  }
  return undefined;
}

/** Replaces the XML entities and character references in `text`. */
function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(
    ENTITY,
    (match: string, decimal?: string, hex?: string, name?: string): string => {
      if (name) return NAMED_ENTITIES[name] ?? match;
      const code = decimal ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? "", 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    },
  );
}

/** The text of a string item (`<si>` or `<is>`): its `<t>`, or its runs' `<t>`s. */
function stringItemText(content: string): string {
  // Phonetic runs (`<rPh>`) are reading aids, not part of the text.
  const body = content.includes("rPh") ? content.replace(RPH, "") : content;
  let text = "";
  for (const match of body.matchAll(T)) text += match[2] ?? "";
  return unescapeText(text);
}

/** Decodes entities, then the `_xHHHH_` escapes Office uses for control characters. */
function unescapeText(text: string): string {
  const decoded = decodeEntities(text);
  if (!decoded.includes("_x")) return decoded;
  return decoded.replace(
    OOXML_ESCAPE,
    (_match: string, hex: string): string => String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** A relationship of `xl/_rels/workbook.xml.rels`. */
interface Relationship {
  id: string;
  type: string;
  target: string;
}

function parseRelationships(xml: string): Relationship[] {
  const result: Relationship[] = [];
  for (const match of xml.matchAll(RELATIONSHIP)) {
    const attrs = attributes(match[1]!);
    if (attrs.get("TargetMode") === "External") continue;
    result.push({
      id: attrs.get("Id") ?? "",
      type: attrs.get("Type") ?? "",
      target: attrs.get("Target") ?? "",
    });
  }
  return result;
}

/** The relationship id (`r:id`) of the first `<sheet>` of the workbook. */
function firstSheetRelationId(xml: string): string | undefined {
  const match = SHEET.exec(xml);
  if (!match) return undefined;
  for (const [name, value] of attributes(match[1]!)) {
    if (/^[\w.-]+:id$/.test(name)) return value;
  }
  return undefined;
}

/** Resolves a relationship target against the folder `base` (e.g. `xl/`). */
function resolvePart(base: string, target: string): string {
  const path = target.startsWith("/") ? target.slice(1) : base + target;
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

function parseSharedStrings(xml: string): string[] {
  const result: string[] = [];
  for (const match of xml.matchAll(SI)) result.push(stringItemText(match[2] ?? ""));
  return result;
}

/** The 0-based column of a cell reference such as `C5`, or -1. */
function columnIndex(ref: string): number {
  let column = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower case
    if (c < 0x61 || c > 0x7a) break;
    column = column * 26 + (c - 0x60);
  }
  return i === 0 || i > 3 ? -1 : column - 1;
}

/** The rows of a worksheet part. */
function parseSheet(xml: string, shared: string[], part: string): string[][] {
  const data = SHEET_DATA.exec(xml);
  const body = data ? data[2] ?? "" : "";
  const rows: { index: number; cells: string[] }[] = [];
  let sorted = true;
  let lastIndex = 0;
  for (const rowMatch of body.matchAll(ROW)) {
    const index = Number.parseInt(attribute(rowMatch[1]!, "r") ?? "", 10) || lastIndex + 1;
    if (index <= lastIndex) sorted = false;
    lastIndex = index;
    const content = rowMatch[2];
    if (!content) continue;
    const cells: string[] = [];
    let any = false;
    for (const cellMatch of content.matchAll(CELL)) {
      any = true;
      const tag = cellMatch[1]!;
      const ref = attribute(tag, "r");
      const column = ref ? columnIndex(ref) : cells.length;
      if (column < 0) {
        throw xlsxError(`'${part}' has a cell with the invalid reference '${ref}'`);
      }
      const value = cellValue(attribute(tag, "t") ?? "n", cellMatch[2] ?? "", shared, ref, part);
      while (cells.length < column) cells.push("");
      if (column < cells.length) cells[column] = value;
      else cells.push(value);
    }
    if (any) rows.push({ index, cells });
  }
  if (!sorted) rows.sort((a, b) => a.index - b.index);
  return rows.map((row) => row.cells);
}

/** The value of a cell, as a string. */
function cellValue(
  type: string,
  content: string,
  shared: string[],
  ref: string | undefined,
  part: string,
): string {
  if (type === "inlineStr") {
    const inline = IS.exec(content);
    if (inline) return stringItemText(inline[2] ?? "");
  }
  const v = V.exec(content);
  const raw = v ? v[2] ?? "" : "";
  switch (type) {
    case "s": {
      const index = Number(raw.trim());
      const text = Number.isInteger(index) && raw.trim() !== "" ? shared[index] : undefined;
      if (text === undefined) {
        throw xlsxError(
          `cell '${
            ref ?? "?"
          }' of '${part}' refers to shared string '${raw}', which does not exist`,
        );
      }
      return text;
    }
    case "b":
      return raw.trim() === "1" ? "TRUE" : raw.trim() === "0" ? "FALSE" : unescapeText(raw);
    case "n":
      return decodeEntities(raw).trim();
    default: // "str", "e", "d", or a stray "inlineStr" with a <v>
      return unescapeText(raw);
  }
}
