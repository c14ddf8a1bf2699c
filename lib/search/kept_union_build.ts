/**
 * Choosing and building the kept unions of a database (`kept_unions.ts`):
 * each taxonomy code's providers grouped by state, and the unions of the
 * specialties' code sets that many providers hold; then the words and
 * prefixes whose union would be dense, as the engine plans them in the
 * three places a query word can stand (alone, as the last word typed,
 * before it), the largest first within a byte budget; then, in what the
 * budget leaves, the sparse unions that {@linkcode SPARSE_FRACTION} of the
 * registry holds, in the same three places, the largest first; then naming
 * the file in the database, as the index map is named.
 *
 * Met the first time, a sparse union is built from its parts (a prefix
 * typed alone such as `counse`: 700,000 ids from dozens of lists, 19 ms),
 * or, for a word among others, its candidates are looked up in its parts
 * (hundreds of lists for a prefix such as `che`); kept, it is read as the
 * cache would hand it back.
 *
 * The candidates are the vocabulary's terms and their prefixes of
 * {@linkcode MIN_PREFIX} to {@linkcode MAX_PREFIX} letters that enough
 * providers hold; each is planned as typed (no typo variants: the first
 * pass of a search takes a known word, or the start of one, as typed), so
 * its key is the one the engine looks up for it.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { nameDerivedPart, partPath, readPartNames } from "../store/parts.ts";
import { codesUnion, type EngineContext, plannedUnion } from "./engine.ts";
import { hintKinds } from "./hint_words.ts";
import type { WordTerms } from "./text_query.ts";
import {
  codeSetKey,
  type KeptCodeSet,
  type KeptStates,
  type KeptUnion,
  type KeptUnionsStats,
  type StateGroups,
  writeKeptUnions,
} from "./kept_unions.ts";
import { FIELD } from "../index/fields.ts";
import type { SearchIndex } from "../index/reader.ts";
import { bitsOf } from "../index/sorted.ts";
import { buildSpecialtyIndex, specialtyCodeSets } from "../taxonomy/resolve.ts";
import { FILTER_BITS_MIN_IDS } from "./filter_lists.ts";
import { DENSE_FRACTION, type WordSet } from "./word_sets.ts";
import { openSearchableStore } from "./searcher.ts";

/**
 * Bytes of word unions a database gets at most by default (5 GiB: at 9.7
 * million providers every union planned, 4.4 GiB; see the search guide).
 */
export const KEPT_UNIONS_BYTES = 5 * 1024 * 1024 * 1024;

/**
 * A sparse union is kept when it holds at least `universe / SPARSE_FRACTION`
 * ids (38,000 at 9.7 million providers): below, building it from its parts
 * costs about what a search costs anyway.
 */
export const SPARSE_FRACTION = 256;

/** Shortest prefix tried (a one-letter query is not searched as a prefix). */
export const MIN_PREFIX = 2;
/** Longest prefix tried; whole terms are tried at any length. */
export const MAX_PREFIX = 8;

/**
 * Words worth planning: terms and prefixes whose terms' provider counts add
 * up to half the smallest union kept or more (`universe / (2 *
 * SPARSE_FRACTION)`: a word's parts may count a provider in several
 * fields), most first.
 */
export function keptUnionCandidates(db: DatabaseSync, universe: number): string[] {
  const sums = new Map<string, number>();
  const rows = db.prepare("SELECT term, docs FROM term").iterate() as Iterable<
    { term: string; docs: number }
  >;
  for (const { term, docs } of rows) {
    for (let n = MIN_PREFIX; n <= Math.min(MAX_PREFIX, term.length - 1); n++) {
      const prefix = term.slice(0, n);
      sums.set(prefix, (sums.get(prefix) ?? 0) + docs);
    }
    if (term.length >= MIN_PREFIX) sums.set(term, (sums.get(term) ?? 0) + docs);
  }
  const least = universe / (SPARSE_FRACTION * 2);
  return [...sums].filter(([, docs]) => docs >= least).sort((a, b) =>
    b[1] - a[1] || (a[0] < b[0] ? -1 : 1)
  )
    .map(([word]) => word);
}

