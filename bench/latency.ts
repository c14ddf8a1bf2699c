import { openSearchableStore } from "../lib/search/searcher.ts";
import { queryFingerprint, SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { specialtyIndex } from "../routes/specialties.ts";
const store = openSearchableStore(Deno.args[0]!);
const qs = [
  "",
  "q=smith",
  "q=smtih",
  "q=jo",
  "q=nurse",
  "q=memorial%20hospital",
  "specialty=cardiologist&near=10001&radius=10",
  "specialty=dentist&state=CA&facets=state,taxonomy,city",
  "last_name=smi*&state=TX",
  "q=john%20smith",
  "q=smith&facets=state",
];
for (const q of qs) {
  const url = new URLSearchParams(q);
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const params = SEARCH_PARAMS.parse(url);
    const query = toSearchQuery(params, {
      specialties: specialtyIndex(store),
      cursorScope: { query: queryFingerprint(url), release: "bench" },
      url,
    });
    const page = store.search(query);
    store.getProvidersById(page.hits.map((h) => h.id));
    total = page.total;
    times.push(performance.now() - t);
  }
  console.log(
    q.padEnd(60),
    "total",
    String(total).padStart(8),
    "ms",
    times.map((t) => t.toFixed(1)).join(" "),
  );
}
