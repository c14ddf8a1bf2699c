import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { isValidNpi } from "../lib/npi.ts";
import { tableDigests } from "../scripts/db_digest.ts";

Deno.test("[demo] the demo database is synthetic, deterministic and complete", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const a = buildDemoDatabase({ path: `${dir}/a.db`, records: 1500, seed: 7 });
    const b = buildDemoDatabase({ path: `${dir}/b.db`, records: 1500, seed: 7 });
    assertEquals(a.providers, 1500);
    assertEquals(b.providers, 1500);
    const sa = openSqliteStore(`${dir}/a.db`);
    const sb = openSqliteStore(`${dir}/b.db`);
    try {
      await t.step("dataset says synthetic demo", () => {
        const info = sa.dataset();
        assertEquals(info.source, "demo");
        assertEquals(info.synthetic, true);
        assertEquals(info.records, 1500);
        assert(info.deactivated > 0 && info.deactivated < 150);
      });
      await t.step("same seed, same records", () => {
        const ids = [1, 100, 777, 1499];
        assertEquals(
          sa.getProvidersById(ids).map((r) => r.provider),
          sb.getProvidersById(ids).map((r) => r.provider),
        );
      });
      await t.step("same seed, same tables: every table digest is equal", () => {
        const da = tableDigests(`${dir}/a.db`), db = tableDigests(`${dir}/b.db`);
        assert(da.size >= 10, `only ${da.size} tables`);
        assertEquals([...da], [...db]);
        buildDemoDatabase({ path: `${dir}/c.db`, records: 1500, seed: 8 });
        const dc = tableDigests(`${dir}/c.db`);
        assert(dc.get("record") !== da.get("record"), "another seed gives other records");
        assertEquals(dc.get("taxonomy"), da.get("taxonomy"), "and the same code set");
      });
      await t.step("records are complete and located", () => {
        const all = sa.getProvidersById(Array.from({ length: 1500 }, (_, i) => i + 1)).map((r) =>
          r.provider
        );
        assert(all.every((p) => isValidNpi(p.npi)));
        const active = all.filter((p) => p.status === "active");
        assert(active.every((p) => p.taxonomies.filter((x) => x.primary).length === 1));
        assert(
          active.every((p) => p.taxonomies.every((x) => x.description !== null)),
          "every code is named",
        );
        const located = active.filter((p) => p.practice_location?.lat !== null).length;
        assert(located / active.length > 0.95, `${located} of ${active.length} located`);
        assert(all.some((p) => p.other_names.length > 0));
        assert(all.some((p) => p.other_locations.length > 0));
        assert(all.some((p) => p.endpoints.length > 0));
      });
    } finally {
      sa.close();
      sb.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
