/**
 * A streaming RFC 4180 CSV reader, tuned for the NPPES dissemination files
 * (10+ GB, 330 quoted columns a row, mostly empty).
 *
 * Rules, beyond RFC 4180:
 *
 * - A record ends at LF, CRLF or a lone CR; a UTF-8 BOM at the start is
 *   dropped; the last record may lack a line ending.
 * - An empty physical line is not a record: it is skipped, wherever it is, but
 *   still counted for line numbers.
 * - A `"` inside an unquoted field (`ab"c`) is kept as a literal character.
 * - Text after a closing quote (`"abc"x`), a quote left open at the end of the
 *   input, and a record longer than `maxRecordBytes` are malformed: each gives
 *   one {@linkcode CsvBadRow}, then reading goes on at the physical line after
 *   the one where the bad record started (so a stray quote costs one line, not
 *   the rest of the file).
 * - `maxRecordBytes` is compared with the length of the record's decoded text
 *   in UTF-16 code units, line ending excluded; that equals its size in bytes
 *   for ASCII and is never more than it otherwise.
 *
 * Memory stays bounded by the chunk size plus `maxRecordBytes`, whatever the
 * size of the input. Field strings may share memory with the decoded chunk
 * they come from, so keep the rows you need, not the batches.
 *
 * @module
 */

/**
 * A parsed record.
 *
 * @example
 * ```ts
 * const row: CsvRow = { line: 2, fields: ["1003000126", "1"] };
 * ```
 */
export interface CsvRow {
  /** The 1-based physical line where the record starts. */
  line: number;
  /** The field values, unquoted. */
  fields: string[];
}

/**
 * A malformed record, skipped.
 *
 * @example
 * ```ts
 * const bad: CsvBadRow = { line: 7, error: "Unterminated quoted field 3: no closing quote before the end of the input" };
 * ```
 */
export interface CsvBadRow {
  /** The 1-based physical line where the bad record starts. */
  line: number;
  /** What is wrong with it. */
  error: string;
}

/**
 * What {@linkcode readCsv} yields, in batches: a row or a bad row. Tell them
 * apart with `"error" in item`.
 *
 * @example
 * ```ts
 * function describe(item: CsvItem): string {
 *   return "error" in item ? `line ${item.line}: ${item.error}` : item.fields.join("|");
 * }
 * ```
 */
export type CsvItem = CsvRow | CsvBadRow;

/**
 * Options for {@linkcode readCsv}.
 *
 * @example
 * ```ts
 * const options: CsvReadOptions = {
 *   maxRecordBytes: 64 * 1024,
 *   onBytes: (bytesRead) => console.log(`${bytesRead} bytes read`),
 * };
 * ```
 */
export interface CsvReadOptions {
  /**
   * The longest record accepted, line ending excluded (see the module notes
   * on how it is measured); longer ones become bad rows.
   *
   * @default {1048576}
   */
  maxRecordBytes?: number;
  /**
   * Called with the number of bytes read from the source so far, at most once
   * per chunk, before that chunk's items are yielded.
   */
  onBytes?: (bytesRead: number) => void;
  /**
   * Called once the source is read to its end, before the last items are
   * yielded, with the physical line number after the input (one more than
   * its number of lines).
   */
  onEnd?: (nextLine: number) => void;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;
const BATCH_SIZE = 2000;

/** What the parser carries from one chunk of text to the next. */
interface ParserState {
  /** The unparsed start of the current record (or a pending CR). */
  carry: string;
  /** The physical line where `carry` starts. */
  line: number;
  /** Discarding the rest of a bad record's first line. */
  skipping: boolean;
}

/**
 * The records parsed from one chunk of the source, kept as field bounds
 * into the chunk's text: a field becomes a string only when it is asked
 * for, and an empty one never does. What {@linkcode readCsvBatches} yields;
 * one batch object is reused from chunk to chunk, so read what you need
 * before asking for the next.
 *
 * @example
 * ```ts
 * for await (const batch of readCsvBatches(file.readable)) {
 *   for (let i = 0; i < batch.size; i++) {
 *     const error = batch.error(i);
 *     if (error) console.warn(`line ${batch.line(i)}: ${error}`);
 *     else console.log(batch.field(i, 0));
 *   }
 * }
 * ```
 */
export interface CsvBatch {
  /** The number of items: records and bad records. */
  readonly size: number;
  /** The 1-based physical line where item `i` starts. */
  line(i: number): number;
  /** What is wrong with item `i`, or null for a record. */
  error(i: number): string | null;
  /** The number of fields of record `i` (0 for a bad record). */
  width(i: number): number;
  /** Field `k` of record `i` (unchecked: `k` must be below its width). */
  field(i: number, k: number): string;
  /** Record `i` as a read-only list of its fields, cut as they are read. */
  record(i: number): CsvRecord;
  /** The fields of record `i` as strings (none for a bad record). */
  fields(i: number): string[];
  /** Item `i` with its fields as strings. */
  item(i: number): CsvItem;
}

/** The {@linkcode CsvBatch} the parser fills, chunk after chunk. */
class ParsedChunk implements CsvBatch {
  /** The text the fields are cut from. */
  #text = "";
  /** The number of items: records and bad records. */
  size = 0;
  /** Per item: its line, the index of its first field, its number of fields (-1: bad). */
  #lines = new Int32Array(256);
  #first = new Int32Array(256);
  #width = new Int32Array(256);
  /** Per field: start and end in the text; an end written `~end` marks `""` to unescape. */
  #bounds = new Int32Array(4096);
  #fields = 0;
  #errors = new Map<number, string>();

