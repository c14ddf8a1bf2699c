import { assertEquals, assertMatch, assertRejects, assertThrows } from "@std/assert";
import { excelSerialToIsoDate, readXlsxRows } from "../lib/nppes/xlsx.ts";
import { makeZip, type ZipFile } from "./_zip.ts";

const REMEDY =
  "open it in a spreadsheet program and export it as CSV with columns NPI,date instead";
const DOWNLOAD_AGAIN = `download it again, or ${REMEDY}`;

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`;

const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

/**
 * A workbook like the CMS deactivation report, with shared strings. Its first
 * sheet (in tab order) is `sheet2.xml`, so reading `sheet1.xml` would be wrong.
 */
function sharedStringsFixture(): ZipFile[] {
  const workbook = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
  <bookViews><workbookView activeTab="0"/></bookViews>
  <sheets>
    <sheet name="DeactivatedNPIs" sheetId="3" r:id="rId7"/>
    <sheet name="Notes" sheetId="1" r:id="rId1"/>
  </sheets>
</workbook>`;
  const rels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
  <Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="strings/shared.xml"/>
  <Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/xl/worksheets/../worksheets/sheet2.xml"/>
  <Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.org/" TargetMode="External"/>
</Relationships>`;
  const shared = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="12" uniqueCount="10">
<si><t>NPPES Deactivated NPI Report 20250609</t></si>
<si><t>NPI</t></si>
<si><t>NPPES Deactivation Date</t></si>
<si><t>1003000142</t></si>
<si><t>05/12/2008</t></si>
<si><r><rPr><b/><sz val="11"/></rPr><t>Rich </t></r><r><t xml:space="preserve">text </t></r><r><t>runs</t></r></si>
<si><t>A &amp; B &lt;C&gt; &quot;D&quot; &apos;E&apos; &#233; &#x1F600; &#0;</t></si>
<si><t>漢字</t><rPh sb="0" eb="2"><t>カンジ</t></rPh><phoneticPr fontId="1"/></si>
<si><t xml:space="preserve">  line_x000D_
two _x005F_x0041_ </t></si>
<si><t/></si>
</sst>`;
  const sheet = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<dimension ref="A1:D8"/>
<cols><col min="1" max="2" width="20" customWidth="1"/></cols>
<sheetData>
<row r="1" spans="1:2"><c r="A1" t="s" s="1"><v>0</v></c></row>
<row r="2" spans="1:2"><c r="A2" t="s"><v>1</v></c><c r="B2" t="s"><v>2</v></c></row>
<row r="3" spans="1:2"><c r="A3" t="s"><v>3</v></c><c r="B3" t="s"><v>4</v></c></row>
<row r="5"><c r="A5" t="s"><v>5</v></c><c r="D5"><v>42</v></c></row>
<row r="6"><c r="B6" t="s"><v>6</v></c><c r="C6" t="b"><v>1</v></c><c r="D6" t="b"><v>0</v></c></row>
<row r="7" ht="15" customHeight="1"/>
<row r="8"><c r="A8" t="str"><f>A3&amp;"x"</f><v>1003000142x</v></c><c r="B8" t="e"><v>#N/A</v></c><c r="C8" s="2"/><c r="D8" t="n"><v>1.5E-3</v></c></row>
<row r="9"><c r="A9" t="s"><v>7</v></c><c r="B9" t="s"><v>8</v></c><c r="C9" t="s"><v>9</v></c></row>
</sheetData>
<rowBreaks count="1"><brk id="3" max="16383" man="1"/></rowBreaks>
</worksheet>`;
  const notes = `<?xml version="1.0" encoding="UTF-8"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>wrong sheet</t></is></c></row></sheetData></worksheet>`;
  return [
    { name: "[Content_Types].xml", data: CONTENT_TYPES, method: 0 },
    { name: "_rels/.rels", data: ROOT_RELS, method: 0 },
    { name: "xl/workbook.xml", data: workbook, method: 8 },
    { name: "xl/_rels/workbook.xml.rels", data: rels, method: 0 },
    { name: "xl/worksheets/sheet1.xml", data: notes, method: 8 },
    { name: "xl/worksheets/sheet2.xml", data: sheet, method: 8, dataDescriptor: true },
    { name: "xl/strings/shared.xml", data: shared, method: 8, dataDescriptor: true },
  ];
}

const SHARED_STRINGS_ROWS = [
  ["NPPES Deactivated NPI Report 20250609"],
  ["NPI", "NPPES Deactivation Date"],
  ["1003000142", "05/12/2008"],
  ["Rich text runs", "", "", "42"],
  ["", `A & B <C> "D" 'E' é 😀 &#0;`, "TRUE", "FALSE"],
  ["1003000142x", "#N/A", "", "1.5E-3"],
  ["漢字", "  line\r\ntwo _x0041_ ", ""],
];

