/**
 * The key that orders providers by name (and so gives them their ids).
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import { foldText } from "../text/fold.ts";

/**
 * Last, first, middle name for people, the legal name for organizations,
 * folded; `~` (after every letter) when there is no name.
 *
 * @example
 * ```ts
 * sortKey(provider); // "smith john a"
 * ```
 */
export function sortKey(p: Provider): string {
  const ind = p.individual;
  let raw = "";
  if (ind) {
    for (const part of [ind.last_name, ind.first_name, ind.middle_name]) {
      if (part) raw = raw ? `${raw} ${part}` : part;
    }
  } else {
    raw = p.organization?.name ?? "";
  }
  return foldText(raw) || "~";
}
