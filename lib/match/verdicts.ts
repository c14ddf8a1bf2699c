/**
 * Per-field verdicts of a roster row against one registry record: each
 * field `agrees`, `conflicts` or is `unknown` (a value missing on either
 * side is never agreement), with how it agrees (`exact`, `nickname`,
 * `former_name`, `zip9`...). Pure functions.
 *
 * @module
 */
import type { Location, Provider } from "../provider.ts";
import { nicknames } from "../names/nicknames.ts";
import { editDistance } from "../text/edit_distance.ts";
import { nameKey } from "../text/fold.ts";
import {
  cityKey,
  CREDENTIALS,
  credentialWords,
  EXCLUSIVE_DEGREES,
  nameWords,
  orgKey,
  orgWords,
  phone,
  street,
  STREET_TYPE_WORDS,
  SUFFIXES,
  zip,
} from "./normalize.ts";
import type { PreparedRow } from "./prepare.ts";

/** A field's verdict. */
export type Verdict = "agrees" | "conflicts" | "unknown";

/** The fields every candidate gets a verdict on, in answer order. */
export const VERDICT_FIELDS = [
  "npi",
  "name",
  "first_name",
  "middle_name",
  "suffix",
  "credential",
  "address",
  "city",
  "state",
  "postal_code",
  "phone",
  "specialty",
] as const;

/** A field with a verdict. */
export type VerdictField = typeof VERDICT_FIELDS[number];

/** The verdicts of one candidate, and how the agreeing (or excused) fields agree. */
export interface Verdicts {
  verdicts: Record<VerdictField, Verdict>;
  /** How a field agrees: `exact`, `nickname`, `initial`, `typo`, `former_name`, `component`, `zip9`... */
  evidence: Partial<Record<VerdictField, string>>;
  /** Which location agreed best: `practice_location` or `other_locations[i]`. */
  location: string | null;
}

/** Typo tolerance of a surname or first name: 1 edit from 5 letters, 2 from 9. */
function typoBudget(word: string): number {
  return word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0;
}

/** Whether `a` is `b` with two neighbouring letters swapped. */
function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const diff: number[] = [];
  for (let i = 0; i < a.length && diff.length <= 2; i++) if (a[i] !== b[i]) diff.push(i);
  return diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] &&
    a[diff[1]!] === b[diff[0]!];
}

function isTypo(a: string, b: string): boolean {
  const budget = Math.min(typoBudget(a), typoBudget(b));
  return budget > 0 && (editDistance(a, b, budget) <= budget || isTransposition(a, b));
}

/** Surname keys a registry person goes by: legal, then former and other names. */
function surnameKeys(p: Provider): { key: string; source: string }[] {
  const keys: { key: string; source: string }[] = [];
  const legal = p.individual?.last_name;
  if (legal) keys.push({ key: nameKey(legal), source: "exact" });
  for (const other of p.other_names) {
    const words = nameWords(other.name).filter((w, i) =>
      i === 0 || (!CREDENTIALS.has(w) && !SUFFIXES.has(w))
    );
    // The other name is "FIRST MIDDLE LAST" or a surname alone: every tail may be the surname.
    for (let k = 0; k < words.length; k++) {
      keys.push({ key: words.slice(k).join(""), source: other.type });
    }
  }
  return keys;
}

function surnameVerdict(row: PreparedRow, p: Provider): { v: Verdict; how?: string } {
  const mine = row.person!.lastKey;
  const keys = surnameKeys(p);
  for (const k of keys) if (k.key === mine) return { v: "agrees", how: k.source };
  // A compound surname given in part (NAKAMURA for NAKAMURA-JONES), or in full for a part.
  const legal = p.individual?.last_name ? nameWords(p.individual.last_name) : [];
  const rowWords = row.person!.last;
  if (
    legal.length > 1 && mine.length >= 4 && legal.includes(mine) ||
    rowWords.length > 1 && legal.length === 1 && legal[0]!.length >= 4 &&
      rowWords.includes(legal[0]!)
  ) return { v: "agrees", how: "component" };
  for (const k of keys) if (isTypo(mine, k.key)) return { v: "agrees", how: "typo" };
  return { v: "conflicts" };
}

