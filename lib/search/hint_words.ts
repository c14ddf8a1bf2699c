/**
 * The words of the search box that are not (only) names: titles and
 * credentials (`dr`, `md`, `pa-c`), state codes and names (`md`,
 * `maryland`), 5-digit ZIPs, 10-digit NPIs and single-letter initials.
 * Such a word is a hint: it ranks the providers it fits above those it
 * does not, and never excludes a provider the other words find (a surname
 * `Do` or `Ma` still matches as a name).
 *
 * @module
 */
import { foldText, words } from "../text/fold.ts";
import { CREDENTIAL_WORDS, isTitleOrCredential, TITLE_WORDS } from "../text/credentials.ts";

/** Two-word state names by their first word: `new york` is read as the one word `newyork`. */
const STATE_PAIRS: ReadonlyMap<string, readonly string[]> = new Map([
  ["new", ["hampshire", "jersey", "mexico", "york"]],
  ["north", ["carolina", "dakota"]],
  ["south", ["carolina", "dakota"]],
  ["rhode", ["island"]],
  ["west", ["virginia"]],
  ["puerto", ["rico"]],
  ["virgin", ["islands"]],
]);

/** Kinds of hint a word can be (bits: a word can be several, `md` is a credential and a state). */
export const HINT = {
  /** A name prefix: `dr`, `mr`, `ms`. */
  title: 1,
  /** A credential: `md`, `do`, `np`, `pac`. */
  credential: 2,
  /** A state code or state name. */
  state: 4,
  /** Five digits: a practice ZIP. */
  zip: 8,
  /** Ten digits: an NPI. */
  npi: 16,
  /** One letter: a first or middle name's initial. */
  initial: 32,
} as const;

/** USPS codes of states, DC and inhabited territories, by folded code and name (two words joined). */
const STATES: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  const names: Record<string, string> = {
    AL: "alabama",
    AK: "alaska",
    AZ: "arizona",
    AR: "arkansas",
    CA: "california",
    CO: "colorado",
    CT: "connecticut",
    DE: "delaware",
    DC: "",
    FL: "florida",
    GA: "georgia",
    HI: "hawaii",
    ID: "idaho",
    IL: "illinois",
    IN: "indiana",
    IA: "iowa",
    KS: "kansas",
    KY: "kentucky",
    LA: "louisiana",
    ME: "maine",
    MD: "maryland",
    MA: "massachusetts",
    MI: "michigan",
    MN: "minnesota",
    MS: "mississippi",
    MO: "missouri",
    MT: "montana",
    NE: "nebraska",
    NV: "nevada",
    NH: "new hampshire",
    NJ: "new jersey",
    NM: "new mexico",
    NY: "new york",
    NC: "north carolina",
    ND: "north dakota",
    OH: "ohio",
    OK: "oklahoma",
    OR: "oregon",
    PA: "pennsylvania",
    RI: "rhode island",
    SC: "south carolina",
    SD: "south dakota",
    TN: "tennessee",
    TX: "texas",
    UT: "utah",
    VT: "vermont",
    VA: "virginia",
    WA: "washington",
    WV: "west virginia",
    WI: "wisconsin",
    WY: "wyoming",
    PR: "puerto rico",
    GU: "guam",
    VI: "virgin islands",
    AS: "",
    MP: "",
  };
  for (const [code, name] of Object.entries(names)) {
    map.set(code.toLowerCase(), code);
    // A two-word name is one word of the search box, joined (see queryWords).
    if (name) map.set(name.replace(" ", ""), code);
  }
  return map;
})();

/**
 * The state a word names (a USPS code or a state name, two words joined), or null.
 *
 * @example
 * ```ts
 * stateOf("maryland"); // "MD"
 * stateOf("md"); // "MD"
 * ```
 */
export function stateOf(word: string): string | null {
  return STATES.get(word) ?? null;
}

/**
 * The {@linkcode HINT} bits of a folded word (0: a plain word).
 *
 * @example
 * ```ts
 * hintKinds("md"); // HINT.credential | HINT.state
 * hintKinds("21239"); // HINT.zip
 * hintKinds("fowler"); // 0
 * ```
 */
export function hintKinds(word: string): number {
  let kinds = 0;
  if (/^\d+$/.test(word)) {
    if (word.length === 5) kinds |= HINT.zip;
    if (word.length === 10) kinds |= HINT.npi;
    return kinds;
  }
  if (word.length === 1) return HINT.initial;
  if (TITLE_WORDS.has(word)) kinds |= HINT.title;
  if (CREDENTIAL_WORDS.has(word)) kinds |= HINT.credential;
  if (STATES.has(word)) kinds |= HINT.state;
  return kinds;
}

/**
 * The words of the search box, folded, with a dotted or hyphenated title or
 * credential kept as one word (`M.D.` → `md`, `PA-C` → `pac`, `Ph.D.` →
 * `phd`), a ZIP+4 as its ZIP, a two-word state name as one word (`new york`
 * → `newyork`); every other word as {@linkcode words} splits it.
 *
 * @example
 * ```ts
 * queryWords("Dr. Paul B. Fowler, M.D."); // ["dr", "paul", "b", "fowler", "md"]
 * queryWords("smith new york"); // ["smith", "newyork"]
 * ```
 */
export function queryWords(q: string): string[] {
  const out: string[] = [];
  for (const raw of q.split(/[\s,;]+/)) {
    if (raw === "") continue;
    if (/^\d{5}-\d{4}$/.test(raw)) {
      out.push(raw.slice(0, 5)); // ZIP+4: the ZIP.
      continue;
    }
    if (/[.\-/]/.test(raw)) {
      const joined = foldText(raw).replaceAll(" ", "");
      if (isTitleOrCredential(joined)) {
        out.push(joined);
        continue;
      }
    }
    out.push(...words(raw));
  }
  return joinStateNames(out);
}

/** Joins the two words of a state name (`new`, `york` → `newyork`, a state hint). */
function joinStateNames(list: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const next = list[i + 1];
    if (next !== undefined && STATE_PAIRS.get(list[i]!)?.includes(next)) {
      out.push(list[i]! + next);
      i++;
    } else out.push(list[i]!);
  }
  return out;
}
