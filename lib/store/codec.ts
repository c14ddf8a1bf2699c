/**
 * A compact stored form of the provider record: positional arrays instead
 * of objects (a third of the size of the record's JSON), without taxonomy
 * descriptions (looked up when reading). `decodeProvider(encodeProvider(p))`
 * gives `p` back.
 *
 * @module
 */
import type {
  Address,
  AuthorizedOfficial,
  Endpoint,
  Individual,
  Location,
  OtherLocation,
  OtherNameType,
  Provider,
} from "../provider.ts";

type Cell = string | number | boolean | null;
type Packed = Cell | Packed[];

/** Other name types by their number in the stored form. */
export const OTHER_NAME_TYPES: readonly OtherNameType[] = [
  "former_name",
  "professional_name",
  "doing_business_as",
  "former_legal_business_name",
  "other_name",
];

/** The keys of an address, in the order of its packed form. */
export const ADDRESS_KEYS = [
  "line1",
  "line2",
  "city",
  "state",
  "postal_code",
  "country_code",
  "phone",
  "fax",
] as const;

/** An address as a positional array (in {@linkcode ADDRESS_KEYS} order; literal: millions are packed). */
function packAddress(a: Address | null): Packed {
  return a
    ? [a.line1, a.line2, a.city, a.state, a.postal_code, a.country_code, a.phone, a.fax]
    : null;
}

// The unpacking functions write object literals, keys in the packed order: one shape per kind of
// object, where keys added in a loop make slower objects (a page of 200 records unpacks thousands).

function unpackAddress(v: Packed): Address | null {
  if (!Array.isArray(v)) return null;
  return {
    line1: v[0] as string | null,
    line2: v[1] as string | null,
    city: v[2] as string | null,
    state: v[3] as string | null,
    postal_code: v[4] as string | null,
    country_code: v[5] as string | null,
    phone: v[6] as string | null,
    fax: v[7] as string | null,
  };
}

function packLocation(l: Location | null): Packed {
  return l
    ? [
      l.line1,
      l.line2,
      l.city,
      l.state,
      l.postal_code,
      l.country_code,
      l.phone,
      l.fax,
      l.lat,
      l.lon,
    ]
    : null;
}

function unpackLocation(v: Packed): Location | null {
  if (!Array.isArray(v)) return null;
  // Added after the address's keys, always in this order: one shape still.
  const l = unpackAddress(v) as Location;
  l.lat = v[8] as number | null;
  l.lon = v[9] as number | null;
  return l;
}

/** Packs a secondary location (also the stored form of a pl_pfile row). */
export function packOtherLocation(l: OtherLocation): Packed[] {
  return [...(packLocation(l) as Packed[]), l.phone_extension];
}

/** Unpacks a secondary location. */
export function unpackOtherLocation(v: Packed): OtherLocation {
  const row = v as Packed[];
  const l = unpackLocation(row) as OtherLocation;
  l.phone_extension = row[10] as string | null;
  return l;
}

/** The name keys of a person (individual or authorized official), in the order of the packed form. */
export const PERSON_KEYS = [
  "prefix",
  "first_name",
  "middle_name",
  "last_name",
  "suffix",
  "credential",
] as const;

/** Packs an endpoint (also the stored form of an endpoint_pfile row). */
export function packEndpoint(e: Endpoint): Packed[] {
  return [
    e.type,
    e.type_description,
    e.endpoint,
    e.description,
    e.affiliation,
    e.affiliation_name,
    e.use,
    e.use_description,
    e.content_type,
    e.content_description,
    packAddress(e.address),
  ];
}

/** Unpacks an endpoint. */
export function unpackEndpoint(v: Packed): Endpoint {
  const e = v as Packed[];
  return {
    type: e[0] as string | null,
    type_description: e[1] as string | null,
    endpoint: e[2] as string,
    description: e[3] as string | null,
    affiliation: e[4] as boolean | null,
    affiliation_name: e[5] as string | null,
    use: e[6] as string | null,
    use_description: e[7] as string | null,
    content_type: e[8] as string | null,
    content_description: e[9] as string | null,
    address: unpackAddress(e[10] ?? null),
  };
}

/**
 * The stored form of a provider record.
 *
 * @example
 * ```ts
 * const text = encodeProvider(provider);
 * decodeProvider(text, () => null).npi === provider.npi; // true
 * ```
 */
