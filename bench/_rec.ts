import { openSearchableStore } from "../lib/search/searcher.ts";
import { recordBatchReader } from "../lib/store/record_batch.ts";
const store = openSearchableStore("/work/data/full.db");
const read = recordBatchReader(store.db);
const N = store.index.size;
let seed = 1; const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
for (const batch of [1, 10, 50]) {
  const t = performance.now(); let n = 0, bytes = 0;
  for (let k = 0; k < 2000; k++) {
    const ids = Array.from({ length: batch }, () => 1 + Math.floor(rnd() * N));
    for (const r of read(ids)) { n++; bytes += r.doc.length; }
  }
  const ms = performance.now() - t;
  console.log(`batch ${batch}: ${(ms * 1000 / n).toFixed(1)} µs/record, ${(bytes / n).toFixed(0)} chars/doc`);
}
const st = store.db.prepare("PRAGMA page_size").get(); console.log(st);
console.log(store.db.prepare("SELECT count(*) c FROM record").get());