/**
 * A workbook with inline strings, a date stored as a number, namespace
 * prefixes, cells and rows without references, and no workbook parts at all
 * (so the reader falls back to `xl/worksheets/sheet1.xml`).
 */
function inlineStringsFixture(): ZipFile[] {
  const sheet = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<x:sheetData>
<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>NPI</x:t></x:is></x:c><x:c r="B1" t='inlineStr'><x:is><x:t>NPPES Deactivation Date</x:t></x:is></x:c></x:row>
<x:row r="2"><x:c r="A2" t="inlineStr"><x:is><x:t>1003000142</x:t></x:is></x:c><x:c r="B2" s="3"><x:v>45000</x:v></x:c></x:row>
<x:row><x:c t="inlineStr"><x:is><x:r><x:t>12345</x:t></x:r><x:r><x:t>67893</x:t></x:r></x:is></x:c><x:c><x:v>36526.5</x:v></x:c></x:row>
</x:sheetData>
</x:worksheet>`;
  return [
    { name: "[Content_Types].xml", data: CONTENT_TYPES, method: 8 },
    { name: "xl/worksheets/sheet1.xml", data: sheet, method: 0 },
  ];
}

/** The offset of the central directory entry of `name`. */
function centralEntryOffset(zip: Uint8Array, name: string): number {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const encoded = new TextEncoder().encode(name);
  for (let at = 0; at + 46 <= zip.length; at++) {
    if (view.getUint32(at, true) !== 0x02014b50) continue;
    const length = view.getUint16(at + 28, true);
    const candidate = zip.subarray(at + 46, at + 46 + length);
    if (length === encoded.length && candidate.every((byte, i) => byte === encoded[i])) return at;
  }
  throw new Error(`No central directory entry '${name}'`);
}

/** The offset of the end-of-central-directory record. */
function endRecordOffset(zip: Uint8Array): number {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  for (let at = zip.length - 22; at >= 0; at--) {
    if (view.getUint32(at, true) === 0x06054b50) return at;
  }
  throw new Error("No end-of-central-directory record");
}

/** A copy of `zip` with a little-endian 16- or 32-bit value written at `at`. */
function patched(zip: Uint8Array, at: number, value: number, bytes: 2 | 4): Uint8Array {
  const copy = zip.slice();
  const view = new DataView(copy.buffer);
  if (bytes === 2) view.setUint16(at, value, true);
  else view.setUint32(at, value, true);
  return copy;
}

Deno.test("[xlsx] reads the first sheet with shared strings, stored and deflated parts", async () => {
  const rows = await readXlsxRows(await makeZip(sharedStringsFixture()));
  assertEquals(rows, SHARED_STRINGS_ROWS);
});

Deno.test("[xlsx] reads a workbook inside a larger buffer", async () => {
  const zip = await makeZip(sharedStringsFixture());
  const padded = new Uint8Array(zip.length + 20);
  padded.set(zip, 10);
  assertEquals(await readXlsxRows(padded.subarray(10, 10 + zip.length)), SHARED_STRINGS_ROWS);
});

Deno.test("[xlsx] reads inline strings and a date stored as a number", async () => {
  const rows = await readXlsxRows(await makeZip(inlineStringsFixture()));
  assertEquals(rows, [
    ["NPI", "NPPES Deactivation Date"],
    ["1003000142", "45000"],
    ["1234567893", "36526.5"],
  ]);
  assertEquals(excelSerialToIsoDate(Number(rows[1]![1])), "2023-03-15");
  assertEquals(excelSerialToIsoDate(Number(rows[2]![1])), "2000-01-01");
});

Deno.test("[xlsx] reads a large deflated sheet in order", async () => {
  const count = 20_000;
  let cells = "";
  for (let i = 1; i <= count; i++) {
    cells += `<row r="${i}"><c r="A${i}" t="inlineStr"><is><t>${1000000000 + i}</t></is></c>` +
      `<c r="B${i}"><v>${40000 + (i % 5000)}</v></c></row>`;
  }
  const sheet = `<worksheet><sheetData>${cells}</sheetData></worksheet>`;
  const rows = await readXlsxRows(
    await makeZip([{ name: "xl/worksheets/sheet1.xml", data: sheet, dataDescriptor: true }]),
  );
  assertEquals(rows.length, count);
  assertEquals(rows[0], ["1000000001", "40001"]);
  assertEquals(rows[count - 1], [String(1000000000 + count), "40000"]);
});

Deno.test("[xlsx] puts rows written out of order back in order", async () => {
  const sheet = `<worksheet><sheetData>
<row r="3"><c r="A3"><v>3</v></c></row><row r="1"><c r="A1"><v>1</v></c></row>
<row r="2"><c foo:r="Z9"  r = 'B2'><v>2</v></c><c r="A2"><v>0</v></c></row></sheetData></worksheet>`;
  const rows = await readXlsxRows(
    await makeZip([{ name: "xl/worksheets/sheet1.xml", data: sheet }]),
  );
  assertEquals(rows, [["1"], ["0", "2"], ["3"]]);
});

Deno.test("[xlsx] rejects what is not a zip", async () => {
  await assertRejects(
    () => readXlsxRows(new TextEncoder().encode('"NPI","NPPES Deactivation Date"\r\n')),
    Error,
    `Cannot read xlsx: this is not a zip archive, which an .xlsx file is; ${REMEDY}`,
  );
  await assertRejects(
    () => readXlsxRows(new Uint8Array()),
    Error,
    `Cannot read xlsx: this is not a zip archive, which an .xlsx file is; ${REMEDY}`,
  );
  const xls = new Uint8Array(600);
  xls.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  await assertRejects(
    () => readXlsxRows(xls),
    Error,
    `Cannot read xlsx: this is an old binary .xls workbook, not an .xlsx (a zip); ${REMEDY}`,
  );
});

Deno.test("[xlsx] rejects a truncated zip", async () => {
  const zip = await makeZip(sharedStringsFixture());
  await assertRejects(
    () => readXlsxRows(zip.subarray(0, Math.floor(zip.length / 2))),
    Error,
    `Cannot read xlsx: the zip has no end-of-central-directory record, so it is truncated; ${DOWNLOAD_AGAIN}`,
  );
  await assertRejects(
    () => readXlsxRows(zip.subarray(200)),
    Error,
    `Cannot read xlsx: the zip's central directory lies outside the file; ${DOWNLOAD_AGAIN}`,
  );
  // An entry whose data runs past the end of the file.
  const sheet = centralEntryOffset(zip, "xl/worksheets/sheet2.xml");
  await assertRejects(
    () => readXlsxRows(patched(zip, sheet + 20, 0x00ffffff, 4)),
    Error,
    `Cannot read xlsx: 'xl/worksheets/sheet2.xml' is cut short; ${DOWNLOAD_AGAIN}`,
  );
});

