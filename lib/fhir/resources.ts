/**
 * The FHIR R4 resources of one NPPES record, as pure functions: a
 * `Practitioner` (type 1) or an `Organization` (type 2), the practitioner's
 * `PractitionerRole`, a `Location` per practice location and an `Endpoint`
 * per endpoint row. Ids are those of `./ids.ts`.
 *
 * A resource claims a Da Vinci Plan-Net profile in `meta.profile` only when
 * it meets it (a Plan-Net Practitioner needs a family name, a role a phone or
 * an endpoint, and so on; every Plan-Net profile fixes `active` to true or
 * `status` to active, so a deactivated NPI's resources claim none); otherwise
 * it is plain R4 and says so by claiming nothing. `tests/fhir_validation_test.ts` checks both with a validator.
 *
 * @module
 */
import type {
  Address,
  Endpoint as NppesEndpoint,
  Location as NppesLocation,
  Provider,
} from "../provider.ts";
import { indexedId } from "./ids.ts";
import { INDIVIDUAL_AND_GROUP } from "../taxonomy/_builtin_data.ts";

/** A FHIR resource as JSON. */
export type Resource = { resourceType: string; id: string } & Record<string, unknown>;

/** The NPI identifier system (US Core, Plan-Net, NDH). */
export const NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi";
/** The NUCC provider taxonomy code system. */
export const NUCC_SYSTEM = "http://nucc.org/provider-taxonomy";
/** Canonical base of the Plan-Net profiles. */
export const PLAN_NET = "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition";
/** The Plan-Net profile of each type. */
export const PLAN_NET_PROFILES = {
  Practitioner: `${PLAN_NET}/plannet-Practitioner`,
  PractitionerRole: `${PLAN_NET}/plannet-PractitionerRole`,
  Organization: `${PLAN_NET}/plannet-Organization`,
  Location: `${PLAN_NET}/plannet-Location`,
  Endpoint: `${PLAN_NET}/plannet-Endpoint`,
} as const;
/** Code system of endpoint types NPPES uses that FHIR has no code for (SOAP, CONNECT, WEB, OTHERS). */
export const NPPES_ENDPOINT_TYPE_SYSTEM = "urn:nppes:endpoint-type";
const CONNECTION_TYPE_SYSTEM = "http://terminology.hl7.org/CodeSystem/endpoint-connection-type";
const PLAN_NET_CONNECTION_SYSTEM =
  "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/EndpointConnectionTypeCS";
const PLAN_NET_PAYLOAD_SYSTEM =
  "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/EndpointPayloadTypeCS";
/** Plan-Net's organization type code system. */
export const ORG_TYPE_SYSTEM = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS";

const DATA_ABSENT_REASON = "http://hl7.org/fhir/StructureDefinition/data-absent-reason";

/** NUCC codes of Plan-Net's `IndividualAndGroupSpecialtiesVS` (PractitionerRole.specialty, required). */
const ROLE_SPECIALTY_CODES: ReadonlySet<string> = new Set(INDIVIDUAL_AND_GROUP.map(([c]) => c));

/** NUCC group-practice codes: such an organization is a Plan-Net "prvgrp", any other a "fac". */
export const GROUP_CODES: ReadonlySet<string> = new Set(["193200000X", "193400000X"]);

/** What rendering needs besides the record. */
export interface RenderContext {
  /** The display name of a NUCC code, or `null` when unknown. */
  displayOf(code: string): string | null;
  /** The id of the organization an organization subpart is part of, or `null`. */
  parentOf?(provider: Provider): string | null;
}

/** Every resource of one record. */
export interface ProviderResources {
  practitioner: Resource | null;
  organization: Resource | null;
  role: Resource | null;
  locations: Resource[];
  endpoints: Resource[];
}

function meta(
  profile: string | null,
  lastUpdated: string | null,
): Record<string, unknown> | undefined {
  const m: Record<string, unknown> = {};
  if (lastUpdated) m.lastUpdated = `${lastUpdated}T00:00:00Z`;
  if (profile) m.profile = [profile];
  return Object.keys(m).length ? m : undefined;
}

function npiIdentifier(npi: string): Record<string, unknown> {
  return {
    use: "official",
    type: {
      coding: [{
        system: "http://terminology.hl7.org/CodeSystem/v2-0203",
        code: "NPI",
        display: "National provider identifier",
      }],
    },
    system: NPI_SYSTEM,
    value: npi,
  };
}

/** `208171841` → `20817-1841`; other codes as given. */
function postalCode(code: string): string {
  return /^\d{9}$/.test(code) ? `${code.slice(0, 5)}-${code.slice(5)}` : code;
}

