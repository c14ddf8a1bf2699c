/**
 * searchset Bundles: entries with their search mode and, for `near`, the
 * distance as FHIR's `location-distance` extension; `self` and `next` links.
 *
 * @module
 */
import type { Resource } from "./resources.ts";
import type { DistanceUnit } from "./search_params.ts";

/** The extension FHIR defines for a Location's distance from the `near` point. */
export const LOCATION_DISTANCE_URL = "http://hl7.org/fhir/StructureDefinition/location-distance";

/** One entry to put in a Bundle. */
export interface BundleEntry {
  resource: Resource;
  mode: "match" | "include";
  /** Distance from the `near` point, in `unit`. */
  distance?: { value: number; unit: DistanceUnit };
}

const UNIT_NAMES: Readonly<Record<DistanceUnit, string>> = { km: "km", m: "m", "[mi_i]": "mi" };

/**
 * A searchset Bundle.
 *
 * @example
 * ```ts
 * searchBundle({ base: "https://x/fhir", total: 0, entries: [], self: "https://x/fhir/Location", next: null });
 * // { resourceType: "Bundle", type: "searchset", total: 0, link: [{ relation: "self", … }] }
 * ```
 */
export function searchBundle(options: {
  base: string;
  total: number;
  entries: readonly BundleEntry[];
  self: string;
  next: string | null;
}): Record<string, unknown> {
  const link = [{ relation: "self", url: options.self }];
  if (options.next) link.push({ relation: "next", url: options.next });
  const bundle: Record<string, unknown> = {
    resourceType: "Bundle",
    meta: { lastUpdated: new Date().toISOString() },
    type: "searchset",
    total: options.total,
    link,
  };
  if (options.entries.length) {
    bundle.entry = options.entries.map((e) => {
      const search: Record<string, unknown> = { mode: e.mode };
      if (e.distance) {
        search.extension = [{
          url: LOCATION_DISTANCE_URL,
          valueDistance: {
            value: e.distance.value,
            unit: UNIT_NAMES[e.distance.unit],
            system: "http://unitsofmeasure.org",
            code: e.distance.unit,
          },
        }];
      }
      return {
        fullUrl: `${options.base}/${e.resource.resourceType}/${e.resource.id}`,
        resource: e.resource,
        search,
      };
    });
  }
  return bundle;
}
