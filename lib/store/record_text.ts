/**
 * Provider records as text straight from their stored form: the JSON of the
 * public record (`JSON.stringify` of what `decodeProvider` and `withSides`
 * build) and the export's CSV line, written without building the record
 * object first. The stored form is JSON written by `JSON.stringify`, so its
 * strings and numbers are already in the form `JSON.stringify` writes them:
 * they are copied as they are, between the record's keys. A stored form of
 * any other shape (an array of another length, a value where a list
 * belongs) is rendered the slow way, through the record object, so the text
 * is always the same as the object's.
 *
 * Costs at 1 million records (`bench/export_phases.ts`, CPU time on a
 * shared machine): about 6 µs a record for the JSON against 9 µs for
 * decoding into the record object and `JSON.stringify`.
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import { ADDRESS_KEYS, decodeProvider, PERSON_KEYS } from "./codec.ts";
import { csvCell, providerCsvLine } from "./flat_records.ts";
import { parseEndpoint, parseLocation, unpackOtherName, withSides } from "./sides.ts";
import { cellText, Scanner, UNEXPECTED, Unexpected } from "./stored_scanner.ts";

/** A stored record with its rows of the reference files, as read from the database. */
export interface StoredRecord {
  /** The record's stored form (`encodeProvider`). */
  doc: string;
  /** The provider row's `sides` bits (`SIDE` in `sides.ts`): which reference tables were joined. */
  sides: number;
  /** Stored other names (`packOtherName`), in table order. */
  otherNames: readonly string[];
  /** Stored secondary locations (`packOtherLocation` as JSON), in table order. */
  locations: readonly string[];
  /** Stored endpoints (`packEndpoint` as JSON), in table order. */
  endpoints: readonly string[];
}

const OTHER_NAME_TYPES = [
  '"former_name"',
  '"professional_name"',
  '"doing_business_as"',
  '"former_legal_business_name"',
  '"other_name"',
];

/** Whether a scalar's value is truthy in JavaScript. */
function truthy(json: string): boolean {
  if (json === "null" || json === "false" || json === '""') return false;
  if (json.charCodeAt(0) === 34 || json === "true") return true;
  return Number(json) !== 0;
}

/** `"key":value` pairs of `keys` over as many scalars of a list already opened; reads its `]`. */
function pairs(r: Scanner, keys: readonly string[]): string {
  let out = `${keys[0]}${r.scalar()}`;
  for (let k = 1; k < keys.length; k++) out += `${keys[k]}${r.next()}`;
  r.close();
  return out;
}

/** Keys as the text before each value: `"line1":` first, `,"line2":` after. */
function keyHeads(names: readonly string[]): readonly string[] {
  return names.map((name, i) => `${i === 0 ? "" : ","}"${name}":`);
}

const ADDRESS = keyHeads(ADDRESS_KEYS);
const LOCATION = [...ADDRESS, ',"lat":', ',"lon":'];
const OTHER_LOCATION = [...LOCATION, ',"phone_extension":'];
const PERSON = keyHeads(PERSON_KEYS);
const INDIVIDUAL = [...PERSON, ',"sex":', ',"sole_proprietor":'];
const OFFICIAL = [...PERSON, ',"title":', ',"phone":'];
const IDENTIFIER = keyHeads(["type", "identifier", "state", "issuer"]);
const ENDPOINT = keyHeads([
  "type",
  "type_description",
  "endpoint",
  "description",
  "affiliation",
  "affiliation_name",
  "use",
  "use_description",
  "content_type",
  "content_description",
]);

/** An object of `keys` from a list of scalars, or `null`. */
function objectOrNull(r: Scanner, keys: readonly string[]): string {
  return r.openOrNull() ? `{${pairs(r, keys)}}` : "null";
}

/** A list of objects of `keys`, each stored as a list of scalars. */
function objectList(r: Scanner, keys: readonly string[]): string {
  r.open();
  if (r.empty()) return "[]";
  let out = "[";
  do {
    r.open();
    out += `{${pairs(r, keys)}},`;
  } while (r.more());
  return `${out.slice(0, -1)}]`;
}

