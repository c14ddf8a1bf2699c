/**
 * The roster matcher: for each row, gather candidates (blocking), judge
 * each field, classify, decide; across the roster, give an NPI to one row
 * only (the later rows claiming it go to review). Rows are evaluated a few
 * at a time and answered in input order.
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import { blocks, type FindPage } from "./candidates.ts";
import { classify, compareJudged, decide, type Judged } from "./classify.ts";
import { prepareRow, type RowProblem, type SpecialtyResolver } from "./prepare.ts";
import type { RosterRow } from "./roster_parse.ts";
import { judge, type Verdict, type VerdictField } from "./verdicts.ts";
import { clock, DeadlineError } from "../deadline.ts";

/** The matcher's version, reported in every summary: it changes when answers may change. */
export const MATCHER_VERSION = "1.0.0";

/** A row's status. */
export type MatchStatus = "matched" | "review" | "unmatched" | "invalid";

/** A registry provider as the answer shows it. */
export interface MatchedProvider {
  npi: string;
  entity_type: Provider["entity_type"];
  status: Provider["status"];
  name: string;
  address: {
    line1: string | null;
    line2: string | null;
    city: string | null;
    state: string | null;
    postal_code: string | null;
  } | null;
  evidence_class: number;
  score: number;
}

/** A candidate with its verdicts. */
export interface MatchCandidate extends MatchedProvider {
  verdicts: Record<VerdictField, Verdict>;
  evidence: Partial<Record<VerdictField, string>>;
  location: string | null;
}

/** One line of the answer: the decision on one roster row. */
export interface MatchResult {
  id: string;
  row: number;
  status: MatchStatus;
  reason: string;
  warnings: string[];
  best: MatchedProvider | null;
  candidates: MatchCandidate[];
  /** For `invalid` rows: each field that is wrong. */
  errors?: RowProblem[];
  /** Words taken out of the name fields (credentials, suffixes). */
  stripped?: string[];
}

/** Counts per status. */
export interface MatchCounts {
  rows: number;
  matched: number;
  review: number;
  unmatched: number;
  invalid: number;
}

/** What the matcher reads from the dataset. */
export interface MatchDeps {
  /** Runs a blocking search. */
  find: FindPage;
  /** Provider records by internal id. */
  records(ids: readonly number[]): { id: number; provider: Provider }[];
  /** Resolves specialty words to taxonomy codes (null: unknown). */
  resolveSpecialty: SpecialtyResolver;
}

/** Options of a run. */
export interface MatchOptions {
  /** Candidates listed per row (1–10). Default 3. */
  maxCandidates?: number;
  /** Rows evaluated at once. Default 4. */
  concurrency?: number;
  /** Stop before a row once this time (on `clock()`) has passed. */
  deadline?: number;
  /** Stop before a row once aborted. */
  signal?: AbortSignal;
}

/** Most candidates judged per row (blocking may find more; the first found are kept). */
const MAX_JUDGED = 60;

function shown(p: Provider, j: Judged): MatchedProvider {
  const loc = p.practice_location;
  return {
    npi: p.npi,
    entity_type: p.entity_type,
    status: p.status,
    name: p.name,
    address: loc
      ? {
        line1: loc.line1,
        line2: loc.line2,
        city: loc.city,
        state: loc.state,
        postal_code: loc.postal_code,
      }
      : null,
    evidence_class: j.evidenceClass,
    score: j.score,
  };
}

/** The roster matcher of one request or one file. */
export class RosterMatcher {
  readonly #deps: MatchDeps;
  readonly #maxCandidates: number;
  /** NPI → id of the row it was matched to. */
  readonly #awarded = new Map<string, string>();
  /** Counts so far. */
  readonly counts: MatchCounts = { rows: 0, matched: 0, review: 0, unmatched: 0, invalid: 0 };

  constructor(deps: MatchDeps, options: { maxCandidates?: number } = {}) {
    this.#deps = deps;
    this.#maxCandidates = Math.max(1, Math.min(10, options.maxCandidates ?? 3));
  }