function firstVerdict(row: PreparedRow, p: Provider): { v: Verdict; how?: string } {
  const mine = row.person?.first ?? null;
  const theirs = p.individual?.first_name ? nameWords(p.individual.first_name)[0] ?? null : null;
  if (!mine || !theirs) return { v: "unknown" };
  if (mine === theirs) return { v: "agrees", how: "exact" };
  if (nicknames().areNicknames(mine, theirs)) return { v: "agrees", how: "nickname" };
  // Registry first names under an other name (a former or professional name's first word).
  for (const other of p.other_names) {
    const first = nameWords(other.name)[0];
    if (first === mine && nameWords(other.name).length > 1) {
      return { v: "agrees", how: other.type };
    }
  }
  if (mine.length === 1 || theirs.length === 1) {
    return mine[0] === theirs[0] ? { v: "agrees", how: "initial" } : { v: "conflicts" };
  }
  if (isTypo(mine, theirs)) return { v: "agrees", how: "typo" };
  return { v: "conflicts" };
}

function middleVerdict(row: PreparedRow, p: Provider): { v: Verdict; how?: string } {
  const mine = row.person?.middle ?? null;
  const theirs = p.individual?.middle_name ? nameWords(p.individual.middle_name).join(" ") : null;
  if (!mine) return { v: "unknown" };
  // The maiden name in the middle slot: excused when it is a surname the registry knows.
  const mineKey = mine.replaceAll(" ", "");
  if (mine.length > 1 && surnameKeys(p).some((k) => k.key === mineKey)) {
    return { v: "unknown", how: "surname_in_middle" };
  }
  if (!theirs) return { v: "unknown" };
  if (mine === theirs) return { v: "agrees", how: "exact" };
  if (mine[0] === theirs[0] && (mine.length === 1 || theirs.length === 1)) {
    return { v: "agrees", how: "initial" };
  }
  if (nicknames().areNicknames(mine, theirs) || isTypo(mine, theirs)) {
    return { v: "agrees", how: "variant" };
  }
  return { v: "conflicts" };
}

function suffixVerdict(row: PreparedRow, p: Provider): Verdict {
  const mine = row.person?.suffix ?? null;
  const raw = p.individual?.suffix ? nameWords(p.individual.suffix)[0] ?? null : null;
  const theirs = raw === "2nd" ? "ii" : raw === "3rd" ? "iii" : raw;
  if (!mine || !theirs) return "unknown";
  return mine === theirs ? "agrees" : "conflicts";
}

function credentialVerdict(row: PreparedRow, p: Provider): Verdict {
  const mine = row.person?.credentials ?? [];
  const theirs = credentialWords(p.individual?.credential);
  if (mine.length === 0 || theirs.length === 0) return "unknown";
  if (mine.some((c) => theirs.includes(c))) return "agrees";
  const a = mine.filter((c) => EXCLUSIVE_DEGREES.has(c));
  const b = theirs.filter((c) => EXCLUSIVE_DEGREES.has(c));
  return a.length && b.length && !a.some((c) => b.includes(c)) ? "conflicts" : "unknown";
}

function orgVerdict(row: PreparedRow, p: Provider): { v: Verdict; how?: string } {
  const mine = row.org!;
  const names: { name: string; source: string }[] = [];
  if (p.organization?.name) names.push({ name: p.organization.name, source: "exact" });
  for (const other of p.other_names) names.push({ name: other.name, source: other.type });
  for (const n of names) if (orgKey(n.name) === mine.key) return { v: "agrees", how: n.source };
  // Most words shared (a word dropped or added): weak agreement.
  for (const n of names) {
    const theirs = new Set(orgWords(n.name));
    const shared = mine.words.filter((w) => theirs.has(w)).length;
    const union = new Set([...mine.words, ...theirs]).size;
    if (union > 0 && shared / union >= 0.6) return { v: "agrees", how: "partial" };
  }
  for (const n of names) if (isTypo(mine.key, orgKey(n.name))) return { v: "agrees", how: "typo" };
  return { v: "conflicts" };
}

interface LocationVerdicts {
  address: { v: Verdict; how?: string };
  city: Verdict;
  state: Verdict;
  postal_code: { v: Verdict; how?: string };
  phone: Verdict;
  agreeing: number;
}

