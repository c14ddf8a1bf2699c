/**
 * `deno task release`: publishes a built database as a release, or fetches
 * a published release into a local database (what a replica does with
 * `PROVIDERS_DB_URL`, for an init container).
 *
 * @module
 */
import { parseCli, runScript, UsageError } from "../lib/cli.ts";
import { publishRelease } from "../lib/release/publish.ts";
import { downloadRelease, fetchManifest, installRelease } from "../lib/release/fetch.ts";
import { readRelease } from "../lib/release/manifest.ts";
import { describeLeftovers, removeLeftovers } from "../lib/store/build_leftovers.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { dirname } from "../lib/paths.ts";

const USAGE = `Usage: deno task release publish --db FILE --to FOLDER
       deno task release fetch --from URL_OR_PATH --db FILE

  publish   copies FILE into FOLDER as <release>.db with <release>.release.json, then
            points FOLDER/current.release.json at it (serve FOLDER over HTTP(S), or share it,
            and set PROVIDERS_DB_URL to current.release.json)
  fetch     downloads the release the manifest at URL_OR_PATH names into FILE, checking its
            size and SHA-256 (nothing is done when FILE already is that release)

  --db FILE          the database (default: $PROVIDERS_DB or data/providers.db)
  --to FOLDER        the release folder to publish into
  --from URL         a release manifest: http(s) URL, file: URL or path`;

/** The release id of the database at `db`, or null when there is none to read. */
function localRelease(db: string): string | null {
  try {
    const store = openSqliteStore(db, { lazyIndex: true, recordCacheBytes: 0 });
    try {
      return readRelease(db, store.dataset()).id;
    } finally {
      store.close();
    }
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = Deno.args;
  const args = parseCli(rest, { string: ["db", "to", "from"], boolean: [] });
  if ((args as { help?: boolean }).help || command === "--help" || command === undefined) {
    console.log(USAGE);
    return;
  }
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  if (command === "publish") {
    if (!args.to) throw new UsageError("'publish' needs --to FOLDER");
    const { manifest, database, current } = await publishRelease(db, args.to);
    console.log(`Published release ${manifest.release} (${manifest.records} providers):`);
    console.log(
      `  ${database} (${manifest.database.bytes} bytes, sha256 ${manifest.database.sha256})`,
    );
    console.log(`  ${current} now names it; replicas pick it up on SIGHUP or their next poll`);
    return;
  }
  if (command === "fetch") {
    const from = args.from ?? Deno.env.get("PROVIDERS_DB_URL");
    if (!from) throw new UsageError("'fetch' needs --from URL (or PROVIDERS_DB_URL)");
    await Deno.mkdir(dirname(db), { recursive: true });
    const leftovers = removeLeftovers(db);
    if (leftovers.length) console.log(describeLeftovers(leftovers));
    const published = await fetchManifest(from);
    const release = published.manifest.release;
    if (localRelease(db) === release) {
      console.log(`${db} already is release ${release}`);
      return;
    }
    const started = performance.now();
    const temp = await downloadRelease(published, db);
    await installRelease(temp, db, published.manifest);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`Fetched release ${release} into ${db} in ${seconds} s (SHA-256 verified)`);
    return;
  }
  throw new UsageError(`Unknown command '${command}': use 'publish' or 'fetch'`);
}

if (import.meta.main) await runScript(main, USAGE);