Deno.test("[xlsx] rejects a zip that is not a workbook", async () => {
  await assertRejects(
    async () => readXlsxRows(await makeZip([{ name: "readme.txt", data: "hello" }])),
    Error,
    `Cannot read xlsx: 'xl/workbook.xml' is missing, so this zip is not a workbook; ${REMEDY}`,
  );
  const inner = await makeZip(sharedStringsFixture());
  const outer = await makeZip([
    { name: "NPPES Deactivated NPI Report 20250609.xlsx", data: inner, method: 0 },
  ]);
  await assertRejects(
    () => readXlsxRows(outer),
    Error,
    "Cannot read xlsx: 'xl/workbook.xml' is missing: this is a zip holding " +
      "'NPPES Deactivated NPI Report 20250609.xlsx'; extract " +
      `'NPPES Deactivated NPI Report 20250609.xlsx' from it and read that, or ${REMEDY}`,
  );
  const noSheet = sharedStringsFixture().filter((file) => !file.name.includes("worksheets/"));
  await assertRejects(
    async () => readXlsxRows(await makeZip(noSheet)),
    Error,
    `Cannot read xlsx: the first worksheet 'xl/worksheets/sheet2.xml' is missing; ${REMEDY}`,
  );
});

Deno.test("[xlsx] rejects ZIP64 and encrypted entries", async () => {
  const zip = await makeZip(sharedStringsFixture());
  const end = endRecordOffset(zip);
  await assertRejects(
    () => readXlsxRows(patched(zip, end + 10, 0xffff, 2)),
    Error,
    `Cannot read xlsx: ZIP64 archives are not supported; ${REMEDY}`,
  );
  await assertRejects(
    () => readXlsxRows(patched(zip, end + 16, 0xffffffff, 4)),
    Error,
    `Cannot read xlsx: ZIP64 archives are not supported; ${REMEDY}`,
  );
  const sheet = centralEntryOffset(zip, "xl/worksheets/sheet2.xml");
  await assertRejects(
    () => readXlsxRows(patched(zip, sheet + 24, 0xffffffff, 4)),
    Error,
    `Cannot read xlsx: ZIP64 archives are not supported; ${REMEDY}`,
  );
  const encrypted = sharedStringsFixture().map((file) => ({ ...file, extraFlags: 1 }));
  await assertRejects(
    async () => readXlsxRows(await makeZip(encrypted)),
    Error,
    `Cannot read xlsx: 'xl/_rels/workbook.xml.rels' is encrypted; save the workbook without a password, or ${REMEDY}`,
  );
});

