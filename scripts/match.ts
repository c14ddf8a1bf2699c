/**
 * `deno task match`: matches a roster file of any size against a provider
 * database, streaming, with a progress bar; writes the same answers as
 * `POST /v1/match`, as CSV or NDJSON.
 *
 * @module
 */
import { parseCli, runCli, UsageError } from "../lib/cli.ts";
import { createProgress } from "../lib/import/progress.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { buildSpecialtyIndex, resolveSpecialty } from "../lib/taxonomy/resolve.ts";
import { readRoster, RosterError, type RosterFormat } from "../lib/match/roster_parse.ts";
import { matchRows, RosterMatcher } from "../lib/match/matcher.ts";
import { MATCH_CSV_COLUMNS, matchCsvLine, matchSummary } from "../lib/match/output.ts";
import { csvLine } from "../lib/store/flat_records.ts";

const USAGE =
  `Usage: deno task match --in roster.csv --out matched.csv [--db FILE] [--format csv|ndjson]
                       [--input-format csv|ndjson] [--max-candidates N]

  --in F              the roster: CSV with a header row (.csv) or NDJSON (.ndjson, .jsonl); --in=- reads stdin
  --out F             where the answers go (.csv or .ndjson); --out=- writes stdout
  --db FILE           the provider database (default: $PROVIDERS_DB or data/providers.db)
  --format F          csv or ndjson (default: from --out's extension, else ndjson)
  --input-format F    csv or ndjson (default: from --in's extension, else csv)
  --max-candidates N  candidates listed per row in NDJSON, 1 to 10 (default 3)

Columns and rules are those of POST /v1/match (docs/matching.md). There is no
row or size limit; the roster is streamed. NDJSON output ends with the summary
line; with CSV output the summary is printed to stderr.`;

function formatOf(path: string, given: string | undefined, fallback: RosterFormat): RosterFormat {
  if (given !== undefined) {
    if (given !== "csv" && given !== "ndjson") {
      throw new UsageError(`Format '${given}' is not csv or ndjson`);
    }
    return given;
  }
  if (/\.csv$/i.test(path)) return "csv";
  if (/\.(ndjson|jsonl)$/i.test(path)) return "ndjson";
  return fallback;
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, {
    string: ["in", "out", "db", "format", "input-format", "max-candidates"],
    boolean: [],
  });
  if ((args as { help?: boolean }).help) {
    console.log(USAGE);
    return;
  }
  if (!args.in) throw new UsageError("Give the roster with --in");
  if (!args.out) throw new UsageError("Give the output file with --out");
  const maxCandidates = Number(args["max-candidates"] ?? "3");
  if (!Number.isInteger(maxCandidates) || maxCandidates < 1 || maxCandidates > 10) {
    throw new UsageError("--max-candidates must be an integer from 1 to 10");
  }
  const inFormat = formatOf(args.in, args["input-format"], "csv");
  const outFormat = formatOf(args.out, args.format, "ndjson");
  const db = args.db ?? Deno.env.get("PROVIDERS_DB") ?? "data/providers.db";
  const store = openSearchableStore(db);
  while (store.warm());
  const specialties = buildSpecialtyIndex(store.taxonomy());
  const matcher = new RosterMatcher({
    find: (q) => store.search(q),
    records: (ids) => store.getProvidersById(ids),
    resolveSpecialty: (words) => {
      const r = resolveSpecialty(specialties, words);
      return r.ok ? r.codes : null;
    },
  }, { maxCandidates });

  const input = args.in === "-" ? Deno.stdin : await Deno.open(args.in, { read: true });
  const size = args.in === "-" ? 0 : (await Deno.stat(args.in)).size;
  const output = args.out === "-"
    ? Deno.stdout
    : await Deno.open(args.out, { write: true, create: true, truncate: true });
  const writer = output.writable.getWriter();
  const encoder = new TextEncoder();
  const progress = createProgress();
  progress.start(`matching ${args.in}`, size);
  let bytes = 0;
  const rows = readRoster(
    input.readable,
    inFormat,
    { maxRows: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER },
    (n) => bytes = n,
  );
  // Answers are written in batches: one write per few hundred rows.
  let pending = outFormat === "csv" ? csvLine(MATCH_CSV_COLUMNS) : "";
  const run = matchRows(rows, matcher, { concurrency: 1 });
  let next = await run.next();
  try {
    while (!next.done) {
      const r = next.value;
      pending += outFormat === "csv" ? matchCsvLine(r) : `${JSON.stringify(r)}\n`;
      if (pending.length > 256 * 1024) {
        await writer.write(encoder.encode(pending));
        pending = "";
      }
      progress.update(bytes, matcher.counts.rows);
      next = await run.next();
    }
  } catch (error) {
    if (pending) await writer.write(encoder.encode(pending));
    await writer.close();
    if (error instanceof RosterError) {
      progress.finish(`stopped: ${error.message}`);
      Deno.exit(1);
    }
    throw error;
  }
  const summary = matchSummary(next.value, store.dataset());
  if (outFormat === "ndjson") pending += `${JSON.stringify(summary)}\n`;
  if (pending) await writer.write(encoder.encode(pending));
  await writer.close();
  const c = summary.summary;
  progress.finish(
    `${c.rows.toLocaleString("en-US")} rows: ${c.matched} matched, ${c.review} review, ` +
      `${c.unmatched} unmatched, ${c.invalid} invalid (${summary.dataset_release}, matcher ${summary.matcher_version})`,
  );
  store.close();
}

if (import.meta.main) await runCli(main, USAGE);
