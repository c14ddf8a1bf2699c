/**
 * The guides against the code: every configuration variable the service
 * reads is documented, and every relative link in the README and the
 * guides points at a file that exists.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";

const root = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, root));

async function markdownFiles(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", root))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

/** Environment variables `lib/config.ts` reads (`env.NAME` or `"NAME"` passed with `env`). */
export function variablesRead(source: string): string[] {
  const names = new Set<string>();
  for (const m of source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  for (const m of source.matchAll(/\(env, "([A-Z][A-Z0-9_]+)"/g)) names.add(m[1]!);
  return [...names].sort();
}

Deno.test("[docs] every configuration variable is in the operations guide's table", async () => {
  const read_ = variablesRead(await read("lib/config.ts"));
  assert(read_.length >= 10, `only ${read_.length} variables found: is the scan broken?`);
  const guide = await read("docs/operations.md");
  const missing = read_.filter((name) => !guide.includes(`| \`${name}\``));
  assertEquals(missing, [], "add a row to the table in docs/operations.md");
});

Deno.test("[docs] relative links in the README and the guides resolve", async () => {
  const broken: string[] = [];
  let links = 0;
  for (const file of await markdownFiles()) {
    const text = await read(file);
    for (const m of text.matchAll(/\]\((?!https?:|mailto:|#)([^)\s#]+)(#[^)]*)?\)/g)) {
      links++;
      const target = new URL(m[1]!, new URL(file, root));
      try {
        await Deno.stat(target);
      } catch {
        broken.push(`${file}: ${m[1]}`);
      }
    }
  }
  assert(links >= 10, `only ${links} relative links found: is the scan broken?`);
  assertEquals(broken, []);
});
