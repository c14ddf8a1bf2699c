/**
 * In-process timings of the FHIR directory's index paths on one database,
 * without the HTTP server: `near` sorted by distance through the bounded
 * heap (`lib/search/nearest.ts`) against the sorted path (taken when a
 * facet is asked for, so it also counts one facet), at several radii around
 * 400 located providers; the `_lastUpdated` id lists
 * (`lib/search/extra_filters.ts`) of narrow and broad conditions; and the
 * secondary practice locations a `Location?_lastUpdated=` page reads
 * (`lib/fhir/location_search.ts`: day groups or a walk from the cursor),
 * beside one pass over every row (what it did before), with equal totals;
 * and Endpoint `name`: the first search (which reads the names once) and
 * the next ones.
 *
 * Usage: `deno run --allow-read --allow-write --allow-env --allow-sys bench/fhir_index.ts FILE`
 *
 * @module
 */
import { openSearchableStore } from "../lib/search/searcher.ts";
import { searchQuery } from "../lib/search/query.ts";
import { updatedIds } from "../lib/search/extra_filters.ts";
import { dateCondition, dayTable } from "../lib/fhir/date_search.ts";
import { locationSource, secondaryRows } from "../lib/fhir/location_search.ts";
import { endpointRows, endpointSource } from "../lib/fhir/endpoint_search.ts";
import { nameKey } from "../lib/text/fold.ts";
import { FLAG } from "../lib/index/fields.ts";

function percentiles(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
  return `p50 ${at(0.5).toFixed(2)}  p90 ${at(0.9).toFixed(2)}  p99 ${at(0.99).toFixed(2)} ms`;
}

if (import.meta.main) {
  const path = Deno.args[0];
  if (!path) {
    console.error("Usage: bench/fhir_index.ts DATABASE");
    Deno.exit(2);
  }
  const store = openSearchableStore(path, { lazy: false });
  const index = store.index;
  const points: number[] = [];
  const step = Math.max(1, Math.floor(index.size / 401));
  for (let id = 1; points.length < 400 && id <= index.size; id += step) {
    if (!Number.isNaN(index.lat[id]!)) points.push(id);
  }
  for (const radius of [10, 25, 50]) {
    for (const [name, facets] of [["heap", []], ["sorted+facet", ["state"]]] as const) {
      const times: number[] = [];
      let total = 0;
      // Two slightly moved points per provider: no result set is reused.
      for (let round = 0; round < 2; round++) {
        for (const id of points) {
          const near = {
            lat: index.lat[id]! + round * 0.001,
            lon: index.lon[id]! + round * 0.001,
            radius,
            unit: "km" as const,
          };
          const started = performance.now();
          const page = store.search(searchQuery({
            near,
            sort: "distance",
            includeDeactivated: false,
            limit: 10,
            facets: [...facets],
          }));
          times.push(performance.now() - started);
          total += page.total;
        }
      }
      console.log(
        `near ${radius} km ${name.padEnd(13)} ${percentiles(times)}  mean total ${
          Math.round(total / times.length)
        }`,
      );
    }
  }
  const now = new Date();
  const recent = (days: number) =>
    new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
  for (
    const value of [
      `ge${recent(7)}`,
      `ge${recent(60)}`,
      `ge${recent(700)}`,
      "2019-05",
      "2015",
      "lt2015",
      "ne2020",
    ]
  ) {
    const days = dateCondition(value);
    const times: number[] = [];
    let n = 0;
    for (let r = 0; r < 20; r++) {
      const started = performance.now();
      n = updatedIds(days, { index }).length;
      times.push(performance.now() - started);
    }
    console.log(
      `_lastUpdated=${value.padEnd(14)} ${String(n).padStart(9)} ids  ${percentiles(times)}`,
    );
    const source = locationSource(store);
    if (!source) continue;
    const filter = {
      states: null,
      cities: null,
      postal: null,
      addresses: null,
      near: null,
      npis: null,
      ids: null,
      organizationNames: null,
      updated: days,
      mask: FLAG.active,
      value: FLAG.active,
    };
    secondaryRows(source, filter, null, 10); // The groups and counts are built once, on first use.
    const { ids } = source.columns, flags = index.flags, updated = index.updated;
    const paged: number[] = [], passed: number[] = [];
    let total = 0, reference = 0;
    for (let r = 0; r < 20; r++) {
      const middle = [ids[Math.floor(ids.length * (r + 1) / 21)]!, 0];
      let started = performance.now();
      total = secondaryRows(source, filter, r % 2 ? middle : null, 10).total;
      paged.push(performance.now() - started);
      started = performance.now();
      const ok = dayTable(days)!;
      reference = 0;
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k]!;
        if ((flags[id]! & FLAG.active) !== 0 && ok[updated[id]!] === 1) reference++;
      }
      passed.push(performance.now() - started);
    }
    if (total !== reference) throw new Error(`${value}: total ${total}, every row ${reference}`);
    console.log(
      `  Location rows ${String(total).padStart(8)}  page ${percentiles(paged)}  | every row ${
        percentiles(passed)
      }`,
    );
  }
  const endpoints = endpointSource(store);
  if (endpoints) {
    const words = ["direct", "fhir", "portal", "referral", "secure", "health", "ep", "inbox"];
    const times: number[] = [];
    let total = 0;
    for (const word of words) {
      const started = performance.now();
      total += endpointRows(
        endpoints,
        {
          connectionTypes: null,
          statuses: null,
          updated: null,
          endpointNames: [{ key: nameKey(word), prefix: true }],
        },
        -1,
        10,
      ).total;
      times.push(performance.now() - started);
    }
    console.log(
      `Endpoint name (${endpoints.columns.ids.length} rows): first ${times[0]!.toFixed(1)} ms ` +
        `(reads the names if the database has no name columns), then ${
          percentiles(times.slice(1))
        }; ${total} matches`,
    );
  }
  store.close();
}