/** A FHIR Address of an NPPES address; `null` when it has nothing. */
export function fhirAddress(
  a: Address,
  use: "work" | "billing",
  type: "physical" | "postal",
): Record<string, unknown> | null {
  const out: Record<string, unknown> = { use, type };
  const lines = [a.line1, a.line2].filter((l): l is string => !!l);
  if (lines.length) out.line = lines;
  if (a.city) out.city = a.city;
  if (a.state) out.state = a.state;
  if (a.postal_code) out.postalCode = postalCode(a.postal_code);
  if (a.country_code) out.country = a.country_code;
  if (Object.keys(out).length === 2) return null;
  out.text = [lines.join(", "), a.city, [a.state, out.postalCode].filter(Boolean).join(" ")]
    .filter(Boolean).join(", ");
  return out;
}

/** Phone and fax of an address as ContactPoints. */
function telecom(a: Address | null, extension: string | null = null): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (a?.phone) {
    out.push({
      system: "phone",
      value: extension ? `${a.phone} ext. ${extension}` : a.phone,
      use: "work",
    });
  }
  if (a?.fax) out.push({ system: "fax", value: a.fax, use: "work" });
  return out;
}

function status(p: Provider): boolean {
  return p.status === "active";
}

function specialtyConcept(
  code: string,
  ctx: RenderContext,
  fallback: string | null,
): Record<string, unknown> {
  const display = ctx.displayOf(code) ?? fallback;
  const coding: Record<string, unknown> = { system: NUCC_SYSTEM, code };
  if (display) coding.display = display;
  return display ? { coding: [coding], text: display } : { coding: [coding] };
}

/** The Practitioner of a type 1 record, with its credential and state licenses as qualifications. */
export function toPractitioner(p: Provider, ctx: RenderContext): Resource {
  const person = p.individual;
  const name: Record<string, unknown> = { use: "official" };
  if (person?.last_name) name.family = person.last_name;
  const given = [person?.first_name, person?.middle_name].filter((g): g is string => !!g);
  if (given.length) name.given = given;
  if (person?.prefix) name.prefix = [person.prefix];
  const suffix = [person?.suffix, person?.credential].filter((s): s is string => !!s);
  if (suffix.length) name.suffix = suffix;
  if (p.name) name.text = p.name;
  const names = [name];
  for (const other of p.other_names) {
    // NPPES keeps the parts, the record only the whole: the family part is marked unknown, as
    // US Core does when a required element is not known.
    names.push({
      use: other.type === "former_name" ? "old" : "usual",
      text: other.name,
      _family: { extension: [{ url: DATA_ABSENT_REASON, valueCode: "unknown" }] },
    });
  }
  // Plan-Net fixes `active` to true: a deactivated NPI's resources are plain R4.
  const conforms = typeof name.family === "string" && status(p);
  const r: Resource = { resourceType: "Practitioner", id: p.npi };
  const m = meta(conforms ? PLAN_NET_PROFILES.Practitioner : null, p.last_updated);
  if (m) r.meta = m;
  r.identifier = [npiIdentifier(p.npi)];
  r.active = status(p);
  r.name = names;
  const phones = telecom(p.practice_location);
  if (phones.length) r.telecom = phones;
  const address = p.practice_location && fhirAddress(p.practice_location, "work", "physical");
  if (address) r.address = [address];
  if (person?.sex) r.gender = person.sex === "M" ? "male" : "female";
  const qualification: Record<string, unknown>[] = [];
  if (person?.credential) qualification.push({ code: { text: person.credential } });
  // State licenses NPPES lists beside taxonomies: one qualification per license number and
  // state, coded with the taxonomies it is listed for.
  const licenses = new Map<string, { license: string; state: string | null; codes: string[] }>();
  for (const t of p.taxonomies) {
    if (!t.license) continue;
    const key = `${t.license}\u0000${t.state ?? ""}`;
    const entry = licenses.get(key) ?? { license: t.license, state: t.state, codes: [] };
    if (!entry.codes.includes(t.code)) entry.codes.push(t.code);
    licenses.set(key, entry);
  }
  for (const { license, state, codes } of licenses.values()) {
    const displays = codes.map((code) => ctx.displayOf(code));
    qualification.push({
      identifier: [{ value: license }],
      code: {
        coding: codes.map((code, i) => ({
          system: NUCC_SYSTEM,
          code,
          ...(displays[i] ? { display: displays[i] } : {}),
        })),
        text: `${state ? `${state} license` : "License"}${
          displays.some(Boolean) ? ` (${displays.filter(Boolean).join(", ")})` : ""
        }`,
      },
      ...(state ? { issuer: { display: `Licensing authority of ${state}` } } : {}),
    });
  }
  if (qualification.length) r.qualification = qualification;
  return r;
}

