/** Typo variants: within the budget, most frequent first, none for a word many providers hold. */
import { assert, assertEquals } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { TYPED_WORD_MIN_DOCS, TypoFinder } from "../lib/search/text_query.ts";

const dir = await Deno.makeTempDir();
const path = `${dir}/typo.db`;
buildDemoDatabase({ path, records: 20_000, seed: 5 });
const db = new DatabaseSync(path, { readOnly: true });
const docsOf = db.prepare("SELECT docs FROM term WHERE term = ?");
const docs = (term: string) => (docsOf.get(term) as { docs: number } | undefined)?.docs ?? 0;

Deno.test("[typos] a word many providers hold is searched as typed", () => {
  const finder = new TypoFinder(db);
  assert(docs("smith") >= TYPED_WORD_MIN_DOCS, "the demo has many Smiths");
  assertEquals(finder.variants("smith"), []);
  // The same word mistyped finds it.
  assert(finder.variants("smiht").includes("smith"));
});

Deno.test("[typos] a word few providers hold keeps its neighbours", () => {
  const finder = new TypoFinder(db);
  const rare = (db.prepare(
    "SELECT term FROM term WHERE docs BETWEEN 1 AND 3 AND length(term) >= 6 AND term GLOB '[a-z]*' ORDER BY term LIMIT 200",
  ).all() as { term: string }[]).map((r) => r.term);
  const withNeighbours = rare.filter((t) => finder.variants(t).length > 0);
  assert(withNeighbours.length > 0, "some rare words have typo neighbours");
  for (const t of withNeighbours) {
    assert(docs(t) < TYPED_WORD_MIN_DOCS);
    assert(!finder.variants(t).includes(t), "the word itself is not its own variant");
  }
  // Asked again, the same answer (remembered).
  assertEquals(finder.variants(withNeighbours[0]!), finder.variants(withNeighbours[0]!));
});

globalThis.addEventListener("unload", () => {
  db.close();
  Deno.removeSync(dir, { recursive: true });
});
