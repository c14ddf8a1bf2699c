/**
 * Turns the words people type for a specialty ("cardiologist", "heart
 * doctor", "OB-GYN", "family medicine") into NUCC taxonomy codes, suggests
 * close spellings when nothing matches, and ranks taxonomy entries for
 * autocomplete. Everything costly happens once, in
 * {@link buildSpecialtyIndex}.
 *
 * @module
 */

import type { TaxonomyEntry } from "./nucc.ts";
import { SPECIALTY_SYNONYMS, type SpecialtySynonym } from "./synonyms.ts";
import { boundedDistance, commonPrefixLength, letterBound, letterCounts } from "./_distance.ts";
import { baseName, compactOf, FILLER_STEMS, fold, keyOf, stems, STOP_WORDS } from "./_words.ts";

/**
 * A prepared lookup structure over one taxonomy. Build it once with
 * {@link buildSpecialtyIndex} and share it; its contents are private.
 *
 * @example
 * ```ts
 * import { builtinTaxonomy } from "./nucc.ts";
 * const index: SpecialtyIndex = buildSpecialtyIndex(builtinTaxonomy());
 * ```
 */
export interface SpecialtyIndex {
  /** How many taxonomy entries the index holds. */
  readonly size: number;
}

/**
 * What {@link resolveSpecialty} found: the codes and the name or synonym
 * that matched, or up to five suggestions when nothing did.
 *
 * @example
 * ```ts
 * const hit: SpecialtyResolution = { ok: true, codes: ["261QU0200X"], matched: "urgent care" };
 * const miss: SpecialtyResolution = { ok: false, suggestions: ["cardiology"] };
 * ```
 */
export type SpecialtyResolution =
  | { ok: true; codes: string[]; matched: string }
  | { ok: false; suggestions: string[] };

/**
 * Options for {@link buildSpecialtyIndex}.
 *
 * @example
 * ```ts
 * import { builtinTaxonomy } from "./nucc.ts";
 * const options: SpecialtyIndexOptions = { synonyms: [{ terms: ["tooth doctor"], codes: ["1223"] }] };
 * const index = buildSpecialtyIndex(builtinTaxonomy(), options);
 * ```
 */
export interface SpecialtyIndexOptions {
  /** The synonym list; defaults to {@link SPECIALTY_SYNONYMS}. */
  synonyms?: readonly SpecialtySynonym[];
}

/** A resolved phrase: the label to report and the codes it stands for. */
interface Hit {
  label: string;
  codes: Set<string>;
}

/** A precomputed autocomplete document for one entry. */
interface SearchDoc {
  entry: TaxonomyEntry;
  /** Folded NUCC fields (display, classification, specialization). */
  names: string[];
  /** Folded synonym terms whose codes include this entry. */
  synonyms: string[];
  /** Every word of `names`. */
  nameWords: string[];
  /** Every word of `names` and `synonyms`. */
  allWords: string[];
}

/** A word or phrase that can be suggested, with its folded letters. */
interface Candidate {
  text: string;
  compact: string;
  /** How often each of a–z and 0–9 occurs in `compact`. */
  letters: Uint8Array;
}

interface IndexState {
  entries: readonly TaxonomyEntry[];
  byCode: ReadonlyMap<string, TaxonomyEntry>;
  synonyms: ReadonlyMap<string, Hit>;
  names: ReadonlyMap<string, Hit>;
  /** Stem sets per entry, for matching a few words inside longer names. */
  stemSets: readonly { code: string; stems: ReadonlySet<string> }[];
  docs: readonly SearchDoc[];
  /** Suggestion candidates by compact length, and all of them sorted. */
  candidatesByLength: readonly (readonly Candidate[] | undefined)[];
  candidatesSorted: readonly Candidate[];
}

const states = new WeakMap<SpecialtyIndex, IndexState>();

