/**
 * The ids of the providers whose own last name is a given name (or starts
 * with a prefix), found without reading their records: provider ids are
 * ranked by the name key of `lib/store/sort_key.ts` (last, first, middle
 * name, folded; active providers first), so those providers hold one range
 * of ids, and a binary search over ~25 records finds its ends. The key ends
 * the last name with a character below any other, so the range of a name
 * holds that name alone, not a longer one starting with it (`smith` is not
 * `smith-andrade`); a database built before that form (its
 * `nameKeyVersion()` 1) joins the names with spaces, and there the range
 * also holds such longer names.
 *
 * The index's last-name keys also hold other names (a former surname); the
 * range keeps a `last_name` search to the provider's own name, as the
 * Registry API's is. Given that list, the range is first looked for there,
 * without a binary search: the providers with the name as their own are a
 * run of consecutive ids in it, so a run's start is checked against the
 * keys on its either side and its end found from the run's end (about six
 * records read a name, against some nineteen), and the binary search runs
 * only when no run passes.
 *
 * @module
 */
import type { ProviderStore } from "./store.ts";
import { NAME_KEY_SEPARATOR, sortKey } from "./sort_key.ts";
import { foldText } from "../text/fold.ts";

/** A name as typed: the whole name, or its start with `prefix`. */
export interface NamePattern {
  text: string;
  prefix: boolean;
}

/** Ids `from` (included) to `to` (excluded). */
export interface IdRange {
  from: number;
  to: number;
}

/**
 * Binary searches probe the same ids in their first steps (the middle id,
 * then the quarters...): the keys of the probes this shallow are kept, at
 * most 2^{@linkcode KEPT_DEPTH} − 1 of them per store, so that only the
 * deeper steps read records.
 */
const KEPT_DEPTH = 16;

/** The runs of a name's list tried as its own range, longest first (a try reads two records). */
const RUNS_TRIED = 2;

/** What a range is looked for with: the store, its kept keys, the key form. */
interface KeySource {
  store: ProviderStore;
  active: number;
  kept: Map<number, string>;
  version: number;
}

/** The name key of active provider `id` ("~", after every name, when it cannot be read). */
function keyOf(source: KeySource, id: number): string {
  const kept = source.kept.get(id);
  if (kept !== undefined) return kept;
  const found = source.store.getProvidersById([id])[0];
  return found ? sortKey(found.provider, source.version) : "~";
}

/**
 * The first active id in `[1, active]` whose name key is not below `target`
 * (`active + 1` when none).
 */