/** An endpoint object from its stored list, opened. */
function endpointObject(r: Scanner): string {
  let out = `{${ENDPOINT[0]}${r.scalar()}`;
  for (let k = 1; k < ENDPOINT.length; k++) out += `${ENDPOINT[k]}${r.next()}`;
  r.comma();
  out += `,"address":${objectOrNull(r, ADDRESS)}}`;
  r.close();
  return out;
}

/** One main-file other name: its type's and name's JSON. */
interface NameJson {
  type: string;
  name: string;
}

/**
 * Renders stored records as text. Taxonomy descriptions come from
 * `describe`; their JSON is kept per code.
 *
 * @example
 * ```ts
 * const render = new RecordText(store.describe);
 * render.json({ doc, sides: 0, otherNames: [], locations: [], endpoints: [] }); // '{"npi":...}'
 * ```
 */
export class RecordText {
  readonly #describe: (code: string) => string | null;
  readonly #descriptions = new Map<string, string>();
  readonly #r = new Scanner();
  readonly #side = new Scanner();
  /** Records rendered through the record object (stored forms of an unexpected shape). */
  slowPath = 0;

  constructor(describe: (code: string) => string | null) {
    this.#describe = describe;
  }

  /** The record as the JSON text of its {@linkcode Provider} object. */
  json(record: StoredRecord): string {
    try {
      return this.#json(record);
    } catch (error) {
      if (!(error instanceof Unexpected)) throw error;
      this.slowPath++;
      return JSON.stringify(this.provider(record));
    }
  }

  /** The record as one CSV line of the export's columns (`providerCsvLine`). */
  csv(record: StoredRecord): string {
    try {
      return this.#csv(record);
    } catch (error) {
      if (!(error instanceof Unexpected)) throw error;
      this.slowPath++;
      return providerCsvLine(this.provider(record));
    }
  }

  /** The record object, the slow way (what the text must equal). */
  provider(record: StoredRecord): Provider {
    const base = decodeProvider(record.doc, this.#describe);
    if (record.sides === 0) return base;
    return withSides(base, {
      otherNames: record.otherNames.map(unpackOtherName),
      locations: record.locations.map(parseLocation),
      endpoints: record.endpoints.map(parseEndpoint),
    });
  }

  #description(codeJson: string): string {
    let text = this.#descriptions.get(codeJson);
    if (text === undefined) {
      const code = JSON.parse(codeJson);
      text = JSON.stringify(typeof code === "string" ? this.#describe(code) : null);
      this.#descriptions.set(codeJson, text);
    }
    return text;
  }

  /** The main file's other names, as JSON pairs. */
  #otherNames(r: Scanner): NameJson[] {
    const names: NameJson[] = [];
    r.open();
    if (r.empty()) return names;
    do {
      r.open();
      const index = r.scalar();
      const name = r.next();
      // withSides compares names as text: a name that is not a string goes the slow way.
      if (!/^-?\d+$/.test(index) || name.charCodeAt(0) !== 34) throw UNEXPECTED;
      names.push({ type: OTHER_NAME_TYPES[Number(index)] ?? '"other_name"', name });
      r.close();
    } while (r.more());
    return names;
  }