function addHit(map: Map<string, Hit>, key: string, label: string, codes: Iterable<string>): void {
  if (key === "") return;
  let hit = map.get(key);
  if (hit === undefined) {
    hit = { label, codes: new Set() };
    map.set(key, hit);
  }
  for (const code of codes) hit.codes.add(code);
}

/** A memoizing {@link stems}, for index building, where names repeat. */
function cachedStems(): (text: string) => string[] {
  const cache = new Map<string, string[]>();
  return (text) => {
    let list = cache.get(text);
    if (list === undefined) {
      list = stems(text);
      cache.set(text, list);
    }
    return list;
  };
}

function addPhrase(
  stemsOf: (text: string) => string[],
  map: Map<string, Hit>,
  phrase: string,
  label: string,
  codes: Iterable<string>,
): void {
  const list = stemsOf(phrase);
  if (list.length === 0) return;
  const codeList = [...codes];
  addHit(map, keyOf(list), label, codeList);
  addHit(map, `=${compactOf(list)}`, label, codeList);
}

/** Codes a synonym stands for, prefixes expanded over `entries`. */
function expandCodes(codes: readonly string[], entries: readonly TaxonomyEntry[]): Set<string> {
  const out = new Set<string>();
  for (const code of codes) {
    if (code.length >= 10) {
      out.add(code);
      continue;
    }
    for (const entry of entries) {
      if (entry.code.startsWith(code)) out.add(entry.code);
    }
  }
  return out;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function pushWords(target: string[], seen: Set<string>, text: string): void {
  for (const word of text.split(" ")) {
    if (word !== "" && !seen.has(word)) {
      seen.add(word);
      target.push(word);
    }
  }
}

/**
 * Builds the lookup structure for {@link resolveSpecialty} and
 * {@link searchSpecialties} over a taxonomy (the built-in one or one read
 * from the NUCC CSV) and the synonym list. Takes a few milliseconds; build
 * it once at start-up.
 *
 * @example
 * ```ts
 * import { builtinTaxonomy } from "./nucc.ts";
 * const index = buildSpecialtyIndex(builtinTaxonomy());
 * index.size; // 855
 * ```
 */
export function buildSpecialtyIndex(
  entries: readonly TaxonomyEntry[],
  options: SpecialtyIndexOptions = {},
): SpecialtyIndex {
  const sorted = [...new Map(entries.map((e) => [e.code, { ...e }])).values()]
    .sort((a, b) => compareStrings(a.code, b.code));
  const synonymList = options.synonyms ?? SPECIALTY_SYNONYMS;
  const stemsOf = cachedStems();

  const synonyms = new Map<string, Hit>();
  const synonymTermsByCode = new Map<string, string[]>();
  for (const synonym of synonymList) {
    const label = synonym.terms[0];
    if (label === undefined) continue;
    const codes = expandCodes(synonym.codes, sorted);
    for (const term of synonym.terms) {
      addPhrase(stemsOf, synonyms, term, label, codes);
      const folded = fold(term);
      for (const code of codes) {
        const terms = synonymTermsByCode.get(code);
        if (terms === undefined) synonymTermsByCode.set(code, [folded]);
        else if (!terms.includes(folded)) terms.push(folded);
      }
    }
  }

  // Classification names stand for the whole classification.
  const byClassification = new Map<string, string[]>();
  for (const entry of sorted) {
    if (entry.classification === null) continue;
    const key = keyOf(stemsOf(entry.classification));
    const codes = byClassification.get(key);
    if (codes === undefined) byClassification.set(key, [entry.code]);
    else codes.push(entry.code);
  }
  const names = new Map<string, Hit>();
  const classificationsDone = new Set<string>();
  for (const entry of sorted) {
    const { classification, specialization, display } = entry;
    if (classification !== null && !classificationsDone.has(classification)) {
      classificationsDone.add(classification);
      const codes = byClassification.get(keyOf(stemsOf(classification))) ?? [entry.code];
      addPhrase(stemsOf, names, classification, classification, codes);
      addPhrase(stemsOf, names, baseName(classification), baseName(classification), codes);
    }
    for (const name of [specialization, display]) {
      if (name === null) continue;
      addPhrase(stemsOf, names, name, name, [entry.code]);
      addPhrase(stemsOf, names, baseName(name), baseName(name), [entry.code]);
    }
  }

  const stemSets = sorted.map((entry) => ({
    code: entry.code,
    stems: new Set(
      [entry.display, entry.classification ?? "", entry.specialization ?? ""].flatMap(stemsOf),
    ),
  }));

  const docs: SearchDoc[] = sorted.map((entry) => {
    const nameFields = [entry.display, entry.classification, entry.specialization]
      .filter((f): f is string => f !== null)
      .map(fold);
    const synonymFields = synonymTermsByCode.get(entry.code) ?? [];
    const nameWords: string[] = [];
    const seen = new Set<string>();
    for (const field of nameFields) pushWords(nameWords, seen, field);
    const allWords = [...nameWords];
    for (const field of synonymFields) pushWords(allWords, seen, field);
    return { entry, names: nameFields, synonyms: synonymFields, nameWords, allWords };
  });

  const candidateTexts = new Map<string, string>();
  const addCandidate = (text: string): void => {
    const folded = fold(text);
    if (folded.length >= 2 && !candidateTexts.has(folded)) candidateTexts.set(folded, folded);
  };
  for (const synonym of synonymList) synonym.terms.forEach(addCandidate);
  for (const entry of sorted) {
    if (entry.classification !== null) addCandidate(baseName(entry.classification));
    if (entry.specialization !== null) addCandidate(baseName(entry.specialization));
    for (const word of fold(entry.display).split(" ")) {
      if (word.length >= 4 && !STOP_WORDS.has(word)) addCandidate(word);
    }
  }
  const candidatesSorted = [...candidateTexts.values()]
    .map((text) => {
      const compact = text.replaceAll(" ", "");
      return { text, compact, letters: letterCounts(compact) };
    })
    .sort((a, b) => compareStrings(a.compact, b.compact) || compareStrings(a.text, b.text));
  const candidatesByLength: Candidate[][] = [];
  for (const candidate of candidatesSorted) {
    (candidatesByLength[candidate.compact.length] ??= []).push(candidate);
  }

  const index: SpecialtyIndex = Object.freeze({ size: sorted.length });
  states.set(index, {
    entries: sorted,
    byCode: new Map(sorted.map((e) => [e.code, e])),
    synonyms,
    names,
    stemSets,
    docs,
    candidatesByLength,
    candidatesSorted,
  });
  return index;
}

function stateOf(index: SpecialtyIndex): IndexState {
  const state = states.get(index);
  if (state === undefined) {
    throw new TypeError("Cannot use specialty index: it was not made by 'buildSpecialtyIndex'");
  }
  return state;
}

function lookup(map: ReadonlyMap<string, Hit>, list: readonly string[]): Hit | undefined {
  if (list.length === 0) return undefined;
  return map.get(keyOf(list)) ?? map.get(`=${compactOf(list)}`);
}

function found(hit: Hit): SpecialtyResolution {
  return { ok: true, codes: [...hit.codes].sort(compareStrings), matched: hit.label };
}

/**
 * Resolves specialty words to NUCC taxonomy codes. Case, punctuation,
 * plurals and word forms are folded ("OB-GYN" = "ob gyn" = "obgyn",
 * "cardiologists" = "cardiology"). Tried in order: the synonym list; NUCC
 * names (a classification name stands for all of its codes, so "family
 * medicine" gives `207Q00000X` and every `207Q…` specialization); the same
 * without words like "doctor" or "specialist"; and finally every entry whose
 * names contain all the words. Codes come back deduplicated and sorted.
 * When nothing matches, up to five close spellings are suggested.
 *
 * @example
 * ```ts
 * import { builtinTaxonomy } from "./nucc.ts";
 * const index = buildSpecialtyIndex(builtinTaxonomy());
 * const heart = resolveSpecialty(index, "heart doctor");
 * if (heart.ok) heart.codes.includes("207RC0000X"); // true
 * const typo = resolveSpecialty(index, "cardiolgy");
 * if (!typo.ok) typo.suggestions[0]; // "cardiology"
 * ```
 */
export function resolveSpecialty(index: SpecialtyIndex, words: string): SpecialtyResolution {
  const state = stateOf(index);
  const all = stems(words);
  if (all.length === 0) return { ok: false, suggestions: [] };

  const direct = lookup(state.synonyms, all) ?? lookup(state.names, all);
  if (direct !== undefined) return found(direct);

  const meaningful = all.filter((s) => !FILLER_STEMS.has(s));
  if (meaningful.length > 0 && meaningful.length < all.length) {
    const trimmed = lookup(state.synonyms, meaningful) ?? lookup(state.names, meaningful);
    if (trimmed !== undefined) return found(trimmed);
  }

  const wanted = meaningful.length > 0 ? meaningful : all;
  const codes: string[] = [];
  for (const { code, stems: have } of state.stemSets) {
    if (wanted.every((s) => have.has(s))) codes.push(code);
  }
  if (codes.length > 0) return { ok: true, codes, matched: fold(words) };

  return { ok: false, suggestions: suggest(state, words) };
}

/** First position in `sorted` whose compact form is not below `key`. */
function lowerBound(sorted: readonly Candidate[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const value = sorted[mid]?.compact ?? "";
    if (value < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Up to five candidates close to `words`: within a few edits (more for
 * longer words), starting with it, or sharing its first five letters.
 */
function suggest(state: IndexState, words: string): string[] {
  const query = fold(words).replaceAll(" ", "");
  if (query.length < 2) return [];
  const max = query.length <= 4 ? 1 : query.length <= 8 ? 2 : 3;
  const best = new Map<string, { text: string; score: number; prefix: number }>();
  const keep = (candidate: Candidate, score: number): void => {
    const known = best.get(candidate.text);
    if (known !== undefined && known.score <= score) return;
    const prefix = commonPrefixLength(query, candidate.compact);
    best.set(candidate.text, { text: candidate.text, score, prefix });
  };
  // Close spellings: only lengths and letters within reach of `max` edits.
  const letters = letterCounts(query);
  for (let length = query.length - max; length <= query.length + max; length++) {
    for (const candidate of state.candidatesByLength[length] ?? []) {
      if (letterBound(letters, candidate.letters) > max) continue;
      const distance = boundedDistance(query, candidate.compact, max);
      if (distance <= max) keep(candidate, distance);
    }
  }
  // Longer candidates that start the same way.
  const stub = query.slice(0, 5);
  if (stub.length >= 3) {
    const sorted = state.candidatesSorted;
    for (let i = lowerBound(sorted, stub); i < sorted.length; i++) {
      const candidate = sorted[i];
      if (candidate === undefined || !candidate.compact.startsWith(stub)) break;
      if (candidate.compact.startsWith(query)) keep(candidate, 0.5);
      else if (stub.length === 5) keep(candidate, max + 0.5);
    }
  }
  // A shared beginning counts for a little: people misspell the middle.
  const rank = (s: { score: number; prefix: number }): number =>
    s.score - 0.2 * Math.min(s.prefix, 5);
  return [...best.values()]
    .sort((a, b) =>
      rank(a) - rank(b) || b.prefix - a.prefix || a.text.length - b.text.length ||
      compareStrings(a.text, b.text)
    )
    .slice(0, 5)
    .map((s) => s.text);
}

/** How well a folded query matches a list of folded fields; lower is better. */
function fieldTier(
  query: string,
  queryWords: readonly string[],
  fields: readonly string[],
  words: readonly string[],
): number {
  let tier = 4;
  for (const field of fields) {
    if (field === query) return 0;
    if (field.startsWith(query)) tier = Math.min(tier, 1);
    else if (tier > 3 && field.includes(query)) tier = 3;
  }
  if (tier > 2 && queryWords.every((q) => words.some((w) => w.startsWith(q)))) tier = 2;
  return tier;
}

/**
 * Taxonomy entries for autocomplete (`GET /v1/specialties?q=`): entries
 * whose display name, classification, specialization or synonyms match
 * `q`, case-insensitively. Ranked exact match, then a name starting with
 * `q`, then every word of `q` starting a word, then `q` anywhere; NUCC
 * names rank above synonyms, then by code. An empty `q` lists every entry
 * by code. At most `limit` entries.
 *
 * @example
 * ```ts
 * import { builtinTaxonomy } from "./nucc.ts";
 * const index = buildSpecialtyIndex(builtinTaxonomy());
 * searchSpecialties(index, "family med", 5)[0]?.code; // "207Q00000X"
 * ```
 */
export function searchSpecialties(
  index: SpecialtyIndex,
  q: string,
  limit: number,
): TaxonomyEntry[] {
  const state = stateOf(index);
  const max = Number.isNaN(limit) ? 0 : Math.max(0, Math.floor(limit));
  const query = fold(q);
  if (query === "") return state.entries.slice(0, max).map((e) => ({ ...e }));
  // A code or code prefix (it has a digit): match codes, in code order.
  const code = q.trim().toUpperCase();
  if (/^[0-9A-Z]{1,10}$/.test(code) && /[0-9]/.test(code)) {
    return state.entries.filter((e) => e.code.startsWith(code)).slice(0, max).map((e) => ({
      ...e,
    }));
  }
  const queryWords = query.split(" ");
  const ranked: { doc: SearchDoc; rank: number }[] = [];
  for (const doc of state.docs) {
    const nameTier = fieldTier(query, queryWords, doc.names, doc.nameWords);
    const synonymTier = nameTier === 0
      ? 4
      : fieldTier(query, queryWords, doc.synonyms, doc.allWords);
    const rank = Math.min(nameTier * 2, synonymTier * 2 + 1);
    if (rank < 8) ranked.push({ doc, rank });
  }
  ranked.sort((a, b) => a.rank - b.rank || compareStrings(a.doc.entry.code, b.doc.entry.code));
  return ranked.slice(0, max).map(({ doc }) => ({ ...doc.entry }));
}

/**
 * The entry for one code, or `undefined` when the index does not hold it.
 *
 * @example
 * ```ts
 * import { builtinTaxonomy } from "./nucc.ts";
 * const index = buildSpecialtyIndex(builtinTaxonomy());
 * taxonomyEntry(index, "207RC0000X")?.display; // "Cardiovascular Disease Physician"
 * ```
 */
export function taxonomyEntry(index: SpecialtyIndex, code: string): TaxonomyEntry | undefined {
  const entry = stateOf(index).byCode.get(code);
  return entry === undefined ? undefined : { ...entry };
}

/**
 * Every code set a known phrase resolves to (names, classifications and
 * synonyms, as {@linkcode resolveSpecialty} finds them whole), each sorted,
 * none twice: the specialty filters searches are likeliest to meet.
 *
 * @example
 * ```ts
 * import { builtinTaxonomy } from "./nucc.ts";
 * const sets = specialtyCodeSets(buildSpecialtyIndex(builtinTaxonomy()));
 * sets.some((codes) => codes.includes("207RC0000X")); // true
 * ```
 */
export function specialtyCodeSets(index: SpecialtyIndex): string[][] {
  const state = stateOf(index);
  const sets = new Map<string, string[]>();
  for (const hits of [state.names, state.synonyms]) {
    for (const { codes } of hits.values()) {
      const sorted = [...codes].sort(compareStrings);
      sets.set(sorted.join(","), sorted);
    }
  }
  return [...sets.values()];
}