/** A word's union as planned: its cache key, the form kept, the total length of its parts, and how to build it. */
export interface KeptUnionPlan {
  key: string;
  kind: WordSet["kind"];
  /** Ids the built union must hold to be kept. */
  least: number;
  size: number;
  union: () => WordSet;
}

/**
 * The unions of `words` worth keeping, none built yet: those that would be
 * dense, each planned alone (a query of one word, a prefix), as the last of
 * several words and as a word before the last, those whose parts are
 * longest first (the costliest to build); then the sparse ones, longest
 * first.
 */
export function planKeptUnions(words: readonly string[], ctx: EngineContext): KeptUnionPlan[] {
  const universe = ctx.index.size + 1;
  const planned = new Map<string, KeptUnionPlan>();
  for (const word of words) {
    // Alone (a hint word's codes count then too), last of several, before the last.
    const places: [WordTerms, number][] = [
      [{ word, prefix: true, typos: [], kinds: hintKinds(word) || undefined }, 1],
      [{ word, prefix: true, typos: [] }, 2],
      [{ word, prefix: false, typos: [] }, 2],
    ];
    for (const [terms, count] of places) {
      const plan = plannedUnion(terms, count, ctx);
      if (planned.has(plan.key)) continue;
      if (plan.size * DENSE_FRACTION >= universe) {
        planned.set(plan.key, { ...plan, kind: "dense", least: 0 });
      } else if (plan.size * SPARSE_FRACTION >= universe) {
        planned.set(plan.key, { ...plan, kind: "sparse", least: universe / SPARSE_FRACTION });
      }
    }
  }
  const order = (plan: KeptUnionPlan) => plan.kind === "dense" ? 0 : 1;
  return [...planned.values()].sort((a, b) => order(a) - order(b) || b.size - a.size);
}

/**
 * Builds `plans` in order, as the engine builds them, and yields those
 * built in the form planned and large enough (a plan's size counts an id
 * once a part: the union may be smaller) as long as `budget` bytes hold
 * them: one union at a time in memory when the consumer writes each away.
 */
export function* chooseKeptUnions(
  plans: readonly KeptUnionPlan[],
  budget: number,
): Generator<KeptUnion> {
  let bytes = 0;
  for (const { key, kind, least, union } of plans) {
    const set = union();
    if (set.kind !== kind || set.size < least) continue;
    if (bytes + set.bytes > budget) return;
    bytes += set.bytes;
    yield { key, set };
  }
}

/**
 * `ids` (ascending) grouped by their value in `column`, which has `values`
 * values: a count a value, then each id written at its value's next place,
 * so that each group stays ascending.
 *
 * @example
 * ```ts
 * const g = groupByState(Uint32Array.of(1, 2, 3), Uint8Array.of(0, 2, 1, 2), 3);
 * g.ids.subarray(g.starts[2], g.starts[3]); // [1, 3]
 * ```
 */
export function groupByState(ids: Uint32Array, column: Uint8Array, values: number): StateGroups {
  const starts = new Uint32Array(values + 1);
  for (let i = 0; i < ids.length; i++) starts[column[ids[i]!]! + 1]!++;
  for (let v = 0; v < values; v++) starts[v + 1]! += starts[v]!;
  const next = starts.slice(0, values);
  const out = new Uint32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    out[next[column[id]!]!++] = id;
  }
  return { starts, ids: out };
}

/** Every taxonomy code's providers grouped by practice state, a code at a time. */
export function* codeStateGroups(index: SearchIndex): Generator<KeptStates> {
  for (const code of index.codes) {
    if (code === "") continue;
    yield {
      key: code,
      groups: groupByState(index.list(FIELD.anyCode, code), index.state, index.states.length),
    };
  }
}