Deno.test("[xlsx] rejects corrupt entries", async () => {
  const zip = await makeZip(sharedStringsFixture());
  const sheet = centralEntryOffset(zip, "xl/worksheets/sheet2.xml");
  // A wrong CRC-32 in the central directory.
  await assertRejects(
    () => readXlsxRows(patched(zip, sheet + 16, 0x12345678, 4)),
    Error,
    `Cannot read xlsx: 'xl/worksheets/sheet2.xml' is corrupt (its CRC-32 does not match); ${DOWNLOAD_AGAIN}`,
  );
  // A wrong uncompressed size.
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const size = view.getUint32(sheet + 24, true);
  await assertRejects(
    () => readXlsxRows(patched(zip, sheet + 24, size + 1, 4)),
    Error,
    `Cannot read xlsx: 'xl/worksheets/sheet2.xml' inflates to ${size} bytes instead of ${
      size + 1
    }; ${DOWNLOAD_AGAIN}`,
  );
  await assertRejects(
    () => readXlsxRows(patched(zip, sheet + 24, size - 1, 4)),
    Error,
    `Cannot read xlsx: 'xl/worksheets/sheet2.xml' inflates to more than its stated ${
      size - 1
    } bytes; ${DOWNLOAD_AGAIN}`,
  );
  // Stored text read as deflate data.
  const workbook = centralEntryOffset(zip, "xl/_rels/workbook.xml.rels");
  const error = await assertRejects(() => readXlsxRows(patched(zip, workbook + 10, 8, 2)), Error);
  assertMatch(
    error.message,
    /^Cannot read xlsx: 'xl\/_rels\/workbook\.xml\.rels' (cannot be inflated \(.+\)|inflates to \d+ bytes instead of \d+); download it again, or /,
  );
  // An unknown compression method.
  await assertRejects(
    () => readXlsxRows(patched(zip, workbook + 10, 12, 2)),
    Error,
    `Cannot read xlsx: 'xl/_rels/workbook.xml.rels' uses compression method 12, which is not supported; ${REMEDY}`,
  );
  // A local header that is not there.
  await assertRejects(
    () => readXlsxRows(patched(zip, workbook + 42, 5, 4)),
    Error,
    `Cannot read xlsx: the zip's local header of 'xl/_rels/workbook.xml.rels' is missing; ${DOWNLOAD_AGAIN}`,
  );
});

Deno.test("[xlsx] rejects a cell pointing past the shared strings", async () => {
  const sheet =
    `<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>3</v></c></row></sheetData></worksheet>`;
  await assertRejects(
    async () =>
      readXlsxRows(
        await makeZip([
          { name: "xl/worksheets/sheet1.xml", data: sheet },
          { name: "xl/sharedStrings.xml", data: "<sst><si><t>only</t></si></sst>" },
        ]),
      ),
    Error,
    `Cannot read xlsx: cell 'A1' of 'xl/worksheets/sheet1.xml' refers to shared string '3', which does not exist; ${REMEDY}`,
  );
});

Deno.test("[xlsx] converts Excel serial numbers to ISO dates", () => {
  assertEquals(excelSerialToIsoDate(45000), "2023-03-15");
  assertEquals(excelSerialToIsoDate(45000.999), "2023-03-15");
  assertEquals(excelSerialToIsoDate(44999.99999999999), "2023-03-15");
  assertEquals(excelSerialToIsoDate(1), "1900-01-01");
  assertEquals(excelSerialToIsoDate(59), "1900-02-28");
  assertEquals(excelSerialToIsoDate(61), "1900-03-01");
  assertEquals(excelSerialToIsoDate(36526), "2000-01-01");
  assertEquals(excelSerialToIsoDate(39580), "2008-05-12");
  assertEquals(excelSerialToIsoDate(2958465), "9999-12-31");
  assertThrows(
    () => excelSerialToIsoDate(60),
    RangeError,
    "Cannot convert Excel serial '60' to a date: it stands for 1900-02-29, which does not exist",
  );
  for (const serial of [0, 0.5, -1, 2958466, NaN, Infinity]) {
    assertThrows(
      () => excelSerialToIsoDate(serial),
      RangeError,
      `Cannot convert Excel serial '${serial}' to a date: must be from 1 to 2958465`,
    );
  }
});
