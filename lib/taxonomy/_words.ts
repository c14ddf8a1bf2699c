/**
 * Word folding for specialty phrases: case, accents and punctuation folded,
 * stop words dropped, plurals and -ist/-ology/-ician forms reduced to one
 * stem, so "Cardiologists" and "cardiology" meet.
 *
 * @module
 */

/** Words that carry no meaning in a specialty phrase. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "at",
  "best",
  "by",
  "find",
  "for",
  "good",
  "in",
  "local",
  "me",
  "my",
  "near",
  "nearby",
  "of",
  "on",
  "or",
  "the",
  "to",
  "top",
  "with",
  "within",
]);

/** Stems dropped on a second try: "cardiology doctor" means "cardiology". */
export const FILLER_STEMS: ReadonlySet<string> = new Set([
  "doctor",
  "phys",
  "special",
  "provider",
  "md",
]);

/** Stems that name the same thing. */
const STEM_ALIASES: ReadonlyMap<string, string> = new Map([
  ["surgeon", "surger"],
  ["surgical", "surger"],
  ["kid", "child"],
  ["children", "child"],
  ["doc", "doctor"],
  ["dr", "doctor"],
  ["centre", "center"],
]);

/** Words whose ending is not a suffix ("hospitalist" is not "hospital"). */
const UNSTEMMED: ReadonlySet<string> = new Set(["hospitalist"]);

/** Suffix rewrites, first match wins: cardiologist, cardiology → cardiolog. */
const SUFFIXES: readonly (readonly [string, string])[] = [
  ["ological", "olog"],
  ["ologist", "olog"],
  ["ologic", "olog"],
  ["ology", "olog"],
  ["icist", ""],
  ["istry", ""],
  ["ician", ""],
  ["ist", ""],
  ["ic", ""],
  ["y", ""],
];

/** Lower case, accents removed, apostrophes dropped, other punctuation as spaces. */
export function fold(text: string): string {
  // deno-lint-ignore no-control-regex
  const plain = /^[\x00-\x7f]*$/.test(text)
    ? text
    : text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  return plain
    .toLowerCase()
    .replace(/['\u2019`]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** The base form of one folded word, shared by its plural and -ist/-ology forms. */
function stem(word: string): string {
  let w = word.replaceAll("ae", "e");
  // Short words keep their letters, bar a plural "s": "nps" is "np".
  if (w.length === 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  if (w.length <= 3 || UNSTEMMED.has(w)) return STEM_ALIASES.get(w) ?? w;
  if (w.endsWith("ies") && w.length > 4) {
    w = `${w.slice(0, -3)}y`;
  } else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) {
    w = w.slice(0, -1);
  }
  for (const [suffix, replacement] of SUFFIXES) {
    if (w.endsWith(suffix) && w.length - suffix.length + replacement.length >= 3) {
      w = w.slice(0, w.length - suffix.length) + replacement;
      break;
    }
  }
  return STEM_ALIASES.get(w) ?? w;
}

/** The meaningful stems of a phrase, in order. */
export function stems(text: string): string[] {
  const out: string[] = [];
  for (const word of fold(text).split(" ")) {
    if (word === "" || STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/** Order-free key of a stem list. */
export function keyOf(list: readonly string[]): string {
  return [...new Set(list)].sort().join(" ");
}

/** Order-kept, space-free key: "ob gyn" and "obgyn" meet here. */
export function compactOf(list: readonly string[]): string {
  return list.join("");
}

/** `text` without a trailing parenthetical: "Sports Medicine (Family Medicine)" → "Sports Medicine". */
export function baseName(text: string): string {
  return text.replace(/\s*\([^()]*\)\s*$/, "").trim();
}