  /** The 1-based physical line where item `i` starts. */
  line(i: number): number {
    return this.#lines[i]!;
  }

  /** What is wrong with item `i`, or null for a record. */
  error(i: number): string | null {
    return this.#width[i]! < 0 ? this.#errors.get(i)! : null;
  }

  /** The number of fields of record `i` (0 for a bad record). */
  width(i: number): number {
    return Math.max(0, this.#width[i]!);
  }

  /** Field `k` of record `i` (unchecked: `k` must be below its width). */
  field(i: number, k: number): string {
    const b = (this.#first[i]! + k) * 2;
    const start = this.#bounds[b]!, end = this.#bounds[b + 1]!;
    if (end >= 0) return start === end ? "" : this.#text.slice(start, end);
    return this.#text.slice(start, ~end).replaceAll('""', '"');
  }

  /** Record `i` as a read-only list of its fields, cut as they are read. */
  record(i: number): CsvRecord {
    return new CsvRecord(this, i);
  }

  /** The fields of record `i` as strings (none for a bad record). */
  fields(i: number): string[] {
    const fields = new Array<string>(this.width(i));
    for (let k = 0; k < fields.length; k++) fields[k] = this.field(i, k);
    return fields;
  }

  /** Item `i` with its fields as strings. */
  item(i: number): CsvItem {
    const error = this.error(i);
    return error === null
      ? { line: this.line(i), fields: this.fields(i) }
      : { line: this.line(i), error };
  }

  /** Empties the batch for records cut from `text`. */
  reset(text: string): void {
    this.#text = text;
    this.size = 0;
    this.#fields = 0;
    this.#errors.clear();
  }

  /** Starts the next record; returns where its fields begin (for {@linkcode dropFields}). */
  beginRecord(): number {
    return this.#fields;
  }

  /** Adds a field of the record being read: `text[start, end)`, with `""` unescaped when `escaped`. */
  addField(start: number, end: number, escaped: boolean): void {
    const b = this.#fields++ * 2;
    if (b + 2 > this.#bounds.length) this.#bounds = grown(this.#bounds);
    this.#bounds[b] = start;
    this.#bounds[b + 1] = escaped ? ~end : end;
  }

  /** Forgets the fields added since `first` (a record left for the next chunk, or a bad one). */
  dropFields(first: number): void {
    this.#fields = first;
  }

  /** Ends the record whose fields start at `first`, found at `line`. */
  endRecord(first: number, line: number): void {
    const i = this.#newItem(line);
    this.#first[i] = first;
    this.#width[i] = this.#fields - first;
  }

  /** Adds a bad record found at `line`. */
  addError(line: number, error: string): void {
    const i = this.#newItem(line);
    this.#width[i] = -1;
    this.#errors.set(i, error);
  }

  #newItem(line: number): number {
    const i = this.size++;
    if (i === this.#lines.length) {
      this.#lines = grown(this.#lines);
      this.#first = grown(this.#first);
      this.#width = grown(this.#width);
    }
    this.#lines[i] = line;
    return i;
  }
}

/**
 * One record of a {@linkcode CsvBatch}, read like an array of its fields
 * (`length` and `at`); valid as long as its batch is.
 */
export class CsvRecord {
  /** The number of fields. */
  readonly length: number;

  /** The record `item` of `batch`. */
  constructor(readonly batch: CsvBatch, readonly item: number) {
    this.length = batch.width(item);
  }

  /** Field `k`, or undefined past the last one (negative `k` counts from the end). */
  at(k: number): string | undefined {
    const i = k < 0 ? k + this.length : k;
    return i >= 0 && i < this.length ? this.batch.field(this.item, i) : undefined;
  }
}

function grown(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
}

/**
 * Reads CSV records from a byte stream, one {@linkcode CsvBatch} per chunk
 * of the source that completes at least one item (the same batch object
 * each time). The source is read to its end, or cancelled when the caller
 * stops early.
 */
export async function* readCsvBatches(
  source: ReadableStream<Uint8Array>,
  options: CsvReadOptions = {},
): AsyncGenerator<CsvBatch> {
  const max = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(`Invalid 'maxRecordBytes' ${max}: must be a positive integer`);
  }
  const onBytes = options.onBytes;
  const state: ParserState = { carry: "", line: 1, skipping: false };
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const batch = new ParsedChunk();
  const reader = source.getReader();
  let finished = false;
  let bytesRead = 0;
  try {
    for (;;) {
      const result = await reader.read();
      if (result.done) {
        finished = true;
        break;
      }
      const chunk = result.value;
      if (chunk.byteLength === 0) continue;
      bytesRead += chunk.byteLength;
      const text = decoder.decode(chunk, { stream: true });
      batch.reset("");
      if (text.length > 0) parseText(state, text, false, max, batch);
      onBytes?.(bytesRead);
      if (batch.size > 0) yield batch;
    }
    batch.reset("");
    parseText(state, decoder.decode(), true, max, batch);
    options.onEnd?.(state.line);
    if (batch.size > 0) yield batch;
  } finally {
    if (!finished) {
      // The caller stopped early or the source failed: let the source close.
      await reader.cancel().catch(() => {});
    }
    reader.releaseLock();
  }
}

/**
 * Reads CSV records from a byte stream, in batches of items with their
 * fields as strings.
 *
 * Each batch holds the items found in one chunk of the source (at most 2,000
 * a batch); no batch is empty. The source is read to its end, or cancelled
 * when the caller stops early. For the largest files, {@linkcode readCsvBatches}
 * does the same work without making a string of every field.
 *
 * @example
 * ```ts
 * const file = await Deno.open("npidata_pfile.csv");
 * for await (const batch of readCsv(file.readable)) {
 *   for (const item of batch) {
 *     if ("error" in item) console.warn(`Line ${item.line}: ${item.error}`);
 *     else console.log(item.line, item.fields[0]);
 *   }
 * }
 * ```
 */
export async function* readCsv(
  source: ReadableStream<Uint8Array>,
  options: CsvReadOptions = {},
): AsyncGenerator<CsvItem[]> {
  for await (const batch of readCsvBatches(source, options)) {
    for (let from = 0; from < batch.size; from += BATCH_SIZE) {
      const to = Math.min(batch.size, from + BATCH_SIZE);
      const items = new Array<CsvItem>(to - from);
      for (let i = from; i < to; i++) items[i - from] = batch.item(i);
      yield items;
    }
  }
}

/** The index of `char` in `s` from `from`, or `s.length` when absent. */
function indexOrEnd(s: string, char: string, from: number): number {
  const i = s.indexOf(char, from);
  return i === -1 ? s.length : i;
}

/**
 * The index of the next `"` in `codes[from, end)`, or -1: a plain loop, as
 * quoted values are short (a call to `indexOf` costs more than the scan).
 */
function closingQuote(codes: CodeUnits, from: number, end: number): number {
  for (let i = from; i < end; i++) if (codes[i] === QUOTE) return i;
  return -1;
}

/** A text's UTF-16 code units, as bytes when it is all ASCII. */
type CodeUnits = Uint8Array | Uint16Array;

const asciiEncoder = new TextEncoder();
let asciiScratch = new Uint8Array(0);

/**
 * The code units of `s`, for the parser to read: its bytes when it is all
 * ASCII (the NPPES files nearly always are: one native copy, and a byte
 * array reads faster than `charCodeAt`), else every code unit copied. The
 * byte array is reused by the next call.
 */
function codeUnits(s: string): CodeUnits {
  if (asciiScratch.length < s.length) asciiScratch = new Uint8Array(s.length + (s.length >> 2));
  const bytes = asciiScratch.subarray(0, s.length);
  // One byte a code unit only when every character is ASCII.
  const { read, written } = asciiEncoder.encodeInto(s, bytes);
  if (read === s.length && written === s.length) return bytes;
  const units = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) units[i] = s.charCodeAt(i);
  return units;
}

/** The index of the first LF or CR in `s` from `from`, or -1. */
function findBreak(s: string, from: number): number {
  const lf = s.indexOf("\n", from);
  const cr = s.indexOf("\r", from);
  if (cr === -1) return lf;
  if (lf === -1) return cr;
  return cr < lf ? cr : lf;
}

/** The length of the line break at `s[i]`: 2 for CRLF, else 1. */
function breakLength(s: string, i: number): number {
  return s.charCodeAt(i) === CR && i + 1 < s.length && s.charCodeAt(i + 1) === LF ? 2 : 1;
}

/** The number of line breaks (LF, CRLF, lone CR) in `s[from, to)`. */
function countBreaks(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c === LF) n++;
    else if (c === CR && (i + 1 === s.length || s.charCodeAt(i + 1) !== LF)) n++;
  }
  return n;
}

