/**
 * The specialty vocabulary of a dataset: which taxonomy codes each word
 * (of NUCC names and synonyms) stands for, by word and by word prefix.
 *
 * @module
 */
import type { SpecialtyWords } from "./engine.ts";
import { specialtyWords } from "../store/specialty_words.ts";

/**
 * Builds the vocabulary for `codes`; `describe` gives a code's NUCC name.
 *
 * @example
 * ```ts
 * const words = specialtyVocabulary(["207RC0000X"], () => "Cardiovascular Disease Physician");
 * words.codes("cardiologist"); // ["207RC0000X"]
 * ```
 */
export function specialtyVocabulary(
  codes: readonly string[],
  describe: (code: string) => string | null,
): SpecialtyWords {
  const byWord = new Map<string, string[]>();
  for (const code of codes) {
    if (!code) continue;
    for (const word of specialtyWords(code, describe(code))) {
      let list = byWord.get(word);
      if (!list) byWord.set(word, list = []);
      if (!list.includes(code)) list.push(code);
    }
  }
  const sorted = [...byWord.keys()].sort();
  const prefixCache = new Map<string, string[]>();
  return {
    codes: (word) => byWord.get(word) ?? [],
    codesByPrefix(prefix) {
      let found = prefixCache.get(prefix);
      if (found) return found;
      let lo = 0, hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sorted[mid]! < prefix) lo = mid + 1;
        else hi = mid;
      }
      const out = new Set<string>();
      for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i++) {
        for (const code of byWord.get(sorted[i]!)!) out.add(code);
      }
      found = [...out];
      if (prefixCache.size < 10_000) prefixCache.set(prefix, found);
      return found;
    },
  };
}
