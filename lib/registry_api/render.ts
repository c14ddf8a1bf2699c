/**
 * The NPI Registry API v2.1 response, field for field, from the service's
 * provider records, in the API's current form: `number` and the epochs as
 * strings (epochs in milliseconds), `sex` (not the older `gender`), no
 * `basic.name`, keys present only when filled.
 *
 * @module
 */
import type {
  Address,
  Endpoint,
  Identifier,
  OtherLocation,
  OtherName,
  Provider,
  Taxonomy,
} from "../provider.ts";
import type { ProviderStore } from "../store/store.ts";
import type { TaxonomyEntry } from "../taxonomy/nucc.ts";
import { taxonomyDesc } from "./query.ts";
import { digitsValue } from "../text/digits.ts";

/** A JSON object of the response. */
export type Json = Record<string, unknown>;

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const COUNTRY_OVERRIDES: Readonly<Record<string, string>> = {
  US: "United States",
  UM: "United States Minor Outlying Islands",
};

/**
 * The country name the API shows for a code (`Unknown Country Name for XX`
 * when the code is not a country).
 *
 * @example
 * ```ts
 * countryName("DE"); // "Germany"
 * ```
 */
export function countryName(code: string): string {
  const override = COUNTRY_OVERRIDES[code];
  if (override) return override;
  let name: string | undefined;
  try {
    name = /^[A-Z]{2}$/.test(code) ? regionNames.of(code) : undefined;
  } catch {
    name = undefined;
  }
  return name && name !== code && name !== "Unknown Region"
    ? name
    : `Unknown Country Name for ${code}`;
}

/**
 * A phone number as the API shows it in addresses: `xxx-xxx-xxxx` for ten
 * digits, else as stored.
 *
 * @example
 * ```ts
 * dashedPhone("4105325258"); // "410-532-5258"
 * ```
 */
export function dashedPhone(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  return digits.length === 10
    ? `${digits.slice(0, 3)}-${digits.slice(3, 6)}-${digits.slice(6)}`
    : phone;
}

/**
 * An ISO date as the API's epoch: milliseconds since 1970, as a string
 * (midnight UTC: the files carry dates, not times). A `YYYY-MM-DD` date
 * with a month of 1–12 and a day of 1–31 is read from its digits by
 * `Date.UTC` and its text kept by day (a page of 200 records has 400 dates;
 * a day past its month's end rolls over into the next, as `Date.parse`
 * does); anything else is left to `Date.parse`, and what it cannot read is
 * null.
 *
 * @example
 * ```ts
 * epochMillis("2007-02-15"); // "1171497600000"
 * ```
 */
export function epochMillis(date: string | null): string | null {
  if (!date) return null;
  if (date.length === 10 && date.charCodeAt(4) === DASH && date.charCodeAt(7) === DASH) {
    const year = digitsValue(date, 0, 4), month = digitsValue(date, 5, 7);
    const day = digitsValue(date, 8, 10);
    // Below year 100 `Date.UTC` reads a year of the 1900s: such dates go to `Date.parse`.
    if (year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31) {
      const ms = Date.UTC(year, month - 1, day);
      const slot = ms / DAY_MS - FIRST_KEPT_DAY;
      if (slot < 0 || slot >= epochTexts.length) return String(ms);
      return epochTexts[slot] ??= String(ms);
    }
  }
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? null : String(ms);
}

const DASH = 0x2d, DAY_MS = 86_400_000;
/** The first day whose epoch text is kept (1900-01-01, in days since 1970), and how many are. */
const FIRST_KEPT_DAY = -25_567, KEPT_DAYS = 73_050;
/** Epoch texts of the days from {@linkcode FIRST_KEPT_DAY} on, made once each (to 2099). */
const epochTexts: (string | undefined)[] = new Array(KEPT_DAYS);

/** Sets `key` only when `value` is a non-empty string. */
function put(out: Json, key: string, value: string | null | undefined): void {
  if (value) out[key] = value;
}

function yesNo(value: boolean | null): string | null {
  return value === null ? null : value ? "YES" : "NO";
}

/** The country of an address-like object: its code, name and the API's address type. */
function addressFields(
  a: Address,
): { country_code: string; country_name: string; address_type: string } {
  const country = (a.country_code || "US").toUpperCase();
  return {
    country_code: country,
    country_name: countryName(country),
    address_type: country === "US" ? "DOM" : "FGN",
  };
}

