/**
 * Evidence classes and the row's decision. Each candidate falls in an
 * ordered evidence class from its verdicts (1 is strongest); the score only
 * orders candidates inside a class and never decides. A row is `matched`
 * only when exactly one candidate holds the top class and that class is
 * one that may be accepted (see {@linkcode ACCEPT_CLASS}); otherwise the
 * reason code says why it went to review.
 *
 * @module
 */
import type { Verdict, VerdictField, Verdicts } from "./verdicts.ts";

/** The weakest class a `matched` row may have. */
export const ACCEPT_CLASS = 3;

/** Evidence classes, strongest first; each line of the guide explains one. */
export const EVIDENCE_CLASSES: readonly { class: number; meaning: string }[] = [
  { class: 1, meaning: "the supplied NPI, with the name agreeing (exact or nickname first name)" },
  { class: 2, meaning: "exact name, and the street address or the phone agrees" },
  {
    class: 3,
    meaning:
      "exact name and the ZIP agrees (street and phone not conflicting); or nickname first name and " +
      "the street or phone agrees",
  },
  { class: 4, meaning: "nickname first name and the ZIP or city; or exact name and the specialty" },
  { class: 5, meaning: "a typo-tolerant, initial or partial name with a location agreeing" },
  { class: 6, meaning: "the name alone (no location agrees: moved, or a namesake)" },
  { class: 7, meaning: "a conflicting NPI, suffix, credential or middle name" },
  { class: 8, meaning: "the supplied NPI, whose name conflicts with the row" },
];

/** A candidate with its verdicts, class and score. */
export interface Judged extends Verdicts {
  npi: string;
  evidenceClass: number;
  score: number;
  /** The hard conflict that put it in class 7, if any (`suffix_conflict`...). */
  conflict: string | null;
}

/** Points per agreeing field, for ordering inside a class (not for deciding). */
const WEIGHTS: Record<VerdictField, number> = {
  npi: 30,
  name: 20,
  first_name: 12,
  middle_name: 4,
  suffix: 3,
  credential: 3,
  address: 12,
  city: 3,
  state: 2,
  postal_code: 6,
  phone: 8,
  specialty: 5,
};
const TOTAL_WEIGHT = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);

function score(v: Verdicts): number {
  let points = 0;
  for (const [field, verdict] of Object.entries(v.verdicts) as [VerdictField, Verdict][]) {
    const w = WEIGHTS[field];
    if (verdict === "agrees") {
      const how = v.evidence[field];
      const weak = how === "typo" || how === "initial" || how === "partial" || how === "component";
      points += how === "nickname" ? w * 0.8 : weak ? w * 0.5 : w;
    } else if (verdict === "conflicts") points -= w / 2;
  }
  return Math.max(0, Math.round((points / TOTAL_WEIGHT) * 1000) / 1000);
}

/** How strong the name evidence is. */
type NameStrength = "exact" | "nickname" | "weak" | "none";

function nameStrength(v: Verdicts, individual: boolean): NameStrength {
  const name = v.verdicts.name, nameHow = v.evidence.name;
  if (name !== "agrees") return "none";
  const weakName = nameHow === "typo" || nameHow === "partial";
  if (!individual) return weakName ? "weak" : "exact";
  const first = v.verdicts.first_name, firstHow = v.evidence.first_name;
  if (first === "conflicts") return "none";
  if (first === "unknown") return "weak";
  if (weakName || firstHow === "typo" || firstHow === "initial") return "weak";
  if (firstHow === "nickname") return "nickname";
  return "exact";
}

/**
 * Judges one candidate: its evidence class, score and hard conflict.
 *
 * @example
 * ```ts
 * const judged = classify("1234567893", judge(row, provider), true);
 * judged.evidenceClass; // 2
 * ```
 */
export function classify(npi: string, v: Verdicts, individual: boolean): Judged {
  const strength = nameStrength(v, individual);
  const f = v.verdicts;
  const hard = f.npi === "conflicts"
    ? "npi_conflict"
    : f.suffix === "conflicts"
    ? "suffix_conflict"
    : f.credential === "conflicts"
    ? "credential_conflict"
    : f.middle_name === "conflicts"
    ? "middle_name_conflict"
    : null;
  const street = f.address === "agrees" || f.phone === "agrees";
  // A ZIP counts only when the street and phone, if given, do not conflict: a chain's branch or a
  // namesake in the same ZIP at another street is not evidence.
  const near = f.postal_code === "agrees" && f.address !== "conflicts" && f.phone !== "conflicts";
  const place = near || (f.city === "agrees" && f.state !== "conflicts");
  let evidenceClass: number;
  if (strength === "none") evidenceClass = f.npi === "agrees" ? 8 : 9;
  else if (hard) evidenceClass = 7;
  else if (f.npi === "agrees" && (strength === "exact" || strength === "nickname")) {
    evidenceClass = 1;
  } else if (strength === "exact" && street) evidenceClass = 2;
  else if ((strength === "exact" && near) || (strength === "nickname" && street)) evidenceClass = 3;
  else if (
    (strength === "nickname" && place) ||
    (strength === "exact" && (place || f.specialty === "agrees"))
  ) evidenceClass = 4;
  else if (strength === "weak" && (street || place || f.npi === "agrees")) evidenceClass = 5;
  else evidenceClass = 6;
  // A specialty that conflicts weakens location evidence by one class.
  if (f.specialty === "conflicts" && evidenceClass >= 2 && evidenceClass <= 5) evidenceClass++;
  return { ...v, npi, evidenceClass, score: score(v), conflict: hard };
}

/** Orders candidates: class, then score, then NPI. */
export function compareJudged(a: Judged, b: Judged): number {
  return a.evidenceClass - b.evidenceClass || b.score - a.score || (a.npi < b.npi ? -1 : 1);
}

/** A row's decision before the one-NPI-per-request rule. */
export interface Decision {
  status: "matched" | "review" | "unmatched";
  reason: string;
}

/**
 * Decides a row from its candidates, ordered by {@linkcode compareJudged}
 * (those of class 9, whose name conflicts, already dropped).
 *
 * @example
 * ```ts
 * decide([]); // { status: "unmatched", reason: "no_candidate" }
 * ```
 */
export function decide(
  candidates: readonly Judged[],
  deactivated: (npi: string) => boolean = () => false,
): Decision {
  const best = candidates[0];
  if (!best) return { status: "unmatched", reason: "no_candidate" };
  const tied = candidates.filter((c) => c.evidenceClass === best.evidenceClass).length;
  if (best.evidenceClass === 8) return { status: "review", reason: "npi_name_conflict" };
  if (best.evidenceClass === 7) return { status: "review", reason: best.conflict ?? "conflict" };
  if (tied > 1) return { status: "review", reason: "ambiguous_tied_evidence" };
  if (best.evidenceClass > ACCEPT_CLASS) {
    if (best.evidenceClass === 6) {
      const moved = best.verdicts.address === "conflicts" ||
        best.verdicts.postal_code === "conflicts" ||
        best.verdicts.state === "conflicts";
      return { status: "review", reason: moved ? "address_conflict" : "weak_location_evidence" };
    }
    if (best.evidenceClass === 5) return { status: "review", reason: "fuzzy_only_evidence" };
    return {
      status: "review",
      reason: best.evidence.first_name === "nickname"
        ? "nickname_only_evidence"
        : "weak_location_evidence",
    };
  }
  if (deactivated(best.npi)) return { status: "review", reason: "candidate_deactivated" };
  return {
    status: "matched",
    reason: best.evidenceClass === 1 ? "npi_confirmed" : "unique_best_evidence",
  };
}
