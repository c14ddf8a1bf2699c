/**
 * Refreshes the vendored nickname table from a downloaded copy of
 * `names.csv` (repository carltonnorthern/nicknames, Apache-2.0): copies it
 * to `vendor/nicknames/names.csv` and regenerates
 * `lib/names/_nicknames_data.ts`, which the service imports (a module, so
 * `deno compile` and Deno Deploy carry it without file access).
 *
 * ```sh
 * curl -LO https://raw.githubusercontent.com/carltonnorthern/nicknames/master/names.csv
 * deno run --allow-read --allow-write scripts/vendor_nicknames.ts names.csv
 * deno fmt lib/names/_nicknames_data.ts
 * ```
 *
 * Record the upstream commit in `vendor/nicknames/SOURCE.md` when you do.
 *
 * @module
 */
import { compileNicknameCsv } from "../lib/names/nicknames.ts";

const root = new URL("../", import.meta.url);

/** Renders the generated module for the compiled lines. */
export function nicknameModule(lines: readonly string[]): string {
  return [
    "/**",
    " * First names and their nicknames, compiled by scripts/vendor_nicknames.ts",
    " * from vendor/nicknames/names.csv (carltonnorthern/nicknames, Apache-2.0;",
    " * see vendor/nicknames/). Do not edit.",
    " *",
    " * @module",
    " */",
    "",
    "/** Each formal name and its nicknames: `formal:nick nick`. */",
    `export const NICKNAME_LINES: readonly string[] = ${JSON.stringify(lines, null, 2)};`,
    "",
  ].join("\n");
}

if (import.meta.main) {
  const from = Deno.args[0];
  if (from === undefined) {
    console.error(
      "usage: deno run --allow-read --allow-write scripts/vendor_nicknames.ts names.csv",
    );
    Deno.exit(2);
  }
  const csv = await Deno.readTextFile(from);
  const lines = compileNicknameCsv(csv);
  await Deno.writeTextFile(new URL("vendor/nicknames/names.csv", root), csv);
  await Deno.writeTextFile(new URL("lib/names/_nicknames_data.ts", root), nicknameModule(lines));
  console.log(`${lines.length} formal names written to lib/names/_nicknames_data.ts`);
}
