/**
 * `POST /v1/match`: matches a roster (CSV or NDJSON) to NPIs and streams one
 * answer line per row, in input order, then a summary line.
 *
 * @module
 */
import { endpoint, type Route } from "../lib/http/router.ts";
import { choice, defineQuery, integer } from "../lib/http/params.ts";
import { HttpError } from "../lib/http/errors.ts";
import { STATUS_CODE } from "../lib/http/status.ts";
import { ref } from "../lib/api/schemas.ts";
import type { Dataset } from "../lib/service/dataset.ts";
import type { Config } from "../lib/config.ts";
import { pageFinder } from "../lib/search/page_finder.ts";
import { resolveSpecialty } from "../lib/taxonomy/resolve.ts";
import {
  readRoster,
  ROSTER_FIELDS,
  RosterError,
  rosterFormat,
  type RosterRow,
} from "../lib/match/roster_parse.ts";
import { matchRows, RosterMatcher } from "../lib/match/matcher.ts";
import {
  datasetRelease,
  MATCH_CSV_COLUMNS,
  matchCsvLine,
  matchSummary,
} from "../lib/match/output.ts";
import { csvLine } from "../lib/store/flat_records.ts";
import { clock, DeadlineError } from "../lib/deadline.ts";
import { specialtyIndex } from "./specialties.ts";
import { STREAM_HEADERS } from "./export.ts";

const query = defineQuery({
  max_candidates: integer({
    description: "Candidates listed per row, best first.",
    min: 1,
    max: 10,
    default: 3,
  }),
  format: choice({
    description:
      "`ndjson` (default: one JSON answer a row, then a summary line) or `csv` (one flat row per " +
      "roster row with the best candidate's verdicts; the summary is left out). Without it, " +
      "`Accept: text/csv` chooses CSV.",
    values: ["ndjson", "csv"],
  }),
});

/** Turns a roster problem into the 400/413 problem naming its row and field. */
function rosterProblem(error: RosterError): HttpError {
  const { row, field } = error.where;
  const parameter = field
    ? (row > 0 ? `row ${row}: ${field}` : `header: ${field}`)
    : row > 0
    ? `row ${row}`
    : "body";
  return new HttpError(
    error.status === 413 ? STATUS_CODE.ContentTooLarge : STATUS_CODE.BadRequest,
    error.message,
    {
      errors: [{ parameter, message: error.message }],
      type: error.status === 413 ? "roster-too-large" : "invalid-roster",
    },
  );
}

