/**
 * Text folding shared by indexing and querying, so both sides agree:
 * case, accents and punctuation folded; an apostrophe joins (O'BRIEN →
 * obrien), any other punctuation separates (NAKAMURA-JONES → nakamura jones).
 *
 * @module
 */

/** Letters and digits in words separated by single spaces, nothing else. */
const PLAIN = /^[A-Za-z0-9]+(?: [A-Za-z0-9]+)*$/;
/** One word of letters and digits. */
const PLAIN_WORD = /^[A-Za-z0-9]+$/;

/**
 * Lower-cases, strips accents, drops apostrophes and turns every other
 * non-alphanumeric run into one space.
 *
 * @example
 * ```ts
 * foldText("O'Brien-Smith, M.D."); // "obrien smith m d"
 * ```
 */
export function foldText(value: string): string {
  // Most names are plain ASCII words: lower-casing is all they need.
  if (PLAIN.test(value)) return value.toLowerCase();
  return value
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/['\u2019`]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/**
 * The words of a text, folded.
 *
 * @example
 * ```ts
 * words("Nakamura-Jones"); // ["nakamura", "jones"]
 * ```
 */
export function words(value: string): string[] {
  const folded = foldText(value);
  return folded === "" ? [] : folded.split(" ");
}

/**
 * Index tokens of a name: its folded words, plus each punctuated word
 * written as one (NAKAMURA-JONES also gives `nakamurajones`, O'BRIEN gives
 * `obrien` and, split at the apostrophe, `o` and `brien`), so that every
 * way of typing the name finds it.
 *
 * @example
 * ```ts
 * nameTokens("O'Brien"); // ["obrien", "o", "brien"]
 * ```
 */
export function nameTokens(value: string): string[] {
  if (value === "") return [];
  if (PLAIN.test(value)) {
    // Plain words (most names): lower-cased, repeats dropped.
    const plain = value.toLowerCase().split(" ");
    return plain.length === 1 ? plain : [...new Set(plain)];
  }
  const tokens = new Set<string>();
  for (const raw of value.split(/\s+/)) {
    if (PLAIN_WORD.test(raw)) {
      tokens.add(raw.toLowerCase());
      continue;
    }
    const joined = foldText(raw).replaceAll(" ", "");
    if (joined) tokens.add(joined);
    for (const part of raw.split(/[^\p{L}\p{N}]+/u)) {
      const folded = foldText(part).replaceAll(" ", "");
      if (folded) tokens.add(folded);
    }
  }
  return [...tokens];
}

/**
 * The key an exact name filter compares: folded, without spaces, so
 * `O'BRIEN`, `obrien` and `O BRIEN` are one key.
 *
 * @example
 * ```ts
 * nameKey("Nakamura-Jones"); // "nakamurajones"
 * ```
 */
export function nameKey(value: string): string {
  return foldText(value).replaceAll(" ", "");
}
