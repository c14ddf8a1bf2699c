/**
 * The key that orders providers by name (and so gives them their ids).
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import { foldText } from "../text/fold.ts";

/**
 * What ends a person's last name and first name in a key: below every
 * character of a folded name (a space included), so that a name is ordered
 * as in a directory — `smith, john` before `smith-andrade, joyce`, whose
 * second surname would otherwise be read against John's first name.
 */
export const NAME_KEY_SEPARATOR = "\u0001";

/**
 * The form of {@linkcode sortKey} a database's ids follow, recorded in its
 * `meta` table (`name_key`): 2 since {@linkcode NAME_KEY_SEPARATOR}; 1 (no
 * record) for a database built before, whose keys join the names with
 * spaces.
 */
export const NAME_KEY_VERSION = 2;

/**
 * Last, first, middle name for people, each folded, ended by
 * {@linkcode NAME_KEY_SEPARATOR} (joined by spaces in the older `version`
 * 1); the legal name for organizations, folded; `~` (after every letter)
 * when there is no name.
 *
 * @example
 * ```ts
 * sortKey(provider); // "smith\u0001john\u0001a"
 * sortKey(provider, 1); // "smith john a"
 * ```
 */
export function sortKey(p: Provider, version: number = NAME_KEY_VERSION): string {
  const ind = p.individual;
  if (!ind) return foldText(p.organization?.name ?? "") || "~";
  if (version < 2) {
    let raw = "";
    for (const part of [ind.last_name, ind.first_name, ind.middle_name]) {
      if (part) raw = raw ? `${raw} ${part}` : part;
    }
    return foldText(raw) || "~";
  }
  const parts = [ind.last_name, ind.first_name, ind.middle_name].map((part) =>
    part ? foldText(part) : ""
  );
  while (parts.length > 0 && parts.at(-1) === "") parts.pop();
  return parts.length === 0 ? "~" : parts.join(NAME_KEY_SEPARATOR);
}
