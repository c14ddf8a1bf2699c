/**
 * `deno task unions`: builds the kept unions of a database (the commonest
 * words' unions, each taxonomy code's providers by state and the common
 * specialties' unions: see `lib/search/kept_unions.ts`) and names them in
 * it. Imports and demo builds write them; this is for a database built
 * before them, or to write them with another budget. Stop the servers of
 * the database first; they read the file once started again.
 *
 * @module
 */
import { parseCli, runScript } from "../lib/cli.ts";
import { addKeptUnions, KEPT_UNIONS_BYTES } from "../lib/search/kept_union_build.ts";

const USAGE = `Usage: deno task unions [--db FILE] [--mb N] [--again]

  Builds the unions of the words and prefixes most providers hold (as a query of one word,
  the last word typed, or a word before it), the largest first, each taxonomy code's
  providers grouped by state, and the unions of the specialties 50,000 providers or more
  hold, and keeps them in a file beside FILE, read in place by the servers opened on it
  afterwards. Databases imported by this version have one already.

  --db FILE   the database (default: $PROVIDERS_DB or data/providers.db)
  --mb N      at most N MB of word unions (default ${KEPT_UNIONS_BYTES / 1048576})
  --again     write the file it names anew`;

function main(): void {
  const args = parseCli(Deno.args, { string: ["db", "mb"], boolean: ["again"] });
  if ((args as { help?: boolean }).help) {
    console.log(USAGE);
    return;
  }
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const mb = args.mb === undefined ? KEPT_UNIONS_BYTES / 1048576 : Number(args.mb);
  if (!Number.isFinite(mb) || mb < 0) {
    throw new Error(`--mb takes a number of megabytes, not '${args.mb}'`);
  }
  const started = performance.now();
  const added = addKeptUnions(db, { budget: mb * 1048576, again: args.again === true });
  if (!added.written) {
    console.log(`${db} has its kept unions already (${added.file}; --again writes them anew)`);
    return;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `Wrote ${added.file}: ${added.sets} unions, ${added.codes} codes by state, ${added.codeSets} specialties, ${
      (added.bytes / 1048576).toFixed(0)
    } MB, in ${seconds} s`,
  );
}

if (import.meta.main) await runScript(() => Promise.resolve().then(main), USAGE);
