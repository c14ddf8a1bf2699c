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
 * Registry API's is.
 *
 * @module
 */
import type { ProviderStore } from "../store/store.ts";
import { NAME_KEY_SEPARATOR, sortKey } from "../store/sort_key.ts";
import { foldText } from "../text/fold.ts";
import type { Pattern } from "./params.ts";

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

/**
 * The first active id in `[1, active]` whose name key is not below `target`
 * (`active + 1` when none).
 */
function lowerBound(
  store: ProviderStore,
  active: number,
  target: string,
  kept: Map<number, string>,
  version: number,
): number {
  let lo = 1, hi = active + 1;
  for (let depth = 0; lo < hi; depth++) {
    const mid = (lo + hi) >>> 1;
    let key = kept.get(mid);
    if (key === undefined) {
      const found = store.getProvidersById([mid])[0];
      key = found ? sortKey(found.provider, version) : "~";
      if (depth < KEPT_DEPTH) kept.set(mid, key);
    }
    if (key < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The id range of active individuals whose own last name is `pattern`
 * (exactly, or as a prefix with `pattern.prefix`). Names are folded as the
 * key is (case, accents, punctuation).
 *
 * @example
 * ```ts
 * surnameRange(store, { text: "Smith", prefix: false }); // { from: 812, to: 1337 }
 * ```
 */
export function surnameRange(store: ProviderStore, pattern: Pattern): IdRange {
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
    range = findRange(store, name, pattern.prefix, cache.keys);
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
  store: ProviderStore,
  name: string,
  prefix: boolean,
  kept: Map<number, string>,
): IdRange {
  const active = store.dataset().active;
  if (name === "") return { from: 1, to: active + 1 };
  const version = store.nameKeyVersion();
  // Exact: the key is the name alone, or the name, the separator and the given names (in the first
  // form a space, which longer names share). Prefix: every key starting with the folded prefix.
  const from = lowerBound(store, active, name, kept, version);
  const end = prefix
    ? afterPrefix(name)
    : afterPrefix(`${name}${version < 2 ? " " : NAME_KEY_SEPARATOR}`);
  const to = lowerBound(store, active, end, kept, version);
  return { from, to };
}

/** The smallest string above every string starting with `prefix`. */
function afterPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
