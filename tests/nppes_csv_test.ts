import { assert, assertEquals, assertRejects } from "@std/assert";
import { seededRandom } from "./_utils.ts";
import { type CsvItem, type CsvReadOptions, readCsv, readCsvBatches } from "../lib/nppes/csv.ts";

const encoder = new TextEncoder();

/** A stream of `bytes` cut into chunks of `chunkSize` bytes (0: one chunk). */
function streamOf(bytes: Uint8Array, chunkSize = 0): ReadableStream<Uint8Array> {
  const size = chunkSize > 0 ? chunkSize : Math.max(bytes.length, 1);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

/** Reads everything, checking that no batch is empty. */
async function readAll(
  input: string | Uint8Array,
  chunkSize = 0,
  options?: CsvReadOptions,
): Promise<CsvItem[]> {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  const items: CsvItem[] = [];
  for await (const batch of readCsv(streamOf(bytes, chunkSize), options)) {
    assert(batch.length > 0, "a batch is empty");
    items.push(...batch);
  }
  return items;
}

/** Asserts the result, reading the input whole and in 1-byte and 7-byte chunks. */
async function assertParses(
  input: string | Uint8Array,
  expected: CsvItem[],
  options?: CsvReadOptions,
): Promise<void> {
  for (const chunkSize of [0, 1, 7]) {
    assertEquals(await readAll(input, chunkSize, options), expected, `chunk size ${chunkSize}`);
  }
}

Deno.test("[csv] reads LF-terminated quoted records", async () => {
  await assertParses('"NPI","Entity Type Code"\n"1234567893","1"\n"1245319599",""\n', [
    { line: 1, fields: ["NPI", "Entity Type Code"] },
    { line: 2, fields: ["1234567893", "1"] },
    { line: 3, fields: ["1245319599", ""] },
  ]);
});

Deno.test("[csv] reads CRLF-terminated records", async () => {
  await assertParses('"a","b"\r\n"c","d"\r\n"",""\r\n', [
    { line: 1, fields: ["a", "b"] },
    { line: 2, fields: ["c", "d"] },
    { line: 3, fields: ["", ""] },
  ]);
});

Deno.test("[csv] strips a UTF-8 BOM at the start only", async () => {
  await assertParses('\uFEFF"NPI","Name"\r\n"1","\uFEFFx"\r\n', [
    { line: 1, fields: ["NPI", "Name"] },
    { line: 2, fields: ["1", "\uFEFFx"] },
  ]);
  await assertParses("\uFEFF", []);
});

Deno.test("[csv] decodes UTF-8, also when a character is cut by a chunk boundary", async () => {
  await assertParses('"Zoë","日本","😀"\n', [{ line: 1, fields: ["Zoë", "日本", "😀"] }]);
  // Invalid bytes become U+FFFD rather than failing.
  await assertParses(new Uint8Array([0x61, 0xff, 0x2c, 0x62, 0x0a]), [
    { line: 1, fields: ["a\uFFFD", "b"] },
  ]);
});

Deno.test("[csv] reads unquoted fields and keeps a stray quote in them literally", async () => {
  await assertParses('1,ab"c,,d""\n"x",y\n', [
    { line: 1, fields: ["1", 'ab"c', "", 'd""'] },
    { line: 2, fields: ["x", "y"] },
  ]);
});

Deno.test("[csv] keeps empty fields, a trailing comma gives a last empty field", async () => {
  await assertParses('a,\n,\n"",""\n","\n', [
    { line: 1, fields: ["a", ""] },
    { line: 2, fields: ["", ""] },
    { line: 3, fields: ["", ""] },
    { line: 4, fields: [","] },
  ]);
});

Deno.test('[csv] reads "" inside quotes as one quote', async () => {
  await assertParses('"say ""hi""","""","""""","a""b""c"\n', [
    { line: 1, fields: ['say "hi"', '"', '""', 'a"b"c'] },
  ]);
});

Deno.test("[csv] keeps commas and line breaks inside quotes", async () => {
  await assertParses('"1","a,b","x\ny","p\r\nq","r\rs"\n', [
    { line: 1, fields: ["1", "a,b", "x\ny", "p\r\nq", "r\rs"] },
  ]);
});

Deno.test("[csv] counts lines right after quoted fields holding line breaks", async () => {
  const input = [
    '"1","multi\nline"\n', // lines 1-2
    '"2","x"\n', // line 3
    '"3","a\r\nb\r\nc",""\r\n', // lines 4-6
    '"4","lone\rcr"\n', // lines 7-8
    '"5","\n\n\n"\n', // lines 9-12
    '"6","ab"x\n', // line 13, bad
    '"7",""\n', // line 14
  ].join("");
  await assertParses(input, [
    { line: 1, fields: ["1", "multi\nline"] },
    { line: 3, fields: ["2", "x"] },
    { line: 4, fields: ["3", "a\r\nb\r\nc", ""] },
    { line: 7, fields: ["4", "lone\rcr"] },
    { line: 9, fields: ["5", "\n\n\n"] },
    {
      line: 13,
      error:
        "Unexpected character 'x' after the closing quote of field 2: expected ',' or a line break",
    },
    { line: 14, fields: ["7", ""] },
  ]);
});

Deno.test("[csv] reads the last record without a line ending", async () => {
  await assertParses('"a","b"\n"c","d"', [
    { line: 1, fields: ["a", "b"] },
    { line: 2, fields: ["c", "d"] },
  ]);
  await assertParses("a,b", [{ line: 1, fields: ["a", "b"] }]);
  await assertParses("a,", [{ line: 1, fields: ["a", ""] }]);
  await assertParses('"a",""', [{ line: 1, fields: ["a", ""] }]);
});

Deno.test("[csv] takes a lone CR as a line ending, also at the end of the input", async () => {
  await assertParses('"a","b"\r', [{ line: 1, fields: ["a", "b"] }]);
  await assertParses("a\rb\r\nc\r", [
    { line: 1, fields: ["a"] },
    { line: 2, fields: ["b"] },
    { line: 3, fields: ["c"] },
  ]);
});

Deno.test("[csv] skips empty lines, trailing or not, but counts them", async () => {
  await assertParses('"a"\n\n\r\n"b"\r\n\n\r\n\r', [
    { line: 1, fields: ["a"] },
    { line: 4, fields: ["b"] },
  ]);
  await assertParses("\n\n", []);
  await assertParses("", []);
});

Deno.test("[csv] reports text after a closing quote and goes on at the next line", async () => {
  await assertParses('"1","ab"x,"c"\n"2","d"\n"3"  \n"4"\n', [
    {
      line: 1,
      error:
        "Unexpected character 'x' after the closing quote of field 2: expected ',' or a line break",
    },
    { line: 2, fields: ["2", "d"] },
    {
      line: 3,
      error:
        "Unexpected character ' ' after the closing quote of field 1: expected ',' or a line break",
    },
    { line: 4, fields: ["4"] },
  ]);
});

Deno.test("[csv] resynchronises after an unterminated quote at the next line", async () => {
  // The open quote of line 1 swallows the line break and closes at the first
  // quote of line 2, which the reader sees as text after a closing quote.
  await assertParses('"1","abc\n"2","b"\r\n"3","c"\r\n', [
    {
      line: 1,
      error:
        "Unexpected character '2' after the closing quote of field 2: expected ',' or a line break",
    },
    { line: 2, fields: ["2", "b"] },
    { line: 3, fields: ["3", "c"] },
  ]);
});

Deno.test("[csv] reports an unterminated quote running to the end of the input once", async () => {
  const error = "Unterminated quoted field 2: no closing quote before the end of the input";
  await assertParses('"1","2"\n"3","4\n', [{ line: 1, fields: ["1", "2"] }, { line: 2, error }]);
  await assertParses('"1","2"\r\n"3","4', [{ line: 1, fields: ["1", "2"] }, { line: 2, error }]);
  await assertParses('"1","2"\n"3","', [{ line: 1, fields: ["1", "2"] }, { line: 2, error }]);
  // Lines after the bad one are read again on their own.
  await assertParses('"3","4\r\n5,6\r\n', [{ line: 1, error }, { line: 2, fields: ["5", "6"] }]);
});

Deno.test("[csv] rejects a record longer than maxRecordBytes and goes on", async () => {
  const options = { maxRecordBytes: 10 };
  const error = "Record is longer than the 'maxRecordBytes' limit of 10";
  // 10 characters is the limit, the line ending not included.
  await assertParses('"12345678"\r\n"123456789"\r\n"1","2"\r\n', [
    { line: 1, fields: ["12345678"] },
    { line: 2, error },
    { line: 3, fields: ["1", "2"] },
  ], options);
  // A line far longer than the limit, also at the end of the input.
  const long = `"${"x".repeat(100)}","${"y".repeat(100)}"`;
  await assertParses(`${long}\n"ok"\n${long}`, [
    { line: 1, error },
    { line: 2, fields: ["ok"] },
    { line: 3, error },
  ], options);
  await assertParses(`${long}\r\n`, [{ line: 1, error }], options);
  // A long unterminated quote is too long before it is unterminated.
  await assertParses(`"1","${"z".repeat(50)}`, [{ line: 1, error }], options);
  await assertParses(`"1","${"z\n".repeat(50)}`, [
    { line: 1, error },
    ...Array.from({ length: 49 }, (_, i) => ({ line: i + 2, fields: ["z"] })),
  ], options);
});

Deno.test("[csv] rejects an invalid maxRecordBytes", async () => {
  for (const maxRecordBytes of [0, -1, 1.5, NaN]) {
    await assertRejects(
      () => readAll("a\n", 0, { maxRecordBytes }),
      RangeError,
      `Invalid 'maxRecordBytes' ${maxRecordBytes}: must be a positive integer`,
    );
  }
});

Deno.test("[csv] splits items into batches of at most 2,000", async () => {
  const input = Array.from({ length: 4500 }, (_, i) => `"${i}"\n`).join("");
  const sizes: number[] = [];
  let next = 0;
  for await (const batch of readCsv(streamOf(encoder.encode(input)))) {
    sizes.push(batch.length);
    for (const item of batch) {
      assertEquals(item, { line: next + 1, fields: [String(next)] });
      next++;
    }
  }
  assertEquals(sizes, [2000, 2000, 500]);
});

Deno.test("[csv] reports cumulative bytes read, once per chunk at most", async () => {
  const bytes = encoder.encode('\uFEFF"1","é"\r\n"2","x"\r\n'.repeat(20));
  for (const chunkSize of [0, 1, 7, 64]) {
    const calls: number[] = [];
    await readAll(bytes, chunkSize, { onBytes: (n) => calls.push(n) });
    const chunks = Math.ceil(bytes.length / (chunkSize || bytes.length));
    assertEquals(calls.length, chunks, `chunk size ${chunkSize}`);
    assertEquals(calls.at(-1), bytes.length);
    assert(calls.every((n, i) => i === 0 || n > calls[i - 1]!), "not increasing");
  }
});

Deno.test("[csv] cancels the source when the caller stops early", async () => {
  let cancelled = false;
  let pulls = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      controller.enqueue(encoder.encode(`"${pulls}"\n`));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const batch of readCsv(source)) {
    assertEquals(batch, [{ line: 1, fields: ["1"] }]);
    break;
  }
  assert(cancelled, "the source was not cancelled");
});