function address(a: Address, purpose: "LOCATION" | "MAILING"): Json {
  const base = addressFields(a);
  const out: Json = {
    country_code: base.country_code,
    country_name: base.country_name,
    address_purpose: purpose,
    address_type: base.address_type,
  };
  put(out, "address_1", a.line1);
  put(out, "address_2", a.line2);
  put(out, "city", a.city);
  put(out, "state", a.state);
  put(out, "postal_code", a.postal_code);
  if (a.phone) out.telephone_number = dashedPhone(a.phone);
  if (a.fax) out.fax_number = dashedPhone(a.fax);
  return out;
}

/** One element of `practiceLocations`: a secondary practice location. */
export function practiceLocation(l: OtherLocation): Json {
  const base = addressFields(l);
  const out: Json = { address_type: base.address_type };
  put(out, "address_1", l.line1);
  put(out, "address_2", l.line2);
  put(out, "city", l.city);
  put(out, "state", l.state);
  put(out, "postal_code", l.postal_code);
  out.country_code = base.country_code;
  out.country_name = base.country_name;
  if (l.phone) out.telephone_number = dashedPhone(l.phone);
  put(out, "telephone_extension", l.phone_extension);
  if (l.fax) out.fax_number = dashedPhone(l.fax);
  return out;
}

/** Descriptions of taxonomy codes, by code. */
export type DescribeTaxonomy = (code: string) => string;

function taxonomy(t: Taxonomy, describe: DescribeTaxonomy): Json {
  return {
    code: t.code,
    taxonomy_group: t.group ?? "",
    desc: describe(t.code),
    state: t.state ?? "",
    license: t.license ?? "",
    primary: t.primary,
  };
}

/** The API's identifier type codes, by the record's identifier type. */
export const IDENTIFIER_CODES: Readonly<Record<string, string>> = {
  other: "01",
  medicare_upin: "02",
  medicare_id: "04",
  medicaid: "05",
  medicare_oscar: "06",
  medicare_nsc: "07",
  medicare_pin: "08",
};

/** The API's description of each identifier type code. */
export const IDENTIFIER_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "01": "Other (non-Medicare)",
  "02": "Medicare UPIN",
  "04": "Medicare ID-Type Unspecified",
  "05": "MEDICAID",
  "06": "Medicare OSCAR/Certification",
  "07": "Medicare NSC",
  "08": "Medicare PIN",
};

function identifier(i: Identifier): Json {
  const code = IDENTIFIER_CODES[i.type] ?? i.type;
  return {
    code,
    desc: IDENTIFIER_DESCRIPTIONS[code] ?? "Other",
    issuer: i.issuer ?? "",
    identifier: i.identifier,
    state: i.state ?? "",
  };
}

const OTHER_NAME_CODES: Readonly<Record<OtherName["type"], [string, string]>> = {
  former_name: ["1", "Former Name"],
  professional_name: ["2", "Professional Name"],
  doing_business_as: ["3", "Doing Business As"],
  former_legal_business_name: ["4", "Former Legal Business Name"],
  other_name: ["5", "Other Name"],
};

const NAME_PREFIXES = new Set([
  "DR",
  "DR.",
  "MR",
  "MR.",
  "MRS",
  "MRS.",
  "MS",
  "MS.",
  "MISS",
  "PROF",
  "PROF.",
]);
const NAME_SUFFIXES = new Set(["JR", "JR.", "SR", "SR.", "I", "II", "III", "IV", "V"]);

/**
 * A person's other name, split back into parts. The record keeps it as one
 * string (prefix, first, middle, last, suffix, credential), so the split is
 * a best effort: a known prefix and suffix are recognised, words after a
 * comma are the credential, the first word is the first name, the last the
 * last name, and anything between the middle name.
 */
function personOtherName(name: string): Json {
  const [main = "", ...credentialParts] = name.split(",");
  const words = main.trim().split(/\s+/).filter((w) => w);
  const out: Json = {};
  if (words.length > 1 && NAME_PREFIXES.has(words[0]!.toUpperCase())) {
    out.prefix = words.shift();
  }
  let suffix: string | undefined;
  if (words.length > 2 && NAME_SUFFIXES.has(words.at(-1)!.toUpperCase())) suffix = words.pop();
  if (words.length === 1) out.last_name = words[0];
  else if (words.length > 1) {
    out.first_name = words[0];
    out.last_name = words.at(-1);
    if (words.length > 2) out.middle_name = words.slice(1, -1).join(" ");
  }
  if (suffix) out.suffix = suffix;
  const credential = credentialParts.join(",").trim();
  if (credential) out.credential = credential;
  return out;
}

/** One element of `other_names`: a person's split into parts, an organization's whole. */
export function otherName(o: OtherName, individual: boolean): Json {
  const [code, type] = OTHER_NAME_CODES[o.type] ?? ["5", "Other Name"];
  return individual
    ? { type, code, ...personOtherName(o.name) }
    : { organization_name: o.name, code, type };
}

