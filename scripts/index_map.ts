/**
 * `deno task index-map`: writes the maps a database built before index
 * maps or record maps lacks (see `lib/store/add_index_map.ts`). Stop the
 * servers of the database first; they read the maps once started again.
 *
 * @module
 */
import { parseCli, runCli } from "../lib/cli.ts";
import { addIndexMap } from "../lib/store/add_index_map.ts";

const USAGE = `Usage: deno task index-map [--db FILE]

  Writes the maps FILE lacks beside it — its index map (posting lists and index columns) and
  its record map (stored records) — read in place by the servers opened on it afterwards,
  and names them in FILE. Databases imported by this version have both already.

  --db FILE   the database (default: $PROVIDERS_DB or data/providers.db)`;

function main(): void {
  const args = parseCli(Deno.args, { string: ["db"], boolean: [] });
  if ((args as { help?: boolean }).help) {
    console.log(USAGE);
    return;
  }
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const started = performance.now();
  const { index, records } = addIndexMap(db);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
  console.log(
    index.written
      ? `Wrote ${index.file}: ${index.entries} lists and the columns, ${mb(index.bytes)}`
      : `${db} has its index map already (${index.file})`,
  );
  console.log(
    records.written
      ? `Wrote ${records.file}: ${records.providers} records, ${mb(records.bytes)}`
      : `${db} has its record map already (${records.file})`,
  );
  console.log(`in ${seconds} s`);
}

if (import.meta.main) {
  try {
    await runCli(() => Promise.resolve().then(main), USAGE);
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
