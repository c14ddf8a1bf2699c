/**
 * Executes a {@linkcode SearchQuery} on the search index: exact totals,
 * relevance levels, true great-circle distance, stable ordering, cursor and
 * offset paging, and facet counts over the whole filtered set.
 *
 * Filters are posting lists (state, city, ZIP, taxonomy, name keys, cells)
 * intersected shortest first, plus flag checks (active, entity type, sex).
 * Free text gives each name word a leveled list — the union of its terms'
 * lists, each tagged with how good a match it is — and the words are
 * intersected, keeping each id's worst word level; hint words (titles,
 * credentials, states, ZIPs, NPIs, initials: `hints.ts`) are then looked
 * up for those candidates only, and each result gets a rank key (tier,
 * level, hint fit: `scores.ts`). The rules are described in docs/search.md.
 * A first page is selected from the results without sorting them (by rank
 * key: `level_page.ts`; by distance: `distance_page.ts`); a cursor or a
 * deeper offset sorts them once, and the set is kept in a small cache, so
 * paging on costs only the page. Browsing with no list filter walks ids (name ranks)
 * and stops at the page.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type {
  AddressMatch,
  CursorPosition,
  ExtraFilter,
  FacetName,
  NameMatch,
  SearchQuery,
} from "./query.ts";
import type { RecordCheck } from "./record_check.ts";
import { boundingBoxes } from "./geometry.ts";
import {
  MAX_QUERY_WORDS,
  planWords,
  TYPO_TOKENS_THRESHOLD,
  type TypoFinder,
  type TypoStage,
  type WordTerms,
} from "./text_query.ts";
import { applyHints, hintParts, type HintWord, type NpiIds, splitWords } from "./hints.ts";
import { HINT, hintKinds, stateOf } from "./hint_words.ts";
import { levelKeys, levelOfKey, rankKey, scoreOfKey, SUB, subOfKey, TIER } from "./scores.ts";
import {
  belowWorst,
  densePage,
  firstByRank,
  fitPage,
  flagPassBits,
  worstLevel,
} from "./dense_page.ts";
import { ByteLru } from "../lru.ts";
import type { KeptUnions } from "./kept_unions.ts";
import {
  codesFilter,
  columnFilter,
  FilterCache,
  filterLeveledBy,
  type FilterList,
  filterList,
  hasBitmap,
  idsFilter,
  intersectEach,
  intersectFilter,
  intersectFilters,
} from "./filter_lists.ts";
import {
  buildWordSet,
  DENSE_FRACTION,
  intersectDense,
  intersectWord,
  intersectWordSet,
  memberBits,
  type MemberBitsCache,
  RECURRING_WORD_MIN_IDS,
  WORD_SET_MIN_IDS,
  type WordSet,
  WordSetCache,
  wordSetIds,
} from "./word_sets.ts";
import { distance } from "../geo/zip.ts";
import {
  type DistanceSet,
  MAX_SELECTED,
  nearestPositions,
  sortByDistance,
} from "./distance_page.ts";
import { extraFilterList, keepUpdated, monthsHold } from "./extra_filters.ts";
import { type LeveledSet, levelPositions, sortByLevel } from "./level_page.ts";
import { type NearestPage, nearestPage, type NearestRequest } from "./nearest.ts";
import { type LazyPoints, pointsNearest } from "./points.ts";
import { browseUpdated, browseUpdatedIn, countUpdated } from "./updated_browse.ts";
import type { SearchIndex } from "../index/reader.ts";
import type { StoredRecordRow } from "../store/record_batch.ts";
import { checkWatch, type Watch } from "../deadline.ts";
import { cellsIn, FIELD, FLAG } from "../index/fields.ts";
import { placeCandidates } from "./places.ts";
import { CodeMatch } from "./code_match.ts";
import {
  EMPTY,
  EMPTY_LEVELED,
  intersect,
  intersectAll,
  keepFlagged,
  keepInBits,
  type Leveled,
  type LeveledPart,
  seek,
  unionAll,
} from "../index/sorted.ts";

/** One result: the provider's id, with its relevance score and distance when asked. */
export interface SearchHit {
  id: number;
  score?: number;
  distance?: number;
}

/** A facet's top values. */
export type Facets = Partial<Record<FacetName, { value: string; count: number }[]>>;

/** A page of results. */
export interface SearchPage {
  total: number;
  hits: SearchHit[];
  /** Where the next page starts; `null` on the last page. */
  next: CursorPosition | null;
  /** The absolute position of the first hit. */
  offset: number;
  facets?: Facets;
  /**
   * Set when the query's record check was refused: this many candidates
   * were left to check, more than {@linkcode MAX_RECORD_CHECKS}. The page is
   * then empty.
   */
  uncheckedCandidates?: number;
  /**
   * The hits' stored records, in hit order, when a search worker read them
   * with the page (`SearchJob.recordsWithPage`); the renderer decodes them
   * instead of reading them.
   */
  records?: StoredRecordRow[];
}

/**
 * Most candidate records a query's record check reads (about 20 µs each):
 * beyond, the search is refused at once rather than left to run into the
 * request's time limit.
 */
export const MAX_RECORD_CHECKS = 200_000;

/** Maps a word (or a word prefix) to the taxonomy codes whose names or synonyms contain it. */
export interface SpecialtyWords {
  codes(word: string): readonly string[];
  codesByPrefix(prefix: string): readonly string[];
}

/** What the engine needs besides the query. */
export interface EngineContext {
  db: DatabaseSync;
  index: SearchIndex;
  typos: TypoFinder;
  specialties: SpecialtyWords;
  cache: ResultCache;
  /** The unions of common query words, kept between searches (see {@linkcode WORD_SET_MIN_IDS}). */
  wordSets?: WordSetCache;
  /** The dense unions of the commonest words, built with the database and read in place (`kept_unions.ts`). */
  keptUnions?: KeptUnions | null;
  /** Long filter unions (a specialty's codes, states), kept between searches. */
  filterLists?: FilterCache;
  /** Member bits of recurring words too common to keep whole (see `finishWords`). */
  memberBits?: MemberBitsCache;
  /** Located providers grouped by point, for `near` searches without filters (`points.ts`). */
  points?: LazyPoints;
  /** Aborted when the request is abandoned. */
  signal?: AbortSignal;
  /** When to give up, on `clock()` of `lib/deadline.ts`: checked in the long loops. */
  deadline?: number;
  /** True when the caller gave up on the search (see `Watch.stopped`): checked with the deadline. */
  stopped?: () => boolean;
  /** Whether the record of `id` meets a query's record check (needed by queries with a `check`). */
  checkRecord?: (id: number, check: RecordCheck) => boolean;
  /** Most records a record check reads; default {@linkcode MAX_RECORD_CHECKS}. */
  maxRecordChecks?: number;
}

/** Record checks test the watch once every this many records (a power of two, minus 1). */
const CHECK_RECORDS_EVERY = 0xff;

/** Long loops check their watch once every this many iterations (a power of two, minus 1). */
const CHECK_EVERY = 0xffff;

/** Most values per facet. */
export const FACET_SIZE = 20;

/** A sorted result set, as cached. */
interface ResultSet {
  ids: Uint32Array;
  levels: Uint8Array | null;
  distances: Float64Array | null;
  facets: Facets | undefined;
  bytes: number;
  /**
   * Left in candidate order (a relevance or distance order no page has
   * needed whole yet): a first page is selected from it, a deeper one sorts
   * it (`level_page.ts`, `distance_page.ts`).
   */
  unsorted?: boolean;
  /**
   * The whole set's size when `ids` holds only its first entries, ranked (a
   * first page found without listing the rest: `dense_page.ts`). Never cached.
   */
  whole?: number;
}

/** A byte-bounded LRU cache of sorted result sets, keyed by the query without its paging. */
export class ResultCache extends ByteLru<ResultSet> {}

/** The flag test of a query: `(flags & mask) === value` plus an optional any-of mask. */
function flagTest(query: SearchQuery): { mask: number; value: number } {
  let mask = 0, value = 0;
  if (!query.includeDeactivated) {
    mask |= FLAG.active;
    value |= FLAG.active;
  } else if (query.deactivatedOnly) mask |= FLAG.active;
  if (query.entity === 1) {
    mask |= FLAG.individual;
    value |= FLAG.individual;
  }
  if (query.entity === 2) {
    mask |= FLAG.organization;
    value |= FLAG.organization;
  }
  if (query.sex === "M") {
    mask |= FLAG.male;
    value |= FLAG.male;
  }
  if (query.sex === "F") {
    mask |= FLAG.female;
    value |= FLAG.female;
  }
  return { mask, value };
}

/**
 * A flag test with its active bit answered by the rank order (active
 * providers' ids come first, `SearchIndex.activeEnd`): every id from `end`
 * on fails it, and below `end` only the other bits are left to test. The
 * whole test, and no `end`, for a query that takes deactivated providers
 * or flags that do not follow the order.
 */
function activeCut(
  test: { mask: number; value: number },
  index: SearchIndex,
): { mask: number; value: number; end: number } {
  const end = (test.mask & test.value & FLAG.active) !== 0 ? index.activeEnd : 0;
  if (end === 0) return { ...test, end: Infinity };
  return { mask: test.mask & ~FLAG.active, value: test.value & ~FLAG.active, end };
}

/**
 * The ids a name filter keeps: the union of a name-key field's lists for
 * `matches` (each a key, or a key's prefix), as `lastNames`, `firstNames`
 * and `organizationNames` filter.
 *
 * @example
 * ```ts
 * nameIds(index, FIELD.lastKey, [{ key: "smith", prefix: false }]);
 * ```
 */
export function nameIds(
  index: SearchIndex,
  field: number,
  matches: readonly NameMatch[],
): Uint32Array {
  return unionAll(
    matches.map((m) => (m.prefix ? index.prefix(field, m.key) : index.list(field, m.key))),
    index.size + 1,
  );
}

