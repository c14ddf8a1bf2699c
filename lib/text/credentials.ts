/**
 * Name prefixes (titles) and credentials as people write them on forms and
 * NPPES holds them (`Dr.`, `M.D.`, `PA-C`, `Ph.D.`): one folded word each
 * (`dr`, `md`, `pac`, `phd`), so the index and the search box agree.
 *
 * @module
 */
import { foldText } from "./fold.ts";

/** Name prefixes of NPPES's "Provider Name Prefix Text", folded. */
export const TITLE_WORDS: ReadonlySet<string> = new Set([
  "dr",
  "mr",
  "mrs",
  "ms",
  "miss",
  "mx",
  "prof",
  "rev",
  "sr",
  "sister",
  "fr",
]);

/**
 * Common credentials of NPPES's "Provider Credential Text", folded
 * (punctuation dropped: `M.D.` → `md`, `PA-C` → `pac`).
 */
export const CREDENTIAL_WORDS: ReadonlySet<string> = new Set(
  (
    "md do dds dmd dpm od dc np rn lpn lvn pa pac phd psyd edd pharmd rph crna cnm cns cnp fnp " +
    "fnpc fnpbc aprn apn dnp arnp crnp pmhnp agnp anp whnp msn bsn ma ms mph mba msw lcsw licsw " +
    "lisw lmsw lpc lpcc lmhc lmft mft lcpc ot otr otrl ota cota pt dpt pta slp ccc ccslp aud rd " +
    "ld rdn ldn cna mbbs mbchb facs facc facp faafp facog faap lac lmt atc cpo cp cscs rrt " +
    "bcba lcadc ladc lcdc cadc mhs pnp nnp dvm dmsc msc bs ba mscp dnb mmsc mhsc msn"
  ).split(" "),
);

/** Doctorates: a `Dr.` title fits a provider holding one of these credentials. */
export const DOCTOR_CREDENTIALS: readonly string[] = [
  "md",
  "do",
  "dds",
  "dmd",
  "dpm",
  "od",
  "dc",
  "phd",
  "psyd",
  "edd",
  "pharmd",
  "dnp",
  "aud",
  "dpt",
  "dvm",
  "mbbs",
  "mbchb",
];

/** Whether a folded word is a title or a credential. */
export function isTitleOrCredential(word: string): boolean {
  return TITLE_WORDS.has(word) || CREDENTIAL_WORDS.has(word);
}

/**
 * The index words of a prefix or credential text: each comma-, slash- or
 * space-separated part folded with its punctuation dropped, so `M.D., PH.D.`
 * gives `md` and `phd`, and `PA-C` gives `pac` (and `pa`); the parts of two letters or
 * more of a punctuated credential too (`PMHNP-BC` also gives `pmhnp`, `bc`).
 *
 * @example
 * ```ts
 * credentialTokens("M.D., Ph.D."); // ["md", "phd"]
 * credentialTokens("PMHNP-BC"); // ["pmhnpbc", "pmhnp", "bc"]
 * ```
 */
export function credentialTokens(text: string | null | undefined): string[] {
  if (!text) return [];
  const out = new Set<string>();
  for (const part of text.split(/[\s,;/&()]+/)) {
    const folded = foldText(part);
    const word = folded.replaceAll(" ", "");
    if (word) out.add(word);
    // A hyphenated credential also gives its parts (`PMHNP-BC`: `pmhnp`, `bc`), but not the
    // letters of a dotted one (`M.D.`).
    if (part.includes("-")) {
      for (const piece of part.split("-")) {
        const w = foldText(piece).replaceAll(" ", "");
        if (w.length >= 2) out.add(w);
      }
    }
  }
  return [...out];
}