/** Names the character at `s[i]` for an error message. */
function describeChar(s: string, i: number): string {
  const c = s.charCodeAt(i);
  if (c < 0x20 || c === 0x7f) return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
  return `'${s[i]}'`;
}

/**
 * Parses `state.carry + text` into `out` (reset to that text), keeping an
 * unfinished record in `state`. With `final`, the text is the end of the
 * input.
 */
function parseText(
  state: ParserState,
  text: string,
  final: boolean,
  max: number,
  out: ParsedChunk,
): void {
  const chunk = new Chunk(state.carry.length === 0 ? text : state.carry + text, final, max, state);
  out.reset(chunk.s);
  state.carry = "";
  if (state.skipping && !chunk.skipLine()) return;
  chunk.findBreaks();
  while (chunk.pos < chunk.end) {
    if (!chunk.record(out)) return;
  }
  state.line = chunk.line;
}

/**
 * One chunk of text being parsed. Records are parsed one call at a time, so
 * that the engine optimises the small per-record function as a whole.
 */
class Chunk {
  readonly s: string;
  /** The code units of `s` (see {@linkcode codeUnits}). */
  readonly codes: CodeUnits;
  readonly end: number;
  readonly final: boolean;
  readonly max: number;
  readonly state: ParserState;
  /** Where parsing is. */
  pos = 0;
  /** The physical line at `pos`. */
  line: number;
  /**
   * The next LF and CR at or after `pos` (or `end`): a quoted field closing
   * before both has no line break inside, so no counting is needed.
   */
  nextLf = 0;
  nextCr = 0;

