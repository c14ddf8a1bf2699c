/**
 * The structured filters of a search as SQL over the `provider` table
 * (alias `p`), with bound parameters only.
 *
 * @module
 */
import type { NameMatch, NearMatch, SearchQuery } from "./query.ts";
import { NAME_KIND } from "../store/search_text.ts";

/** A SQL condition and its parameters. */
export interface SqlFilter {
  where: string;
  params: (string | number)[];
  /** Whether anything beyond the active-status condition applies. */
  narrowed: boolean;
}

/** Miles per degree of latitude. */
const MILES_PER_DEGREE = 69.0547;
const KM_PER_MILE = 1.609344;

/** The bounding box of a circle, in degrees, split when it crosses the antimeridian. */
export function boundingBoxes(
  near: NearMatch,
): { minLat: number; maxLat: number; minLon: number; maxLon: number }[] {
  const miles = near.unit === "km" ? near.radius / KM_PER_MILE : near.radius;
  const dLat = miles / MILES_PER_DEGREE * 1.001;
  const minLat = Math.max(-90, near.lat - dLat), maxLat = Math.min(90, near.lat + dLat);
  const cos = Math.cos((Math.max(Math.abs(minLat), Math.abs(maxLat)) * Math.PI) / 180);
  if (cos < 1e-6 || maxLat >= 90 || minLat <= -90) {
    return [{ minLat, maxLat, minLon: -180, maxLon: 180 }];
  }
  const dLon = Math.min(180, miles / (MILES_PER_DEGREE * cos) * 1.001);
  const minLon = near.lon - dLon, maxLon = near.lon + dLon;
  if (minLon < -180) {
    return [{ minLat, maxLat, minLon: -180, maxLon }, {
      minLat,
      maxLat,
      minLon: minLon + 360,
      maxLon: 180,
    }];
  }
  if (maxLon > 180) {
    return [{ minLat, maxLat, minLon, maxLon: 180 }, {
      minLat,
      maxLat,
      minLon: -180,
      maxLon: maxLon - 360,
    }];
  }
  return [{ minLat, maxLat, minLon, maxLon }];
}

/** The smallest string greater than every string starting with `prefix`. */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

function placeholders(values: readonly unknown[]): string {
  return values.map(() => "?").join(", ");
}

/**
 * Translates the structured filters into one SQL condition on `p`.
 *
 * @example
 * ```ts
 * sqlFilter(query).where; // "p.active = 1 AND p.state IN (?)"
 * ```
 */
export function sqlFilter(query: SearchQuery): SqlFilter {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (!query.includeDeactivated) parts.push("p.active = 1");
  const add = (sql: string, values: (string | number)[]) => {
    parts.push(sql);
    params.push(...values);
  };
  if (query.npis) add(`p.npi IN (${placeholders(query.npis)})`, query.npis);
  if (query.entity) add("p.entity = ?", [query.entity]);
  if (query.sex) add("p.sex = ?", [query.sex]);
  if (query.states) add(`p.state IN (${placeholders(query.states)})`, query.states);
  if (query.cities) add(`p.city IN (${placeholders(query.cities)})`, query.cities);
  if (query.postal) {
    const alternatives: string[] = [];
    const values: string[] = [];
    if (query.postal.zip5.length) {
      alternatives.push(`p.zip5 IN (${placeholders(query.postal.zip5)})`);
      values.push(...query.postal.zip5);
    }
    if (query.postal.exact.length) {
      alternatives.push(`p.postal IN (${placeholders(query.postal.exact)})`);
      values.push(...query.postal.exact);
    }
    for (const prefix of query.postal.prefixes) {
      alternatives.push("(p.postal >= ? AND p.postal < ?)");
      values.push(prefix, prefixEnd(prefix));
    }
    add(`(${alternatives.join(" OR ")})`, values);
  }
  for (const codes of [query.taxonomyCodes, query.specialtyCodes]) {
    if (codes) {
      add(
        `p.id IN (SELECT id FROM provider_taxonomy WHERE code IN (${placeholders(codes)}))`,
        codes,
      );
    }
  }
  const names: [number, NameMatch[] | null][] = [
    [NAME_KIND.last, query.lastNames],
    [NAME_KIND.first, query.firstNames],
    [NAME_KIND.organization, query.organizationNames],
  ];
  for (const [kind, matches] of names) {
    if (!matches) continue;
    const alternatives: string[] = [];
    const values: (string | number)[] = [kind];
    for (const m of matches) {
      if (m.prefix) {
        alternatives.push("(key >= ? AND key < ?)");
        values.push(m.key, prefixEnd(m.key));
      } else {
        alternatives.push("key = ?");
        values.push(m.key);
      }
    }
    add(
      `p.id IN (SELECT id FROM name_key WHERE kind = ? AND (${alternatives.join(" OR ")}))`,
      values,
    );
  }
  if (query.near) {
    const boxes = boundingBoxes(query.near);
    const sql = boxes.map(() => "(min_lat >= ? AND max_lat <= ? AND min_lon >= ? AND max_lon <= ?)")
      .join(" OR ");
    add(
      `p.id IN (SELECT id FROM provider_geo WHERE ${sql})`,
      boxes.flatMap((b) => [b.minLat, b.maxLat, b.minLon, b.maxLon]),
    );
  }
  const narrowed = parts.length > (query.includeDeactivated ? 0 : 1);
  return { where: parts.length ? parts.join(" AND ") : "1", params, narrowed };
}
