/**
 * The layers of `lib/`, checked on the source: each folder may import only
 * folders of lower layers (and itself), so no folder imports one that
 * imports it back. `docs/architecture.md` draws the same picture.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";

/** Folders of `lib/` from the bottom up; `.` is the files directly in `lib/`. */
const LAYERS: readonly (readonly string[])[] = [
  ["text", "names"],
  ["."],
  ["geo", "taxonomy", "nppes", "http"],
  ["index"],
  ["store"],
  ["release"],
  ["search", "import", "demo", "api"],
  ["registry_api", "fhir", "export"],
  ["match"],
  ["service"],
];

const lib = new URL("../lib/", import.meta.url);

async function* sources(dir: URL, prefix = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = prefix + entry.name;
    if (entry.isDirectory) yield* sources(new URL(`${entry.name}/`, dir), `${path}/`);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** The folder of a path relative to `lib/` (`.` for a file directly in it). */
function folderOf(path: string): string {
  const slash = path.indexOf("/");
  return slash < 0 ? "." : path.slice(0, slash);
}

/** Relative import specifiers of a module (static, dynamic and worker URLs). */
export function relativeImports(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:from\s*|import\s*\(\s*|new URL\(\s*)["'](\.\.?\/[^"']+)["']/g;
  for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

Deno.test("relativeImports: static, type, dynamic and worker imports", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "../store/b.ts";',
    'const c = await import("./c.ts");',
    'new Worker(new URL("../search/worker.ts", import.meta.url));',
    'import { assert } from "@std/assert";',
  ].join("\n");
  assertEquals(relativeImports(source), [
    "./a.ts",
    "../store/b.ts",
    "./c.ts",
    "../search/worker.ts",
  ]);
});

Deno.test("lib/ folders import only lower layers: no folder imports one that imports it back", async () => {
  const layerOf = new Map<string, number>();
  LAYERS.forEach((folders, layer) => folders.forEach((f) => layerOf.set(f, layer)));
  const violations: string[] = [];
  let edges = 0;
  for await (const path of sources(lib)) {
    const from = folderOf(path);
    const fromLayer = layerOf.get(from) ?? -1;
    if (fromLayer < 0) {
      violations.push(
        `lib/${path}: lib/${from}/ has no layer; add it to LAYERS and the architecture guide`,
      );
      continue;
    }
    const text = await Deno.readTextFile(new URL(path, lib));
    for (const specifier of relativeImports(text)) {
      const target = new URL(specifier, new URL(path, lib)).href;
      if (!target.startsWith(lib.href)) {
        violations.push(`lib/${path} imports ${specifier}, outside lib/`);
        continue;
      }
      const to = folderOf(target.slice(lib.href.length));
      if (to === from) continue;
      edges++;
      const toLayer = layerOf.get(to);
      if (toLayer === undefined || toLayer >= fromLayer) {
        violations.push(`lib/${path} (${from}) imports ${specifier} (${to}): not a lower layer`);
      }
    }
  }
  assert(edges > 50, `only ${edges} imports between folders found: is the scan broken?`);
  assertEquals(violations, []);
});

Deno.test("every module of lib/, routes/ and scripts/ opens with its module doc comment", async () => {
  const missing: string[] = [];
  let checked = 0;
  for (const dir of ["lib/", "routes/", "scripts/"]) {
    const base = new URL(`../${dir}`, import.meta.url);
    for await (const path of sources(base)) {
      checked++;
      const text = await Deno.readTextFile(new URL(path, base));
      const first = text.indexOf("*/");
      if (!text.startsWith("/**") || !text.slice(0, first).includes("@module")) {
        missing.push(dir + path);
      }
    }
  }
  assert(checked > 100, `only ${checked} modules found`);
  assertEquals(missing, [], "start these files with a /** … @module */ comment");
});
