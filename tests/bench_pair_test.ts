/**
 * `deno task bench:pair`: two engines timed on the same URLs, every URL by
 * both, answers compared; the same tree against itself answers alike, an
 * engine that answers otherwise is counted.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { COLD_TEXT_CLASSES, coldPaths, harvestPages } from "../bench/cold.ts";
import { comparePaths, type Engine, engineAt, pairMarkdown } from "../bench/pair.ts";

Deno.test("[bench] pair: both engines search every URL; differing answers are counted", async () => {
  const dir = Deno.makeTempDirSync();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records: 3000, seed: 5 });
  const root = new URL("..", import.meta.url);
  const engine = await engineAt(root, db);
  const base = await engineAt(root, db);
  try {
    const { providers, pages } = await harvestPages(
      (zip) => Promise.resolve(engine.zipPage(zip)),
      { pages: 60, seed: 1 },
    );
    assertEquals(pages, 60);
    assert(providers.length >= pages, `${providers.length} providers harvested`);
    const paths = Object.fromEntries(COLD_TEXT_CLASSES.map((cls) => {
      const all = coldPaths(cls, providers, 50, 7);
      return [cls, { warm: all.slice(0, 10), timed: all.slice(10) }];
    }));
    const same = comparePaths(engine, base, paths);
    assertEquals(same.map((r) => r.cls).sort(), [...COLD_TEXT_CLASSES].sort());
    for (const r of same) {
      assertEquals(r.urls, paths[r.cls]!.timed.length, r.cls);
      assertEquals(r.differ, 0, `${r.cls}: the same tree answers alike`);
      assert(r.ms > 0 && r.baseMs > 0, r.cls);
    }
    // An engine that answers some URLs otherwise is caught, and only for those.
    const odd: Engine = {
      ...base,
      search(path) {
        const found = base.search(path);
        return path.includes("q=a") ? { ...found, answer: `${found.answer} ` } : found;
      },
    };
    const differing = comparePaths(engine, odd, paths);
    const expected = Object.values(paths).flatMap((p) => p.timed).filter((p) => p.includes("q=a"));
    assert(expected.length > 0, "some URLs start with an a");
    assertEquals(differing.reduce((n, r) => n + r.differ, 0), expected.length);
    const table = pairMarkdown(same, "/tmp/base");
    assertMatch(
      table,
      /\| class \| URLs \| this tree \| \/tmp\/base \| ratio \| answers that differ \|/,
    );
    assertMatch(table, new RegExp(`\\| all \\| ${same.reduce((n, r) => n + r.urls, 0)} \\|`));
  } finally {
    engine.close();
    base.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
