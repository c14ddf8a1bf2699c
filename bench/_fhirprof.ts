// Ad-hoc, not committed: FHIR cold class in process, for a CPU profile.
import { testApp } from "../tests/_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { coldPaths } from "./cold.ts";
const store = openSearchableStore("/work/data/full.db");
while (store.warm());
const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
const h = JSON.parse(Deno.readTextFileSync("/work/data/harvest.json"));
const cls = (Deno.args[0] ?? "fhir_near_radius") as Parameters<typeof coldPaths>[0];
const paths = coldPaths(cls, h.providers, 1200, 5);
for (const p of paths.slice(0, 200)) await (await app.request(p)).arrayBuffer();
const times: number[] = [];
for (const p of paths.slice(200)) {
  const t0 = performance.now();
  const r = await app.request(p);
  await r.arrayBuffer();
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log(cls, times.length, "p50", times[times.length >> 1]!.toFixed(2), "p99", times[Math.floor(times.length * 0.99)]!.toFixed(2), "mean", (times.reduce((a, b) => a + b) / times.length).toFixed(2));
