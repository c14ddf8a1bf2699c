/**
 * NPI Registry API results written straight from stored records, without
 * the record object: the stored form's strings are already JSON text as
 * `JSON.stringify` writes it (`stored_scanner.ts`), so names, codes and
 * lines are copied between the API's keys, and only what the API shows
 * otherwise (dashed phones, epochs, country names, taxonomy and
 * identifier descriptions) is read out and written anew. A record's
 * secondary locations, endpoints and other names, which only some records
 * have, go through the API's objects (`render.ts`). A stored form of
 * another shape is rendered the slow way, through the record object, so
 * the text is always that of `registryResult`.
 *
 * At 9.7 million records, over the 142,558 records of 2,500 of the
 * benchmark's `/api/` pages by city and state (each page's records read
 * once, rendered one way, then the other): 7.8–8.5 µs a record, against
 * 10.2–12.1 µs for decoding the record, building the API's objects and
 * `JSON.stringify`; every one of the 9,726,865 records written the same.
 *
 * @module
 */
import type { Endpoint, OtherLocation, OtherName } from "../provider.ts";
import { OTHER_NAME_TYPES } from "../store/codec.ts";
import type { StoredRecordRow } from "../store/record_batch.ts";
import { cellText, Scanner, UNEXPECTED, Unexpected } from "../store/stored_scanner.ts";
import { parseEndpoint, parseLocation, unpackOtherName } from "../store/sides.ts";
import {
  countryName,
  dashedPhone,
  type DescribeTaxonomy,
  endpoint,
  epochMillis,
  IDENTIFIER_CODES,
  IDENTIFIER_DESCRIPTIONS,
  otherName,
  practiceLocation,
} from "./render.ts";

/** `,"key":value` for a string scalar that is not empty; nothing for `""` or `null`. */
function text(key: string, json: string): string {
  if (json === "null" || json === '""') return "";
  if (json.charCodeAt(0) !== 34) throw UNEXPECTED;
  return `,"${key}":${json}`;
}

/** `,"key":"YES"` or `"NO"` for a boolean scalar; nothing for `null`. */
function yesNo(key: string, json: string): string {
  if (json === "true") return `,"${key}":"YES"`;
  if (json === "false") return `,"${key}":"NO"`;
  if (json === "null") return "";
  throw UNEXPECTED;
}

/** A string or `null` scalar's value (a string as JSON text otherwise throws). */
function stringOrNull(json: string): string | null {
  if (json === "null") return null;
  if (json.charCodeAt(0) !== 34) throw UNEXPECTED;
  return cellText(json);
}

/** A string-or-null scalar as the API shows it: `null` as `""`. */
function orEmpty(json: string): string {
  if (json === "null") return '""';
  if (json.charCodeAt(0) !== 34) throw UNEXPECTED;
  return json;
}

/** `,"key":"…"` for a phone or fax scalar that is not empty, dashed as the API shows it. */
function phone(key: string, json: string): string {
  const value = stringOrNull(json);
  return value ? `,"${key}":${JSON.stringify(dashedPhone(value))}` : "";
}

/** `,"key":"…"` for a date scalar the API shows as milliseconds since 1970. */
function epoch(key: string, json: string): string {
  const ms = epochMillis(stringOrNull(json));
  return ms ? `,"${key}":"${ms}"` : "";
}

/** A record rendered through its object: how {@linkcode RegistryText} renders the unexpected. */
export type SlowResult = (record: StoredRecordRow) => string;

/**
 * Writes `results` elements from stored records. Taxonomy descriptions come
 * from `describe`; their JSON, and each country's, is kept per code.
 *
 * @example
 * ```ts
 * const text = new RegistryText(describe, (row) => {
 *   const [{ provider }] = store.getProvidersById([row.id], [row]);
 *   return JSON.stringify(registryResult(provider, describe));
 * });
 * JSON.parse(text.json(row)).number; // "1003000126"
 * ```
 */
export class RegistryText {
  readonly #describe: DescribeTaxonomy;
  readonly #slow: SlowResult;
  readonly #descriptions = new Map<string, string>();
  readonly #countries = new Map<string, string>();
  readonly #r = new Scanner();
  /** Records rendered through the record object (stored forms of an unexpected shape). */
  slowPath = 0;

