/**
 * `deno task index-map`: writes the index map of a database built before
 * index maps (see `lib/store/add_index_map.ts`). Stop the servers of the
 * database first; they read the map once started again.
 *
 * @module
 */
import { parseCli, runScript } from "../lib/cli.ts";
import { addIndexMap } from "../lib/store/add_index_map.ts";

const USAGE = `Usage: deno task index-map [--db FILE] [--again]

  Writes FILE's index map beside it (its posting lists, index columns and typo buckets, read
  in place by the servers opened on it afterwards) and names it in FILE. Databases imported
  by this version have one already.

  --db FILE   the database (default: $PROVIDERS_DB or data/providers.db)
  --again     write the map it names anew (one an earlier version wrote: without the typo
              buckets, whose servers read them from the database, or without the provider
              rows column, which is then written into FILE first, whose servers read each
              page's provider rows from its provider table)`;

function main(): void {
  const args = parseCli(Deno.args, { string: ["db"], boolean: ["again"] });
  if ((args as { help?: boolean }).help) {
    console.log(USAGE);
    return;
  }
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const started = performance.now();
  const added = addIndexMap(db, { again: args.again === true });
  if (!added.written) {
    console.log(`${db} has its index map already (${added.file}; --again writes it anew)`);
    return;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const mb = (added.bytes / 1048576).toFixed(0);
  console.log(
    `Wrote ${added.file}: ${added.entries} lists and the columns, ${mb} MB, in ${seconds} s`,
  );
}

if (import.meta.main) await runScript(() => Promise.resolve().then(main), USAGE);
