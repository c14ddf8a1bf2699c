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
  /** The number of fields of the last record. */
  width: number;
}

/**
 * Reads CSV records from a byte stream, in batches.
 *
 * Each batch holds the items found in one chunk of the source (at most 2,000
 * a batch); no batch is empty. The source is read to its end, or cancelled
 * when the caller stops early.
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
  const max = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(`Invalid 'maxRecordBytes' ${max}: must be a positive integer`);
  }
  const onBytes = options.onBytes;
  const state: ParserState = { carry: "", line: 1, skipping: false, width: 0 };
  const decoder = new TextDecoder("utf-8", { fatal: false });
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
      const items: CsvItem[] = [];
      if (text.length > 0) parseText(state, text, false, max, items);
      onBytes?.(bytesRead);
      for (let i = 0; i < items.length; i += BATCH_SIZE) {
        yield items.length <= BATCH_SIZE ? items : items.slice(i, i + BATCH_SIZE);
      }
    }
    const items: CsvItem[] = [];
    parseText(state, decoder.decode(), true, max, items);
    options.onEnd?.(state.line);
    for (let i = 0; i < items.length; i += BATCH_SIZE) {
      yield items.length <= BATCH_SIZE ? items : items.slice(i, i + BATCH_SIZE);
    }
  } finally {
    if (!finished) {
      // The caller stopped early or the source failed: let the source close.
      await reader.cancel().catch(() => {});
    }
    reader.releaseLock();
  }
}

/** The index of `char` in `s` from `from`, or `s.length` when absent. */
function indexOrEnd(s: string, char: string, from: number): number {
  const i = s.indexOf(char, from);
  return i === -1 ? s.length : i;
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
 * Parses `state.carry + text`, pushing every complete record to `out` and
 * keeping an unfinished one in `state`. With `final`, the text is the end of
 * the input.
 */
function parseText(
  state: ParserState,
  text: string,
  final: boolean,
  max: number,
  out: CsvItem[],
): void {
  const chunk = new Chunk(state.carry.length === 0 ? text : state.carry + text, final, max, state);
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
   * Parses the record (or empty line) at `pos`, pushing the result to `out`.
   * Returns false when the rest of the chunk must wait for the next one (the
   * state for it is saved).
   */
  record(out: CsvItem[]): boolean {
    const { s, end, final, max } = this;
    let pos = this.pos;
    let line = this.line;
    const recStart = pos;
    const recLine = line;
    let c = s.charCodeAt(pos);

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
    // Sized like the previous record: growing an array field by field costs.
    const fields = new Array<string>(this.state.width);
    let n = 0;
    let error = "";
    let errorAt: number;
    scan: for (;;) {
      let value: string;
      if (
        c === QUOTE && pos + 2 < end && s.charCodeAt(pos + 1) === QUOTE &&
        s.charCodeAt(pos + 2) !== QUOTE
      ) {
        // `""`, the most common field in the NPPES files.
        value = "";
        pos += 2;
      } else if (c === QUOTE) {
        const open = pos;
        let from = pos + 1;
        let close = s.indexOf('"', from);
        let escaped = "";
        while (close !== -1 && close + 1 < end && s.charCodeAt(close + 1) === QUOTE) {
          escaped += s.slice(from, close + 1);
          from = close + 2;
          close = s.indexOf('"', from);
        }
        if (close === -1) {
          if (!final) {
            if (this.keepTail(recStart, recLine)) return false;
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
          if (this.keepTail(recStart, recLine)) return false;
          errorAt = end;
          break scan;
        }
        if (escaped.length === 0) value = close === from ? "" : s.slice(from, close);
        else value = escaped + s.slice(from, close);
        if (close > nextLf || close > nextCr) {
          line += countBreaks(s, open + 1, close);
          nextLf = indexOrEnd(s, "\n", close);
          nextCr = indexOrEnd(s, "\r", close);
        }
        pos = close + 1;
      } else {
        let i = pos;
        while (i < end) {
          c = s.charCodeAt(i);
          if (c === COMMA || c === LF || c === CR) break;
          i++;
        }
        value = i === pos ? "" : s.slice(pos, i);
        pos = i;
      }

      if (pos === end) {
        if (!final) {
          if (this.keepTail(recStart, recLine)) return false;
          errorAt = end;
          break scan;
        }
        fields[n++] = value;
        if (end - recStart > max) {
          errorAt = end;
          break scan;
        }
        if (n !== fields.length) fields.length = n;
        this.state.width = n;
        out.push({ line: recLine, fields });
        this.pos = end;
        this.line = line;
        return true;
      }
      c = s.charCodeAt(pos);
      if (c === COMMA) {
        fields[n++] = value;
        pos++;
        // (Reading past the end would deoptimise the loop.)
        c = pos < end ? s.charCodeAt(pos) : -1;
        continue;
      }
      if (c === LF || c === CR) {
        if (c === CR && pos + 1 === end && !final) {
          if (this.keepTail(recStart, recLine)) return false;
          errorAt = end;
          break scan;
        }
        fields[n++] = value;
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
        if (n !== fields.length) fields.length = n;
        this.state.width = n;
        out.push({ line: recLine, fields });
        return true;
      }
      error = `Unexpected character ${describeChar(s, pos)} after the closing quote of field ${
        n + 1
      }: expected ',' or a line break`;
      errorAt = pos;
      break scan;
    }

    // A bad record. Whether it is reported as too long must not depend on
    // where the chunks were cut, so it only depends on where it went wrong.
    if (errorAt - recStart > max) {
      error = `Record is longer than the 'maxRecordBytes' limit of ${max}`;
    }
    out.push({ line: recLine, error });
    // Resynchronise at the physical line after the one the record starts on.
    this.pos = recStart;
    this.line = recLine;
    if (!this.skipLine()) return false;
    this.findBreaks();
    return true;
  }
}
