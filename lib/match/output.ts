/**
 * Writing match results: NDJSON lines (the HTTP answer and the CLI's
 * default) and a flat CSV (one row per roster row, the best candidate's
 * verdicts in columns), plus the summary that ends every answer.
 *
 * @module
 */
import { releaseId } from "../release/manifest.ts";
import type { DatasetInfo } from "../store/store.ts";
import { NICKNAME_SOURCE } from "../names/nicknames.ts";
import { csvLine } from "../store/flat_records.ts";
import { ACCEPT_CLASS } from "./classify.ts";
import { type MatchEnd, MATCHER_VERSION, type MatchResult } from "./matcher.ts";
import { VERDICT_FIELDS } from "./verdicts.ts";

/**
 * The release of a dataset, as every answer names it (the id of
 * `lib/release/manifest.ts`: source, source files' date, build time).
 *
 * @example
 * ```ts
 * datasetRelease(store.dataset()); // "nppes-20251109-20251110T101512345Z"
 * ```
 */
export function datasetRelease(info: DatasetInfo): string {
  return releaseId(info);
}

/** The last line of a match answer. */
export interface MatchSummary {
  summary: MatchEnd["counts"];
  complete: boolean;
  error?: string;
  dataset_release: string;
  dataset_built_at: string;
  matcher_version: string;
  accept_class: number;
  nicknames: string;
}

/**
 * The summary line of a run.
 *
 * @example
 * ```ts
 * const line = matchSummary(end, store.dataset());
 * ```
 */
export function matchSummary(end: MatchEnd, info: DatasetInfo): MatchSummary {
  const summary: MatchSummary = {
    summary: end.counts,
    complete: end.complete,
    dataset_release: datasetRelease(info),
    dataset_built_at: info.built_at,
    matcher_version: MATCHER_VERSION,
    accept_class: ACCEPT_CLASS,
    nicknames: `${NICKNAME_SOURCE.repository} (${NICKNAME_SOURCE.license})`,
  };
  if (end.error) summary.error = end.error;
  return summary;
}

/** The columns of the CSV form of match results. */
export const MATCH_CSV_COLUMNS: readonly string[] = [
  "id",
  "row",
  "status",
  "reason",
  "warnings",
  "npi",
  "name",
  "entity_type",
  "npi_status",
  "address_line1",
  "address_line2",
  "city",
  "state",
  "postal_code",
  "evidence_class",
  "score",
  ...VERDICT_FIELDS.map((f) => `verdict_${f}`),
  "candidate_npis",
  "errors",
];

/**
 * One result as a CSV line (with its line break); the header is
 * {@linkcode MATCH_CSV_COLUMNS}.
 *
 * @example
 * ```ts
 * matchCsvLine(result); // "r1,1,matched,unique_best_evidence,,1234567893,...\r\n"
 * ```
 */
export function matchCsvLine(r: MatchResult): string {
  const best = r.best;
  const top = r.candidates[0];
  return csvLine([
    r.id,
    String(r.row),
    r.status,
    r.reason,
    r.warnings.join(" "),
    best?.npi ?? "",
    best?.name ?? "",
    best?.entity_type ?? "",
    best?.status ?? "",
    best?.address?.line1 ?? "",
    best?.address?.line2 ?? "",
    best?.address?.city ?? "",
    best?.address?.state ?? "",
    best?.address?.postal_code ?? "",
    best ? String(best.evidence_class) : "",
    best ? String(best.score) : "",
    ...VERDICT_FIELDS.map((f) => top?.verdicts[f] ?? ""),
    r.candidates.map((c) => c.npi).join(" "),
    (r.errors ?? []).map((e) => `${e.field}: ${e.message}`).join("; "),
  ]);
}
