/**
 * Rows of the three reference files (other names, secondary practice
 * locations, endpoints) are stored apart from the provider record and joined
 * to it when it is read, so that an import never rewrites records for them
 * and a weekly file replaces an NPI's rows of one kind.
 *
 * @module
 */
import type { Endpoint, OtherLocation, OtherName, Provider } from "../provider.ts";
import { unpackEndpoint, unpackOtherLocation } from "./codec.ts";

/** Bits of a provider's `sides` column: which reference tables hold rows for it. */
export const SIDE = {
  otherNames: 1,
  locations: 2,
  endpoints: 4,
} as const;

/** The stored form of an other name. */
export function packOtherName(name: OtherName): string {
  return JSON.stringify([name.type, name.name]);
}

/** An other name from its stored form. */
export function unpackOtherName(doc: string): OtherName {
  const [type, name] = JSON.parse(doc) as [OtherName["type"], string];
  return { type, name };
}

/** A secondary location from its stored form. */
export function parseLocation(doc: string): OtherLocation {
  return unpackOtherLocation(JSON.parse(doc));
}

/** An endpoint from its stored form. */
export function parseEndpoint(doc: string): Endpoint {
  return unpackEndpoint(JSON.parse(doc));
}

/** The rows of the reference files for one provider. */
export interface SideRows {
  otherNames: readonly OtherName[];
  locations: readonly OtherLocation[];
  endpoints: readonly Endpoint[];
}

/**
 * The record with its reference rows: other names added (those the main
 * file already gave are not repeated), secondary locations and endpoints.
 *
 * @example
 * ```ts
 * withSides(provider, { otherNames: [], locations: [], endpoints: [] });
 * ```
 */
export function withSides(p: Provider, sides: SideRows): Provider {
  const seen = new Set(p.other_names.map((o) => `${o.type}:${o.name}`));
  const extra = sides.otherNames.filter((o) => !seen.has(`${o.type}:${o.name}`));
  return {
    ...p,
    other_names: [...p.other_names, ...extra],
    other_locations: [...sides.locations],
    endpoints: [...sides.endpoints],
  };
}