  constructor(describe: DescribeTaxonomy, slow: SlowResult) {
    this.#describe = describe;
    this.#slow = slow;
  }

  /** The record's `results` element as JSON text. */
  json(record: StoredRecordRow): string {
    try {
      return this.#json(record);
    } catch (error) {
      if (!(error instanceof Unexpected)) throw error;
      this.slowPath++;
      return this.#slow(record);
    }
  }

  /** `"desc":…` of a taxonomy code scalar. */
  #description(codeJson: string): string {
    let out = this.#descriptions.get(codeJson);
    if (out === undefined) {
      const code = stringOrNull(codeJson);
      if (code === null) throw UNEXPECTED;
      out = JSON.stringify(this.#describe(code));
      this.#descriptions.set(codeJson, out);
    }
    return out;
  }

  /** An address's opening: its country's code and name (US when none), and the API's type. */
  #country(codeJson: string, purpose: string): string {
    const key = `${purpose}${codeJson}`;
    let out = this.#countries.get(key);
    if (out === undefined) {
      const country = (stringOrNull(codeJson) || "US").toUpperCase();
      out = `{"country_code":${JSON.stringify(country)},"country_name":${
        JSON.stringify(countryName(country))
      },"address_purpose":"${purpose}","address_type":"${country === "US" ? "DOM" : "FGN"}"`;
      this.#countries.set(key, out);
    }
    return out;
  }

  /** An address from its stored list, opened: `width` scalars (the last ones not shown). */
  #address(r: Scanner, purpose: string, width: number): string {
    const line1 = r.scalar(), line2 = r.next(), city = r.next(), state = r.next();
    const postal = r.next(), country = r.next(), tel = r.next(), fax = r.next();
    for (let k = 8; k < width; k++) r.next();
    r.close();
    return `${this.#country(country, purpose)}${text("address_1", line1)}${
      text("address_2", line2)
    }${text("city", city)}${text("state", state)}${text("postal_code", postal)}${
      phone("telephone_number", tel)
    }${phone("fax_number", fax)}}`;
  }

  #json(record: StoredRecordRow): string {
    const r = this.#r.reset(record.doc);
    r.open();
    const npi = r.scalar();
    const kind = r.next();
    const active = r.next() === "1";
    r.next(); // the display name: not shown
    r.comma();
    let basic = "", official = "", parent = "";
    const individual = r.openOrNull();
    if (individual) {
      const prefix = r.scalar(), first = r.next(), middle = r.next(), last = r.next();
      const suffix = r.next(), credential = r.next(), sex = r.next(), sole = r.next();
      r.close();
      basic = text("name_prefix", prefix) + text("first_name", first) + text("last_name", last) +
        text("middle_name", middle) + text("name_suffix", suffix) +
        text("credential", credential) + yesNo("sole_proprietor", sole) + text("sex", sex);
    }
    r.comma();
    if (r.openOrNull()) {
      const name = r.scalar(), subpart = r.next(), parentName = r.next();
      r.comma();
      if (r.openOrNull()) {
        const prefix = r.scalar(), first = r.next(), middle = r.next(), last = r.next();
        const suffix = r.next(), credential = r.next(), title = r.next(), tel = r.next();
        r.close();
        official = text("authorized_official_credential", credential) +
          text("authorized_official_first_name", first) +
          text("authorized_official_last_name", last) +
          text("authorized_official_middle_name", middle) +
          text("authorized_official_name_prefix", prefix) +
          text("authorized_official_name_suffix", suffix) +
          text("authorized_official_telephone_number", tel) +
          text("authorized_official_title_or_position", title);
      }
      r.close();
      if (!individual) {
        basic = text("organization_name", name) + yesNo("organizational_subpart", subpart);
      }
      parent = text("parent_organization_legal_business_name", parentName);
    }
    r.comma();
    const names = this.#otherNames(r, record);
    r.comma();
    let taxonomies = "";
    r.open();
    if (!r.empty()) {
      do {
        r.open();
        const code = r.scalar(), primary = r.next(), license = r.next(), state = r.next();
        const group = r.next();
        r.close();
        if (primary !== "true" && primary !== "false" && primary !== "null") throw UNEXPECTED;
        taxonomies += `${taxonomies ? "," : ""}{"code":${code},"taxonomy_group":${
          orEmpty(group)
        },"desc":${this.#description(code)},"state":${orEmpty(state)},"license":${
          orEmpty(license)
        },"primary":${primary}}`;
      } while (r.more());
    }
    r.comma();
    let addresses = "";
    if (r.openOrNull()) addresses = this.#address(r, "LOCATION", 10);
    r.comma();
    if (r.openOrNull()) {
      addresses += `${addresses ? "," : ""}${this.#address(r, "MAILING", 8)}`;
    }
    r.comma();
    // Secondary locations and endpoints are reference rows: the record's own lists stay empty.
    r.open();
    if (!r.empty()) throw UNEXPECTED;
    r.comma();
    const identifiers = this.#identifiers(r);
    r.comma();
    r.open();
    if (!r.empty()) throw UNEXPECTED;
    r.next(); // the replacement NPI: not shown
    const enumerated = r.next(), updated = r.next(), certified = r.next();
    const deactivated = r.next(), reactivated = r.next();
    r.close();
    r.end();
    basic += text("enumeration_date", enumerated) + text("last_updated", updated) +
      text("certification_date", certified) + `,"status":"${active ? "A" : "D"}"` +
      text("deactivation_date", deactivated) + text("reactivation_date", reactivated) +
      official + parent;
    const sides = record.sides !== 0;
    const locations: OtherLocation[] = sides ? record.locations.map(parseLocation) : [];
    const endpoints: Endpoint[] = sides ? record.endpoints.map(parseEndpoint) : [];
    return `{"enumeration_type":"${kind === "2" ? "NPI-2" : "NPI-1"}","number":${npi}${
      epoch("last_updated_epoch", updated)
    }${epoch("created_epoch", enumerated)},"basic":{${basic.slice(1)}},"other_names":${
      names.length === 0 ? "[]" : JSON.stringify(names.map((o) => otherName(o, individual)))
    },"addresses":[${addresses}],"practiceLocations":${
      locations.length === 0 ? "[]" : JSON.stringify(locations.map(practiceLocation))
    },"taxonomies":[${taxonomies}],"identifiers":[${identifiers}],"endpoints":${
      endpoints.length === 0 ? "[]" : JSON.stringify(endpoints.map(endpoint))
    }}`;
  }

  /** The record's other names and its reference rows' (not repeating one), as `withSides` joins them. */
  #otherNames(r: Scanner, record: StoredRecordRow): OtherName[] {
    const names: OtherName[] = [];
    r.open();
    if (!r.empty()) {
      do {
        r.open();
        const index = r.scalar();
        const name = stringOrNull(r.next());
        r.close();
        if (!/^\d+$/.test(index) || name === null) throw UNEXPECTED;
        names.push({ type: OTHER_NAME_TYPES[Number(index)] ?? "other_name", name });
      } while (r.more());
    }
    if (record.sides !== 0 && record.otherNames.length > 0) {
      const seen = new Set(names.map((o) => `${o.type}:${o.name}`));
      for (const doc of record.otherNames) {
        const o = unpackOtherName(doc);
        if (!seen.has(`${o.type}:${o.name}`)) names.push(o);
      }
    }
    return names;
  }

  /** The record's identifiers (`[type, identifier, state, issuer]` each), as the API's objects. */
  #identifiers(r: Scanner): string {
    let out = "";
    r.open();
    if (r.empty()) return out;
    do {
      r.open();
      const type = stringOrNull(r.scalar());
      const id = r.next(), state = r.next(), issuer = r.next();
      r.close();
      if (type === null || !Object.hasOwn(IDENTIFIER_CODES, type)) throw UNEXPECTED;
      const code = IDENTIFIER_CODES[type]!;
      if (id !== "null" && id.charCodeAt(0) !== 34) throw UNEXPECTED;
      out += `${out ? "," : ""}{"code":"${code}","desc":${
        JSON.stringify(IDENTIFIER_DESCRIPTIONS[code] ?? "Other")
      },"issuer":${orEmpty(issuer)},"identifier":${id},"state":${orEmpty(state)}}`;
    } while (r.more());
    return out;
  }
}
