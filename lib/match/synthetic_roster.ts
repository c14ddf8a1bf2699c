/**
 * Rosters with known answers, built from registry records with realistic
 * damage (typos, nicknames, maiden names, moved addresses, wrong or missing
 * NPIs, credentials inside names, suites, ZIP+4, formatting) and rows of
 * people who are not in the registry: for the precision tests and the
 * matching benchmark.
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import { Rng } from "../demo/prng.ts";
import { nicknames } from "../names/nicknames.ts";
import type { RosterRow } from "./roster_parse.ts";

/** The kinds of damage a row may carry. */
export const DAMAGE_KINDS = [
  "clean",
  "typo_surname",
  "nickname",
  "maiden_name",
  "moved",
  "wrong_npi",
  "bad_check_digit",
  "supplied_npi",
  "credential_in_name",
  "suite_and_zip4",
  "formatting",
  "no_address",
  "not_in_registry",
] as const;

/** A kind of damage. */
export type DamageKind = typeof DAMAGE_KINDS[number];

/** A roster row and the NPI it should match (`null`: nobody in the registry). */
export interface LabelledRow {
  row: RosterRow;
  expected: string | null;
  damage: DamageKind;
}

function typo(word: string, rng: Rng): string {
  if (word.length < 5) return word;
  const i = 1 + rng.int(word.length - 2);
  if (rng.chance(0.5)) return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  const letters = "AEIOURSTLN";
  return word.slice(0, i) + letters[rng.int(letters.length)] + word.slice(i + 1);
}

function expand(line: string): string {
  return line.replace(/\bAVE\b/, "AVENUE").replace(/\bST\b/, "STREET").replace(/\bDR\b/, "DRIVE")
    .replace(/\bRD\b/, "ROAD");
}

/**
 * Builds a labelled roster row from provider `p` with `damage`; `others`
 * lends a moved-to address and wrong NPIs.
 *
 * @example
 * ```ts
 * const { row, expected } = damagedRow(provider, "nickname", 1, new Rng(7), otherProvider);
 * ```
 */
export function damagedRow(
  p: Provider,
  damage: DamageKind,
  index: number,
  rng: Rng,
  other: Provider,
): LabelledRow {
  const loc = p.practice_location;
  const v: RosterRow["values"] = {};
  const person = p.individual;
  if (person) {
    if (person.first_name) v.first_name = person.first_name;
    if (person.middle_name && rng.chance(0.3)) v.middle_name = person.middle_name.slice(0, 1);
    if (person.last_name) v.last_name = person.last_name;
    if (person.suffix && rng.chance(0.5)) v.suffix = person.suffix;
  } else if (p.organization?.name) v.organization_name = p.organization.name;
  if (loc) {
    if (loc.line1) v.address = loc.line1;
    if (loc.city) v.city = loc.city;
    if (loc.state) v.state = loc.state;
    if (loc.postal_code) v.postal_code = loc.postal_code.slice(0, 5);
    if (loc.phone && rng.chance(0.4)) v.phone = loc.phone;
  }
  const primary = p.taxonomies.find((t) => t.primary);
  if (primary && rng.chance(0.4)) v.taxonomy = primary.code;
  let expected: string | null = p.npi;
  switch (damage) {
    case "clean":
      break;
    case "typo_surname":
      if (v.last_name) v.last_name = typo(v.last_name, rng);
      else if (v.organization_name) v.organization_name = typo(v.organization_name, rng);
      break;
    case "nickname": {
      const nick = v.first_name ? nicknames().nicknamesOf(v.first_name)[0] : undefined;
      if (nick) v.first_name = nick.toUpperCase();
      break;
    }
    case "maiden_name": {
      const former = p.other_names.find((n) => n.type === "former_name");
      const last = former?.name.split(" ").at(-1);
      if (last && v.last_name) v.last_name = last;
      break;
    }
    case "moved": {
      const to = other.practice_location;
      if (to?.line1) v.address = to.line1;
      if (to?.city) v.city = to.city;
      if (to?.state) v.state = to.state;
      if (to?.postal_code) v.postal_code = to.postal_code.slice(0, 5);
      delete v.phone;
      break;
    }
    case "wrong_npi":
      v.npi = other.npi;
      break;
    case "bad_check_digit":
      v.npi = p.npi.slice(0, 9) + String((Number(p.npi[9]) + 1) % 10);
      break;
    case "supplied_npi":
      v.npi = p.npi;
      delete v.address;
      break;
    case "credential_in_name":
      if (v.last_name) {
        v.last_name = `${v.last_name}${rng.chance(0.5) ? ", MD" : " M.D."}`;
        if (v.first_name && rng.chance(0.5)) v.first_name = `Dr. ${v.first_name}`;
      }
      break;
    case "suite_and_zip4":
      if (v.address) {
        v.address = `${v.address} ${rng.chance(0.5) ? "Suite" : "#"} ${100 + rng.int(400)}`;
      }
      if (loc?.postal_code && loc.postal_code.length === 9) {
        v.postal_code = `${loc.postal_code.slice(0, 5)}-${loc.postal_code.slice(5)}`;
      }
      break;
    case "formatting":
      for (const key of ["first_name", "last_name", "organization_name", "city"] as const) {
        const value = v[key];
        if (value) v[key] = value.toLowerCase().replace(/^(.)/, (c) => c.toUpperCase());
      }
      if (v.address) v.address = expand(v.address).toLowerCase();
      if (v.phone) v.phone = `(${v.phone.slice(0, 3)}) ${v.phone.slice(3, 6)}-${v.phone.slice(6)}`;
      if (v.last_name) v.last_name = v.last_name.replace(/E/i, "É");
      break;
    case "no_address":
      delete v.address;
      delete v.phone;
      delete v.postal_code;
      delete v.city;
      break;
    case "not_in_registry":
      // Someone else at this address: a name no provider here has.
      if (v.last_name) v.last_name = `${v.last_name}QX`;
      if (v.organization_name) v.organization_name = `ZQX ${v.organization_name} ZQX`;
      expected = null;
      break;
  }
  return {
    row: { row: index, line: index + 1, id: `r${index}`, values: v },
    expected,
    damage,
  };
}