/**
 * The unions of the code sets in `sets` that hold `least` providers or
 * more (by default as many as the filter lists the engine caches with a
 * bitmap), one at a time, by their key.
 */
export function* codeSetUnions(
  index: SearchIndex,
  sets: readonly (readonly string[])[],
  least: number = FILTER_BITS_MIN_IDS,
): Generator<KeptCodeSet> {
  const universe = index.size + 1;
  const seen = new Set<string>();
  for (const codes of sets) {
    const key = codeSetKey(codes);
    if (seen.has(key)) continue;
    seen.add(key);
    let most = 0;
    for (const code of codes) most += index.list(FIELD.anyCode, code).length;
    if (most < least) continue;
    const ids = codesUnion(index, codes);
    if (ids.length >= least) {
      yield { key, union: { ids, bits: bitsOf([ids], universe) } };
    }
  }
}

/** What {@linkcode addKeptUnions} did. */
export interface AddedKeptUnions extends KeptUnionsStats {
  /** The file's name (beside the database). */
  file: string;
  /** False when the database named one already (nothing was written). */
  written: boolean;
}

/**
 * Builds the kept unions of the database at `db` and names their file in
 * its meta, unless it names one already (with `again`, writes it anew in
 * its place). The file takes the stamp of the postings part
 * (`<db>.<stamp>.unions`). Throws when the database cannot be read or
 * written (a server holding it: stop it).
 *
 * @example
 * ```ts
 * const { file, sets } = addKeptUnions("data/providers.db");
 * ```
 */
export function addKeptUnions(
  db: string,
  { budget = KEPT_UNIONS_BYTES, again = false, specialtyLeast = FILTER_BITS_MIN_IDS }: {
    budget?: number;
    again?: boolean;
    /** Providers a specialty's union must hold to be kept. */
    specialtyLeast?: number;
  } = {},
): AddedKeptUnions {
  const parts = readPartNames(db);
  if (!parts) throw new Error(`'${db}' is not a database this version serves: import it again`);
  if (parts.unions && !again) {
    return { file: parts.unions, written: false, sets: 0, codes: 0, codeSets: 0, bytes: 0 };
  }
  if (!parts.postings.endsWith(".postings")) {
    throw new Error(`The postings part '${parts.postings}' has no build stamp: import again`);
  }
  const file = parts.unions ?? `${parts.postings.slice(0, -".postings".length)}.unions`;
  // Without the file it names (written anew, or gone): each union is built from the index.
  const store = openSearchableStore(db, {
    resultCacheBytes: 0,
    wordSetCacheBytes: 0,
    keptUnions: false,
  });
  let stats: KeptUnionsStats;
  try {
    const ctx = store.engineContext();
    const plans = planKeptUnions(keptUnionCandidates(store.db, ctx.index.size + 1), ctx);
    const codes = ctx.index.codes.filter((code) => code !== "");
    const codeSets = specialtyCodeSets(buildSpecialtyIndex(store.taxonomy()));
    stats = writeKeptUnions(
      partPath(db, file),
      ctx.index.size + 1,
      parts.postings,
      (function* () {
        // The codes' groups and the specialties' unions first, beside the budget: a few hundred
        // megabytes at 9.7 million. Then the word unions, within it.
        yield* codeStateGroups(ctx.index);
        yield* codeSetUnions(ctx.index, codeSets, specialtyLeast);
        yield* chooseKeptUnions(plans, budget);
      })(),
      [...codes, ...codeSets.map(codeSetKey), ...plans.map((plan) => plan.key)],
    );
  } finally {
    store.close();
  }
  if (parts.unions) return { file, written: true, ...stats };
  const main = new DatabaseSync(db);
  try {
    nameDerivedPart(main, db, parts, "unions", file);
  } finally {
    main.close();
  }
  return { file, written: true, ...stats };
}