/** Plan-Net's organization type of a record: a group practice or a facility. */
function orgType(p: Provider): Record<string, unknown> {
  const group = p.taxonomies.some((t) => GROUP_CODES.has(t.code));
  return {
    coding: [{
      system: ORG_TYPE_SYSTEM,
      code: group ? "prvgrp" : "fac",
      display: group ? "Provider Group" : "Facility",
    }],
  };
}

/** The Organization of a type 2 record. */
export function toOrganization(p: Provider, ctx: RenderContext): Resource {
  const org = p.organization;
  const addresses = [
    p.practice_location && fhirAddress(p.practice_location, "work", "physical"),
    p.mailing_address && fhirAddress(p.mailing_address, "billing", "postal"),
  ].filter((a): a is Record<string, unknown> => a !== null);
  const name = org?.name ?? (p.name || null);
  const conforms = name !== null && addresses.length > 0 && status(p);
  const r: Resource = { resourceType: "Organization", id: p.npi };
  const m = meta(conforms ? PLAN_NET_PROFILES.Organization : null, p.last_updated);
  if (m) r.meta = m;
  r.identifier = [npiIdentifier(p.npi)];
  r.active = status(p);
  r.type = [orgType(p)];
  if (name) r.name = name;
  const aliases = p.other_names.map((o) => o.name).filter((n) => n !== name);
  if (aliases.length) r.alias = aliases;
  const phones = telecom(p.practice_location);
  if (phones.length) r.telecom = phones;
  if (addresses.length) r.address = addresses;
  const parent = org?.subpart ? ctx.parentOf?.(p) ?? null : null;
  if (parent) {
    r.partOf = { reference: `Organization/${parent}`, display: org?.parent_name ?? undefined };
  }
  if (p.endpoints.length) {
    r.endpoint = p.endpoints.map((_, i) => ({ reference: `Endpoint/${indexedId(p.npi, i)}` }));
  }
  const official = org?.authorized_official;
  if (official && (official.last_name || official.first_name)) {
    const contact: Record<string, unknown> = {
      purpose: {
        coding: [{
          system: "http://terminology.hl7.org/CodeSystem/contactentity-type",
          code: "ADMIN",
          display: "Administrative",
        }],
      },
      name: {
        ...(official.last_name ? { family: official.last_name } : {}),
        ...(official.first_name ? { given: [official.first_name] } : {}),
        text: [official.first_name, official.last_name, official.title && `(${official.title})`]
          .filter(Boolean).join(" "),
      },
    };
    if (official.phone) contact.telecom = [{ system: "phone", value: official.phone, use: "work" }];
    r.contact = [contact];
  }
  return r;
}

/** All practice locations of a record: the primary first, then the secondary ones. */
function practiceLocations(p: Provider): (NppesLocation & { phone_extension?: string | null })[] {
  return [...(p.practice_location ? [p.practice_location] : []), ...p.other_locations];
}

/** The Locations of a record: `{npi}-0` the primary practice location, then the secondary ones. */
export function toLocations(p: Provider): Resource[] {
  const all = practiceLocations(p);
  const hasPrimary = p.practice_location !== null;
  return all.map((loc, i) => {
    const index = hasPrimary ? i : i + 1;
    const address = fhirAddress(loc, "work", "physical");
    const where = [loc.line1, loc.city, loc.state].filter(Boolean).join(", ");
    const label = index === 0 ? "Primary practice location" : "Practice location";
    const r: Resource = { resourceType: "Location", id: indexedId(p.npi, index) };
    const m = meta(status(p) ? PLAN_NET_PROFILES.Location : null, p.last_updated);
    if (m) r.meta = m;
    r.status = status(p) ? "active" : "inactive";
    r.name = `${label} of ${p.name || p.npi}${where ? ` (${where})` : ""}`;
    const phones = telecom(loc, "phone_extension" in loc ? loc.phone_extension ?? null : null);
    if (phones.length) r.telecom = phones;
    if (address) r.address = address;
    if (loc.lat !== null && loc.lon !== null) {
      r.position = { longitude: loc.lon, latitude: loc.lat };
    }
    if (p.entity_type === "organization") {
      r.managingOrganization = { reference: `Organization/${p.npi}`, display: p.name || undefined };
    }
    return r;
  });
}

/** Ids of a record's Locations, in order. */
export function locationIds(p: Provider): string[] {
  const offset = p.practice_location ? 0 : 1;
  return practiceLocations(p).map((_, i) => indexedId(p.npi, i + offset));
}