  /** The reference file's other names not already among `names` (as `withSides` adds them). */
  #extraNames(record: StoredRecord, names: readonly NameJson[]): NameJson[] {
    if (record.sides === 0 || record.otherNames.length === 0) return [];
    const key = (n: NameJson) => `${cellText(n.type)}:${cellText(n.name)}`;
    const seen = new Set(names.map(key));
    const extra: NameJson[] = [];
    const r = this.#side;
    for (const doc of record.otherNames) {
      r.reset(doc).open();
      const type = r.scalar();
      const name = r.next();
      r.close();
      r.end();
      if (type.charCodeAt(0) !== 34 || name.charCodeAt(0) !== 34) throw UNEXPECTED;
      if (!seen.has(key({ type, name }))) extra.push({ type, name });
    }
    return extra;
  }

  #json(record: StoredRecord): string {
    const r = this.#r.reset(record.doc);
    r.open();
    let out = `{"npi":${r.scalar()}`;
    const kind = r.next();
    out += `,"entity_type":${
      kind === "1" ? '"individual"' : kind === "2" ? '"organization"' : "null"
    }`;
    out += `,"status":${r.next() === "1" ? '"active"' : '"deactivated"'}`;
    out += `,"name":${r.next()}`;
    r.comma();
    out += `,"individual":${objectOrNull(r, INDIVIDUAL)}`;
    r.comma();
    if (r.openOrNull()) {
      out +=
        `,"organization":{"name":${r.scalar()},"subpart":${r.next()},"parent_name":${r.next()}`;
      r.comma();
      out += `,"authorized_official":${objectOrNull(r, OFFICIAL)}}`;
      r.close();
    } else out += ',"organization":null';
    r.comma();
    const names = this.#otherNames(r);
    names.push(...this.#extraNames(record, names));
    out += ',"other_names":[';
    for (let k = 0; k < names.length; k++) {
      out += `${k === 0 ? "" : ","}{"type":${names[k]!.type},"name":${names[k]!.name}}`;
    }
    r.comma();
    out += '],"taxonomies":[';
    r.open();
    if (!r.empty()) {
      let first = true;
      do {
        r.open();
        const code = r.scalar();
        out += `${first ? "" : ","}{"code":${code},"description":${this.#description(code)}` +
          `,"primary":${r.next()},"license":${r.next()},"state":${r.next()},"group":${r.next()}}`;
        r.close();
        first = false;
      } while (r.more());
    }
    r.comma();
    out += `],"practice_location":${objectOrNull(r, LOCATION)}`;
    r.comma();
    out += `,"mailing_address":${objectOrNull(r, ADDRESS)}`;
    r.comma();
    const mainLocations = objectList(r, OTHER_LOCATION);
    r.comma();
    out += `,"other_locations":${
      record.sides === 0 ? mainLocations : this.#sideList(record.locations, OTHER_LOCATION)
    }`;
    out += `,"identifiers":${objectList(r, IDENTIFIER)}`;
    r.comma();
    const mainEndpoints = this.#endpoints(r);
    out += `,"endpoints":${record.sides === 0 ? mainEndpoints : this.#sideEndpoints(record)}`;
    out += `,"replacement_npi":${r.next()},"enumeration_date":${r.next()}` +
      `,"last_updated":${r.next()},"certification_date":${r.next()}` +
      `,"deactivation_date":${r.next()},"reactivation_date":${r.next()}}`;
    r.close();
    r.end();
    return out;
  }

  #endpoints(r: Scanner): string {
    r.open();
    if (r.empty()) return "[]";
    let out = "[";
    do {
      r.open();
      out += `${endpointObject(r)},`;
    } while (r.more());
    return `${out.slice(0, -1)}]`;
  }

  #sideList(docs: readonly string[], keys: readonly string[]): string {
    if (docs.length === 0) return "[]";
    const r = this.#side;
    let out = "[";
    for (const doc of docs) {
      r.reset(doc).open();
      out += `{${pairs(r, keys)}},`;
      r.end();
    }
    return `${out.slice(0, -1)}]`;
  }

  #sideEndpoints(record: StoredRecord): string {
    if (record.endpoints.length === 0) return "[]";
    const r = this.#side;
    let out = "[";
    for (const doc of record.endpoints) {
      r.reset(doc).open();
      out += `${endpointObject(r)},`;
      r.end();
    }
    return `${out.slice(0, -1)}]`;
  }

  /** Skips a list of lists of scalars, returning how many lists it held. */
  #countLists(r: Scanner, width: number, nested: number): number {
    r.open();
    if (r.empty()) return 0;
    let count = 0;
    do {
      r.open();
      for (let k = 0; k < width; k++) {
        if (k > 0) r.comma();
        if (k === nested) {
          if (r.openOrNull()) {
            r.scalar();
            for (let a = 1; a < ADDRESS.length; a++) r.next();
            r.close();
          }
        } else r.scalar();
      }
      r.close();
      count++;
    } while (r.more());
    return count;
  }

  #csv(record: StoredRecord): string {
    const r = this.#r.reset(record.doc);
    r.open();
    const npi = r.scalar();
    const kind = r.next();
    const status = r.next() === "1" ? "active" : "deactivated";
    const name = r.next();
    // The CSV line takes the NPI and name as strings; anything else goes the slow way.
    if (npi.charCodeAt(0) !== 34 || name.charCodeAt(0) !== 34) throw UNEXPECTED;
    let line = `${cell(npi)},${
      kind === "1" ? "individual" : kind === "2" ? "organization" : ""
    },${status},${cell(name)}`;
    r.comma();
    if (r.openOrNull()) {
      r.scalar(); // prefix
      for (let k = 1; k < 7; k++) line += `,${cell(r.next())}`; // first name ... sex
      r.next(); // sole proprietor
      r.close();
    } else line += ",,,,,,";
    r.comma();
    if (r.openOrNull()) {
      line += `,${cell(r.scalar())}`;
      r.next();
      r.next();
      r.comma();
      if (r.openOrNull()) {
        r.scalar();
        for (let k = 1; k < OFFICIAL.length; k++) r.next();
        r.close();
      }
      r.close();
    } else line += ",";
    r.comma();
    const names = this.#otherNames(r);
    const extra = this.#extraNames(record, names);
    let joined = "";
    for (let k = 0; k < names.length; k++) {
      joined += `${k === 0 ? "" : "|"}${cellText(names[k]!.name)}`;
    }
    for (let k = 0; k < extra.length; k++) {
      joined += `${names.length + k === 0 ? "" : "|"}${cellText(extra[k]!.name)}`;
    }
    line += `,${csvCell(joined)}`;
    r.comma();
    // Taxonomies: [code, primary, license, state, group]; the primary is the first truthy one.
    const codes: string[] = [];
    let primary = -1;
    let license = "", state = "";
    r.open();
    if (!r.empty()) {
      do {
        r.open();
        codes.push(r.scalar());
        const isPrimary = truthy(r.next());
        const slotLicense = r.next();
        const slotState = r.next();
        r.next();
        r.close();
        if ((isPrimary && primary < 0) || codes.length === 1) {
          if (isPrimary && primary < 0) primary = codes.length - 1;
          license = slotLicense;
          state = slotState;
        }
      } while (r.more());
    }
    if (codes.length === 0) line += ",,,,,";
    else {
      const first = primary < 0 ? 0 : primary;
      const code = codes[first]!;
      let all = cellText(code);
      for (let k = 0; k < codes.length; k++) if (k !== first) all += `|${cellText(codes[k]!)}`;
      line += `,${cell(code)},${cell(this.#description(code))},${csvCell(all)},${cell(license)},${
        cell(state)
      }`;
    }
    r.comma();
    if (r.openOrNull()) {
      line += `,${cell(r.scalar())}`;
      for (let k = 1; k < LOCATION.length; k++) line += `,${cell(r.next())}`;
      r.close();
    } else line += ",,,,,,,,,,";
    r.comma();
    if (r.openOrNull()) {
      line += `,${cell(r.scalar())}`;
      for (let k = 1; k < 5; k++) line += `,${cell(r.next())}`;
      for (let k = 5; k < ADDRESS.length; k++) r.next();
      r.close();
    } else line += ",,,,,";
    r.comma();
    const mainLocations = this.#countLists(r, OTHER_LOCATION.length, -1);
    r.comma();
    this.#countLists(r, 4, -1);
    r.comma();
    this.#countLists(r, ENDPOINT.length + 1, ENDPOINT.length);
    r.next(); // replacement_npi
    const enumerated = r.next();
    const updated = r.next();
    r.next(); // certification_date
    const deactivated = r.next();
    const reactivated = r.next();
    r.close();
    r.end();
    // withSides replaces the secondary locations: their number is what the reference file holds.
    const otherLocations = record.sides === 0 ? mainLocations : record.locations.length;
    return `${line},${otherLocations},${cell(enumerated)},${cell(updated)},${cell(deactivated)},${
      cell(reactivated)
    }\r\n`;
  }
}

/** A scalar as a CSV cell (`csvCell` of its value as text). */
function cell(json: string): string {
  if (json === "null") return "";
  return csvCell(cellText(json));
}