/**
 * The providers holding any of taxonomy `codes` (primary or not): their
 * lists united.
 *
 * @example
 * ```ts
 * codesUnion(index, ["207RC0000X", "207RI0011X"]);
 * ```
 */
export function codesUnion(index: SearchIndex, codes: readonly string[]): Uint32Array {
  return unionAll(codes.map((code) => index.list(FIELD.anyCode, code)), index.size + 1);
}

/** Whether the query has a filter answered by posting lists (anything but the flag tests). */
function hasListFilter(query: SearchQuery): boolean {
  return Boolean(
    query.npis || query.states || query.cities || query.postal || query.taxonomyCodes ||
      query.specialtyCodes ||
      query.lastNames || query.firstNames || query.organizationNames || query.check ||
      query.idRange || query.anyNames || query.addresses || query.extraFilters?.length ||
      query.places,
  );
}

/** Providers whose primary practice ZIP+4 is one of `codes` (9-digit numbers), sorted. */
function zip9Ids(db: DatabaseSync, codes: readonly number[]): Uint32Array {
  const slots = codes.map(() => "?").join(",");
  // Nine digits, looked up as the number the build stores.
  const rows = db.prepare(`SELECT id FROM provider_zip9 WHERE zip9 IN (${slots}) ORDER BY id`)
    .all(...codes) as { id: number }[];
  return Uint32Array.from(rows, (r) => r.id);
}

/**
 * Providers at any of `addresses`: each address's city (as a prefix), state
 * and ZIP (as a prefix) lists, united.
 *
 * @example
 * ```ts
 * addressIds(index, [{ city: "BALTIMORE", state: null, zip: null }]);
 * ```
 */
export function addressIds(index: SearchIndex, addresses: readonly AddressMatch[]): Uint32Array {
  const parts: Uint32Array[] = [];
  for (const a of addresses) {
    if (a.city) parts.push(index.prefix(FIELD.city, a.city));
    if (a.state) parts.push(index.list(FIELD.state, a.state));
    if (a.zip) parts.push(index.prefix(FIELD.zip5, a.zip));
  }
  return unionAll(parts, index.size + 1);
}

/**
 * The filter of a practice state (or several), tested on the state column;
 * the states' lists are read only if it drives the query.
 */
function stateFilter(states: readonly string[], index: SearchIndex): FilterList {
  const pass = new Uint8Array(256);
  let size = 0;
  for (const state of states) {
    const value = index.states.indexOf(state);
    if (value <= 0 || pass[value] === 1) continue;
    pass[value] = 1;
    size += index.stateCount(value);
  }
  return columnFilter(
    { values: index.state, pass },
    size,
    () => unionAll(states.map((s) => index.list(FIELD.state, s)), index.size + 1),
  );
}

/**
 * The filter of taxonomy codes: their union with its bitmap when cached or
 * kept with the database (a specialty's: see `kept_union_build.ts`); else
 * few candidates are tested on their codes (see `codesFilter`), and
 * the codes' lists are read, united and cached only when the filter drives
 * the query (it is the shortest of its filters) or meets many candidates.
 */
function codesFilterOf(codes: readonly string[], ctx: EngineContext): FilterList {
  const key = `codes:${codes}`;
  const kept = ctx.filterLists?.get(key);
  if (kept) return kept;
  // A specialty's union built with the database, read in place (`kept_unions.ts`).
  const union = ctx.keptUnions?.codeSet(codes);
  if (union) return { ids: union.ids, size: union.ids.length, bits: union.bits, bytes: 0 };
  const { index } = ctx;
  const pass = new Uint8Array(index.codes.length);
  let size = 0;
  for (const code of codes) {
    const n = index.codeNumber(code);
    if (n === 0 || pass[n] === 1) continue;
    pass[n] = 1;
    size += index.codeListLength(n, true) + index.codeListLength(n, false);
  }
  const test = { offsets: index.taxOffsets, codes: index.taxCodes, pass };
  return codesFilter(
    test,
    size,
    () => keptFilterList(key, codesUnion(index, codes), ctx),
  );
}

/**
 * The providers holding one of `codes` whose state passes (`pass`), from
 * the codes' kept lists grouped by state; null when one of the codes has
 * none kept.
 */
function codesInStates(
  codes: readonly string[],
  pass: Uint8Array,
  ctx: EngineContext,
): Uint32Array | null {
  const parts: Uint32Array[] = [];
  for (const code of codes) {
    if (ctx.index.codeNumber(code) === 0) continue;
    const groups = ctx.keptUnions!.byState(code);
    if (!groups) return null;
    const { starts, ids } = groups;
    for (let v = 0; v + 1 < starts.length; v++) {
      if (pass[v] === 1 && starts[v + 1]! > starts[v]!) {
        parts.push(ids.subarray(starts[v], starts[v + 1]));
      }
    }
  }
  return unionAll(parts, ctx.index.size + 1);
}

/** A filter list of `ids`, kept in the filter cache under `key` when long enough for a bitmap. */
function keptFilterList(key: string, ids: Uint32Array, ctx: EngineContext): FilterList {
  const list = filterList(ids, ctx.index.size + 1);
  if (hasBitmap(list)) ctx.filterLists?.set(key, list);
  return list;
}

/**
 * The list filters of a query (all must hold). Long unions are cached with a
 * bitmap. The candidates of `query.places` whose records must confirm them
 * are put in `unsure.ids`.
 */
function listFilters(
  query: SearchQuery,
  ctx: EngineContext,
  unsure: { ids: Uint32Array | null } = { ids: null },
): FilterList[] {
  const { index, db } = ctx;
  const universe = index.size + 1;
  const lists: FilterList[] = [];
  const plain = (ids: Uint32Array) => lists.push(idsFilter(ids));
  const cached = (key: string, make: () => Uint32Array) =>
    lists.push(ctx.filterLists?.get(key) ?? keptFilterList(key, make(), ctx));
  if (query.npis) {
    const slots = query.npis.map(() => "?").join(",");
    const rows = db.prepare(`SELECT id FROM provider_npi WHERE npi IN (${slots}) ORDER BY id`).all(
      ...query.npis,
    ) as {
      id: number;
    }[];
    plain(Uint32Array.from(rows, (r) => r.id));
  }
  const states = query.states ? stateFilter(query.states, index) : null;
  const codeSets = [query.taxonomyCodes, query.specialtyCodes].filter((codes) => !!codes);
  // Codes within the states, from the codes' kept lists grouped by state (null where not kept).
  const withinStates = codeSets.map((codes) =>
    states && ctx.keptUnions ? codesInStates(codes, states.column!.pass, ctx) : null
  );
  // The state column is tested unless every codes filter is answered within the states.
  if (states && (codeSets.length === 0 || withinStates.includes(null))) lists.push(states);
  if (query.cities) {
    const cities = query.cities;
    cached(`city:${cities}`, () =>
      unionAll(
        cities.map((c) =>
          c.endsWith("*") ? index.prefix(FIELD.city, c.slice(0, -1)) : index.list(FIELD.city, c)
        ),
        universe,
      ));
  }
  if (query.postal) {
    const parts = [
      ...query.postal.zip5.map((z) => index.list(FIELD.zip5, z)),
      ...query.postal.prefixes.map((p) => index.prefix(FIELD.zip5, p)),
    ];
    if (query.postal.exact.length) parts.push(zip9Ids(db, query.postal.exact.map(Number)));
    plain(unionAll(parts, universe));
  }
  if (query.addresses) plain(addressIds(index, query.addresses));
  codeSets.forEach((codes, k) => {
    const within = withinStates[k];
    lists.push(within ? idsFilter(within) : codesFilterOf(codes, ctx));
  });
  const days: Extract<ExtraFilter, { kind: "updated" }>[] = [];
  for (const extra of query.extraFilters ?? []) {
    if (extra.kind === "updated") days.push(extra);
    else lists.push(extraFilterList(extra, ctx));
  }
  if (query.lastNames) plain(nameIds(index, FIELD.lastKey, query.lastNames));
  if (query.firstNames) plain(nameIds(index, FIELD.firstKey, query.firstNames));
  if (query.organizationNames) plain(nameIds(index, FIELD.orgKey, query.organizationNames));
  if (query.anyNames) {
    const names = query.anyNames;
    plain(
      unionAll(
        [FIELD.lastKey, FIELD.firstKey, FIELD.orgKey].map((f) => nameIds(index, f, names)),
        universe,
      ),
    );
  }
  if (query.places) {
    // A place's whole list when cached; else, when the name filters leave a few ids, the place's
    // candidates among them only: no long union is built.
    const few = lists.filter((l) =>
      !hasBitmap(l) && !l.codes && !l.column && l.size <= PLACE_WITHIN_MAX
    )
      .sort((a, b) => a.size - b.size)[0]?.ids ?? null;
    const key = `place:${JSON.stringify(query.places)}`;
    const hit = ctx.filterLists?.get(key);
    if (hit) lists.push(hit);
    else {
      const found = placeCandidates(query.places, index, (code) => zip9Ids(db, [code]), few);
      const list = filterList(found.ids, universe);
      // Only sure, whole lists are kept: a hit has nothing left for the records to confirm.
      if (hasBitmap(list) && !few && found.unsure.length === 0) ctx.filterLists?.set(key, list);
      lists.push(list);
      unsure.ids = found.unsure.length ? found.unsure : null;
    }
  }
  if (days.length === 0) return lists;
  // Update days are tested on the other filters' candidates, one read of the day column each,
  // rather than listed over the whole registry, when those are few (a family name updated after a
  // day) or fewer than the days' own providers (a state over several years of updates).
  const few = lists.length > 0 ? intersectFilters(lists) : null;
  const listed = () =>
    Math.min(...days.map((extra) => countUpdated(index, extra.days, 0, 0) ?? index.size));
  if (few && (few.length * DAYS_BY_CANDIDATE < index.size || few.length < listed())) {
    let kept = few;
    for (const extra of days) kept = keepUpdated(kept, extra.days, index);
    return [filterList(kept, universe)];
  }
  for (const extra of days) lists.push(extraFilterList(extra, ctx));
  return lists;
}

