/**
 * Text folding shared by indexing and querying, so both sides agree:
 * case, accents and punctuation folded; an apostrophe joins (O'BRIEN →
 * obrien), any other punctuation separates (NAKAMURA-JONES → nakamura jones).
 *
 * @module
 */

/** Whether the UTF-16 code unit `c` is an ASCII letter or digit. */
function isAlphanumeric(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

/**
 * Whether `value` is ASCII letters and digits in words separated by single
 * spaces (or, without `spaces`, one such word): most names, which need no
 * folding but lower-casing. (A loop: on names this short, it costs a
 * fraction of a regular expression's call.)
 */
function isPlain(value: string, spaces: boolean): boolean {
  if (value.length === 0) return false;
  let previousSpace = true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (isAlphanumeric(c)) previousSpace = false;
    else if (c === 0x20 && spaces && !previousSpace) previousSpace = true;
    else return false;
  }
  return !previousSpace;
}

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
  if (isPlain(value, true)) return value.toLowerCase();
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
  if (isPlain(value, true)) {
    // Plain words (most names): lower-cased, repeats dropped.
    const plain = value.toLowerCase().split(" ");
    return plain.length === 1 ? plain : [...new Set(plain)];
  }
  const tokens = new Set<string>();
  for (const raw of value.split(/\s+/)) {
    if (isPlain(raw, false)) {
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