Deno.test("[csv] passes on an error of the source", async () => {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('"1"\n"2'));
      controller.error(new Error("Disk on fire"));
    },
  });
  await assertRejects(
    async () => {
      for await (const _ of readCsv(source));
    },
    Error,
    "Disk on fire",
  );
});

// --- Differential test against a plain whole-string reference parser ------

/** The documented rules, written the simple way, on the whole text. */
function referenceParse(text: string, max: number): CsvItem[] {
  const s = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const n = s.length;
  const isBreak = (i: number): boolean => s[i] === "\n" || s[i] === "\r";
  const breakLen = (i: number): number => (s[i] === "\r" && s[i + 1] === "\n" ? 2 : 1);
  const out: CsvItem[] = [];
  let pos = 0;
  let line = 1;
  while (pos < n) {
    if (isBreak(pos)) {
      pos += breakLen(pos);
      line++;
      continue;
    }
    const start = pos;
    const startLine = line;
    const fields: string[] = [];
    let error = "";
    let errorAt = -1;
    for (;;) {
      let value = "";
      if (s[pos] === '"') {
        pos++;
        for (;;) {
          if (pos >= n) {
            error = `Unterminated quoted field ${
              fields.length + 1
            }: no closing quote before the end of the input`;
            errorAt = n;
            break;
          }
          if (s[pos] === '"') {
            if (s[pos + 1] === '"') {
              value += '"';
              pos += 2;
              continue;
            }
            pos++;
            break;
          }
          if (isBreak(pos)) {
            const len = breakLen(pos);
            value += s.slice(pos, pos + len);
            pos += len;
            line++;
            continue;
          }
          value += s[pos++];
        }
        if (errorAt >= 0) break;
      } else {
        while (pos < n && s[pos] !== "," && !isBreak(pos)) value += s[pos++];
      }
      fields.push(value);
      if (pos >= n || isBreak(pos)) {
        if (pos - start > max) errorAt = pos;
        break;
      }
      if (s[pos] === ",") {
        pos++;
        continue;
      }
      error = `Unexpected character ${
        s.charCodeAt(pos) < 0x20
          ? "U+" + s.charCodeAt(pos).toString(16).toUpperCase().padStart(4, "0")
          : `'${s[pos]}'`
      } after the closing quote of field ${fields.length}: expected ',' or a line break`;
      errorAt = pos;
      break;
    }
    if (errorAt < 0) {
      out.push({ line: startLine, fields });
      if (pos < n) pos += breakLen(pos);
      line++;
      continue;
    }
    if (errorAt - start > max) error = `Record is longer than the 'maxRecordBytes' limit of ${max}`;
    out.push({ line: startLine, error });
    let b = start;
    while (b < n && !isBreak(b)) b++;
    pos = b < n ? b + breakLen(b) : n;
    line = startLine + 1;
  }
  return out;
}