  constructor(s: string, final: boolean, max: number, state: ParserState) {
    this.s = s;
    this.codes = codeUnits(s);
    this.end = s.length;
    this.final = final;
    this.max = max;
    this.state = state;
    this.line = state.line;
  }

  /** Looks for the next LF and CR from `pos`. */
  findBreaks(): void {
    this.nextLf = indexOrEnd(this.s, "\n", this.pos);
    this.nextCr = indexOrEnd(this.s, "\r", this.pos);
  }

  /**
   * Discards the rest of a bad record's first line. Returns false when the
   * chunk ends first (and saves the state for the next chunk).
   */
  skipLine(): boolean {
    const { s, end, state } = this;
    const b = findBreak(s, this.pos);
    if (b === -1 || (s.charCodeAt(b) === CR && b + 1 === end && !this.final)) {
      state.skipping = !this.final;
      state.carry = b === -1 || this.final ? "" : "\r";
      state.line = this.line;
      return false;
    }
    this.pos = b + breakLength(s, b);
    this.line++;
    state.skipping = false;
    return true;
  }

  /**
   * Keeps the unfinished record starting at `recStart` for the next chunk.
   * Returns false, keeping nothing, when it is already too long to be valid.
   */
  keepTail(recStart: number, recLine: number): boolean {
    // The record's end is at least at `end - 1` (a CR waiting for its LF).
    if (this.end - recStart > this.max + 1) return false;
    this.state.carry = this.s.slice(recStart);
    this.state.line = recLine;
    return true;
  }

  /**
   * Parses the record (or empty line) at `pos` into `out`. Returns false
   * when the rest of the chunk must wait for the next one (the state for it
   * is saved).
   */
  record(out: ParsedChunk): boolean {
    const { s, codes, end, final, max } = this;
    let pos = this.pos;
    let line = this.line;
    const recStart = pos;
    const recLine = line;
    let c = codes[pos]!;