/** The match route over `dataset`. */
export function matchRoute(dataset: Dataset, config: Config): Route {
  return {
    path: "/v1/match",
    methods: {
      POST: endpoint({
        operationId: "matchRoster",
        summary: "Match a roster to NPIs",
        description:
          "The body is a roster: `text/csv` with a header row, or `application/x-ndjson` (one JSON object a " +
          `line), with any of the columns ${ROSTER_FIELDS.map((f) => `\`${f}\``).join(", ")} ` +
          "(`address_1`, `zip` and a few other spellings are accepted). A row needs a last name (a person) or " +
          "an organization name. The answer streams NDJSON in input order, one line per row: `id`, `row`, " +
          "`status` (`matched`, `review`, `unmatched`, `invalid`), `reason` (a stable code), `warnings`, " +
          "`best` and up to `max_candidates` `candidates`, each with per-field `verdicts` (`agrees`, " +
          "`conflicts`, `unknown`), how each agrees (`evidence`), an `evidence_class` (1 strongest) and a " +
          '`score` that orders candidates but never decides. The last line is `{"summary": counts, ' +
          '"complete", "dataset_release", "matcher_version", ...}`; `complete: false` with an `error` says ' +
          "the answer stopped early and from which row to resend. `matched` needs exactly one candidate in the " +
          "top evidence class, class 3 or better; one NPI is matched to one row only (later rows claiming it " +
          "go to `review`). Limits: `MATCH_MAX_ROWS` rows (default 10,000) and `MATCH_MAX_BYTES` bytes " +
          "(default 10 MB), beyond which the answer is a 413 naming the row; a malformed roster is a 400 " +
          "naming the row and field, before any line is sent. The rules and reason codes are in " +
          "docs/matching.md.",
        tags: ["matching"],
        query,
        requestBody: {
          description: "The roster: CSV with a header row, or NDJSON",
          required: true,
          content: {
            "text/csv": {
              schema: { type: "string" },
              example: "id,first_name,last_name,address,city,state,postal_code\n" +
                "r1,Bob,Smith,1 Main St Ste 4,New York,NY,10001\n",
            },
            "application/x-ndjson": {
              schema: { type: "string" },
              example: '{"id":"r1","first_name":"Bob","last_name":"Smith","postal_code":"10001"}\n',
            },
          },
        },
        responses: {
          "200": {
            description: "One answer line per row, then the summary line",
            contentType: "application/x-ndjson",
            schema: ref("MatchResult"),
            headers: {
              "Dataset-Release": {
                description: "The dataset release matched against",
                schema: { type: "string" },
              },
            },
          },
          "413": {
            description: "Over `MATCH_MAX_ROWS` rows or `MATCH_MAX_BYTES` bytes",
            contentType: "application/problem+json",
            schema: ref("Problem"),
          },
          "415": {
            description: "The body is neither `text/csv` nor `application/x-ndjson`",
            contentType: "application/problem+json",
            schema: ref("Problem"),
          },
        },
      }, async (request, _ctx, params) => {
        const format = rosterFormat(request.headers.get("content-type"));
        if (!format) {
          throw new HttpError(
            STATUS_CODE.UnsupportedMediaType,
            "Send the roster as 'text/csv' (with a header row) or 'application/x-ndjson'",
            { type: "unsupported-media-type" },
          );
        }
        const limits = { maxRows: config.matchMaxRows, maxBytes: config.matchMaxBytes };
        const length = Number(request.headers.get("content-length") ?? "0");
        if (length > limits.maxBytes) {
          await request.body?.cancel();
          throw rosterProblem(
            new RosterError(
              413,
              `The roster is ${length} bytes, over the limit of ${limits.maxBytes}: split it into smaller ` +
                "requests (or use `deno task match` for files of any size)",
              { row: 0 },
            ),
          );
        }
        const store = dataset.store();
        const pool = dataset.pool();
        // The whole roster is read (within the limits) before answering: a bad row is a 400, not half an answer.
        const rows: RosterRow[] = [];
        try {
          const source = request.body ?? new Blob([]).stream();
          for await (const row of readRoster(source, format, limits)) rows.push(row);
        } catch (error) {
          if (error instanceof RosterError) throw rosterProblem(error);
          throw error;
        }
        if (rows.length === 0) {
          throw rosterProblem(new RosterError(400, "The roster has no rows", { row: 0 }));
        }
        const specialties = specialtyIndex(store);
        const find = pageFinder(store, pool);
        const matcher = new RosterMatcher({
          find: (q) => find(q, { deadline: clock() + config.requestTimeoutMs }),
          records: (ids) => store.getProvidersById(ids),
          resolveSpecialty: (words) => {
            const r = resolveSpecialty(specialties, words);
            return r.ok ? r.codes : null;
          },
        }, { maxCandidates: params.max_candidates });
        const csv = params.format === "csv" ||
          (!params.format && /\btext\/csv\b/i.test(request.headers.get("accept") ?? ""));
        const run = matchRows(rows, matcher, {
          concurrency: pool ? 8 : 1,
          deadline: clock() + config.streamTimeoutMs,
          signal: request.signal,
        });
        const info = store.dataset();
        const encoder = new TextEncoder();
        let headerSent = !csv;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (!headerSent) {
              headerSent = true;
              controller.enqueue(encoder.encode(csvLine(MATCH_CSV_COLUMNS)));
              return;
            }
            try {
              const next = await run.next();
              if (next.done) {
                if (!csv) {
                  controller.enqueue(
                    encoder.encode(`${JSON.stringify(matchSummary(next.value, info))}\n`),
                  );
                }
                controller.close();
                return;
              }
              controller.enqueue(
                encoder.encode(csv ? matchCsvLine(next.value) : `${JSON.stringify(next.value)}\n`),
              );
            } catch (error) {
              // A failure mid-answer: the summary says so (NDJSON); CSV is cut off.
              if (!csv) {
                const message = error instanceof HttpError || error instanceof DeadlineError
                  ? error.message
                  : "The matcher failed on this row: resend the rest of the roster";
                controller.enqueue(encoder.encode(`${
                  JSON.stringify(matchSummary({
                    counts: matcher.counts,
                    complete: false,
                    error: `Stopped after row ${matcher.counts.rows}: ${message}`,
                  }, info))
                }\n`));
                controller.close();
              } else controller.error(error);
            }
          },
          async cancel() {
            await run.return({ counts: matcher.counts, complete: false });
          },
        }, { highWaterMark: 1 });
        return new Response(body, {
          headers: {
            "Content-Type": csv
              ? "text/csv; charset=utf-8; header=present"
              : "application/x-ndjson; charset=utf-8",
            "Dataset-Release": datasetRelease(info),
            "Cache-Control": "no-store",
            ...(csv ? { "Content-Disposition": 'attachment; filename="matched.csv"' } : {}),
            ...STREAM_HEADERS,
          },
        });
      }),
    },
  };
}