/** Reads `bytes` cut at random places. */
async function readRandomChunks(
  bytes: Uint8Array,
  next: () => number,
  options: CsvReadOptions,
): Promise<CsvItem[]> {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const size = 1 + Math.floor(next() * 12);
    chunks.push(bytes.slice(i, i + size));
    i += size;
  }
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const items: CsvItem[] = [];
  for await (const batch of readCsv(source, options)) items.push(...batch);
  return items;
}

Deno.test("[csv] agrees with a reference parser on random input, however it is cut", async () => {
  const pieces = ['"', '"', '""', ",", ",", "\n", "\r\n", "\r", "a", "bc", "é", "😀", '"x"', '""'];
  const next = seededRandom(20250601);
  for (let round = 0; round < 600; round++) {
    let text = next() < 0.1 ? "\uFEFF" : "";
    const length = Math.floor(next() * 40);
    for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)];
    const max = next() < 0.5 ? 1024 : 1 + Math.floor(next() * 12);
    const expected = referenceParse(text, max);
    const bytes = encoder.encode(text);
    const options = { maxRecordBytes: max };
    assertEquals(await readAll(bytes, 0, options), expected, `whole: ${JSON.stringify(text)}`);
    assertEquals(await readAll(bytes, 1, options), expected, `1-byte: ${JSON.stringify(text)}`);
    assertEquals(
      await readRandomChunks(bytes, next, options),
      expected,
      `random cuts: ${JSON.stringify(text)}`,
    );
  }
});

