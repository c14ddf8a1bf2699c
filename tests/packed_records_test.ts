/** Records packed for posting from a reading worker: what goes in comes out. */
import { assertEquals } from "@std/assert";
import { packedBuffers, RecordPacker, unpackRecord } from "../lib/import/packed_records.ts";
import type { StoredRecord } from "../lib/store/prepare.ts";

const records: StoredRecord[] = [
  { npi: 1003000126, doc: '["1003000126","SMITH"]', zipsNotFound: 0 },
  { npi: 1003000134, doc: '["Zoë Ñúñez 東京 🏥"]', zipsNotFound: 1 },
  { npi: 2999999999, doc: "x", zipsNotFound: 0 },
  { npi: 1003000142, doc: "", zipsNotFound: 0 },
];

Deno.test("[packed records] a batch unpacks to the records put in, twice in a row", () => {
  const packer = new RecordPacker();
  for (let round = 0; round < 2; round++) {
    for (const r of records) packer.add(r);
    assertEquals(packer.size, records.length);
    const batch = structuredClone(packer.take());
    assertEquals(packer.size, 0);
    assertEquals(batch.size, records.length);
    assertEquals(records.map((_, i) => unpackRecord(batch, i)), records);
  }
});

Deno.test("[packed records] an empty batch, and the buffers to transfer", () => {
  const packer = new RecordPacker();
  const empty = packer.take();
  assertEquals([empty.size, empty.text, empty.ends.length], [0, "", 0]);
  packer.add(records[0]!);
  const batch = packer.take();
  const buffers = packedBuffers(batch);
  assertEquals(buffers.length, 3);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(batch, buffers);
  assertEquals(batch.npis.length, 0, "the numbers moved, not copied");
  port1.close();
  port2.close();
});