function compareLocation(row: PreparedRow, loc: Location): LocationVerdicts {
  let address: LocationVerdicts["address"] = { v: "unknown" };
  if (row.street && row.street.key && loc.line1) {
    const theirs = street(loc.line1, loc.line2);
    if (theirs.key === row.street.key) {
      address = {
        v: "agrees",
        how: row.street.unit && theirs.unit && row.street.unit !== theirs.unit
          ? "street_other_unit"
          : "street",
      };
    } else if (
      row.street.number && row.street.number === theirs.number &&
      row.street.primary.slice(1).some((w) =>
        w.length > 2 && !STREET_TYPE_WORDS.has(w) && theirs.primary.includes(w)
      )
    ) address = { v: "agrees", how: "number_and_street_word" };
    else address = { v: "conflicts" };
  }
  const city = row.city && loc.city
    ? (cityKey(loc.city) === row.city ? "agrees" : "conflicts")
    : "unknown";
  const state = row.state && loc.state
    ? (loc.state === row.state ? "agrees" : "conflicts")
    : "unknown";
  let postal: LocationVerdicts["postal_code"] = { v: "unknown" };
  const theirZip = zip(loc.postal_code);
  if (row.zip && theirZip) {
    if (row.zip.zip5 !== theirZip.zip5) postal = { v: "conflicts" };
    else if (row.zip.zip9 && theirZip.zip9) {
      postal = row.zip.zip9 === theirZip.zip9
        ? { v: "agrees", how: "zip9" }
        : { v: "agrees", how: "zip5_other_plus4" };
    } else postal = { v: "agrees", how: "zip5" };
  }
  // A house number and a street word shared in another city and ZIP are a coincidence, not an address.
  if (
    address.how === "number_and_street_word" && city === "conflicts" && postal.v === "conflicts"
  ) {
    address = { v: "conflicts" };
  }
  const theirPhone = phone(loc.phone);
  const tel = row.phone && theirPhone
    ? (row.phone === theirPhone ? "agrees" : "conflicts")
    : "unknown";
  const agreeing = (address.v === "agrees" ? 4 : 0) + (tel === "agrees" ? 3 : 0) +
    (postal.v === "agrees" ? 2 : 0) + (city === "agrees" ? 1 : 0) + (state === "agrees" ? 0.5 : 0);
  return { address, city, state, postal_code: postal, phone: tel, agreeing };
}

function specialtyVerdict(row: PreparedRow, p: Provider): { v: Verdict; how?: string } {
  const codes = row.specialtyCodes;
  if (!codes || codes.length === 0 || p.taxonomies.length === 0) return { v: "unknown" };
  const theirs = p.taxonomies.map((t) => t.code);
  if (theirs.some((c) => codes.includes(c))) return { v: "agrees", how: "code" };
  if (theirs.some((c) => codes.some((m) => m.slice(0, 4) === c.slice(0, 4)))) {
    return { v: "agrees", how: "classification" };
  }
  return { v: "conflicts" };
}

/**
 * The verdicts of `row` against provider `p`. Location fields are judged
 * against the practice location and every other practice location (never
 * the mailing address); the one agreeing most is reported.
 *
 * @example
 * ```ts
 * const { verdicts } = judge(prepared, provider);
 * verdicts.name; // "agrees"
 * ```
 */
export function judge(row: PreparedRow, p: Provider): Verdicts {
  const verdicts = Object.fromEntries(VERDICT_FIELDS.map((f) => [f, "unknown"])) as Record<
    VerdictField,
    Verdict
  >;
  const evidence: Verdicts["evidence"] = {};
  const set = (field: VerdictField, result: { v: Verdict; how?: string }) => {
    verdicts[field] = result.v;
    if (result.how) evidence[field] = result.how;
  };
  set("npi", { v: row.npi ? (row.npi === p.npi ? "agrees" : "conflicts") : "unknown" });
  if (row.kind === "individual") {
    if (p.entity_type === "individual") {
      set("name", surnameVerdict(row, p));
      set("first_name", firstVerdict(row, p));
      set("middle_name", middleVerdict(row, p));
      set("suffix", { v: suffixVerdict(row, p) });
      set("credential", { v: credentialVerdict(row, p) });
    } else set("name", { v: "conflicts", how: "entity_type" });
  } else {
    set(
      "name",
      p.entity_type === "organization"
        ? orgVerdict(row, p)
        : { v: "conflicts", how: "entity_type" },
    );
  }
  const locations: { name: string; loc: Location }[] = [];
  if (p.practice_location) locations.push({ name: "practice_location", loc: p.practice_location });
  p.other_locations.forEach((loc, i) => locations.push({ name: `other_locations[${i}]`, loc }));
  let best: { name: string; v: LocationVerdicts } | null = null;
  for (const { name, loc } of locations) {
    const v = compareLocation(row, loc);
    if (!best || v.agreeing > best.v.agreeing) best = { name, v };
  }
  if (best) {
    set("address", best.v.address);
    set("city", { v: best.v.city });
    set("state", { v: best.v.state });
    set("postal_code", best.v.postal_code);
    set("phone", { v: best.v.phone });
    // A phone of another location still corroborates.
    if (best.v.phone !== "agrees" && row.phone) {
      const other = locations.find(({ loc }) => phone(loc.phone) === row.phone);
      if (other) set("phone", { v: "agrees", how: other.name });
    }
  }
  set("specialty", specialtyVerdict(row, p));
  return { verdicts, evidence, location: best && best.v.agreeing > 0 ? best.name : null };
}