export function encodeProvider(p: Provider): string {
  const ind = p.individual;
  const org = p.organization;
  const ao = org?.authorized_official;
  const packed: Packed[] = [
    p.npi,
    p.entity_type === "individual" ? 1 : p.entity_type === "organization" ? 2 : 0,
    p.status === "active" ? 1 : 0,
    p.name,
    // In PERSON_KEYS order, then the rest.
    ind
      ? [
        ind.prefix,
        ind.first_name,
        ind.middle_name,
        ind.last_name,
        ind.suffix,
        ind.credential,
        ind.sex,
        ind.sole_proprietor,
      ]
      : null,
    org
      ? [
        org.name,
        org.subpart,
        org.parent_name,
        ao
          ? [
            ao.prefix,
            ao.first_name,
            ao.middle_name,
            ao.last_name,
            ao.suffix,
            ao.credential,
            ao.title,
            ao.phone,
          ]
          : null,
      ]
      : null,
    p.other_names.map((o) => [OTHER_NAME_TYPES.indexOf(o.type), o.name]),
    p.taxonomies.map((t) => [t.code, t.primary, t.license, t.state, t.group]),
    packLocation(p.practice_location),
    packAddress(p.mailing_address),
    p.other_locations.map(packOtherLocation),
    p.identifiers.map((i) => [i.type, i.identifier, i.state, i.issuer]),
    p.endpoints.map(packEndpoint),
    p.replacement_npi,
    p.enumeration_date,
    p.last_updated,
    p.certification_date,
    p.deactivation_date,
    p.reactivation_date,
  ];
  return JSON.stringify(packed);
}

/**
 * The provider record of a stored form; `describe` gives each taxonomy
 * code's description.
 */
export function decodeProvider(text: string, describe: (code: string) => string | null): Provider {
  const v = JSON.parse(text) as Packed[];
  const ind = v[4] as Packed[] | null;
  const org = v[5] as Packed[] | null;
  const ao = org ? (org[3] as Packed[] | null) : null;
  const individual: Individual | null = ind
    ? {
      prefix: ind[0] as string | null,
      first_name: ind[1] as string | null,
      middle_name: ind[2] as string | null,
      last_name: ind[3] as string | null,
      suffix: ind[4] as string | null,
      credential: ind[5] as string | null,
      sex: ind[6] as "M" | "F" | null,
      sole_proprietor: ind[7] as boolean | null,
    }
    : null;
  const official: AuthorizedOfficial | null = ao
    ? {
      prefix: ao[0] as string | null,
      first_name: ao[1] as string | null,
      middle_name: ao[2] as string | null,
      last_name: ao[3] as string | null,
      suffix: ao[4] as string | null,
      credential: ao[5] as string | null,
      title: ao[6] as string | null,
      phone: ao[7] as string | null,
    }
    : null;
  return {
    npi: v[0] as string,
    entity_type: v[1] === 1 ? "individual" : v[1] === 2 ? "organization" : null,
    status: v[2] === 1 ? "active" : "deactivated",
    name: v[3] as string,
    individual,
    organization: org
      ? {
        name: org[0] as string | null,
        subpart: org[1] as boolean | null,
        parent_name: org[2] as string | null,
        authorized_official: official,
      }
      : null,
    other_names: (v[6] as Packed[][]).map((o) => ({
      type: OTHER_NAME_TYPES[o[0] as number] ?? "other_name",
      name: o[1] as string,
    })),
    taxonomies: (v[7] as Packed[][]).map((t) => ({
      code: t[0] as string,
      description: describe(t[0] as string),
      primary: t[1] as boolean,
      license: t[2] as string | null,
      state: t[3] as string | null,
      group: t[4] as string | null,
    })),
    practice_location: unpackLocation(v[8] ?? null),
    mailing_address: unpackAddress(v[9] ?? null),
    other_locations: (v[10] as Packed[]).map(unpackOtherLocation),
    identifiers: (v[11] as Packed[][]).map((i) => ({
      type: i[0] as string,
      identifier: i[1] as string,
      state: i[2] as string | null,
      issuer: i[3] as string | null,
    })),
    endpoints: (v[12] as Packed[]).map(unpackEndpoint),
    replacement_npi: v[13] as string | null,
    enumeration_date: v[14] as string | null,
    last_updated: v[15] as string | null,
    certification_date: v[16] as string | null,
    deactivation_date: v[17] as string | null,
    reactivation_date: v[18] as string | null,
  };
}