/** The PractitionerRole of a type 1 record: its specialties at its practice locations. */
export function toPractitionerRole(p: Provider, ctx: RenderContext): Resource {
  const codes = p.taxonomies.filter((t, i, all) => all.findIndex((u) => u.code === t.code) === i);
  const phones = telecom(p.practice_location);
  const conforms = status(p) && (phones.length > 0 || p.endpoints.length > 0) &&
    codes.every((t) => ROLE_SPECIALTY_CODES.has(t.code));
  const r: Resource = { resourceType: "PractitionerRole", id: p.npi };
  const m = meta(conforms ? PLAN_NET_PROFILES.PractitionerRole : null, p.last_updated);
  if (m) r.meta = m;
  r.active = status(p);
  r.practitioner = { reference: `Practitioner/${p.npi}`, display: p.name || undefined };
  const locations = locationIds(p);
  if (locations.length) r.location = locations.map((id) => ({ reference: `Location/${id}` }));
  // The primary taxonomy first.
  const ordered = [...codes.filter((t) => t.primary), ...codes.filter((t) => !t.primary)];
  if (ordered.length) {
    r.specialty = ordered.map((t) => specialtyConcept(t.code, ctx, t.description));
  }
  if (phones.length) r.telecom = phones;
  if (p.endpoints.length) {
    r.endpoint = p.endpoints.map((_, i) => ({ reference: `Endpoint/${indexedId(p.npi, i)}` }));
  }
  return r;
}

/**
 * The Endpoint.connectionType coding of an NPPES endpoint type: FHIR,
 * DIRECT and REST have codes of their own, the rest keep the NPPES code.
 *
 * @example
 * ```ts
 * connectionType({ type: "FHIR", type_description: null }).code; // "hl7-fhir-rest"
 * ```
 */
export function connectionType(
  e: Pick<NppesEndpoint, "type" | "type_description">,
): Record<string, unknown> {
  const type = (e.type ?? "").toUpperCase();
  if (type === "DIRECT") {
    return { system: CONNECTION_TYPE_SYSTEM, code: "direct-project", display: "Direct Project" };
  }
  if (type === "FHIR") {
    return { system: CONNECTION_TYPE_SYSTEM, code: "hl7-fhir-rest", display: "HL7 FHIR" };
  }
  if (type === "REST") {
    return {
      system: PLAN_NET_CONNECTION_SYSTEM,
      code: "rest-non-fhir",
      display: "REST (not FHIR)",
    };
  }
  const coding: Record<string, unknown> = {
    system: NPPES_ENDPOINT_TYPE_SYSTEM,
    code: type || "OTHERS",
  };
  if (e.type_description) coding.display = e.type_description;
  return coding;
}

/** The endpoint's address as a URL: Direct addresses become `mailto:`. */
function endpointAddress(e: NppesEndpoint): string {
  const value = e.endpoint.trim().replace(/\s+/g, "%20");
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
  if (value.includes("@")) return `mailto:${value}`;
  return value;
}

/** The Endpoints of a record, `{npi}-0…` in NPPES order. */
export function toEndpoints(p: Provider): Resource[] {
  return p.endpoints.map((e, i) => {
    const r: Resource = { resourceType: "Endpoint", id: indexedId(p.npi, i) };
    const m = meta(status(p) ? PLAN_NET_PROFILES.Endpoint : null, p.last_updated);
    if (m) r.meta = m;
    r.status = status(p) ? "active" : "off";
    r.connectionType = connectionType(e);
    const name = e.description ?? e.affiliation_name;
    if (name) r.name = name;
    if (p.entity_type === "organization") {
      r.managingOrganization = { reference: `Organization/${p.npi}`, display: p.name || undefined };
    }
    r.payloadType = [{
      coding: [{ system: PLAN_NET_PAYLOAD_SYSTEM, code: "NA", display: "Not Applicable" }],
      ...(e.content_description ? { text: e.content_description } : {}),
    }];
    r.address = endpointAddress(e);
    return r;
  });
}

/**
 * Every resource of one record. A record of unknown entity type (NPPES
 * publishes only the NPI and date of most deactivated ones) has none.
 *
 * @example
 * ```ts
 * const { practitioner, role, locations } = providerResources(provider, { displayOf: () => null });
 * ```
 */
export function providerResources(p: Provider, ctx: RenderContext): ProviderResources {
  if (p.entity_type === "individual") {
    return {
      practitioner: toPractitioner(p, ctx),
      organization: null,
      role: toPractitionerRole(p, ctx),
      locations: toLocations(p),
      endpoints: toEndpoints(p),
    };
  }
  if (p.entity_type === "organization") {
    return {
      practitioner: null,
      organization: toOrganization(p, ctx),
      role: null,
      locations: toLocations(p),
      endpoints: toEndpoints(p),
    };
  }
  return { practitioner: null, organization: null, role: null, locations: [], endpoints: [] };
}