/**
 * A roster of `providers.length` rows, damage drawn per row with `seed`.
 *
 * @example
 * ```ts
 * const roster = damagedRoster(providers, 20260810);
 * ```
 */
export function damagedRoster(providers: readonly Provider[], seed: number): LabelledRow[] {
  const rng = new Rng(seed);
  return providers.map((p, i) =>
    damagedRow(
      p,
      DAMAGE_KINDS[rng.int(DAMAGE_KINDS.length)]!,
      i + 1,
      rng,
      providers[(i * 7 + 13) % providers.length]!,
    )
  );
}

/** Precision and recall of a run over a labelled roster. */
export interface RosterScore {
  rows: number;
  matched: number;
  /** Matched rows whose NPI is the expected one. */
  right: number;
  /** Matched rows whose NPI is not (or which should not match). */
  wrong: { id: string; damage: DamageKind; expected: string | null; got: string }[];
  /** right / matched. */
  precision: number;
  /** right / rows with an expected NPI. */
  recall: number;
  /** Matched rows by damage kind, over rows of that kind. */
  byDamage: Record<string, string>;
}

/**
 * Scores match results against the labels.
 *
 * @example
 * ```ts
 * const score = scoreRoster(roster, results);
 * score.precision; // 1
 * ```
 */
export function scoreRoster(
  roster: readonly LabelledRow[],
  results: readonly { id: string; status: string; best: { npi: string } | null }[],
): RosterScore {
  const labels = new Map(roster.map((r) => [r.row.id, r]));
  let matched = 0, right = 0;
  const wrong: RosterScore["wrong"] = [];
  const kinds: Record<string, [number, number]> = {};
  for (const r of results) {
    const label = labels.get(r.id)!;
    const k = (kinds[label.damage] ??= [0, 0]);
    k[1]++;
    if (r.status !== "matched" || !r.best) continue;
    matched++;
    k[0]++;
    if (r.best.npi === label.expected) right++;
    else wrong.push({ id: r.id, damage: label.damage, expected: label.expected, got: r.best.npi });
  }
  const findable = roster.filter((r) => r.expected !== null).length;
  return {
    rows: results.length,
    matched,
    right,
    wrong,
    precision: matched ? right / matched : 1,
    recall: findable ? right / findable : 1,
    byDamage: Object.fromEntries(
      Object.entries(kinds).map(([kind, [m, n]]) => [kind, `${m}/${n}`]),
    ),
  };
}