  /**
   * Evaluates one row on its own (no one-to-one rule yet): candidates,
   * verdicts, classes and the decision.
   *
   * @example
   * ```ts
   * const result = matcher.settle(await matcher.evaluate(row));
   * ```
   */
  async evaluate(source: RosterRow): Promise<MatchResult> {
    const row = prepareRow(source, this.#deps.resolveSpecialty);
    const base = { id: source.id, row: source.row, warnings: row.warnings };
    if (row.problems.length) {
      return {
        ...base,
        status: "invalid",
        reason: row.problems.some((p) => p.field.startsWith("last_name"))
          ? "missing_required_name"
          : "invalid_field",
        best: null,
        candidates: [],
        errors: row.problems,
      };
    }
    const individual = row.kind === "individual";
    const judged: { j: Judged; p: Provider }[] = [];
    const seen = new Set<number>();
    let supplied: Provider | null = null;
    let found = 0;
    let strong = false;
    let truncated = false;
    for (const block of blocks(row)) {
      if (block.skip === "found" && found > 0) continue;
      if (block.skip === "strong" && strong) continue;
      if (seen.size >= MAX_JUDGED) break;
      const page = await this.#deps.find(block.query);
      if (block.skip === "never" && page.total > page.hits.length) truncated = true;
      const fresh = page.hits.map((h) => h.id).filter((id) => !seen.has(id));
      for (const id of fresh) seen.add(id);
      for (const { provider } of this.#deps.records(fresh)) {
        if (row.npi && provider.npi === row.npi) supplied = provider;
        else found++;
        const j = classify(provider.npi, judge(row, provider), individual);
        if (j.evidenceClass < 9) judged.push({ j, p: provider });
        if (j.evidenceClass <= 2) strong = true;
      }
    }
    judged.sort((a, b) => compareJudged(a.j, b.j));
    const warnings = [...row.warnings];
    if (row.npi) {
      if (!supplied) warnings.push("npi_not_found");
      else {
        if (supplied.status === "deactivated") warnings.push("npi_deactivated");
        if ((supplied.entity_type === "individual") !== individual) {
          warnings.push("npi_type_mismatch");
        }
        const mine = judged.find((x) => x.p === supplied);
        if (!mine || mine.j.evidenceClass === 8) warnings.push("npi_name_conflict");
      }
    }
    const byNpi = new Map(judged.map((x) => [x.p.npi, x.p]));
    const decision = decide(
      judged.map((x) => x.j),
      (npi) => byNpi.get(npi)?.status === "deactivated",
    );
    if (decision.reason === "candidate_deactivated" && judged[0]?.p === supplied) {
      decision.reason = "npi_deactivated";
    }
    if (truncated) {
      warnings.push("candidates_truncated");
      // More namesakes than one search returns: a unique best among those read proves nothing.
      if (decision.status === "matched" && judged[0]?.j.evidenceClass !== 1) {
        decision.status = "review";
        decision.reason = "too_many_candidates";
      }
    }
    const top = judged[0];
    const result: MatchResult = {
      ...base,
      warnings,
      status: decision.status,
      reason: decision.reason,
      best: top ? shown(top.p, top.j) : null,
      candidates: judged.slice(0, this.#maxCandidates).map(({ j, p }) => ({
        ...shown(p, j),
        verdicts: j.verdicts,
        evidence: j.evidence,
        location: j.location,
      })),
    };
    if (row.person?.stripped.length) result.stripped = row.person.stripped;
    return result;
  }

  /**
   * Applies the one-NPI-per-roster rule (call in input order) and counts the row.
   */
  settle(result: MatchResult): MatchResult {
    if (result.status === "matched" && result.best) {
      const holder = this.#awarded.get(result.best.npi);
      if (holder !== undefined) {
        result.status = "review";
        result.reason = "ambiguous_contested_candidate";
        result.warnings = [...result.warnings, `npi_matched_to_row:${holder}`];
      } else this.#awarded.set(result.best.npi, result.id);
    }
    this.counts.rows++;
    this.counts[result.status]++;
    return result;
  }
}

/** The end of a run: counts and whether every row was answered. */
export interface MatchEnd {
  counts: MatchCounts;
  complete: boolean;
  /** Why the run stopped early. */
  error?: string;
}

/**
 * Matches rows in input order, a few at a time, yielding each settled
 * result; returns how the run ended. Stops (complete: false) when the
 * deadline passes or the signal aborts; other errors propagate.
 *
 * @example
 * ```ts
 * const run = matchRows(rows, new RosterMatcher(deps));
 * for await (const result of run) console.log(JSON.stringify(result));
 * ```
 */
export async function* matchRows(
  rows: AsyncIterable<RosterRow> | Iterable<RosterRow>,
  matcher: RosterMatcher,
  options: MatchOptions = {},
): AsyncGenerator<MatchResult, MatchEnd> {
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const window: Promise<{ ok: MatchResult } | { error: unknown }>[] = [];
  const stop = (): string | null => {
    if (options.signal?.aborted) return "the request was abandoned";
    if (options.deadline !== undefined && clock() > options.deadline) {
      return "the time limit passed";
    }
    return null;
  };
  const take = async (): Promise<MatchResult> => {
    const next = await window.shift()!;
    if ("error" in next) throw next.error;
    return matcher.settle(next.ok);
  };
  try {
    for await (const row of rows) {
      const why = stop();
      if (why) {
        while (window.length) yield await take();
        return {
          counts: matcher.counts,
          complete: false,
          error: `Stopped before row ${row.row}: ${why}; send the rows from ${row.row} on again`,
        };
      }
      window.push(matcher.evaluate(row).then((ok) => ({ ok }), (error) => ({ error })));
      if (window.length >= concurrency) yield await take();
    }
    while (window.length) yield await take();
  } catch (error) {
    if (error instanceof DeadlineError) {
      return {
        counts: matcher.counts,
        complete: false,
        error: `Stopped after row ${matcher.counts.rows}: the time limit passed`,
      };
    }
    throw error;
  } finally {
    // Results still pending when the consumer stopped early are dropped (their errors too).
    for (const pending of window) void pending;
  }
  return { counts: matcher.counts, complete: true };
}
