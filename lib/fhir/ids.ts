/**
 * Resource ids of the FHIR directory. Every id derives from the NPI, so it
 * is stable from one NPPES release to the next:
 *
 * - `Practitioner/{npi}` (type 1 NPIs), `Organization/{npi}` (type 2),
 *   `PractitionerRole/{npi}` (one role per practitioner: all specialties, all
 *   practice locations);
 * - `Location/{npi}-{n}`: `n = 0` the primary practice location, `1…` the
 *   secondary ones in the order of NPPES's practice-location file;
 * - `Endpoint/{npi}-{n}`: `n = 0…` the rows of NPPES's endpoint file, in order.
 *
 * @module
 */
import { isValidNpi } from "../npi.ts";

/** The five resource types the directory serves. */
export const RESOURCE_TYPES = [
  "Practitioner",
  "PractitionerRole",
  "Organization",
  "Location",
  "Endpoint",
] as const;

/** One of {@linkcode RESOURCE_TYPES}. */
export type ResourceType = typeof RESOURCE_TYPES[number];

/** Whether `name` is a resource type the directory serves. */
export function isResourceType(name: string): name is ResourceType {
  return (RESOURCE_TYPES as readonly string[]).includes(name);
}

/** A parsed id: the NPI and, for Location and Endpoint, the position. */
export interface ParsedId {
  npi: string;
  /** Position for Location (0 = primary) and Endpoint; `null` for the NPI-keyed types. */
  index: number | null;
}

/** Most positions an id may name (NPPES allows far fewer locations or endpoints). */
const MAX_INDEX = 9999;

/**
 * Parses the id of a resource of `type`; `null` when it cannot name one.
 *
 * @example
 * ```ts
 * parseId("Location", "1234567893-0"); // { npi: "1234567893", index: 0 }
 * parseId("Practitioner", "1234567893"); // { npi: "1234567893", index: null }
 * parseId("Practitioner", "12"); // null
 * ```
 */
export function parseId(type: ResourceType, id: string): ParsedId | null {
  if (type === "Location" || type === "Endpoint") {
    const m = /^(\d{10})-(\d{1,4})$/.exec(id);
    if (!m || !isValidNpi(m[1]!)) return null;
    const index = Number(m[2]);
    if (index > MAX_INDEX || String(index) !== m[2]) return null;
    return { npi: m[1]!, index };
  }
  if (!/^\d{10}$/.test(id) || !isValidNpi(id)) return null;
  return { npi: id, index: null };
}

/**
 * The id of a Location or Endpoint: the NPI and the position.
 *
 * @example
 * ```ts
 * indexedId("1234567893", 0); // "1234567893-0"
 * ```
 */
export function indexedId(npi: string, index: number): string {
  return `${npi}-${index}`;
}

/** What each type's ids look like, for error messages and documentation. */
export const ID_FORMS: Readonly<Record<ResourceType, string>> = {
  Practitioner: "the NPI (10 digits)",
  PractitionerRole: "the practitioner's NPI (10 digits)",
  Organization: "the NPI (10 digits)",
  Location: "{npi}-{n}: n = 0 for the primary practice location, 1… for secondary ones",
  Endpoint: "{npi}-{n}: n = 0… the provider's endpoints in NPPES order",
};

/**
 * Parses a reference (`Practitioner/123…`, an absolute URL ending so, or a
 * bare id) to a resource of `type`; `null` when it names another type or
 * no possible id.
 *
 * @example
 * ```ts
 * parseReference("Location", "Location/1234567893-0"); // { npi: "1234567893", index: 0 }
 * parseReference("Location", "http://x/fhir/Location/1234567893-1"); // { npi: "1234567893", index: 1 }
 * ```
 */
export function parseReference(type: ResourceType, value: string): ParsedId | null {
  const slash = value.lastIndexOf("/");
  if (slash === -1) return parseId(type, value);
  const before = value.slice(0, slash);
  const named = before.slice(before.lastIndexOf("/") + 1);
  if (named !== type) return null;
  return parseId(type, value.slice(slash + 1));
}
