/**
 * `deno task demo`: builds a synthetic demo database of any size, or writes
 * the same data as NPPES-format CSV files for the real importer.
 *
 * @module
 */
import { parseCli, UsageError } from "../lib/cli.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { addKeptUnions } from "../lib/search/kept_union_build.ts";
import { writeDemoCsv } from "../lib/demo/csv.ts";
import { DEMO_DEFAULT_SEED } from "../lib/demo/generate.ts";
import { createProgress } from "../lib/import/progress.ts";
import { dirname } from "../lib/paths.ts";
import { describeLeftovers, removeLeftovers } from "../lib/store/build_leftovers.ts";
import { writeReleaseManifest } from "../lib/release/write.ts";

const USAGE = `Usage: deno task demo [--db FILE] [--records N] [--seed S] [--csv DIR]

  --db FILE      database to write (default: $PROVIDERS_DB or data/providers.db); replaced atomically
  --records N    number of providers (NPIs), default 100000
  --seed S       seed, default ${DEMO_DEFAULT_SEED}; the same seed and size give the same data
  --csv DIR      write NPPES-format files (npidata, othername, pl, endpoint, deactivation report)
                 into DIR instead of a database, for 'deno task import'

The data is synthetic: real ZIPs and NUCC codes, made-up people and organizations.`;

function positiveInteger(
  name: string,
  raw: string | undefined,
  fallback: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new UsageError(`Option '--${name}' must be an integer from 1 to ${max}, got '${raw}'`);
  }
  return Number(raw);
}

if (import.meta.main) {
  try {
    const args = parseCli(Deno.args, { string: ["db", "records", "seed", "csv"], boolean: [] });
    if ((args as { help?: boolean }).help) {
      console.log(USAGE);
      Deno.exit(0);
    }
    const records = positiveInteger("records", args.records, 100_000, 20_000_000);
    const seed = args.seed === undefined
      ? DEMO_DEFAULT_SEED
      : positiveInteger("seed", args.seed, 0, 2 ** 32 - 1);
    const started = performance.now();
    if (args.csv) {
      await Deno.mkdir(args.csv, { recursive: true });
      const { files } = await writeDemoCsv(args.csv, { records, seed });
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `Wrote ${records.toLocaleString("en-US")} synthetic providers as NPPES files in ${
          seconds.toFixed(1)
        } s:`,
      );
      for (const f of files) {
        console.log(`  ${f.kind.padEnd(12)} ${f.path} (${f.rows.toLocaleString("en-US")} rows)`);
      }
    } else {
      const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
      await Deno.mkdir(dirname(db), { recursive: true });
      const progress = createProgress();
      const leftovers = removeLeftovers(db);
      if (leftovers.length) progress.note(describeLeftovers(leftovers));
      progress.start("demo", records * 2);
      const stats = buildDemoDatabase({
        path: db,
        records,
        seed,
        onProgress: (done) => progress.update(done, Math.min(done, records)),
        derive: (built) => void addKeptUnions(built),
      });
      const seconds = (performance.now() - started) / 1000;
      progress.finish(
        `${stats.providers.toLocaleString("en-US")} providers (${
          stats.active.toLocaleString("en-US")
        } active) in ${seconds.toFixed(1)} s`,
      );
      const release = await writeReleaseManifest(db);
      console.log(`Built ${db}: synthetic demo data, seed ${seed}`);
      console.log(
        `Release ${release.release}: ${db}.release.json (sha256 ${release.database.sha256})`,
      );
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}\n\n${USAGE}`);
      Deno.exit(2);
    }
    throw error;
  }
}