/**
 * Place matches are looked up within another filter's ids when it leaves at
 * most this many (see `placeCandidates`).
 */
const PLACE_WITHIN_MAX = 50_000;

/**
 * Update days are tested candidate by candidate when the other filters
 * leave fewer than 1/this of the registry; else listed (see `extra_filters.ts`).
 */
const DAYS_BY_CANDIDATE = 16;

/**
 * The parts of one query word: a posting list per field, term and
 * taxonomy code it matches, each with the level it matches at. The word's
 * matches are their union.
 */
function wordParts(w: WordTerms, words: number, ctx: EngineContext): WordParts {
  const { parts, codes } = textWordParts(w, words, ctx);
  if (w.kinds) {
    // A hint required as a word (a query of hints only): its codes match too.
    parts.push(...hintParts({ word: w.word, kinds: w.kinds }, ctx.index, npiIdsOf(ctx), true));
  }
  return { parts, codes };
}

/** Finds providers by NPI through the `provider_npi` lookup. */
function npiIdsOf(ctx: EngineContext): NpiIds {
  return (npi) => {
    const rows = ctx.db.prepare("SELECT id FROM provider_npi WHERE npi = ?").all(Number(npi)) as {
      id: number;
    }[];
    return Uint32Array.from(rows, (r) => r.id).sort();
  };
}

/**
 * A query word's matches: posting lists (read), and the taxonomy codes of
 * the specialty words it stands for, whose lists are read only if the
 * word's union is built (see `code_match.ts`).
 */
interface WordParts {
  parts: LeveledPart[];
  codes: CodeMatch | null;
}

/** The text parts of a query word (names, other names, city, specialty codes; prefix; typos). */
function textWordParts(w: WordTerms, words: number, ctx: EngineContext): WordParts {
  const { index, specialties } = ctx;
  const one = words === 1;
  const parts: LeveledPart[] = [];
  const codeMatch = new CodeMatch(index);
  const textParts = (
    term: string,
    get: (field: number, term: string) => Uint32Array,
    codes: readonly string[],
    levels: { surname: number; given: number; other: number; primary: number; secondary: number },
  ) => {
    parts.push({ list: get(FIELD.surname, term), level: levels.surname });
    parts.push({ list: get(FIELD.given, term), level: levels.given });
    parts.push({ list: get(FIELD.other, term), level: levels.other });
    parts.push({ list: get(FIELD.place, term), level: levels.primary });
    for (const code of codes) codeMatch.add(code, levels.primary, levels.secondary);
  };
  const list = (field: number, term: string) => index.list(field, term);
  textParts(w.word, list, specialties.codes(w.word), {
    surname: 1,
    given: one ? 2 : 1,
    other: 3,
    primary: 4,
    secondary: 5,
  });
  // A credential the hint list lacks (`ccm`, `mpt`) still matches the credential text, as a city.
  parts.push({ list: index.list(FIELD.credential, w.word), level: 4 });
  if (w.prefix) {
    textParts(
      w.word,
      // Longer terms only: the word's own terms are parts at better levels already.
      (field, term) => index.extensions(field, term),
      specialties.codesByPrefix(w.word),
      {
        surname: one ? 6 : 7,
        given: 7,
        other: 8,
        primary: 9,
        secondary: 9,
      },
    );
  }
  for (const t of w.typos) {
    textParts(t, list, specialties.codes(t), {
      surname: one ? 11 : 12,
      given: 12,
      other: 13,
      primary: 14,
      secondary: 14,
    });
  }
  return {
    parts: parts.filter((p) => p.list.length > 0),
    codes: codeMatch.size > 0 ? codeMatch : null,
  };
}

/** The worst level of a word's name parts (see {@linkcode wordNameLists}). */
const NAME_LEVEL = 3;

/**
 * A word's name lists as typed — surname or organization name, given
 * names, other names — which are its parts at levels 1 to
 * {@linkcode NAME_LEVEL} in {@linkcode textWordParts}; every other part
 * (places, codes, credentials, longer terms, typo variants) is at a worse
 * level. A hint required as a word (a query of hints only: `ca`, `b`)
 * matches at those levels by its hint parts too (an initial, an NPI):
 * they are among its lists.
 */
function wordNameLists(w: WordTerms, ctx: EngineContext): Uint32Array[] {
  const { index } = ctx;
  const lists = [FIELD.surname, FIELD.given, FIELD.other].map((field) => index.list(field, w.word));
  if (w.kinds) {
    const hint = { word: w.word, kinds: w.kinds };
    for (const part of hintParts(hint, index, npiIdsOf(ctx), true)) {
      if (part.level <= NAME_LEVEL) lists.push(part.list);
    }
  }
  return lists;
}

/** A query word ready to evaluate: its parts, or its cached union. */
interface PlannedWord extends WordParts {
  key: string;
  /** Its union, when built or cached. */
  set: WordSet | undefined;
  /** Its size when cached, else the total length of its parts (an upper bound). */
  size: number;
}

function planWord(w: WordTerms, words: number, ctx: EngineContext): PlannedWord {
  const key = `${w.word}\u0000${w.prefix ? 1 : 0}\u0000${words === 1 ? 1 : 0}\u0000${
    w.typos.length ? 1 : 0
  }\u0000${w.kinds ?? 0}`;
  const set = ctx.wordSets?.get(key) ?? ctx.keptUnions?.get(key);
  if (set) return { key, parts: [], codes: null, set, size: set.size };
  const { parts, codes } = wordParts(w, words, ctx);
  let size = codes?.size ?? 0;
  for (const p of parts) size += p.list.length;
  return { key, parts, codes, set: undefined, size };
}

/**
 * A query word as the engine plans it: its key in the word-set cache, its
 * size before any union is built (the total length of its parts), and the
 * union of its parts, built anew without any cache (for `kept_unions.ts`,
 * which keeps the commonest words' unions beside the database).
 */
export function plannedUnion(
  w: WordTerms,
  words: number,
  ctx: EngineContext,
): { key: string; size: number; union: () => WordSet } {
  const fresh: EngineContext = { ...ctx, wordSets: undefined, keptUnions: null };
  const planned = planWord(w, words, fresh);
  // Built anew at each call and not remembered on the plan: a caller holding many plans (the kept
  // unions' build) holds no union it has let go of.
  return { key: planned.key, size: planned.size, union: () => partsUnion(planned, fresh) };
}

/** The union of a word's parts, built. */
function partsUnion(word: PlannedWord, ctx: EngineContext): WordSet {
  const parts = word.codes ? [...word.parts, ...word.codes.parts()] : word.parts;
  return buildWordSet(parts, ctx.index.size + 1, ctx.wordSets?.stock);
}

/** The union of a word's parts, kept in the word-set cache when large or recurring. */
function wordUnion(word: PlannedWord, ctx: EngineContext, recurring = false): WordSet {
  if (word.set) return word.set;
  const set = partsUnion(word, ctx);
  word.set = set;
  const min = recurring ? RECURRING_WORD_MIN_IDS : WORD_SET_MIN_IDS;
  if ((set.kind === "dense" || set.size >= min) && ctx.wordSets) ctx.wordSets.set(word.key, set);
  return set;
}

/**
 * The ids matching every word, each at its worst word's level, among those
 * passing the flag test, inside `boxes` when given, and in every list
 * filter. The word with the fewest candidates drives: its union is built
 * (or taken from the cache), and each further word, fewest first, is
 * looked up for the remaining candidates only — in its parts when that is
 * cheaper, else in its union.
 */
function matchWords(
  plan: readonly WordTerms[],
  filters: FilterList[],
  test: { mask: number; value: number },
  boxes: readonly Box[] | null,
  ctx: EngineContext,
): Leveled {
  const driven = driveWords(plan, ctx);
  return driven ? finishWords(driven, filters, test, boxes, ctx) : EMPTY_LEVELED;
}

/** The words of a plan as {@linkcode driveWords} leaves them for {@linkcode finishWords}. */
interface DrivenWords {
  /** The planned words, fewest candidates first. */
  words: PlannedWord[];
  /** The first word's union. */
  union: WordSet;
  /** The dense unions met in one pass: the driver's and the next words' while they are dense. */
  dense: Extract<WordSet, { kind: "dense" }>[];
  /** The first word not among `dense` (the words after the driver when it is sparse). */
  from: number;
}

/**
 * The first half of {@linkcode matchWords}: plans the words, builds (or
 * takes from the cache) the driver's union, and the further words' while
 * all are dense. Null when a word matches nothing.
 */
function driveWords(plan: readonly WordTerms[], ctx: EngineContext): DrivenWords | null {
  const words = plan.map((w) => planWord(w, plan.length, ctx)).sort((a, b) => a.size - b.size);
  if (words[0]!.size === 0) return null;
  const universe = ctx.index.size + 1;
  // A new set: results are edited in place later, and the union may be cached.
  const driver = words[0]!;
  const recurring = !driver.set && (ctx.wordSets?.recurring(driver.key) ?? false);
  const union = wordUnion(driver, ctx, recurring);
  // Further words as common (`health care`): their dense unions are intersected with the
  // driver's in one pass, eight ids at a time, instead of listing the driver's millions of ids.
  const dense = union.kind === "dense" ? [union] : [];
  let from = 1;
  for (; dense.length > 0 && from < words.length; from++) {
    const word = words[from]!;
    const common = word.set ??
      (word.size * DENSE_FRACTION >= universe ? wordUnion(word, ctx, true) : undefined);
    if (common?.kind !== "dense") break;
    dense.push(common);
  }
  return { words, union, dense, from };
}

