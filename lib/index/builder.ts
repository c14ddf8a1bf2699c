/**
 * Builds the search index while providers are written in id order: posting
 * lists of the text and name-key fields grow in memory; the columns (flags,
 * state, city, ZIP, coordinates, taxonomy codes) fill typed arrays; `write`
 * derives the remaining posting lists from the columns and stores it all as
 * blobs, then the typo vocabulary.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { Provider } from "../provider.ts";
import { foldText, nameKey, nameTokens } from "../text/fold.ts";
import {
  cellOf,
  FIELD,
  FLAG,
  PREFIX_LENGTHS,
  PREFIX_MIN_TERMS,
  PREFIXED_FIELDS,
  TEXT_FIELDS,
} from "./fields.ts";
import { INDEX_SCHEMA } from "./schema.ts";
import { buildVocabulary } from "./vocabulary.ts";

/** A growable list of numbers; `unique` drops a value equal to the last one (ids added twice). */
class Growable {
  data: Uint32Array;
  length = 0;
  constructor(capacity = 4, private unique = true) {
    this.data = new Uint32Array(capacity);
  }
  push(id: number): void {
    if (this.unique && this.length > 0 && this.data[this.length - 1] === id) return;
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = id;
  }
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

class GrowableColumn<T extends Uint8Array | Uint16Array | Uint32Array | Float32Array> {
  data: T;
  constructor(private make: (n: number) => T, capacity: number) {
    this.data = make(capacity);
  }
  set(id: number, value: number): void {
    if (id >= this.data.length) {
      const next = this.make(Math.max(id + 1, this.data.length * 2));
      next.set(this.data as never);
      this.data = next;
    }
    this.data[id] = value;
  }
}

/** A dictionary of strings to small integers (0 is "none"). */
class Dictionary {
  values: string[] = [""];
  #ids = new Map<string, number>();
  id(value: string | null): number {
    if (!value) return 0;
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.#ids.set(value, id);
    }
    return id;
  }
}

/** Accumulates the index of providers added in increasing id order. */
export class IndexBuilder {
  /** Per field, each term's ids: a number while the term has one id (most do), a list after. */
  #postings = new Map<number, Map<string, Growable | number>>();
  #flags: GrowableColumn<Uint8Array>;
  #state: GrowableColumn<Uint8Array>;
  #city: GrowableColumn<Uint32Array>;
  #zip: GrowableColumn<Uint32Array>;
  #lat: GrowableColumn<Float32Array>;
  #lon: GrowableColumn<Float32Array>;
  #taxOffsets: number[] = [0];
  #taxCodes = new Growable(1024, false);
  #taxPrimary = new Growable(1024, false);
  #states = new Dictionary();
  #cities = new Dictionary();
  #codes = new Dictionary();
  #lastId = 0;
  #describeWords: (code: string) => readonly string[];

  /** `specialtyWords` gives the words a taxonomy code is found by. */
  constructor(options: { capacity?: number; specialtyWords: (code: string) => readonly string[] }) {
    const n = (options.capacity ?? 1024) + 1;
    this.#flags = new GrowableColumn((k) => new Uint8Array(k), n);
    this.#state = new GrowableColumn((k) => new Uint8Array(k), n);
    this.#city = new GrowableColumn((k) => new Uint32Array(k), n);
    this.#zip = new GrowableColumn((k) => new Uint32Array(k), n);
    this.#lat = new GrowableColumn((k) => new Float32Array(k).fill(NaN), n);
    this.#lon = new GrowableColumn((k) => new Float32Array(k).fill(NaN), n);
    this.#describeWords = options.specialtyWords;
    for (const field of PREFIXED_FIELDS) this.#postings.set(field, new Map());
  }

