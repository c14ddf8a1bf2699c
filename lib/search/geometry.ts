/**
 * Geometry of the distance filter: the bounding box of a circle.
 *
 * @module
 */
import type { NearMatch } from "./query.ts";

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