function lowerBound(source: KeySource, target: string): number {
  let lo = 1, hi = source.active + 1;
  for (let depth = 0; lo < hi; depth++) {
    const mid = (lo + hi) >>> 1;
    const key = keyOf(source, mid);
    if (depth < KEPT_DEPTH) source.kept.set(mid, key);
    if (key < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether the key of `id` is not below `target` (an id past the active ones is past every key). */
function notBelow(source: KeySource, id: number, target: string): boolean {
  return id > source.active || keyOf(source, id) >= target;
}

/** Whether `id` is {@linkcode lowerBound} of `target`: the key before it is below, its own not. */
function isBound(source: KeySource, id: number, target: string): boolean {
  return (id === 1 || keyOf(source, id - 1) < target) && notBelow(source, id, target);
}

/**
 * {@linkcode lowerBound} of `target` known to lie in `[lo, hi]`, nearer
 * `hi`: the keys before `hi` are read at distances 1, 2, 4… from it until
 * one is below `target`, then the last gap is halved.
 */
function boundBelow(source: KeySource, target: string, lo: number, hi: number): number {
  for (let step = 1; hi - step >= lo; step *= 2) {
    if (keyOf(source, hi - step) < target) {
      lo = hi - step + 1;
      break;
    }
    hi -= step;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyOf(source, mid) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The ranges of consecutive active ids in `members` (sorted), the longest
 * {@linkcode RUNS_TRIED} of them, longest first.
 */
function longestRuns(members: Uint32Array, active: number): IdRange[] {
  const runs: IdRange[] = [];
  let i = 0;
  while (i < members.length && members[i]! <= active) {
    const from = members[i]!;
    let to = from + 1;
    while (++i < members.length && members[i] === to && to <= active) to++;
    runs.push({ from, to });
    if (runs.length > RUNS_TRIED) {
      runs.sort((a, b) => (b.to - b.from) - (a.to - a.from));
      runs.length = RUNS_TRIED;
    }
  }
  return runs.sort((a, b) => (b.to - b.from) - (a.to - a.from));
}

/**
 * The range of keys from `target` to `end` (excluded) read off `members`,
 * a list expected to hold every provider of the range (and others): a run
 * of consecutive ids that starts at the bound of `target` holds the range,
 * and its end is looked for from the run's end (names that only begin
 * with the name, `smith-andrade` after `smith`, may follow in the run).
 * Exactly the range a binary search finds; null when no run tried starts
 * at the bound.
 */
function rangeOfRuns(
  source: KeySource,
  members: Uint32Array,
  target: string,
  end: string,
): IdRange | null {
  for (const run of longestRuns(members, source.active)) {
    if (!isBound(source, run.from, target)) continue;
    const to = notBelow(source, run.to, end)
      ? boundBelow(source, end, run.from, run.to)
      : lowerBound(source, end);
    return { from: run.from, to };
  }
  return null;
}

/**
 * The id range of active individuals whose own last name is `pattern`
 * (exactly, or as a prefix with `pattern.prefix`). Names are folded as the
 * key is (case, accents, punctuation). `members`, when given, lists the
 * name's providers among others (the index's last-name keys of the name):
 * where they hold the range as a run, it is found from there.
 *
 * @example
 * ```ts
 * surnameRange(store, { text: "Smith", prefix: false }); // { from: 812, to: 1337 }
 * ```
 */
export function surnameRange(
  store: ProviderStore,
  pattern: NamePattern,
  members?: () => Uint32Array,
): IdRange {
  const name = foldText(pattern.text);
  const key = `${pattern.prefix ? "*" : "="}${name}`;
  let cache = caches.get(store);
  if (!cache) caches.set(store, cache = { ranges: new Map(), keys: new Map() });
  const { ranges } = cache;
  let range = ranges.get(key);
  if (range) {
    // Most recently used last.
    ranges.delete(key);
  } else {
    const source = {
      store,
      active: store.dataset().active,
      kept: cache.keys,
      version: store.nameKeyVersion(),
    };
    range = findRange(source, name, pattern.prefix, members);
    if (ranges.size >= CACHED_RANGES) ranges.delete(ranges.keys().next().value!);
  }
  ranges.set(key, range);
  return range;
}

/** Ranges kept per store (a paging loop asks the same surname again and again). */
const CACHED_RANGES = 4096;
/** Per store: the ranges found, and the name keys of the binary searches' shallow probes. */
const caches = new WeakMap<
  ProviderStore,
  { ranges: Map<string, IdRange>; keys: Map<number, string> }
>();

function findRange(
  source: KeySource,
  name: string,
  prefix: boolean,
  members: (() => Uint32Array) | undefined,
): IdRange {
  if (name === "") return { from: 1, to: source.active + 1 };
  // Exact: the key is the name alone, or the name, the separator and the given names (in the first
  // form a space, which longer names share). Prefix: every key starting with the folded prefix.
  const end = prefix
    ? afterPrefix(name)
    : afterPrefix(`${name}${source.version < 2 ? " " : NAME_KEY_SEPARATOR}`);
  const listed = members ? rangeOfRuns(source, members(), name, end) : null;
  return listed ?? { from: lowerBound(source, name), to: lowerBound(source, end) };
}

/** The smallest string above every string starting with `prefix`. */
function afterPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