/** The second half of {@linkcode matchWords}: the driven words' matches, listed. */
function finishWords(
  driven: DrivenWords,
  filters: FilterList[],
  test: { mask: number; value: number },
  boxes: readonly Box[] | null,
  ctx: EngineContext,
): Leveled {
  const { words, union, dense, from } = driven;
  const universe = ctx.index.size + 1;
  // A sparse union narrowed further is read as it is (each step makes new arrays), and the flag
  // test is left for the few that remain; otherwise the test makes the copy the caller edits.
  const flagsLater = union.kind === "sparse" && !boxes && (words.length > 1 || filters.length > 0);
  const cut = activeCut(test, ctx.index);
  let set = dense.length > 1
    ? intersectDense(dense, ctx.index.flags, cut.mask, cut.value, cut.end)
    : flagsLater
    ? union.set
    : wordSetIds(union, ctx.index.flags, cut.mask, cut.value, cut.end);
  if (boxes) set = keepInBoxes(set, boxes, ctx.index);
  for (const f of filters.sort((a, b) => a.size - b.size)) {
    if (set.ids.length === 0) break;
    set = filterLeveledBy(set, f);
  }
  for (let i = from; i < words.length && set.ids.length > 0; i++) {
    checkWatch(ctx);
    const word = words[i]!;
    if (word.set) {
      set = intersectWordSet(set, word.set);
      continue;
    }
    const seen = ctx.wordSets?.recurring(word.key) ?? false;
    if (word.size * DENSE_FRACTION < universe && seen) {
      set = intersectWordSet(set, wordUnion(word, ctx, true));
      continue;
    }
    // Many candidates and a word too common to keep cheaply (`be` of `jennifer be`): its member
    // bits — kept, made once it recurs — leave the candidates it holds. When those are still many
    // — the word is common among them too: `therapy` of `physical therapy` — and it recurs, they
    // are looked up in its union, built once and kept, rather than its parts read through again at
    // every search. A word met the first time goes straight to its parts: making its bits would
    // read them as that lookup does, for a bitmap (a bit a provider) dropped unused when the word
    // does not come again.
    const bits = set.ids.length >= MEMBER_BITS_MIN_CANDIDATES
      ? memberBitsOf(word, seen, ctx)
      : null;
    if (bits) set = keepInBits(set, bits);
    set = seen && set.ids.length >= UNION_MIN_CANDIDATES
      ? intersectWordSet(set, wordUnion(word, ctx, true))
      : intersectWord(set, word.parts, universe, () => wordUnion(word, ctx), word.codes);
  }
  // The last step's arrays are this search's own (not the cached union's): filtered in place.
  return flagsLater
    ? keepFlagged(set, ctx.index.flags, cut.mask, cut.value, set.ids !== union.set.ids, cut.end)
    : set;
}

/** A word's member bits are used from this many candidates (see `finishWords`). */
const MEMBER_BITS_MIN_CANDIDATES = 16_384;

/**
 * A recurring word too common to keep cheaply (dense) is looked up in its
 * union from this many candidates left by its member bits (see
 * `finishWords`). Fewer — a name prefix after a given name, `jennifer he`:
 * a few thousand — are cheaper looked up in its parts than its union is to
 * build (millions of ids) for the few searches that share the prefix.
 */
const UNION_MIN_CANDIDATES = 65_536;

/**
 * A common word's member bits: kept, or made and kept when `make` (the word
 * recurs); else null.
 */
function memberBitsOf(word: PlannedWord, make: boolean, ctx: EngineContext): Uint32Array | null {
  const cache = ctx.memberBits;
  if (!cache) return null;
  const kept = cache.get(word.key);
  if (kept || !make) return kept ?? null;
  const parts = word.codes ? [...word.parts, ...word.codes.parts()] : word.parts;
  const bits = memberBits(parts, ctx.index.size + 1);
  cache.set(word.key, bits);
  return bits;
}

type Box = ReturnType<typeof boundingBoxes>[number];

/** The entries whose location lies in one of the boxes (in place: `set` is the caller's own). */
function keepInBoxes(set: Leveled, boxes: readonly Box[], index: SearchIndex): Leveled {
  const lats = index.lat, lons = index.lon;
  const { ids, levels } = set;
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const lat = lats[id]!, lon = lons[id]!;
    for (const b of boxes) {
      if (lat >= b.minLat && lat <= b.maxLat && lon >= b.minLon && lon <= b.maxLon) {
        ids[n] = id;
        levels[n++] = levels[i]!;
        break;
      }
    }
  }
  return { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
}

/**
 * Ids whose whole name is the query (or, for one word, a typo variant of
 * it), own or other: the caller keeps those whose words matched a legal name.
 */
function exactNameIds(words: readonly string[], index: SearchIndex): Uint32Array {
  const alternatives: Uint32Array[] = [];
  const whole = words.join("");
  alternatives.push(index.list(FIELD.lastKey, whole), index.list(FIELD.orgKey, whole));
  if (words.length >= 2) {
    // The joined rest (`be` of `jennifer be`) is rarely a name: its list first, and the first
    // word's, often long (every Jennifer), only when the rest is one.
    const both = (rare: Uint32Array, other: () => Uint32Array) =>
      rare.length === 0 ? EMPTY : intersectAll([rare, other()]);
    const rest = words.slice(1).join("");
    alternatives.push(
      both(index.list(FIELD.lastKey, rest), () => index.list(FIELD.firstKey, words[0]!)),
      both(index.list(FIELD.firstKey, rest), () => index.list(FIELD.lastKey, words[0]!)),
    );
  }
  return unionAll(alternatives, index.size + 1);
}

/**
 * Ids of `within` whose whole legal name is the query being typed, the
 * last word a prefix: first name then the start of the surname (`john
 * coop`: John Cooper; `mary ann smi`; `john van dy`), or surname then the
 * start of the first name (`fowler, pau`: Paul Fowler). The name keys also
 * hold other names (a former surname), so the whole words must be words of
 * the legal name too. Empty for one word.
 */
function typedNameIds(
  words: readonly string[],
  within: Uint32Array,
  index: SearchIndex,
): Uint32Array {
  if (words.length < 2 || within.length === 0) return EMPTY;
  const alternatives: Uint32Array[] = [];
  // The whole words (the first, or all but the last) as one key, the rest as the key's prefix.
  for (const cut of words.length > 2 ? [1, words.length - 1] : [1]) {
    const whole = words.slice(0, cut).join(""), typed = words.slice(cut).join("");
    for (
      const [key, word, typedKey, typedWord] of [
        [FIELD.firstKey, FIELD.given, FIELD.lastKey, FIELD.surname],
        [FIELD.lastKey, FIELD.surname, FIELD.firstKey, FIELD.given],
      ] as const
    ) {
      // Legal on both sides: a word of the legal name each (the keys hold other names too).
      const named = intersect(
        intersect(within, index.list(key, whole)),
        index.list(word, words[0]!),
      );
      if (named.length === 0) continue;
      const keyed = index.prefixWithin(typedKey, typed, named);
      if (keyed.length > 0) alternatives.push(index.prefixWithin(typedWord, words[cut]!, keyed));
    }
  }
  return unionAll(alternatives, index.size + 1);
}

/**
 * Whether names being typed are looked for in a result set of `total`
 * (the whole names typed, a state code typed last as a name's start): not
 * in one of a dense set's size (`health co`, `family med`), whose words are
 * not a person's name and whose page is counted on the dense sets. Both
 * the listed and the dense paths decide by the total, so pages agree.
 */
function typedNames(total: number, universe: number): boolean {
  return total * DENSE_FRACTION < universe;
}

/** The ids of `set` at `level` (before the hints give rank keys). */
function atLevel(set: Leveled, level: number): Uint32Array {
  const out = new Uint32Array(set.ids.length);
  let n = 0;
  for (let i = 0; i < set.ids.length; i++) if (set.levels[i] === level) out[n++] = set.ids[i]!;
  return out.subarray(0, n);
}

function typoNameIds(plan: readonly WordTerms[], index: SearchIndex): Uint32Array {
  if (plan.length !== 1) return EMPTY;
  return unionAll(
    plan[0]!.typos.flatMap((t) => [index.list(FIELD.lastKey, t), index.list(FIELD.orgKey, t)]),
    index.size + 1,
  );
}

/** The best level of a legal-name match: surname or given names, never other names (3). */
const LEGAL_NAME_LEVEL = 2;
/** The best level of a typo of a legal name (the typo levels of other names are above it). */
const LEGAL_TYPO_LEVEL = 12;
/**
 * The level of a whole name typed (see {@linkcode typedNameIds}): a
 * surname's prefix alone, for one word; and the worst level it is promoted
 * from, a prefix of a legal name (other names' prefixes are below it).
 */
const TYPED_NAME_LEVEL = 6;
const LEGAL_PREFIX_LEVEL = 7;

/**
 * Lowers the level of ids also in `ids` to `level`, for those whose level
 * is `upTo` or better: a name key also holds other names (former names,
 * DBA), and only a legal-name match is promoted.
 */
function promote(set: Leveled, ids: Uint32Array, level: number, upTo: number): void {
  if (ids.length === 0) return;
  let j = 0;
  for (let i = 0; i < set.ids.length && j < ids.length; i++) {
    const v = set.ids[i]!;
    if (ids[j]! < v) j = seek(ids, v, j);
    const own = set.levels[i]!;
    if (j < ids.length && ids[j] === v && own > level && own <= upTo) set.levels[i] = level;
  }
}

/**
 * Gives the ids also in `ids` whose rank key is in the full tier at a
 * legal-name level the level of a whole name (0), keeping their hint fit.
 */
