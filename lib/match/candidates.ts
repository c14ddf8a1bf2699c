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
import { type SearchQuery, searchQuery } from "../search/query.ts";
import type { SearchPage } from "../search/engine.ts";
import { nicknames } from "../names/nicknames.ts";
import { nameKey } from "../text/fold.ts";
import type { PreparedRow } from "./prepare.ts";

/** Runs a search and returns its page (in-process, or in a search worker). */
export type FindPage = (query: SearchQuery) => SearchPage | Promise<SearchPage>;

/** Most candidates each blocking search contributes. */
export const BLOCK_LIMIT = 40;

/** When a block is skipped. */
export type BlockSkip =
  /** Always runs. */
  | "never"
  /** Skipped once a candidate (other than the supplied NPI's) has been found. */
  | "found"
  /** Skipped once a candidate of evidence class 2 or better has been found. */
  | "strong";

/** A blocking search. */
export interface Block {
  name: string;
  query: SearchQuery;
  skip: BlockSkip;
}

/**
 * The blocking searches of a row, most specific first. Broad ones are
 * skipped once the specific ones have found a strong candidate (its street
 * or phone agrees: a namesake at the same address would have been found by
 * the ZIP block already), and the fallbacks run only when nothing was found.
 *
 * @example
 * ```ts
 * blocks(prepared).map((b) => b.name); // ["npi", "name_zip", "surname_zip", "name_state", ...]
 * ```
 */
export function blocks(row: PreparedRow): Block[] {
  const out: Block[] = [];
  const add = (name: string, patch: Partial<SearchQuery>, skip: BlockSkip = "never") =>
    out.push({ name, query: searchQuery({ limit: BLOCK_LIMIT, ...patch }), skip });
  if (row.npi) add("npi", { npis: [Number(row.npi)], limit: 1 });
  const zip5 = row.zip ? { zip5: [row.zip.zip5], exact: [], prefixes: [] } : null;
  const states = row.state ? [row.state] : null;
  if (row.kind === "individual" && row.person) {
    const p = row.person;
    const last = { key: p.lastKey, prefix: false };
    const initialOnly = p.first?.length === 1;
    const firsts = p.first && !initialOnly
      ? nicknames().aliasesOf(p.first).slice(0, 20).map((name) => ({
        key: nameKey(name),
        prefix: false,
      }))
      : null;
    if (zip5 && firsts) {
      add("name_zip", { lastNames: [last], firstNames: firsts, postal: zip5, entity: 1 });
    }
    // The surname alone at the ZIP: initials, first names that are neither equal nor nicknames.
    if (zip5) {
      add(
        "surname_zip",
        { lastNames: [last], postal: zip5, entity: 1 },
        firsts ? "found" : "never",
      );
    }
    if (firsts) {
      if (states) {
        add("name_state", { lastNames: [last], firstNames: firsts, states, entity: 1 }, "strong");
      }
      add(
        "name_nationwide",
        { lastNames: [last], firstNames: firsts, entity: 1 },
        states ? "found" : "strong",
      );
      if (p.middle && p.middle.length > 1) {
        // The maiden name in the middle slot, the registry still holding it as the surname.
        add("middle_as_surname", {
          lastNames: [{ key: p.middle.replaceAll(" ", ""), prefix: false }],
          firstNames: firsts,
          states,
          entity: 1,
        }, "found");
      }
      if (zip5) {
        // A mistyped surname: the first name at the ZIP (judged a typo, so never matched outright).
        add("first_name_zip", { firstNames: firsts, postal: zip5, entity: 1 }, "found");
      }
    }
    // Typo-tolerant free text, and surnames given in part (NAKAMURA for NAKAMURA-JONES).
    add("free_text", {
      words: [...(firsts ? [p.first!] : []), ...p.last],
      sort: "relevance",
      postal: zip5,
      states: zip5 ? null : states,
      entity: 1,
      limit: 20,
    }, "found");
  } else if (row.org) {
    const raw = nameKey(row.source.values.organization_name ?? "");
    const keys = [...new Set([raw, row.org.key])].map((key) => ({ key, prefix: false }));
    if (zip5) add("org_name_zip", { organizationNames: keys, postal: zip5, entity: 2 });
    const words = row.org.words.slice(0, 6);
    if (zip5 && words.length) {
      add(
        "org_words_zip",
        { words, sort: "relevance", postal: zip5, entity: 2, limit: 20 },
        "strong",
      );
    }
    if (states) add("org_name_state", { organizationNames: keys, states, entity: 2 }, "strong");
    add("org_name", { organizationNames: keys, entity: 2 }, "found");
    if (words.length) {
      add("org_words_state", { words, sort: "relevance", states, entity: 2, limit: 20 }, "found");
    }
  }
  return out;
}
