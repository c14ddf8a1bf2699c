/**
 * The NPI Registry API's answer to a search as the bytes a route sends:
 * the exact total on a first line, then the JSON body, its `results`
 * written from the page's stored records (`registry_text.ts`).
 *
 * @module
 */
import type { ProviderStore } from "../store/store.ts";
import type { SearchPage } from "../search/engine.ts";
import type { SearchBody } from "../search/response.ts";
import type { StoredRecordRow } from "../store/record_batch.ts";
import { Utf8Writer } from "../text/utf8_writer.ts";
import { ERROR_NUMBER, errorsBody, type RegistryError, registryError } from "./errors.ts";
import { registryResult, taxonomyDescriber } from "./render.ts";
import { RegistryText } from "./registry_text.ts";

const writers = new WeakMap<ProviderStore, RegistryText>();

/** The writer of a store's results (made once per store). */
function registryText(store: ProviderStore): RegistryText {
  let text = writers.get(store);
  if (!text) {
    const describe = taxonomyDescriber(store);
    text = new RegistryText(describe, (row: StoredRecordRow) => {
      const [found] = store.getProvidersById([row.id], [row]);
      return JSON.stringify(registryResult(found!.provider, describe));
    });
    writers.set(store, text);
  }
  return text;
}

/** Each thread's writer of answers (they are written synchronously, one at a time). */
const writer = new Utf8Writer();

/**
 * The answer to a search, as UTF-8 bytes: the exact total on the first
 * line (for the `X-Total-Count` header; -1 for a refusal), then the JSON
 * body (`{"result_count", "results"}`, or `{"Errors"}`). Built on
 * whichever thread reads the records; the route splits the two.
 *
 * Written record by record into bytes: a page of 200 as one string would
 * be over V8's largest regular object (128 KiB), so on pages mapped for it
 * alone (a fault each when first written) and, alive at the young
 * collection its size brings on, kept until a full one.
 *
 * @example
 * ```ts
 * const bytes = renderRegistryBody(store, page);
 * const [total, body] = splitRegistryBody(bytes);
 * ```
 */
export function renderRegistryBody(
  store: ProviderStore,
  page: SearchPage,
): Uint8Array<ArrayBuffer> {
  if (page.uncheckedCandidates !== undefined) {
    writer.write(`-1\n${errorsBody(tooBroad(page.uncheckedCandidates))}`);
    return writer.take();
  }
  const text = registryText(store);
  const records = page.records ?? store.storedRecords(page.hits.map((h) => h.id));
  writer.write(`${page.total}\n{"result_count":${records.length},"results":[`);
  records.forEach((record, i) => writer.write(`${i === 0 ? "" : ","}${text.json(record)}`));
  writer.write("]}");
  return writer.take();
}

/**
 * The refusal of a search whose record check (`country_code`,
 * `name_purpose=AO`, address matches the index cannot confirm) would read
 * too many records.
 */
function tooBroad(candidates: number): RegistryError[] {
  return [registryError(
    ERROR_NUMBER.noCriteria,
    "generic",
    `Too broad: ${candidates} providers would be checked one by one. country_code and ` +
      "name_purpose=AO are evaluated on each candidate's record: add a criterion the index " +
      "answers (number, first_name, last_name, organization_name, taxonomy_description, city, " +
      "state, postal_code)",
  )];
}

/**
 * The total (`null` for a refusal) and the JSON body of {@linkcode renderRegistryBody}'s
 * answer (bytes: a view, not a copy; text as it was written before answers were bytes).
 *
 * @example
 * ```ts
 * splitRegistryBody(new TextEncoder().encode('3\n{"result_count":0,"results":[]}'));
 * // [3, bytes of '{"result_count":0,"results":[]}']
 * ```
 */
export function splitRegistryBody(answer: SearchBody): [number | null, SearchBody] {
  let total: number, body: SearchBody;
  if (typeof answer === "string") {
    const cut = answer.indexOf("\n");
    [total, body] = [Number(answer.slice(0, cut)), answer.slice(cut + 1)];
  } else {
    const cut = answer.indexOf(NEWLINE);
    [total, body] = [Number(decoder.decode(answer.subarray(0, cut))), answer.subarray(cut + 1)];
  }
  return [total >= 0 ? total : null, body];
}

const NEWLINE = 10;
const decoder = new TextDecoder();
