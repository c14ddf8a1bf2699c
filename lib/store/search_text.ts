/**
 * What a provider contributes to the search indexes: the words of each FTS
 * column, the name keys of the name filters, and the sort key.
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import { foldText, nameKey, nameTokens } from "../text/fold.ts";
import { specialtyWords } from "./specialty_words.ts";

/** Name-key kinds of the `name_key` table. */
export const NAME_KIND = { last: 1, first: 2, organization: 3 } as const;

/** The FTS document of a provider, one string per column. */
export interface SearchText {
  surname: string;
  given: string;
  other: string;
  specialty: string;
  specialty2: string;
  place: string;
}

function tokens(...values: (string | null | undefined)[]): string {
  const out = new Set<string>();
  for (const v of values) if (v) { for (const t of nameTokens(v)) out.add(t); }
  return [...out].join(" ");
}

/**
 * The FTS columns of a provider: its surname (or organization name); its
 * given names; its other names; the words (names and synonyms) of its
 * primary specialty; those of its other specialties; its practice city.
 */
export function searchText(p: Provider, describe: (code: string) => string | null): SearchText {
  const ind = p.individual;
  const specialtyText = (primary: boolean) => {
    const codes = p.taxonomies.filter((t) => t.primary === primary);
    return new Set(codes.flatMap((t) => specialtyWords(t.code, describe(t.code))));
  };
  const primary = specialtyText(true);
  return {
    surname: ind ? tokens(ind.last_name) : tokens(p.organization?.name),
    given: ind ? tokens(ind.first_name, ind.middle_name) : "",
    other: tokens(...p.other_names.map((o) => o.name)),
    specialty: [...primary].join(" "),
    specialty2: [...specialtyText(false)].filter((w) => !primary.has(w)).join(" "),
    place: foldText(p.practice_location?.city ?? ""),
  };
}

/**
 * The name keys of a provider: `[kind, key]` pairs for the exact and
 * prefix name filters. A person's other names give their first and last
 * words; an organization's other names give their whole folded name.
 */
export function nameKeys(p: Provider): [number, string][] {
  const keys = new Map<string, [number, string]>();
  const add = (kind: number, value: string | null | undefined) => {
    const key = value ? nameKey(value) : "";
    if (key) keys.set(`${kind}:${key}`, [kind, key]);
  };
  if (p.individual) {
    add(NAME_KIND.last, p.individual.last_name);
    add(NAME_KIND.first, p.individual.first_name);
    for (const o of p.other_names) {
      const parts = o.name.split(/\s+/).filter((w) => w);
      add(NAME_KIND.first, parts[0]);
      add(NAME_KIND.last, parts.at(-1));
    }
  } else if (p.organization) {
    add(NAME_KIND.organization, p.organization.name);
    for (const o of p.other_names) add(NAME_KIND.organization, o.name);
  }
  return [...keys.values()];
}

/**
 * The key that orders providers by name: last, first, middle for people,
 * the legal name for organizations, folded.
 *
 * @example
 * ```ts
 * sortKey(provider); // "smith john a"
 * ```
 */
export function sortKey(p: Provider): string {
  const ind = p.individual;
  const raw = ind
    ? [ind.last_name, ind.first_name, ind.middle_name].filter((v) => v).join(" ")
    : p.organization?.name ?? "";
  return foldText(raw) || "~";
}