/** One element of `endpoints`. */
export function endpoint(e: Endpoint): Json {
  const out: Json = {
    endpointType: e.type ?? "",
    endpointTypeDescription: e.type_description ?? "",
    endpoint: e.endpoint,
    endpointDescription: e.description ?? "",
    affiliation: e.affiliation === null ? "" : e.affiliation ? "Y" : "N",
    affiliationName: e.affiliation_name ?? "",
    use: e.use ?? "",
    useDescription: e.use_description ?? "",
    useOtherDescription: "",
    contentType: e.content_type ?? "",
    contentTypeDescription: e.content_description ?? "",
    contentOtherDescription: "",
  };
  const a = e.address;
  if (a) {
    const base = addressFields(a);
    Object.assign(out, {
      address_1: a.line1 ?? "",
      address_2: a.line2 ?? "",
      address_type: base.address_type,
      city: a.city ?? "",
      state: a.state ?? "",
      postal_code: a.postal_code ?? "",
      country_code: base.country_code,
      country_name: base.country_name,
    });
  }
  return out;
}

function basic(p: Provider): Json {
  const out: Json = {};
  const ind = p.individual;
  const org = p.organization;
  if (ind) {
    put(out, "name_prefix", ind.prefix);
    put(out, "first_name", ind.first_name);
    put(out, "last_name", ind.last_name);
    put(out, "middle_name", ind.middle_name);
    put(out, "name_suffix", ind.suffix);
    put(out, "credential", ind.credential);
    put(out, "sole_proprietor", yesNo(ind.sole_proprietor));
    put(out, "sex", ind.sex);
  } else if (org) {
    put(out, "organization_name", org.name);
    put(out, "organizational_subpart", yesNo(org.subpart));
  }
  put(out, "enumeration_date", p.enumeration_date);
  put(out, "last_updated", p.last_updated);
  put(out, "certification_date", p.certification_date);
  out.status = p.status === "active" ? "A" : "D";
  put(out, "deactivation_date", p.deactivation_date);
  put(out, "reactivation_date", p.reactivation_date);
  const ao = org?.authorized_official;
  if (ao) {
    put(out, "authorized_official_credential", ao.credential);
    put(out, "authorized_official_first_name", ao.first_name);
    put(out, "authorized_official_last_name", ao.last_name);
    put(out, "authorized_official_middle_name", ao.middle_name);
    put(out, "authorized_official_name_prefix", ao.prefix);
    put(out, "authorized_official_name_suffix", ao.suffix);
    put(out, "authorized_official_telephone_number", ao.phone);
    put(out, "authorized_official_title_or_position", ao.title);
  }
  if (org) put(out, "parent_organization_legal_business_name", org.parent_name);
  return out;
}

/**
 * One element of `results`, as the API's objects: what the text
 * `registry_text.ts` writes from a stored record must equal (through
 * `JSON.stringify`), and how a record of an unexpected stored form is
 * rendered.
 *
 * @example
 * ```ts
 * registryResult(provider, (code) => "Internal Medicine").number; // "1003000126"
 * ```
 */
export function registryResult(p: Provider, describe: DescribeTaxonomy): Json {
  const addresses: Json[] = [];
  if (p.practice_location) addresses.push(address(p.practice_location, "LOCATION"));
  if (p.mailing_address) addresses.push(address(p.mailing_address, "MAILING"));
  const out: Json = {
    enumeration_type: p.entity_type === "organization" ? "NPI-2" : "NPI-1",
    number: p.npi,
  };
  const updated = epochMillis(p.last_updated);
  const created = epochMillis(p.enumeration_date);
  if (updated) out.last_updated_epoch = updated;
  if (created) out.created_epoch = created;
  out.basic = basic(p);
  out.other_names = p.other_names.map((o) => otherName(o, p.individual !== null));
  out.addresses = addresses;
  out.practiceLocations = p.other_locations.map(practiceLocation);
  out.taxonomies = p.taxonomies.map((t) => taxonomy(t, describe));
  out.identifiers = p.identifiers.map(identifier);
  out.endpoints = p.endpoints.map(endpoint);
  return out;
}

const describers = new WeakMap<ProviderStore, DescribeTaxonomy>();

/** The API's taxonomy descriptions of a store's code set (built once per store). */
export function taxonomyDescriber(store: ProviderStore): DescribeTaxonomy {
  let describe = describers.get(store);
  if (!describe) {
    const entries = new Map<string, TaxonomyEntry>(store.taxonomy().map((t) => [t.code, t]));
    describe = (code) => {
      const entry = entries.get(code);
      return entry ? taxonomyDesc(entry) : "";
    };
    describers.set(store, describe);
  }
  return describe;
}