function promoteKeys(set: Leveled, ids: Uint32Array): void {
  const upTo = rankKey(TIER.full, LEGAL_NAME_LEVEL, SUB.neutral);
  let j = 0;
  for (let i = 0; i < set.ids.length && j < ids.length; i++) {
    const v = set.ids[i]!;
    if (ids[j]! < v) j = seek(ids, v, j);
    const key = set.levels[i]!;
    if (j < ids.length && ids[j] === v && key <= upTo) {
      set.levels[i] = rankKey(TIER.full, 0, subOfKey(key));
    }
  }
}

/**
 * The matches of the free text, with rank keys (see `scores.ts`) for
 * levels. The required words are matched as typed, except those the
 * vocabulary lacks, which take their typo variants; when that finds fewer
 * than {@linkcode TYPO_TOKENS_THRESHOLD} providers, again with every word's
 * variants. When nothing matches every word, the least informative words
 * are left out one at a time — words that match nothing first, then the
 * most common — and what matches the rest is the fallback tier; when no
 * name word matches at all, the hints are required instead. Then whole
 * legal names are promoted, and the hints looked up.
 */
function matchText(
  allWords: readonly string[],
  filters: FilterList[],
  test: { mask: number; value: number },
  boxes: readonly Box[] | null,
  ctx: EngineContext,
  top: number | null = null,
): Leveled | TopEntries {
  const { index } = ctx;
  const split = splitWords(allWords.slice(0, MAX_QUERY_WORDS));
  const plan = (words: readonly string[], stage: TypoStage) => {
    const planned = planWords(words, ctx.typos, stage);
    if (split.hintsRequired) { for (const w of planned) w.kinds = hintKinds(w.word) || undefined; }
    return planned;
  };
  let words = split.required;
  // As typed first (unknown words take their variants); every word's variants only when that
  // finds fewer than a page: most searches never read the typo vocabulary of a known word.
  let planned = plan(words, "unknown");
  const driven = driveWords(planned, ctx);
  if (driven && top !== null) {
    const limits = { filters, test, boxes };
    const entries = denseTop(driven, planned, words, split.hints, allWords, top, ctx, limits) ??
      worstLevelTop(driven, planned, words, split.hints, top, ctx, limits);
    if (entries) return entries;
  }
  let set = driven ? finishWords(driven, filters, test, boxes, ctx) : EMPTY_LEVELED;
  if (set.ids.length < TYPO_TOKENS_THRESHOLD) {
    const widened = plan(words, "all");
    if (widened.some((w, i) => w.typos.length !== planned[i]!.typos.length)) {
      planned = widened;
      set = matchWords(planned, filters, test, boxes, ctx);
    }
  }
  let fallback = false;
  while (set.ids.length === 0 && words.length > 1) {
    checkWatch(ctx);
    words = leastInformativeLeftOut(planned, ctx);
    planned = plan(words, "all");
    set = matchWords(planned, filters, test, boxes, ctx);
    fallback = true;
  }
  let hints = split.hints;
  if (set.ids.length === 0 && hints.length > 0) {
    // No name word matches anything: the hints alone, required (`zzyzx 21239`: that ZIP).
    checkWatch(ctx);
    words = hints.map((h) => h.word);
    planned = planWords(words, ctx.typos, "all").map((w) => ({ ...w, kinds: hintKinds(w.word) }));
    set = matchWords(planned, filters, test, boxes, ctx);
    hints = [];
    fallback = true;
  }
  if (set.ids.length === 0) return set;
  promote(set, exactNameIds(words, index), 0, LEGAL_NAME_LEVEL);
  const typing = typedNames(set.ids.length, index.size + 1);
  if (typing && !fallback && words.length >= 2 && planned.at(-1)?.prefix) {
    const typed = typedNameIds(words, atLevel(set, LEGAL_PREFIX_LEVEL), index);
    promote(set, typed, TYPED_NAME_LEVEL, LEGAL_PREFIX_LEVEL);
  }
  promote(set, typoNameIds(planned, index), 10, LEGAL_TYPO_LEVEL);
  const typedHint = hints.length === 1 && hints[0]!.typed ? hints[0]! : null;
  if (
    typedHint && typing && top !== null && !fallback && words.length === 1 && set.ids.length > top
  ) {
    const entries = typedHintTop(set, typedHint, words[0]!, allWords, top, ctx);
    if (entries) return entries;
  }
  for (const hint of typing ? hints.filter((h) => h.typed) : []) {
    // The last word typed may be a state or a credential, or the start of a name: the results
    // it starts a name of, read against them (a two-letter prefix's list is long).
    hint.starts = nameStarts(hint.word, set.ids, index);
    // A whole name typed starts a name with it: looked for among those only. Its words are each
    // in the legal name (`john co`: John Cooper as an organization named John is).
    hint.names = typedNameIds([...words, hint.word], hint.starts, index);
    promote(set, hint.names, 1, LEGAL_NAME_LEVEL);
  }
  set = applyHints(set, hints, index, npiIdsOf(ctx), fallback);
  if (split.hints.length > 0 && !fallback) {
    for (const ids of wholeNameLists(allWords, index)) promoteKeys(set, ids);
  }
  return set;
}

/** The ids of `ids` (sorted) with a surname or given name starting with `word` (a typed hint's). */
function nameStarts(word: string, ids: Uint32Array, index: SearchIndex): Uint32Array {
  return unionAll([
    index.prefixWithin(FIELD.surname, word, ids),
    index.prefixWithin(FIELD.given, word, ids),
  ], index.size + 1);
}

/**
 * The whole names a query with hints promotes once the hints are looked
 * up, in order: the hints may be names (`anh do`, `al smith`), so the
 * whole name of every word comes first, and so does the whole name of the
 * words that can be names, titles and codes aside (`Dr. Ronald Washington,
 * CRNA`: a state name that is a surname).
 */
function wholeNameLists(allWords: readonly string[], index: SearchIndex): Uint32Array[] {
  const lists = [exactNameIds(allWords, index)];
  const named = allWords.filter((w) => {
    const kinds = hintKinds(w);
    return kinds === 0 || (kinds & HINT.state) !== 0;
  });
  if (named.length < allWords.length && named.some((w) => hintKinds(w) !== 0)) {
    lists.push(exactNameIds(named, index));
  }
  return lists;
}

/**
 * The first `top` entries and the total of a search of one word and a
 * hint typed last (`jennifer pa`), ranked as `matchText` ranks the whole
 * set, but with the hint looked up only for the results that can rank
 * above the given-name level ({@linkcode LEGAL_NAME_LEVEL}): the whole
 * names typed (Jennifer Park), the whole names of the words, and those at
 * a better level already. The hint can move a result to a lower tier,
 * never to a better level, so every other result ranks below them. Null
 * when fewer than `top` of them rank above that level; the caller ranks
 * the whole set then. `set` is the caller's own: the whole names typed are
 * promoted in it, as the caller would.
 */
function typedHintTop(
  set: Leveled,
  hint: HintWord,
  word: string,
  allWords: readonly string[],
  top: number,
  ctx: EngineContext,
): TopEntries | null {
  const { index } = ctx;
  const universe = index.size + 1;
  // A whole name typed has a surname starting with the hint, or the word as its last-name key
  // (`typedNameIds` both ways round): it is looked for among those results only.
  const within = unionAll([
    index.prefixWithin(FIELD.surname, hint.word, set.ids),
    intersect(set.ids, index.list(FIELD.lastKey, word)),
  ], universe);
  const names = typedNameIds([word, hint.word], within, index);
  promote(set, names, 1, LEGAL_NAME_LEVEL);
  const wholes = wholeNameLists(allWords, index);
  const whole = unionAll(wholes, universe);
  const { ids, levels } = set;
  // Few of the results (hundreds of a quarter of a million Jennifers): gathered in plain arrays.
  const keptIds: number[] = [], keptLevels: number[] = [];
  for (let i = 0, j = 0; i < ids.length; i++) {
    const id = ids[i]!, level = levels[i]!;
    if (level > LEGAL_NAME_LEVEL) continue;
    if (j < whole.length && whole[j]! < id) j = seek(whole, id, j);
    if (level < LEGAL_NAME_LEVEL || (j < whole.length && whole[j] === id)) {
      keptIds.push(id);
      keptLevels.push(level);
    }
  }
  const n = keptIds.length;
  if (n < top) return null;
  const kept = { ids: Uint32Array.from(keptIds), levels: Uint8Array.from(keptLevels) };
  // The hint's parts as `matchText` makes them, for the kept results.
  hint.starts = nameStarts(hint.word, kept.ids, index);
  hint.names = names;
  applyHints(kept, [hint], index, npiIdsOf(ctx), false);
  for (const list of wholes) promoteKeys(kept, list);
  const bound = rankKey(TIER.full, LEGAL_NAME_LEVEL, SUB.name);
  let above = 0;
  for (let i = 0; i < n; i++) if (kept.levels[i]! < bound) above++;
  if (above < top) return null;
  const positions = levelPositions(kept.levels, 0, top);
  return {
    ids: Uint32Array.from(positions, (p) => kept.ids[p]!),
    levels: Uint8Array.from(positions, (p) => kept.levels[p]!),
    total: ids.length,
  };
}

/** The first entries of a result set, ranked, with the whole set's size. */
interface TopEntries {
  ids: Uint32Array;
  /** Their rank keys. */
  levels: Uint8Array;
  total: number;
}

/** What shapes a search besides its words, for the shortcuts that rank a page without listing. */
interface PageLimits {
  filters: readonly FilterList[];
  test: { mask: number; value: number };
  boxes: readonly Box[] | null;
}