    if (c === LF || c === CR) {
      // An empty line: not a record.
      if (c === CR && pos + 1 === end && !final) {
        this.state.carry = "\r";
        this.state.line = line;
        return false;
      }
      this.pos = pos + breakLength(s, pos);
      this.line = line + 1;
      if (this.nextLf < this.pos || this.nextCr < this.pos) this.findBreaks();
      return true;
    }

    let nextLf = this.nextLf;
    let nextCr = this.nextCr;
    const first = out.beginRecord();
    let n = 0;
    let error = "";
    let errorAt: number;
    scan: for (;;) {
      if (
        c === QUOTE && pos + 2 < end && codes[pos + 1]! === QUOTE &&
        codes[pos + 2]! !== QUOTE
      ) {
        // `""`, the most common field in the NPPES files, often many in a row: a run of
        // them is read here, without going round the loop for each.
        out.addField(pos, pos, false);
        pos += 2;
        while (
          pos + 3 < end && codes[pos]! === COMMA && codes[pos + 1]! === QUOTE &&
          codes[pos + 2]! === QUOTE && codes[pos + 3]! !== QUOTE
        ) {
          out.addField(pos + 1, pos + 1, false);
          n++;
          pos += 3;
        }
      } else if (c === QUOTE) {
        const open = pos;
        let close = closingQuote(codes, pos + 1, end);
        let escaped = false;
        while (close !== -1 && close + 1 < end && codes[close + 1]! === QUOTE) {
          escaped = true;
          close = closingQuote(codes, close + 2, end);
        }
        if (close === -1) {
          if (!final) {
            if (this.keepTail(recStart, recLine)) return this.#drop(out, first);
            errorAt = end;
            break scan;
          }
          error = `Unterminated quoted field ${
            n + 1
          }: no closing quote before the end of the input`;
          errorAt = end;
          break scan;
        }
        if (close + 1 === end && !final) {
          // Whether this quote closes the field or starts a `""` depends on
          // the next character.
          if (this.keepTail(recStart, recLine)) return this.#drop(out, first);
          errorAt = end;
          break scan;
        }
        out.addField(open + 1, close, escaped);
        if (close > nextLf || close > nextCr) {
          line += countBreaks(s, open + 1, close);
          nextLf = indexOrEnd(s, "\n", close);
          nextCr = indexOrEnd(s, "\r", close);
        }
        pos = close + 1;
      } else {
        let i = pos;
        while (i < end) {
          c = codes[i]!;
          if (c === COMMA || c === LF || c === CR) break;
          i++;
        }
        out.addField(pos, i, false);
        pos = i;
      }
      n++;

      if (pos === end) {
        if (!final) {
          if (this.keepTail(recStart, recLine)) return this.#drop(out, first);
          errorAt = end;
          break scan;
        }
        if (end - recStart > max) {
          errorAt = end;
          break scan;
        }
        out.endRecord(first, recLine);
        this.pos = end;
        this.line = line;
        return true;
      }
      c = codes[pos]!;
      if (c === COMMA) {
        pos++;
        // (Reading past the end would deoptimise the loop.)
        c = pos < end ? codes[pos]! : -1;
        continue;
      }
      if (c === LF || c === CR) {
        if (c === CR && pos + 1 === end && !final) {
          if (this.keepTail(recStart, recLine)) return this.#drop(out, first);
          errorAt = end;
          break scan;
        }
        if (pos - recStart > max) {
          errorAt = pos;
          break scan;
        }
        pos += breakLength(s, pos);
        this.pos = pos;
        this.line = line + 1;
        this.nextLf = nextLf;
        this.nextCr = nextCr;
        if (nextLf < pos || nextCr < pos) this.findBreaks();
        out.endRecord(first, recLine);
        return true;
      }
      error = `Unexpected character ${
        describeChar(s, pos)
      } after the closing quote of field ${n}: expected ',' or a line break`;
      errorAt = pos;
      break scan;
    }

    // A bad record. Whether it is reported as too long must not depend on
    // where the chunks were cut, so it only depends on where it went wrong.
    if (errorAt - recStart > max) {
      error = `Record is longer than the 'maxRecordBytes' limit of ${max}`;
    }
    out.dropFields(first);
    out.addError(recLine, error);
    // Resynchronise at the physical line after the one the record starts on.
    this.pos = recStart;
    this.line = recLine;
    if (!this.skipLine()) return false;
    this.findBreaks();
    return true;
  }

  /** Forgets a record's fields (it waits for the next chunk); returns false. */
  #drop(out: ParsedChunk, first: number): false {
    out.dropFields(first);
    return false;
  }
}
