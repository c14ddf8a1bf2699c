/** Rows of the NPPES files to provider records. */
import { assertEquals } from "@std/assert";
import { nppesDate, providerFromRow } from "../lib/nppes/record.ts";
import { readCsvBatches } from "../lib/nppes/csv.ts";
import { formatDemoRow } from "../lib/demo/csv.ts";
import { generateDemo } from "../lib/demo/generate.ts";

Deno.test("[record] dates: MM/DD/YYYY and ISO to ISO, anything else null", () => {
  const cases: [string | null, string | null][] = [
    ["08/31/2007", "2007-08-31"],
    ["8/1/2007", "2007-08-01"],
    [" 12/01/2020 ", "2020-12-01"],
    ["02/29/2000", "2000-02-29"],
    ["2007-08-31", "2007-08-31"],
    ["02/29/1900", null], // not a leap year
    ["02/30/2024", null],
    ["04/31/2024", null],
    ["13/01/2000", null],
    ["00/10/2000", null],
    ["1/1/1899", null],
    ["123/1/2000", null],
    ["1/1/20000", null],
    ["1/1/200", null],
    ["1//2000", null],
    ["/1/2000", null],
    ["1/x/2000", null],
    ["2000-1-01", null],
    ["2000/01/01", null],
    ["", null],
    [null, null],
  ];
  for (const [input, want] of cases) assertEquals(nppesDate(input), want, String(input));
});

Deno.test("[record] a lazily read CSV record maps like its fields as strings", async () => {
  const bundles = [...generateDemo({ records: 300 })];
  const text = bundles.map((b) => formatDemoRow(b.main)).join("\r\n") + "\r\n";
  const bytes = new TextEncoder().encode(text);
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  let n = 0;
  for await (const batch of readCsvBatches(source)) {
    for (let i = 0; i < batch.size; i++, n++) {
      assertEquals(providerFromRow(batch.record(i)), providerFromRow(bundles[n]!.main));
    }
  }
  assertEquals(n, bundles.length);
});
