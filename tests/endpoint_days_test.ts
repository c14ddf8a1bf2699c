import { assertEquals } from "@std/assert";
import { EndpointDayOrder } from "../lib/fhir/endpoint_days.ts";
import type { DaySet } from "../lib/fhir/date_search.ts";
import { FLAG } from "../lib/index/fields.ts";
import { Rng } from "../lib/demo/prng.ts";

/** Random rows: `owners` providers with up to three rows each, days clustered or spread. */
function columns(rng: Rng, owners: number, typeCount: number) {
  const updated = new Uint16Array(owners + 1), flags = new Uint8Array(owners + 1);
  for (let id = 1; id <= owners; id++) {
    updated[id] = rng.chance(0.05) ? 0 : 19_000 + rng.int(rng.chance(0.5) ? 30 : 2_000);
    flags[id] = rng.chance(0.8) ? FLAG.active : 0;
  }
  const ids: number[] = [], types: number[] = [];
  for (let id = 1; id <= owners; id++) {
    for (let k = rng.int(4); k > 0; k--) {
      ids.push(id);
      types.push(rng.int(typeCount));
    }
  }
  return {
    types: Uint8Array.from(types),
    typeCount,
    days: Uint16Array.from(ids, (id) => updated[id]!),
    flags: Uint8Array.from(ids, (id) => flags[id]!),
  };
}

/** The rows a plain pass over every row finds: what the order must answer. */
function scan(
  c: ReturnType<typeof columns>,
  typeOk: Uint8Array,
  wantActive: boolean,
  wantOff: boolean,
  days: DaySet | null,
  after: number,
  limit: number,
) {
  let total = 0;
  const rows: number[] = [];
  for (let r = 0; r < c.types.length; r++) {
    const day = c.days[r]!;
    if (typeOk[c.types[r]!] !== 1) continue;
    if ((c.flags[r]! & FLAG.active) !== 0 ? !wantActive : !wantOff) continue;
    if (days && !days.some(([from, to]) => day >= from && day < to)) continue;
    total++;
    if (r > after && rows.length < limit) rows.push(r);
  }
  return { total, rows };
}

Deno.test("endpoint day order: totals and pages equal a pass over every row", () => {
  const rng = new Rng(17);
  for (let round = 0; round < 12; round++) {
    const c = columns(rng, 200 + rng.int(8_000), 1 + rng.int(4));
    const order = new EndpointDayOrder(c);
    for (let q = 0; q < 40; q++) {
      const typeOk = Uint8Array.from({ length: c.typeCount }, () => (rng.chance(0.6) ? 1 : 0));
      const statuses = rng.int(3);
      const wantActive = statuses !== 2, wantOff = statuses !== 1;
      let days: DaySet | null = null;
      if (rng.chance(0.8)) {
        // One or two ranges: recent days (few rows), wide ranges (most rows), or none at all.
        const from = 19_000 + rng.int(2_100);
        days = [[from, from + 1 + rng.int(rng.chance(0.5) ? 2 : 3_000)]];
        if (rng.chance(0.3)) days.push([days[0]![1] + 10, days[0]![1] + 40]);
      }
      const limit = rng.int(12);
      const after = rng.chance(0.5) ? -1 : rng.int(c.types.length);
      const filter = { types: typeOk, wantActive, wantOff, updated: days };
      assertEquals(
        order.page(filter, after, limit),
        scan(c, typeOk, wantActive, wantOff, days, after, limit),
        `round ${round} query ${q}`,
      );
    }
  }
});

Deno.test("endpoint day order: walking a result set page by page reaches every row once", () => {
  const c = columns(new Rng(5), 2_000, 3);
  const order = new EndpointDayOrder(c);
  const filter = {
    types: Uint8Array.of(1, 0, 1),
    wantActive: true,
    wantOff: false,
    updated: [[19_010, 19_400]] as DaySet,
  };
  const seen: number[] = [];
  let after = -1;
  for (;;) {
    const page = order.page(filter, after, 7);
    seen.push(...page.rows);
    if (page.rows.length < 7) break;
    after = page.rows.at(-1)!;
  }
  const all = scan(c, filter.types, true, false, filter.updated, -1, Infinity);
  assertEquals(seen, all.rows);
  assertEquals(seen.length, all.total);
});
