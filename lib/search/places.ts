/**
 * The NPI Registry API's address criteria (`city`, `state`, `postal_code`
 * over the addresses `address_purpose` names) on the search index. Each
 * kind of address has its place fields (`PLACE_FIELDS`): the primary
 * practice location's and the mailing address's are one value per
 * provider, so intersecting a kind's lists finds the providers one address
 * of that kind matches, exactly. A provider's secondary locations share
 * their fields; a city with a state is looked up as one term of a location
 * (`FIELD.otherStateCity`), but for a ZIP with a city or a state the lists
 * cannot tell whether one and the same location meets them all when the
 * provider has two or more locations (`FIELD.otherMany`): those providers,
 * and a ZIP+4 or a long ZIP prefix outside the primary location (the lists
 * hold 5-digit ZIPs), are candidates the records decide
 * ({@linkcode PlaceCandidates.unsure}).
 *
 * @module
 */
import { FIELD, MANY_LOCATIONS, PLACE_FIELDS, stateCityTerm } from "../index/fields.ts";
import type { SearchIndex } from "../index/reader.ts";
import { intersect, intersectAll, subtract, unionAll } from "../index/sorted.ts";
import type { PlaceMatch } from "./query.ts";
import { keepPassing } from "./filter_lists.ts";

/** The providers a {@linkcode PlaceMatch} may find. */
export interface PlaceCandidates {
  /** Every provider one of whose addresses may match, sorted. */
  ids: Uint32Array;
  /** Those of `ids` whose records must confirm the match (sorted); the others surely match. */
  unsure: Uint32Array;
}

type Kind = keyof typeof PLACE_FIELDS;

/** The kinds of address each scope looks at. */
const KINDS: Readonly<Record<PlaceMatch["scope"], readonly Kind[]>> = {
  primary: ["primary"],
  mailing: ["mailing"],
  secondary: ["secondary"],
  any: ["primary", "mailing", "secondary"],
};

/**
 * The candidates of a place match: per kind of address the intersection of
 * its criteria's lists, then the union over the kinds `scope` names.
 * `zip9` gives the ids whose primary practice ZIP+4 is the given 9-digit
 * number (the `provider_zip9` lookup). With `within` (sorted ids another
 * filter leaves, few), only those are candidates: each kind's lists are
 * intersected with them first, so no long union is built. The primary
 * location's state is read from the state column when another criterion
 * narrows the candidates first.
 *
 * @example
 * ```ts
 * const { ids, unsure } = placeCandidates(
 *   { scope: "any", city: "BALTIMORE", state: "MD", postal: null },
 *   index,
 *   (zip9) => lookUpZip9(zip9),
 * );
 * ```
 */
export function placeCandidates(
  place: PlaceMatch,
  index: SearchIndex,
  zip9: (code: number) => Uint32Array,
  within: Uint32Array | null = null,
): PlaceCandidates {
  const universe = index.size + 1;
  const sure: Uint32Array[] = [], unsure: Uint32Array[] = [];
  if (place.city === null && place.state === null && place.postal === null) {
    throw new RangeError("A place match needs a city, a state or a postal code");
  }
  // A prefix's terms (a ZIP prefix: a hundred ZIPs) are read against the few ids `within` leaves
  // rather than united first.
  const prefixIds = (field: number, prefix: string) =>
    within ? index.prefixWithin(field, prefix, within) : index.prefix(field, prefix);
  for (const kind of KINDS[place.scope]) {
    const fields = PLACE_FIELDS[kind];
    const lists: Uint32Array[] = [];
    let exact = true;
    // Criteria whose lists may each come from another secondary location.
    let separate = 0;
    const { city, state } = place;
    // The primary location's state is a column: tested on what the other criteria leave, its list
    // (up to a million ids) read only when it is the one criterion.
    const stateColumn = kind === "primary" && state !== null &&
      (within !== null || city !== null || place.postal !== null);
    if (city !== null && state !== null && kind === "secondary") {
      const prefix = city.endsWith("*");
      const term = stateCityTerm(state, prefix ? city.slice(0, -1) : city);
      lists.push(
        prefix ? prefixIds(FIELD.otherStateCity, term) : index.list(FIELD.otherStateCity, term),
      );
      separate++;
    } else {
      if (city !== null) {
        lists.push(
          city.endsWith("*")
            ? prefixIds(fields.city, city.slice(0, -1))
            : index.list(fields.city, city),
        );
        separate++;
      }
      if (state !== null) {
        if (!stateColumn) lists.push(index.list(fields.state, state));
        separate++;
      }
    }
    if (place.postal !== null) {
      const { digits, prefix } = place.postal;
      if (prefix && digits.length <= 5) lists.push(prefixIds(fields.zip5, digits));
      else if (!prefix && digits.length === 5) lists.push(index.list(fields.zip5, digits));
      else if (!prefix && kind === "primary") lists.push(zip9(Number(digits)));
      else {
        // Its ZIP on the index; the rest of the code on the record.
        lists.push(index.list(fields.zip5, digits.slice(0, 5)));
        exact = false;
      }
      separate++;
    }
    const listed = intersectAll(within ? [within, ...lists] : lists);
    const part = stateColumn ? inState(listed, index, state!) : listed;
    if (!exact) unsure.push(part);
    else if (kind === "secondary" && separate >= 2) {
      const many = index.list(FIELD.otherMany, MANY_LOCATIONS);
      unsure.push(intersect(part, many));
      sure.push(subtract(part, many));
    } else sure.push(part);
  }
  const sureIds = unionAll(sure, universe);
  const unsureIds = subtract(unionAll(unsure, universe), sureIds);
  return { ids: unionAll([sureIds, unsureIds], universe), unsure: unsureIds };
}

/** The ids of `ids` whose primary practice state is `state`, from the state column. */
function inState(ids: Uint32Array, index: SearchIndex, state: string): Uint32Array {
  const value = index.states.indexOf(state);
  if (value <= 0) return new Uint32Array(0);
  const pass = new Uint8Array(256);
  pass[value] = 1;
  return keepPassing(ids, { values: index.state, pass });
}
