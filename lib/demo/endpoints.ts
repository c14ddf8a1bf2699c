/**
 * Electronic endpoints of demo providers (`endpoint_pfile` rows). Every
 * address is on a domain reserved for examples (RFC 2606), so no demo
 * endpoint points at a real system.
 *
 * @module
 */

import type { Address } from "./addresses.ts";
import { type Rng, WeightedTable } from "./prng.ts";

const ENDPOINT_TYPES = new WeightedTable(
  [
    ["DIRECT", "Direct Messaging Address"],
    ["FHIR", "FHIR URL"],
    ["REST", "REST URL"],
    ["SOAP", "SOAP URL"],
    ["OTHERS", "Other URL"],
  ] as const,
  [72, 18, 4, 2, 4],
);

function slug(name: string): string {
  return name.toLowerCase().replace(/\b(inc|llc|pc|pa|pllc|corp|the|of|and)\b/g, "").replace(
    /[^a-z0-9]+/g,
    "",
  ).slice(0, 22) || "health";
}

/**
 * One or two `endpoint_pfile` rows: Direct addresses and FHIR/REST/SOAP URLs,
 * always on reserved example domains (`*.example.org`, `.com`, `.net`).
 *
 * @example
 * ```ts
 * import { practiceAndMailing } from "./addresses.ts";
 * import { ZipPool } from "./places.ts";
 * import { Rng } from "./prng.ts";
 * const place = practiceAndMailing(new Rng(1), new ZipPool()).location;
 * const rows = endpointRows(new Rng(2), "1234567893", { first: "ANA", last: "LEE" }, "MERCY HOSPITAL", "", place);
 * rows[0]![3]; // e.g. "alee@direct.mercyhospital.example.org"
 * ```
 */
export function endpointRows(
  rng: Rng,
  npi: string,
  person: { first: string; last: string } | null,
  orgName: string,
  affiliationName: string,
  location: Address,
): string[][] {
  const rows: string[][] = [];
  const n = rng.chance(0.85) ? 1 : 2;
  const host = slug(affiliationName || orgName);
  for (let i = 0; i < n; i++) {
    const [type, description] = ENDPOINT_TYPES.sample(rng);
    let endpoint: string;
    if (type === "DIRECT") {
      const local = person
        ? (person.first.charAt(0) + person.last).toLowerCase().replace(/[^a-z]/g, "")
        : rng.pick(["referrals", "records", "intake", "clinical", "frontdesk"]);
      endpoint = `${local}@direct.${host}.example.org`;
    } else if (type === "FHIR") endpoint = `https://fhir.${host}.example.com/r4`;
    else if (type === "REST") endpoint = `https://api.${host}.example.com/patient-access`;
    else if (type === "SOAP") endpoint = `https://hie.${host}.example.net/soap/gateway`;
    else endpoint = `https://portal.${host}.example.com`;
    const affiliated = affiliationName !== "";
    const use = rng.float();
    const [useCode, useDesc, otherUse] = use < 0.45
      ? ["DIRECT", "Direct", ""]
      : use < 0.7
      ? ["HIE", "Health Information Exchange (HIE)", ""]
      : use < 0.85
      ? ["OTHER", "Other", type === "FHIR" ? "PATIENT ACCESS API" : "REFERRALS"]
      : ["", "", ""];
    const content = rng.float();
    const [contentType, contentDesc, otherContent] = content < 0.1
      ? ["CSV", "CSV", ""]
      : content < 0.4
      ? ["OTHER", "Other", rng.pick(["C-CDA", "PDF", "HL7 V2"])]
      : ["", "", ""];
    rows.push([
      npi,
      type,
      description,
      endpoint,
      affiliated ? "Y" : "N",
      rng.chance(0.55)
        ? rng.pick([
          "DIRECT ADDRESS FOR REFERRALS",
          "CLINICAL MESSAGING",
          "PATIENT RECORDS REQUESTS",
          "PROVIDER DIRECTORY",
        ])
        : "",
      affiliationName,
      useCode,
      useDesc,
      otherUse,
      contentType,
      contentDesc,
      otherContent,
      location.line1,
      location.line2,
      location.city,
      location.state,
      location.country,
      location.postal,
    ]);
  }
  return rows;
}
