/**
 * The words a taxonomy code is found by: its NUCC name and every synonym
 * people use for it ("cardiologist", "heart doctor", "shrink"), so free text
 * finds providers by the words people actually type.
 *
 * @module
 */
import { SPECIALTY_SYNONYMS } from "../taxonomy/synonyms.ts";
import { words } from "../text/fold.ts";

let byCodeOrPrefix: Map<string, Set<string>> | undefined;

function synonymWords(): Map<string, Set<string>> {
  if (byCodeOrPrefix) return byCodeOrPrefix;
  byCodeOrPrefix = new Map();
  for (const synonym of SPECIALTY_SYNONYMS) {
    const termWords = synonym.terms.flatMap((t) => words(t));
    for (const code of synonym.codes) {
      let set = byCodeOrPrefix.get(code);
      if (!set) byCodeOrPrefix.set(code, set = new Set());
      for (const w of termWords) set.add(w);
    }
  }
  return byCodeOrPrefix;
}

const cache = new Map<string, string[]>();

/**
 * The folded words of a code's name and synonyms.
 *
 * @example
 * ```ts
 * specialtyWords("207RC0000X", "Cardiovascular Disease Physician");
 * // ["cardiovascular", "disease", "physician", "cardiologist", "heart", "doctor", ...]
 * ```
 */
export function specialtyWords(code: string, display: string | null): string[] {
  const key = `${code}|${display ?? ""}`;
  let found = cache.get(key);
  if (found) return found;
  const out = new Set(words(display ?? ""));
  const synonyms = synonymWords();
  for (let length = 2; length <= code.length; length++) {
    for (const w of synonyms.get(code.slice(0, length)) ?? []) out.add(w);
  }
  found = [...out];
  cache.set(key, found);
  return found;
}