/** Reads `bytes` with {@linkcode readCsvBatches}, each record through its lazy view. */
async function readThroughViews(bytes: Uint8Array, chunkSize: number): Promise<CsvItem[]> {
  const items: CsvItem[] = [];
  let batchObject: unknown = null;
  for await (const batch of readCsvBatches(streamOf(bytes, chunkSize))) {
    assert(batch.size > 0, "a batch is empty");
    assert(batchObject === null || batchObject === batch, "the batch object is not reused");
    batchObject = batch;
    for (let i = 0; i < batch.size; i++) {
      const error = batch.error(i);
      if (error !== null) {
        assertEquals(batch.width(i), 0);
        items.push({ line: batch.line(i), error });
        continue;
      }
      const record = batch.record(i);
      const fields = Array.from({ length: record.length }, (_, k) => record.at(k)!);
      assertEquals(record.at(record.length), undefined);
      assertEquals(record.at(-1), fields.at(-1));
      assertEquals(batch.fields(i), fields);
      items.push({ line: batch.line(i), fields });
    }
  }
  return items;
}

Deno.test("[csv] batches read lazily give what readCsv gives", async () => {
  const pieces = ['"', '""', ",", "\n", "\r\n", "a", "é", '"x"', '"a""b"', '"p\nq"'];
  const next = seededRandom(20261122);
  for (let round = 0; round < 300; round++) {
    let text = "";
    const length = Math.floor(next() * 40);
    for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)];
    const bytes = encoder.encode(text);
    const expected = referenceParse(text, 1024 * 1024);
    for (const chunkSize of [0, 3]) {
      assertEquals(await readThroughViews(bytes, chunkSize), expected, JSON.stringify(text));
    }
  }
});
