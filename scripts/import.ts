/**
 * `deno task import`: imports the NPPES files into a served database.
 *
 * @module
 */
import { parseCli, UsageError } from "../lib/cli.ts";
import { ImportError, runImport } from "../lib/import/importer.ts";
import { createProgress } from "../lib/import/progress.ts";
import { addKeptUnions } from "../lib/search/kept_union_build.ts";

const USAGE =
  `Usage: deno task import --db FILE --npi npidata_pfile.csv [--othername F] [--pl F] [--endpoint F]
                        [--taxonomy nucc.csv] [--update] [--deactivated report.xlsx|report.csv]

  --db FILE          database to build or update (default: $PROVIDERS_DB or data/providers.db)
  --npi F            main file (npidata_pfile_*.csv); a full import builds a new database from it
  --othername F      other names (othername_pfile_*.csv)
  --pl F             secondary practice locations (pl_pfile_*.csv)
  --endpoint F       endpoints (endpoint_pfile_*.csv)
  --taxonomy F       official NUCC taxonomy CSV (default: the built-in NUCC code set)
  --update           apply weekly files as upserts to the existing database
  --deactivated F    monthly deactivation report (.xlsx as published, or CSV of NPI and date)

The database is built in a new file and swapped in atomically: an import that
fails or is killed leaves the served database as it was.`;

if (import.meta.main) {
  try {
    const args = parseCli(Deno.args, {
      string: ["db", "npi", "othername", "pl", "endpoint", "taxonomy", "deactivated"],
      boolean: ["update"],
    });
    if ((args as { help?: boolean }).help) {
      console.log(USAGE);
      Deno.exit(0);
    }
    const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
    await Deno.mkdir(db.replace(/[\\/][^\\/]*$/, "") || ".", { recursive: true });
    const summary = await runImport({
      ...args,
      db,
      progress: createProgress(),
      derive: (built) => void addKeptUnions(built),
    });
    const rows = summary.files.reduce((n, f) => n + f.rows, 0);
    const skipped = summary.files.reduce((n, f) => n + f.skipped, 0);
    const s = summary.stats;
    console.log(
      [
        `Imported into ${db} in ${summary.seconds.toFixed(1)} s (${
          Math.round(rows / summary.seconds).toLocaleString("en-US")
        } rows/s)`,
        ...summary.files.map((f) =>
          `  ${f.kind.padEnd(12)} ${f.name}: ${
            f.rows.toLocaleString("en-US")
          } rows, ${f.skipped} skipped`
        ),
        `  providers    ${s.providers.toLocaleString("en-US")} (${
          s.active.toLocaleString("en-US")
        } active, ${s.deactivated.toLocaleString("en-US")} deactivated)`,
        `  malformed    ${skipped.toLocaleString("en-US")} rows skipped`,
        `  ZIPs         ${
          s.zipsNotFound.toLocaleString("en-US")
        } practice ZIPs not found in the ZIP dataset`,
        `  release      ${summary.release.release} (${
          summary.release.database.bytes.toLocaleString("en-US")
        } bytes, sha256 ${summary.release.database.sha256}) in ${db}.release.json`,
        `  orphans      ${
          s.orphans.toLocaleString("en-US")
        } reference rows for NPIs not in the main file`,
      ].join("\n"),
    );
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}\n\n${USAGE}`);
      Deno.exit(2);
    }
    if (error instanceof ImportError) {
      console.error(`error: ${error.message}`);
      Deno.exit(1);
    }
    throw error;
  }
}