/**
 * The first `top` entries and the total of a search whose words are all
 * dense, without filters or boxes (`health care`), counted and ranked on
 * the dense sets without listing the matches (`dense_page.ts`): the same
 * entries, keys and total as listing them gives. With no hint, from the
 * best levels down; with one state (`washington family`), from the
 * providers that fit it — its state's, and those named like it — which
 * rank above all others. Null when the search is not of that kind, finds
 * fewer than a page (its typo variants are tried then), or the state's
 * fewer than the page (the rest is ranked on the list).
 */
function denseTop(
  driven: DrivenWords,
  planned: readonly WordTerms[],
  words: readonly string[],
  hints: readonly HintWord[],
  allWords: readonly string[],
  top: number,
  ctx: EngineContext,
  { filters, test, boxes }: PageLimits,
): TopEntries | null {
  if (filters.length > 0 || boxes || driven.dense.length !== driven.words.length) return null;
  // One word with typo variants also promotes the whole names of its variants: listed instead.
  if (planned.length === 1 && planned[0]!.typos.length > 0) return null;
  if (hints.length > 1 || (hints.length === 1 && hints[0]!.kinds !== HINT.state)) return null;
  const { index } = ctx;
  const universe = index.size + 1;
  const pass = flagPassBits(index.flags, test.mask, test.value);
  const promoted = exactNameIds(words, index);
  // Names being typed are looked for in results fewer than a dense set's (`typedNames`), and
  // only in listed ones: a state code typed last (a name's start), or a page down to the legal
  // names' prefixes (whole names typed promoted from there).
  const prefixed = words.length >= 2 && planned.at(-1)?.prefix === true;
  const typedHint = hints.some((h) => h.typed);
  const listTyped = (total: number, levels: Uint8Array, levelOf: (value: number) => number) =>
    typedNames(total, universe) &&
    (typedHint || (prefixed && levels.some((value) => levelOf(value) >= LEGAL_PREFIX_LEVEL)));
  const watch = () => checkWatch(ctx);
  if (hints.length === 1) {
    // As `applyHints` ranks one state: named like it first, then in it; those not fitting a tier
    // below. The whole names of every word are promoted as `matchText` does after the hints.
    const hint = hints[0]!;
    const code = stateOf(hint.word);
    const names = hintParts(hint, index, npiIdsOf(ctx), false, false, false).map((p) => p.list);
    const page = fitPage({
      sets: driven.dense,
      pass,
      fits: [
        { ids: unionAll(names, universe), sub: SUB.name },
        { ids: code ? index.list(FIELD.state, code) : EMPTY, sub: SUB.place },
      ],
      promoted,
      upTo: LEGAL_NAME_LEVEL,
      keyOf: (level, sub) => rankKey(TIER.full, level, sub),
      whole: exactNameIds(allWords, index),
      wholeUpTo: rankKey(TIER.full, LEGAL_NAME_LEVEL, SUB.neutral),
      end: top,
      watch,
    });
    return page && page.total >= TYPO_TOKENS_THRESHOLD &&
        !listTyped(page.total, page.keys, (key) => levelOfKey(key))
      ? { ids: page.ids, levels: page.keys, total: page.total }
      : null;
  }
  // Every match at a name level is in each word's name lists: the shortest are read.
  let low: Uint32Array[] = [], lowSize = Infinity;
  for (const w of planned) {
    const lists = wordNameLists(w, ctx);
    const size = lists.reduce((sum, l) => sum + l.length, 0);
    if (size < lowSize) [low, lowSize] = [lists, size];
  }
  const page = densePage({
    sets: driven.dense,
    pass,
    low: unionAll(low, universe),
    lowLevel: NAME_LEVEL,
    promoted,
    upTo: LEGAL_NAME_LEVEL,
    end: top,
    watch,
  });
  if (page.total < TYPO_TOKENS_THRESHOLD || listTyped(page.total, page.levels, (level) => level)) {
    return null;
  }
  // No hints: one tier, each level's key from a table, as `applyHints` gives them.
  const keys = levelKeys(TIER.full, SUB.name);
  const levels = page.levels;
  for (let i = 0; i < levels.length; i++) levels[i] = keys[levels[i]!]!;
  return { ids: page.ids, levels, total: page.total };
}

/**
 * The first `top` entries and the total of one word widened by its typo
 * variants whose union is dense, without listing it: `burse`, one of whose
 * variants is `nurse`, a specialty word that brings two million nurses at
 * the typo codes' level, below a few thousand names like Burke.
 * No promotion reaches a level past {@linkcode LEGAL_TYPO_LEVEL}, and with
 * no hint the rank keys follow the levels: when the union's worst level is
 * past it and the better levels hold `top` matches, the page is ranked
 * among those alone, as `matchText` ranks the listed set, and the worst
 * level's matches are only counted. Null when the search is not of that
 * kind (listed then).
 */
function worstLevelTop(
  driven: DrivenWords,
  planned: readonly WordTerms[],
  words: readonly string[],
  hints: readonly HintWord[],
  top: number,
  ctx: EngineContext,
  { filters, test, boxes }: PageLimits,
): TopEntries | null {
  if (filters.length > 0 || boxes || hints.length > 0 || planned.length !== 1) return null;
  if (planned[0]!.typos.length === 0 || driven.dense.length !== 1) return null;
  const union = driven.dense[0]!;
  if (worstLevel(union) <= LEGAL_TYPO_LEVEL) return null;
  const { index } = ctx;
  const pass = flagPassBits(index.flags, test.mask, test.value);
  const below = belowWorst(union, pass, () => checkWatch(ctx));
  if (below.ids.length < top || below.total < TYPO_TOKENS_THRESHOLD) return null;
  const set = { ids: below.ids, levels: below.levels };
  promote(set, exactNameIds(words, index), 0, LEGAL_NAME_LEVEL);
  promote(set, typoNameIds(planned, index), 10, LEGAL_TYPO_LEVEL);
  // Rank keys as the listed set gets them, with no hint.
  const keyed = applyHints(set, [], index, npiIdsOf(ctx), false);
  const page = firstByRank(keyed.ids, keyed.levels, top);
  return { ids: page.ids, levels: page.levels, total: below.total };
}

/**
 * The words of a plan less its least informative: every word that matches
 * nothing (when some other word does), else the one with most candidates,
 * counted in its parts whether or not its union is cached or kept (a
 * union's exact size would make the word left out, and so the answer,
 * depend on what earlier searches left in the cache).
 */
function leastInformativeLeftOut(plan: readonly WordTerms[], ctx: EngineContext): string[] {
  const uncached: EngineContext = { ...ctx, wordSets: undefined, keptUnions: null };
  const sized = plan.map((w) => ({ word: w.word, size: planWord(w, plan.length, uncached).size }));
  const matching = sized.filter((w) => w.size > 0);
  if (matching.length > 0 && matching.length < sized.length) return matching.map((w) => w.word);
  let most = 0;
  for (let i = 1; i < sized.length; i++) if (sized[i]!.size > sized[most]!.size) most = i;
  return sized.filter((_, i) => i !== most).map((w) => w.word);
}

/** The candidates of a query with free text or a point, sorted. */
function evaluate(query: SearchQuery, ctx: EngineContext, top: number | null = null): ResultSet {
  const { index } = ctx;
  if (query.places) throw new Error("Place matches are evaluated without free text or a point");
  const test = flagTest(query);
  const filters = listFilters(query, ctx);
  checkWatch(ctx);
  let set: Leveled;
  if (query.words) {
    if (query.words.length === 0) {
      return { ids: EMPTY, levels: null, distances: null, facets: undefined, bytes: 0 };
    }
    const boxes = query.near ? boundingBoxes(query.near) : null;
    const found = matchText(query.words, filters, test, boxes, ctx, query.near ? null : top);
    if ("total" in found) {
      const { ids, levels, total } = found;
      return { ids, levels, distances: null, facets: undefined, bytes: 0, whole: total };
    }
    set = found;
  } else {
    const ids = candidatesNear(query, filters, ctx);
    const cut = activeCut(test, index);
    set = keepFlagged(
      { ids, levels: new Uint8Array(ids.length) },
      index.flags,
      cut.mask,
      cut.value,
      false,
      cut.end,
    );
  }
  checkWatch(ctx);
  let distances: Float64Array | null = null;
  if (query.near) {
    const near = query.near;
    const ids = set.ids, levels = set.levels;
    const d = new Float64Array(ids.length);
    const lats = index.lat, lons = index.lon;
    let n = 0;
    for (let i = 0; i < ids.length; i++) {
      if ((i & CHECK_EVERY) === 0) checkWatch(ctx);
      const id = ids[i]!;
      const lat = lats[id]!, lon = lons[id]!;
      if (Number.isNaN(lat)) continue;
      const km = distance(near.lat, near.lon, lat, lon, near.unit);
      if (km > near.radius) continue;
      ids[n] = id;
      levels[n] = levels[i]!;
      d[n++] = km;
    }
    set = { ids: ids.subarray(0, n), levels: levels.subarray(0, n) };
    distances = d.subarray(0, n);
  }
  return sortResults(query, set, distances);
}

/** {@linkcode nearestPage} of sorted candidates, the deactivated ones cut off by the active bound. */
function nearestActive(
  candidates: Uint32Array,
  request: NearestRequest,
  ctx: EngineContext,
): NearestPage {
  const cut = activeCut(request, ctx.index);
  const within = cut.end === Infinity
    ? candidates
    : candidates.subarray(0, seek(candidates, cut.end));
  return nearestPage(within, ctx.index, { ...request, mask: cut.mask, value: cut.value }, ctx);
}

