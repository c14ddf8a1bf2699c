/**
 * Addresses for the demo data: practice locations and mailing addresses on
 * real ZIPs (with 5- or 9-digit postal codes, suites, PO boxes, phones and
 * faxes), the few foreign or non-geocoding ones real data has, and secondary
 * practice locations (`pl_pfile` rows).
 *
 * @module
 */

import { ADDRESS_OFFSETS } from "../nppes/columns.ts";
import type { ZipInfo } from "../geo/zip.ts";
import { FOREIGN_PLACES, phoneNumber, poBoxLine, streetLine, unitLine, ZipPool } from "./places.ts";
import type { Rng } from "./prng.ts";

/** A postal address as NPPES spells it. */
export interface Address {
  line1: string;
  line2: string;
  city: string;
  state: string;
  postal: string;
  country: string;
  phone: string;
  fax: string;
}

function postalCode(rng: Rng, zip: string): string {
  return rng.chance(0.62) ? zip + String(rng.range(1, 9999)).padStart(4, "0") : zip;
}

function usAddress(rng: Rng, zip: ZipInfo, phone: string): Address {
  const street = streetLine(rng);
  const u = rng.float();
  let line1 = street;
  let line2 = "";
  if (u < 0.32) line2 = unitLine(rng);
  else if (u < 0.47) line1 = `${street} ${unitLine(rng)}`;
  const fax = rng.chance(0.45) ? phone.slice(0, 6) + rng.digits(4) : "";
  return {
    line1,
    line2,
    city: zip.city,
    state: zip.state,
    postal: postalCode(rng, zip.zip),
    country: "US",
    phone,
    fax,
  };
}

function foreignAddress(rng: Rng): Address {
  const place = rng.pick(FOREIGN_PLACES);
  return {
    line1: `${rng.range(1, 250)} ${
      rng.pick(["KING", "QUEEN", "HARBOUR", "CENTRAL", "STATION", "PARK"])
    } ${rng.pick(["ROAD", "STREET", "AVENUE"])}`,
    line2: "",
    city: place.city,
    state: place.region,
    postal: place.postal,
    country: place.country,
    phone: place.phonePrefix + rng.digits(12 - place.phonePrefix.length),
    fax: "",
  };
}

/**
 * The practice location and mailing address of a provider.
 *
 * @example
 * ```ts
 * import { ZipPool } from "./places.ts";
 * import { Rng } from "./prng.ts";
 * const { location, mailing } = practiceAndMailing(new Rng(1), new ZipPool());
 * location.country; // "US" (almost always)
 * mailing.line1; // e.g. "PO BOX 4821"
 * ```
 */
export function practiceAndMailing(
  rng: Rng,
  zips: ZipPool,
): { location: Address; mailing: Address; zip: ZipInfo } {
  const zip = zips.sample(rng);
  const phone = phoneNumber(rng, zip.state, zip.zip);
  const u = rng.float();
  let location: Address;
  if (u < 0.0015) location = foreignAddress(rng);
  else {
    location = usAddress(rng, zip, phone);
    if (u < 0.004) location.postal = zips.unknownZip(rng);
  }
  const m = rng.float();
  let mailing: Address;
  if (m < 0.64 || location.country !== "US") {
    mailing = { ...location };
  } else if (m < 0.8) {
    mailing = { ...location, line1: poBoxLine(rng), line2: "", postal: postalCode(rng, zip.zip) };
  } else if (m < 0.997) {
    const other = rng.chance(0.8) ? zips.sampleInState(rng, zip.state) : zips.sample(rng);
    mailing = usAddress(
      rng,
      other,
      rng.chance(0.5) ? phone : phoneNumber(rng, other.state, other.zip),
    );
  } else {
    mailing = foreignAddress(rng);
  }
  return { location, mailing, zip };
}

/**
 * Writes an address block into a main row at its first-line column.
 *
 * @example
 * ```ts
 * import { NPI_COL } from "../nppes/columns.ts";
 * import { ZipPool } from "./places.ts";
 * import { Rng } from "./prng.ts";
 * const row = new Array<string>(330).fill("");
 * putAddress(row, NPI_COL.locLine1, practiceAndMailing(new Rng(1), new ZipPool()).location);
 * ```
 */
export function putAddress(row: string[], at: number, a: Address): void {
  row[at + ADDRESS_OFFSETS.line1] = a.line1;
  row[at + ADDRESS_OFFSETS.line2] = a.line2;
  row[at + ADDRESS_OFFSETS.city] = a.city;
  row[at + ADDRESS_OFFSETS.state] = a.state;
  row[at + ADDRESS_OFFSETS.postal] = a.postal;
  row[at + ADDRESS_OFFSETS.country] = a.country;
  row[at + ADDRESS_OFFSETS.phone] = a.phone;
  row[at + ADDRESS_OFFSETS.fax] = a.fax;
}

/**
 * One or two `pl_pfile` rows: secondary practice locations, mostly in the home state.
 *
 * @example
 * ```ts
 * import { lookupZip } from "../geo/zip.ts";
 * import { ZipPool } from "./places.ts";
 * import { Rng } from "./prng.ts";
 * const home = lookupZip("21201")!;
 * secondaryLocationRows(new Rng(1), new ZipPool(), "1234567893", home)[0]!.length; // 10
 * ```
 */
export function secondaryLocationRows(
  rng: Rng,
  zips: ZipPool,
  npi: string,
  home: ZipInfo,
): string[][] {
  const n = rng.chance(0.72) ? 1 : 2;
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) {
    const zip = rng.chance(0.8) ? zips.sampleInState(rng, home.state) : zips.sample(rng);
    const phone = phoneNumber(rng, zip.state, zip.zip);
    const a = usAddress(rng, zip, phone);
    rows.push([
      npi,
      a.line1,
      a.line2,
      a.city,
      a.state,
      a.postal,
      a.country,
      a.phone,
      rng.chance(0.06) ? String(rng.range(100, 9999)) : "",
      a.fax,
    ]);
  }
  return rows;
}
