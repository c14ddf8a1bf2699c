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

/** A parsed record. */
export interface CsvRow {
  /** The 1-based physical line where the record starts. */
  line: number;
  /** The field values, unquoted. */
  fields: string[];
}

/** A malformed record, skipped. */
export interface CsvBadRow {
  /** The 1-based physical line where the bad record starts. */
  line: number;
  /** What is wrong with it. */
  error: string;
}

/** What {@linkcode readCsv} yields, in batches: a row or a bad row. */
export type CsvItem = CsvRow | CsvBadRow;

/** Options for {@linkcode readCsv}. */
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
  const state: ParserState = { carry: "", line: 1, skipping: false };
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

/** The number of line breaks (LF, CRLF, lone CR) in `s[from, to)`. */
function countBreaks(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c === LF) n++;
    else if (c === CR && s.charCodeAt(i + 1) !== LF) n++;
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
 * Keeps the unfinished record starting at `recStart` for the next chunk.
 * Returns false, keeping nothing, when it is already too long to be valid.
 */
function keepTail(
  state: ParserState,
  s: string,
  recStart: number,
  recLine: number,
  max: number,
): boolean {
  // The record's end is at least at s.length - 1 (a CR waiting for its LF).
  if (s.length - recStart > max + 1) return false;
  state.carry = s.slice(recStart);
  state.line = recLine;
  return true;
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
  const s = state.carry.length === 0 ? text : state.carry + text;
  const end = s.length;
  let pos = 0;
  let line = state.line;
  state.carry = "";

  if (state.skipping) {
    const b = findBreak(s, 0);
    if (b === -1) {
      if (final) state.skipping = false;
      return;
    }
    if (s.charCodeAt(b) === CR && b + 1 === end && !final) {
      state.carry = "\r";
      return;
    }
    pos = b + (s.charCodeAt(b) === CR && s.charCodeAt(b + 1) === LF ? 2 : 1);
    line++;
    state.skipping = false;
  }

  // The next LF and CR at or after `pos` (or `end`): a quoted field that
  // closes before both has no line break inside, so no counting is needed.
  let nextLf = indexOrEnd(s, "\n", pos);
  let nextCr = indexOrEnd(s, "\r", pos);

  records: while (pos < end) {
    const recStart = pos;
    const recLine = line;
    let c = s.charCodeAt(pos);

    if (c === LF || c === CR) {
      // An empty line: not a record.
      if (c === CR && pos + 1 === end && !final) {
        state.carry = "\r";
        state.line = line;
        return;
      }
      pos += c === CR && s.charCodeAt(pos + 1) === LF ? 2 : 1;
      line++;
      if (nextLf < pos) nextLf = indexOrEnd(s, "\n", pos);
      if (nextCr < pos) nextCr = indexOrEnd(s, "\r", pos);
      continue;
    }

    const fields: string[] = [];
    let error = "";
    let errorAt: number;
    fields: for (;;) {
      let value: string;
      if (c === QUOTE) {
        const open = pos;
        let from = pos + 1;
        let close = s.indexOf('"', from);
        let escaped = "";
        for (;;) {
          if (close === -1) {
            if (!final) {
              if (keepTail(state, s, recStart, recLine, max)) return;
              errorAt = end;
              break fields;
            }
            error = `Unterminated quoted field ${
              fields.length + 1
            }: no closing quote before the end of the input`;
            errorAt = end;
            break fields;
          }
          if (close + 1 === end) {
            // Whether this quote closes the field or starts a `""` depends
            // on the next character.
            if (!final) {
              if (keepTail(state, s, recStart, recLine, max)) return;
              errorAt = end;
              break fields;
            }
            break;
          }
          if (s.charCodeAt(close + 1) !== QUOTE) break;
          escaped += s.slice(from, close + 1);
          from = close + 2;
          close = s.indexOf('"', from);
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
          if (keepTail(state, s, recStart, recLine, max)) return;
          errorAt = end;
          break fields;
        }
        fields.push(value);
        if (end - recStart > max) {
          errorAt = end;
          break fields;
        }
        out.push({ line: recLine, fields });
        break records;
      }
      c = s.charCodeAt(pos);
      if (c === COMMA) {
        fields.push(value);
        pos++;
        c = s.charCodeAt(pos);
        continue;
      }
      if (c === LF || c === CR) {
        if (c === CR && pos + 1 === end && !final) {
          if (keepTail(state, s, recStart, recLine, max)) return;
          errorAt = end;
          break fields;
        }
        fields.push(value);
        if (pos - recStart > max) {
          errorAt = pos;
          break fields;
        }
        pos += c === CR && s.charCodeAt(pos + 1) === LF ? 2 : 1;
        line++;
        if (nextLf < pos) nextLf = indexOrEnd(s, "\n", pos);
        if (nextCr < pos) nextCr = indexOrEnd(s, "\r", pos);
        out.push({ line: recLine, fields });
        continue records;
      }
      error = `Unexpected character ${describeChar(s, pos)} after the closing quote of field ${
        fields.length + 1
      }: expected ',' or a line break`;
      errorAt = pos;
      break fields;
    }

    // A bad record. Whether it is reported as too long must not depend on
    // where the chunks were cut, so it only depends on where it went wrong.
    if (errorAt - recStart > max) {
      error = `Record is longer than the 'maxRecordBytes' limit of ${max}`;
    }
    out.push({ line: recLine, error });

    // Resynchronise at the physical line after the one the record starts on.
    const b = findBreak(s, recStart);
    if (b === -1) {
      if (final) break;
      state.skipping = true;
      state.line = recLine;
      return;
    }
    if (s.charCodeAt(b) === CR && b + 1 === end && !final) {
      state.skipping = true;
      state.carry = "\r";
      state.line = recLine;
      return;
    }
    pos = b + (s.charCodeAt(b) === CR && s.charCodeAt(b + 1) === LF ? 2 : 1);
    line = recLine + 1;
    nextLf = indexOrEnd(s, "\n", pos);
    nextCr = indexOrEnd(s, "\r", pos);
  }

  state.line = line;
}