/** Candidates around a point: the list filters, or the cells of the bounding box. */
function candidatesNear(
  query: SearchQuery,
  filters: FilterList[],
  ctx: EngineContext,
): Uint32Array {
  const { index } = ctx;
  const cells = boundingBoxes(query.near!).flatMap((b) => cellsIn(b));
  // One long filter over a small area is tested on the area's ids, its own list not read.
  const alone = filters.length === 1 && cells.length <= 400 && filters[0]!.size >= 20_000
    ? filters[0]!
    : null;
  const narrow = filters.length && !alone ? intersectFilters(filters) : null;
  if (narrow && (cells.length > 400 || narrow.length < 20_000)) return narrow;
  if (cells.length > 4000) {
    // A very large area: scan the coordinate columns within the bounding box.
    const boxes = boundingBoxes(query.near!);
    const out: number[] = [];
    const lats = index.lat, lons = index.lon;
    for (let id = 1; id <= index.size; id++) {
      if ((id & CHECK_EVERY) === 0) checkWatch(ctx);
      const lat = lats[id]!, lon = lons[id]!;
      if (
        boxes.some((b) => lat >= b.minLat && lat <= b.maxLat && lon >= b.minLon && lon <= b.maxLon)
      ) out.push(id);
    }
    return Uint32Array.from(out);
  }
  const lists = cells.map((c) => index.list(FIELD.cell, String(c)));
  // The area's cells are tested on the one filter before they are united, when it is the longer.
  const passing = alone ? intersectEach(lists, alone) : null;
  if (passing) return unionAll(passing, index.size + 1);
  const around = unionAll(lists, index.size + 1);
  if (alone) return intersectFilter(around, alone);
  // One filter is `alone` or answered above: what is left is several, or none.
  return narrow ? intersectAll([narrow, around]) : around;
}

function sortResults(query: SearchQuery, set: Leveled, distances: Float64Array | null): ResultSet {
  const byLevel = query.sort === "relevance";
  const byDistance = query.sort === "distance" || (byLevel && distances !== null);
  if (byLevel && !byDistance) {
    // Not sorted now: most searches look at their first page only (`level_page.ts`). The arrays
    // are the caller's own; copied only when they are views of much larger ones (kept whole).
    const oversized = (a: Uint32Array | Uint8Array) => a.buffer.byteLength > 2 * a.byteLength;
    const ids = oversized(set.ids) ? set.ids.slice() : set.ids;
    const levels = oversized(set.levels) ? set.levels.slice() : set.levels;
    return {
      ids,
      levels,
      distances: null,
      facets: undefined,
      bytes: ids.byteLength + levels.byteLength + 64,
      unsorted: true,
    };
  } else if (byDistance) {
    // Not sorted now: most searches around a point look at their first page only.
    const ids = set.ids.slice(), dist = distances!.slice();
    const levels = query.words ? set.levels.slice() : null;
    return {
      ids,
      levels,
      distances: dist,
      facets: undefined,
      bytes: ids.byteLength + (levels?.byteLength ?? 0) + dist.byteLength + 64,
      unsorted: true,
    };
  }
  const ids = set.ids.slice();
  const levels = query.words ? set.levels.slice() : null;
  const dist = distances ? distances.slice() : null;
  return {
    ids,
    levels,
    distances: dist,
    facets: undefined,
    bytes: ids.byteLength + (levels?.byteLength ?? 0) + (dist?.byteLength ?? 0) + 64,
  };
}