  #post(field: number, term: string, id: number): void {
    if (!term) return;
    const terms = this.#postings.get(field)!;
    const list = terms.get(term);
    if (list === undefined) terms.set(term, id);
    else if (typeof list === "number") {
      if (list === id) return;
      const grown = new Growable();
      grown.push(list);
      grown.push(id);
      terms.set(term, grown);
    } else list.push(id);
  }

  /** Adds provider `id` (ids must increase). */
  add(id: number, p: Provider): void {
    if (id <= this.#lastId) {
      throw new RangeError(`Index ids must increase: ${id} after ${this.#lastId}`);
    }
    // taxOffsets[id] is where the codes of `id` start; skipped ids get an empty range.
    while (this.#taxOffsets.length < id + 1) this.#taxOffsets.push(this.#taxCodes.length);
    this.#lastId = id;
    const ind = p.individual, org = p.organization;
    for (const t of nameTokens(ind ? ind.last_name ?? "" : org?.name ?? "")) {
      this.#post(FIELD.surname, t, id);
    }
    if (ind) {
      for (const t of nameTokens(`${ind.first_name ?? ""} ${ind.middle_name ?? ""}`)) {
        this.#post(FIELD.given, t, id);
      }
    }
    for (const o of p.other_names) {
      for (const t of nameTokens(o.name)) this.#post(FIELD.other, t, id);
    }
    const loc = p.practice_location;
    for (const t of nameTokens(loc?.city ?? "")) this.#post(FIELD.place, t, id);
    // Name keys for the name filters: own names, and other names (a person's: first and last words).
    if (ind) {
      this.#post(FIELD.lastKey, nameKey(ind.last_name ?? ""), id);
      this.#post(FIELD.firstKey, nameKey(ind.first_name ?? ""), id);
      for (const o of p.other_names) {
        const parts = o.name.split(/\s+/).filter((w) => w);
        this.#post(FIELD.firstKey, nameKey(parts[0] ?? ""), id);
        this.#post(FIELD.lastKey, nameKey(parts.at(-1) ?? ""), id);
      }
    } else if (org) {
      this.#post(FIELD.orgKey, nameKey(org.name ?? ""), id);
      for (const o of p.other_names) this.#post(FIELD.orgKey, nameKey(o.name), id);
    }
    let flags = p.status === "active" ? FLAG.active : 0;
    if (p.entity_type === "individual") flags |= FLAG.individual;
    if (p.entity_type === "organization") flags |= FLAG.organization;
    if (ind?.sex === "M") flags |= FLAG.male;
    if (ind?.sex === "F") flags |= FLAG.female;
    this.#flags.set(id, flags);
    this.#state.set(id, this.#states.id(loc?.state?.toUpperCase() ?? null));
    this.#city.set(id, this.#cities.id(loc?.city ? foldText(loc.city).toUpperCase() : null));
    const zip = /^(\d{5})/.exec(loc?.postal_code?.trim() ?? "");
    this.#zip.set(id, zip ? Number(zip[1]) + 1 : 0);
    if (loc?.lat != null && loc.lon != null) {
      this.#lat.set(id, loc.lat);
      this.#lon.set(id, loc.lon);
    }
    const sorted = [...p.taxonomies].sort((a, b) => Number(b.primary) - Number(a.primary));
    const seen = new Set<string>();
    for (const t of sorted) {
      if (seen.has(t.code)) continue;
      seen.add(t.code);
      this.#taxCodes.push(this.#codes.id(t.code));
      this.#taxPrimary.push(t.primary ? 1 : 0);
    }
    this.#taxOffsets.push(this.#taxCodes.length);
  }

  /** Writes the index into `db` (tables from {@linkcode INDEX_SCHEMA}). */
  write(db: DatabaseSync, onProgress: (phase: string) => void = () => {}): void {
    db.exec(INDEX_SCHEMA);
    db.exec("DELETE FROM posting; DELETE FROM index_blob;");
    const n = this.#lastId;
    const insert = db.prepare("INSERT INTO posting (field, term, ids) VALUES (?, ?, ?)");
    const put = (field: number, term: string, ids: Uint32Array) =>
      insert.run(field, term, new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength));
    db.exec("BEGIN");
    onProgress("postings");
    const ids = (
      entry: Growable | number,
    ) => (typeof entry === "number" ? Uint32Array.of(entry) : entry.view());
    for (const [field, terms] of this.#postings) {
      const names = [...terms.keys()].sort();
      for (const term of names) put(field, term, ids(terms.get(term)!));
      for (const length of PREFIX_LENGTHS) {
        const groups = new Map<string, Uint32Array[]>();
        for (const term of names) {
          if (term.length <= length) continue;
          const prefix = term.slice(0, length);
          let group = groups.get(prefix);
          if (!group) groups.set(prefix, group = []);
          group.push(ids(terms.get(term)!));
        }
        for (const [prefix, lists] of groups) {
          if (lists.length < PREFIX_MIN_TERMS) continue;
          const exact = terms.get(prefix);
          put(
            field,
            `${prefix}*`,
            mergeSorted(exact !== undefined ? [...lists, ids(exact)] : lists),
          );
        }
      }
    }
    onProgress("columns");
    const flags = this.#flags.data.subarray(0, n + 1);
    const state = this.#state.data.subarray(0, n + 1);
    const city = this.#city.data.subarray(0, n + 1);
    const zip = this.#zip.data.subarray(0, n + 1);
    const lat = this.#lat.data.subarray(0, n + 1);
    const lon = this.#lon.data.subarray(0, n + 1);
    // Lists derived from columns: state, city, ZIP, cell, taxonomy codes.
    const byValue = (column: ArrayLike<number>, field: number, name: (v: number) => string) => {
      const lists = new Map<number, Growable>();
      for (let id = 1; id <= n; id++) {
        const v = column[id]!;
        if (!v) continue;
        let list = lists.get(v);
        if (!list) lists.set(v, list = new Growable());
        list.push(id);
      }
      for (const [v, list] of lists) put(field, name(v), list.view());
    };
    byValue(state, FIELD.state, (v) => this.#states.values[v]!);
    byValue(city, FIELD.city, (v) => this.#cities.values[v]!);
    byValue(zip, FIELD.zip5, (v) => String(v - 1).padStart(5, "0"));
    const cells = new Uint32Array(n + 1);
    for (let id = 1; id <= n; id++) {
      if (!Number.isNaN(lat[id]!)) cells[id] = cellOf(lat[id]!, lon[id]!) + 1;
    }
    byValue(cells, FIELD.cell, (v) => String(v - 1));
    const offsets = Uint32Array.from(this.#taxOffsets.slice(0, n + 2));
    const codes = this.#taxCodes.view();
    const primary = this.#taxPrimary.view();
    for (
      const [field, wanted] of [[FIELD.primaryCode, 1], [FIELD.secondaryCode, 0], [
        FIELD.anyCode,
        -1,
      ]] as const
    ) {
      const lists = new Map<number, Growable>();
      for (let id = 1; id <= n; id++) {
        for (let k = offsets[id]!; k < offsets[id + 1]!; k++) {
          if (wanted !== -1 && primary[k] !== wanted) continue;
          let list = lists.get(codes[k]!);
          if (!list) lists.set(codes[k]!, list = new Growable());
          list.push(id);
        }
      }
      for (const [code, list] of lists) put(field, this.#codes.values[code]!, list.view());
    }
    const blob = db.prepare("INSERT INTO index_blob (name, data) VALUES (?, ?)");
    const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    blob.run("flags", bytes(flags));
    blob.run("state", bytes(state));
    blob.run("city", bytes(city));
    blob.run("zip", bytes(zip));
    blob.run("lat", bytes(lat));
    blob.run("lon", bytes(lon));
    blob.run("tax_offsets", bytes(offsets));
    blob.run("tax_codes", bytes(Uint16Array.from(codes)));
    blob.run("tax_primary", bytes(primary.slice()));
    const encoder = new TextEncoder();
    blob.run(
      "dictionaries",
      encoder.encode(JSON.stringify({
        size: n,
        states: this.#states.values,
        cities: this.#cities.values,
        codes: this.#codes.values,
      })),
    );
    db.exec("COMMIT");
    onProgress("vocabulary");
    const frequencies = new Map<string, number>();
    for (const field of TEXT_FIELDS) {
      for (const [term, list] of this.#postings.get(field)!) {
        frequencies.set(
          term,
          (frequencies.get(term) ?? 0) + (typeof list === "number" ? 1 : list.length),
        );
      }
    }
    for (const words of this.#specialtyVocabulary()) {
      frequencies.set(words[0], (frequencies.get(words[0]) ?? 0) + words[1]);
    }
    buildVocabulary(db, frequencies);
  }

  /** Specialty words with how many providers carry a code they name. */
  *#specialtyVocabulary(): Generator<[string, number]> {
    const counts = new Map<number, number>();
    const codes = this.#taxCodes.view();
    for (let k = 0; k < codes.length; k++) counts.set(codes[k]!, (counts.get(codes[k]!) ?? 0) + 1);
    const words = new Map<string, number>();
    for (const [code, count] of counts) {
      for (const w of this.#describeWords(this.#codes.values[code]!)) {
        words.set(w, (words.get(w) ?? 0) + count);
      }
    }
    yield* words;
  }
}

/** Merges sorted lists into one sorted duplicate-free list. */
function mergeSorted(lists: readonly Uint32Array[]): Uint32Array {
  let total = 0;
  for (const l of lists) total += l.length;
  const all = new Uint32Array(total);
  let at = 0;
  for (const l of lists) {
    all.set(l, at);
    at += l.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i]!;
  return all.slice(0, n);
}
