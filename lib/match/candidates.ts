/**
 * Blocking: the searches that gather a row's candidates from the search
 * index, so a roster row costs a few indexed lookups instead of a scan.
 * Persons are blocked on the surname (legal and former names) with the
 * ZIP, with the first name and its nicknames in the state and nationwide,
 * on a maiden name in the middle slot, and by typo-tolerant free text;
 * organizations on the name key and their significant words near the
 * ZIP or in the state. A supplied NPI is always a candidate.
 *
 * @module
 */
import type { SearchQuery } from "../search/query.ts";
import type { SearchPage } from "../search/engine.ts";
import { nicknames } from "../names/nicknames.ts";
import { nameKey } from "../text/fold.ts";
import type { PreparedRow } from "./prepare.ts";

/** Runs a search and returns its page (in-process, or in a search worker). */
export type FindPage = (query: SearchQuery) => SearchPage | Promise<SearchPage>;

/** Most candidates each blocking search contributes. */
export const BLOCK_LIMIT = 40;

/** A query with every filter off: blocks set the ones they need. */
function baseQuery(): SearchQuery {
  return {
    words: null,
    npis: null,
    lastNames: null,
    firstNames: null,
    organizationNames: null,
    entity: null,
    taxonomyCodes: null,
    specialtyCodes: null,
    cities: null,
    states: null,
    postal: null,
    near: null,
    sex: null,
    includeDeactivated: true,
    sort: "name",
    limit: BLOCK_LIMIT,
    offset: 0,
    cursor: null,
    facets: [],
  };
}

/** A blocking search and whether it runs only when the earlier ones found nothing. */
export interface Block {
  name: string;
  query: SearchQuery;
  /** Run only if no earlier block found a candidate. */
  fallback: boolean;
}

/**
 * The blocking searches of a row, cheapest and most specific first.
 *
 * @example
 * ```ts
 * blocks(prepared).map((b) => b.name); // ["npi", "surname_zip", "name_state", ...]
 * ```
 */
export function blocks(row: PreparedRow): Block[] {
  const out: Block[] = [];
  const add = (name: string, patch: Partial<SearchQuery>, fallback = false) =>
    out.push({ name, query: { ...baseQuery(), ...patch }, fallback });
  if (row.npi) add("npi", { npis: [Number(row.npi)], limit: 1 });
  const zip5 = row.zip ? { zip5: [row.zip.zip5], exact: [], prefixes: [] } : null;
  const states = row.state ? [row.state] : null;
  if (row.kind === "individual" && row.person) {
    const p = row.person;
    const last = { key: p.lastKey, prefix: false };
    const firsts = p.first && p.first.length > 1
      ? nicknames().aliasesOf(p.first).slice(0, 20).map((name) => ({
        key: nameKey(name),
        prefix: false,
      }))
      : p.first
      ? [{ key: p.first, prefix: true }]
      : null;
    if (p.first?.length === 1) firsts![0]!.key = p.first; // An initial: no prefix of one letter.
    const initialOnly = p.first?.length === 1;
    if (zip5) add("surname_zip", { lastNames: [last], postal: zip5, entity: 1 });
    if (firsts && !initialOnly) {
      if (states) add("name_state", { lastNames: [last], firstNames: firsts, states, entity: 1 });
      add("name_nationwide", { lastNames: [last], firstNames: firsts, entity: 1 }, states !== null);
    }
    if (p.middle && p.middle.length > 1 && firsts && !initialOnly) {
      add("middle_as_surname", {
        lastNames: [{ key: p.middle.replaceAll(" ", ""), prefix: false }],
        firstNames: firsts,
        states,
        entity: 1,
      });
    }
    if (zip5 && firsts && !initialOnly) {
      // A mistyped surname: the first name at the ZIP (judged as a typo, so never matched outright).
      add("first_name_zip", { firstNames: firsts, postal: zip5, entity: 1 }, true);
    }
    const words = [...(p.first && !initialOnly ? [p.first] : []), ...p.last];
    add("free_text", {
      words,
      sort: "relevance",
      postal: zip5,
      states: zip5 ? null : states,
      entity: 1,
      limit: 20,
    });
  } else if (row.org) {
    add("org_name", {
      organizationNames: [{ key: row.org.words.join(""), prefix: false }],
      entity: 2,
    });
    const words = row.org.words.slice(0, 6);
    if (words.length) {
      if (zip5) {
        add("org_words_zip", { words, sort: "relevance", postal: zip5, entity: 2, limit: 20 });
      }
      add("org_words_state", { words, sort: "relevance", states, entity: 2, limit: 20 });
    }
  }
  return out;
}

/**
 * The internal ids of a row's candidates, in the order found, without
 * repeats. Fallback blocks run only when nothing was found before them.
 *
 * @example
 * ```ts
 * const ids = await candidateIds(prepared, (q) => store.search(q));
 * ```
 */
export async function candidateIds(row: PreparedRow, find: FindPage): Promise<number[]> {
  const ids = new Set<number>();
  for (const block of blocks(row)) {
    if (block.fallback && ids.size > (row.npi ? 1 : 0)) continue;
    if (block.fallback && block.name === "first_name_zip" && ids.size > 0) continue;
    const page = await find(block.query);
    for (const hit of page.hits) ids.add(hit.id);
  }
  return [...ids];
}