/** The sort key of position `i` of a result set. */
function keyAt(query: SearchQuery, r: ResultSet, i: number): number[] {
  const id = r.ids[i]!;
  if (query.sort === "name") return [id];
  if (query.sort === "distance") return [r.distances![i]!, id];
  return r.distances ? [r.levels![i]!, r.distances[i]!, id] : [r.levels![i]!, id];
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function cacheKey(query: SearchQuery): string {
  const { limit: _l, offset: _o, cursor: _c, facets: _f, ...rest } = query;
  return JSON.stringify(rest);
}

/**
 * Runs a search.
 *
 * @example
 * ```ts
 * const page = search(query, ctx);
 * ```
 */
export function search(query: SearchQuery, ctx: EngineContext): SearchPage {
  try {
    return searchOnce(query, ctx);
  } finally {
    // What the caches let go of during the search is no longer read: its arrays may be reused.
    ctx.wordSets?.stock.settle();
  }
}

function searchOnce(query: SearchQuery, ctx: EngineContext): SearchPage {
  if (!query.words && !query.near && !hasListFilter(query)) return browse(query, ctx);
  if (
    query.near && !query.words && query.sort === "distance" && !query.facets.length && !query.check
  ) {
    return nearest(query, ctx);
  }
  const only = onlyDays(query);
  if (only) {
    const { days, state } = only;
    const walked = state === null
      ? browseUpdated(query, days, flagTest(query), ctx.index, ctx, monthsHold(days, ctx))
      : browseUpdatedIn(query, state, days, flagTest(query), ctx.index, ctx);
    if (walked) {
      const { total, next, offset } = walked;
      return { total, hits: walked.ids.map((id) => ({ id })), next, offset };
    }
  }
  const key = cacheKey(query);
  let result = ctx.cache.get(key);
  if (!result) {
    // A first page by relevance, without facets, needs only the top of the set.
    const top = query.sort === "relevance" && !query.cursor && !query.facets.length &&
        query.offset + query.limit <= MAX_SELECTED
      ? query.offset + query.limit
      : null;
    const found = query.words || query.near ? evaluate(query, ctx, top) : filtered(query, ctx);
    if (typeof found === "number") {
      return { total: 0, hits: [], next: null, offset: query.offset, uncheckedCandidates: found };
    }
    result = found;
    if (found.whole === undefined) ctx.cache.set(key, result);
  }
  let positions: Uint32Array | null = null;
  if (result.unsorted) {
    const byLevel = query.sort === "relevance";
    const selected = !query.cursor && query.offset + query.limit <= MAX_SELECTED;
    if (result.distances) {
      const set = result as DistanceSet;
      if (selected) positions = nearestPositions(set, byLevel, query.offset, query.limit);
      else {
        result = { ...result, ...sortByDistance(set, byLevel), unsorted: false };
        ctx.cache.set(key, result);
      }
    } else if (selected) positions = levelPositions(result.levels!, query.offset, query.limit);
    else {
      result = { ...result, ...sortByLevel(result as LeveledSet), unsorted: false };
      ctx.cache.set(key, result);
    }
  }
  const total = result.whole ?? result.ids.length;
  let start = query.offset;
  if (query.cursor) {
    const after = query.cursor.after;
    let lo = 0, hi = total;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(keyAt(query, result, mid), after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const end = positions ? start + positions.length : Math.min(total, start + query.limit);
  const hits: SearchHit[] = [];
  // Where the page's i-th entry is: in the sorted set, or as selected from the unsorted one.
  const at = (i: number) => positions ? positions[i - start]! : i;
  for (let i = start; i < end; i++) {
    const p = at(i);
    const hit: SearchHit = { id: result.ids[p]! };
    if (query.words) hit.score = scoreOfKey(result.levels![p]!);
    if (query.near) hit.distance = Math.round(result.distances![p]! * 10) / 10;
    hits.push(hit);
  }
  const next = end < total && end > start
    ? { offset: end, after: keyAt(query, result, at(end - 1)) }
    : null;
  const page: SearchPage = { total, hits, next, offset: start };
  if (query.facets.length) {
    result.facets ??= {};
    const missing = query.facets.filter((f) => !result!.facets![f]);
    if (missing.length) {
      Object.assign(result.facets, facetCounts(missing, result.ids, ctx.index, ctx));
    }
    page.facets = Object.fromEntries(query.facets.map((f) => [f, result!.facets![f]!]));
  }
  return page;
}

/**
 * The day set of a query in name order filtered by `_lastUpdated` and
 * flags only, or by those and one state (`state` then set), for
 * `updated_browse.ts`.
 */
function onlyDays(query: SearchQuery): { days: [number, number][]; state: string | null } | null {
  const extra = query.extraFilters;
  if (extra?.length !== 1 || extra[0]!.kind !== "updated") return null;
  // In name order only: a walk's cursor is the last id (see `keyAt`).
  if (query.words || query.near || query.facets.length || query.sort !== "name") return null;
  const days = extra[0]!.days;
  if (!hasListFilter({ ...query, extraFilters: null })) return { days, state: null };
  const states = query.states;
  if (states?.length !== 1 || hasListFilter({ ...query, extraFilters: null, states: null })) {
    return null;
  }
  return { days, state: states[0]! };
}

/**
 * A point without free text, by distance, without facets: the page alone,
 * from one pass over the candidates (`nearest.ts`), the total counted and
 * nothing sorted or cached but the page.
 */
function nearest(query: SearchQuery, ctx: EngineContext): SearchPage {
  const test = flagTest(query);
  const filters = listFilters(query, ctx);
  const start = query.cursor ? query.cursor.offset : query.offset;
  const request = {
    near: query.near!,
    mask: test.mask,
    value: test.value,
    after: query.cursor?.after ?? null,
    skip: query.cursor ? 0 : query.offset,
    limit: query.limit,
  };
  // Without filters every provider of the circle counts: the points answer, not the providers.
  const page = filters.length === 0 && ctx.points
    ? pointsNearest(ctx.points.get(), ctx.index.flags, request, ctx)
    : nearestActive(candidatesNear(query, filters, ctx), request, ctx);
  const hits: SearchHit[] = page.ids.map((id, k) => ({
    id,
    distance: Math.round(page.distances[k]! * 10) / 10,
  }));
  const last = hits.length - 1;
  const next = start + hits.length < page.total && last >= 0
    ? { offset: start + hits.length, after: [page.distances[last]!, page.ids[last]!] }
    : null;
  return { total: page.total, hits, next, offset: start };
}

/**
 * Filters without free text or a point: the intersection of the list
 * filters (every id when a record check is the only filter), in id order,
 * within the query's id range, then the record check over what is left —
 * and, for the candidates of a place match the index cannot tell for sure,
 * the place match on their records. Returns the number of candidates
 * instead when the checks would read more than {@linkcode MAX_RECORD_CHECKS}
 * records.
 */
function filtered(query: SearchQuery, ctx: EngineContext): ResultSet | number {
  const test = flagTest(query);
  const unsure: { ids: Uint32Array | null } = { ids: null };
  const lists = listFilters(query, ctx, unsure);
  const base = lists.length ? intersectFilters(lists) : null;
  const count = base ? base.length : ctx.index.size;
  const check = query.check ?? null;
  const range = query.idRange ?? null;
  // The unsure candidates left by every filter, and what their records must meet.
  const doubt = unsure.ids && base ? intersect(unsure.ids, base) : EMPTY;
  const doubtCheck: RecordCheck | null = doubt.length > 0
    ? { address: check?.address ?? null, official: check?.official ?? null, place: query.places }
    : null;
  if ((check || doubtCheck) && !ctx.checkRecord) throw new Error("This store cannot check records");
  // The records the checks would read: with a check, every candidate in the id range (an upper
  // bound) passing the flags; else the unsure ones.
  const inRange = range ? Math.max(0, range.to - range.from) : count;
  const reads = check
    ? Math.min(base ? base.length : ctx.index.countFlags(test.mask, test.value), inRange)
    : Math.min(doubt.length, inRange);
  if ((check || doubtCheck) && reads > (ctx.maxRecordChecks ?? MAX_RECORD_CHECKS)) return reads;
  // The deactivated providers' ids, after the active ones', are not read when they fail the test.
  const cut = activeCut(test, ctx.index);
  const within = cut.end === Infinity ? count : base ? seek(base, cut.end) : cut.end - 1;
  const ids = new Uint32Array(within);
  let n = 0, checked = 0, d = 0;
  for (let i = 0; i < within; i++) {
    if ((i & CHECK_EVERY) === 0) checkWatch(ctx);
    const id = base ? base[i]! : i + 1;
    if (range && (id < range.from || id >= range.to)) continue;
    if ((ctx.index.flags[id]! & cut.mask) !== cut.value) continue;
    let needs = check;
    if (doubtCheck) {
      // Both lists ascend: the unsure ones are met in order.
      while (d < doubt.length && doubt[d]! < id) d++;
      if (d < doubt.length && doubt[d] === id) needs = doubtCheck;
    }
    if (needs) {
      if ((++checked & CHECK_RECORDS_EVERY) === 0) checkWatch(ctx);
      if (!ctx.checkRecord!(id, needs)) continue;
    }
    ids[n++] = id;
  }
  const out = ids.slice(0, n);
  return { ids: out, levels: null, distances: null, facets: undefined, bytes: out.byteLength + 64 };
}

/** Browsing with flag tests only: walk ids from the start (or the cursor) and stop at the page. */
function browse(query: SearchQuery, ctx: EngineContext): SearchPage {
  const { index } = ctx;
  const test = flagTest(query);
  const total = index.countFlags(test.mask, test.value);
  const flags = index.flags;
  let id = query.cursor ? query.cursor.after[0]! + 1 : 1;
  let skip = query.cursor ? 0 : query.offset;
  const offset = query.cursor ? query.cursor.offset : query.offset;
  const hits: SearchHit[] = [];
  for (; id <= index.size && hits.length < query.limit; id++) {
    if ((id & CHECK_EVERY) === 0) checkWatch(ctx);
    if ((flags[id]! & test.mask) !== test.value) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    hits.push({ id });
  }
  const last = hits.at(-1);
  const next = last && offset + hits.length < total
    ? { offset: offset + hits.length, after: [last.id] }
    : null;
  const page: SearchPage = { total, hits, next, offset };
  if (query.facets.length) {
    const key = `browse:${test.mask}:${test.value}`;
    let cached = ctx.cache.get(key);
    if (!cached) {
      const ids = new Uint32Array(total);
      let n = 0;
      for (let i = 1; i <= index.size; i++) {
        if ((i & CHECK_EVERY) === 0) checkWatch(ctx);
        if ((flags[i]! & test.mask) === test.value) ids[n++] = i;
      }
      cached = {
        ids: EMPTY,
        levels: null,
        distances: null,
        facets: facetCounts(ALL_FACETS, ids, index, ctx),
        bytes: 4096,
      };
      ctx.cache.set(key, cached);
    }
    page.facets = Object.fromEntries(query.facets.map((f) => [f, cached!.facets![f]!]));
  }
  return page;
}

/** Ids whose code ranges {@linkcode facetCounts} reads at a time, and where it keeps them. */
const CODE_CHUNK = 4096;
const codeStarts = new Uint32Array(CODE_CHUNK), codeEnds = new Uint32Array(CODE_CHUNK);

const ALL_FACETS: readonly FacetName[] = ["state", "taxonomy", "entity_type", "sex", "city"];

/** Whether facet entry `a` is listed before `b`: more providers first, then by value. */
function before(a: { value: string; count: number }, b: { value: string; count: number }) {
  return a.count > b.count || (a.count === b.count && a.value < b.value);
}

/**
 * The {@linkcode FACET_SIZE} values with most providers (value 0, none, left
 * out), by count then value: one pass over the counts (or over `values`,
 * ascending, when only those were counted) keeping the best so far in
 * order, so that only values that may enter it are named (a city facet
 * counts over some 30,000 city numbers).
 */
function top(
  counts: Uint32Array,
  name: (v: number) => string,
  values: readonly number[] | null = null,
): { value: string; count: number }[] {
  const best: { value: string; count: number }[] = [];
  const end = values ? values.length : counts.length;
  for (let k = values ? 0 : 1; k < end; k++) {
    const v = values ? values[k]! : k;
    if (v === 0) continue;
    const count = counts[v]!;
    if (count === 0) continue;
    if (best.length === FACET_SIZE && count < best[FACET_SIZE - 1]!.count) continue;
    const entry = { value: name(v), count };
    let at = best.length;
    while (at > 0 && before(entry, best[at - 1]!)) at--;
    if (at >= FACET_SIZE) continue;
    best.splice(at, 0, entry);
    if (best.length > FACET_SIZE) best.pop();
  }
  return best;
}

/**
 * The facets `names` over `ids`, counted in one pass: each id's columns
 * (state, city, codes, flags) are read together, once, where a pass per
 * facet would walk the ids and miss the cache on each column again.
 */
function facetCounts(
  names: readonly FacetName[],
  ids: Uint32Array,
  index: SearchIndex,
  watch: Watch,
): Facets {
  const want = new Set(names);
  const states = want.has("state") ? new Uint32Array(index.states.length) : null;
  const cities = want.has("city") ? new Uint32Array(index.cities.length) : null;
  const codes = want.has("taxonomy") ? new Uint32Array(index.codes.length) : null;
  const flagged = want.has("sex") || want.has("entity_type");
  const state = states ? index.state : null, city = cities ? index.city : null;
  const offsets = codes ? index.taxOffsets : null, held = codes ? index.taxCodes : null;
  const flags = index.flags;
  let male = 0, female = 0, individual = 0, organization = 0;
  // One pass a column, whose reads do not wait on one another, so that the processor overlaps their
  // cache misses (a state's nurse practitioners are scattered over columns of millions); one pass
  // reading every column for an id in turn was a quarter slower.
  const n = ids.length;
  if (states) {
    for (let i = 0; i < n; i++) {
      if ((i & CHECK_EVERY) === 0) checkWatch(watch);
      states[state![ids[i]!]!]!++;
    }
  }
  // The city numbers met, when far fewer matches than cities: the top is found among them alone.
  let met: number[] | null = null;
  if (cities && n * 8 < cities.length) {
    met = [];
    for (let i = 0; i < n; i++) {
      const v = city![ids[i]!]!;
      if (cities[v]!++ === 0) met.push(v);
    }
    met.sort((a, b) => a - b);
  } else if (cities) {
    for (let i = 0; i < n; i++) {
      if ((i & CHECK_EVERY) === 0) checkWatch(watch);
      cities[city![ids[i]!]!]!++;
    }
  }
  if (codes) {
    // Where each id's codes start and end, a chunk of ids at a time; then the codes themselves.
    for (let from = 0; from < n; from += CODE_CHUNK) {
      checkWatch(watch);
      const to = Math.min(n, from + CODE_CHUNK);
      for (let i = from; i < to; i++) {
        const id = ids[i]!;
        codeStarts[i - from] = offsets![id]!;
        codeEnds[i - from] = offsets![id + 1]!;
      }
      for (let j = 0; j < to - from; j++) {
        for (let k = codeStarts[j]!, end = codeEnds[j]!; k < end; k++) codes[held![k]!]!++;
      }
    }
  }
  if (flagged) {
    for (let i = 0; i < n; i++) {
      if ((i & CHECK_EVERY) === 0) checkWatch(watch);
      const f = flags[ids[i]!]!;
      if (f & FLAG.male) male++;
      else if (f & FLAG.female) female++;
      if (f & FLAG.individual) individual++;
      else if (f & FLAG.organization) organization++;
    }
  }
  const two = (a: [string, number], b: [string, number]) =>
    [{ value: a[0], count: a[1] }, { value: b[0], count: b[1] }]
      .filter((e) => e.count > 0)
      .sort((x, y) => y.count - x.count || (x.value < y.value ? -1 : 1));
  // Keys in the order asked.
  const facets: Facets = {};
  for (const name of names) {
    switch (name) {
      case "state":
        facets.state = top(states!, (v) => index.states[v]!);
        break;
      case "city":
        facets.city = top(cities!, (v) => index.cities[v]!, met);
        break;
      case "taxonomy":
        facets.taxonomy = top(codes!, (v) => index.codes[v]!);
        break;
      case "sex":
        facets.sex = two(["M", male], ["F", female]);
        break;
      case "entity_type":
        facets.entity_type = two(["individual", individual], ["organization", organization]);
        break;
    }
  }
  return facets;
}
