/**
 * Finished search bodies by request, on the serving thread: a dataset never
 * changes under a pool, so a search asked again has the same body (but for
 * a native body's `took_ms`), and is answered without a trip to a worker.
 *
 * @module
 */
import type { SearchBody, SearchJob } from "./response.ts";
import { clock } from "../deadline.ts";
import { hashKey, TextRing } from "../text_ring.ts";

const TOOK = ',"took_ms":';
/** The byte after a kept body's key: the body was given as text (0) or as bytes (1). */
const BYTES = 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The length of the lead (`key` and the kind byte) when `kept` begins with
 * it, else `undefined`: another key with the same hash.
 */
function leadLength(kept: Uint8Array, key: string): number | undefined {
  const bytes = encoder.encode(key);
  if (kept.length <= bytes.length || kept[bytes.length]! > BYTES) return undefined;
  for (let i = 0; i < bytes.length; i++) if (kept[i] !== bytes[i]) return undefined;
  return bytes.length + 1;
}

/**
 * How far from its end a body's `took_ms` is looked for: it is the native
 * body's last member (`,"took_ms":12345.67}`), and a body without one (the
 * NPI Registry API's, up to 200 records) is not scanned through.
 */
const TOOK_TAIL = 40;

/**
 * A byte-bounded cache of search bodies, keyed by the whole job, kept as
 * UTF-8 outside the heap ({@linkcode TextRing}: first in, first out, what
 * is read again kept longer). A native body's `took_ms` is counted again
 * on a hit; a body without one (the NPI Registry API's) is answered as it
 * is, and a body given as bytes is answered as bytes. An entry costs its
 * key and body; one over a sixteenth of the budget is not kept.
 *
 * @example
 * ```ts
 * const cache = new BodyCache(16 << 20);
 * cache.set("k", '{"total":1,"took_ms":4.2}');
 * cache.get("k", clock()); // '{"total":1,"took_ms":0.01}'
 * ```
 */
export class BodyCache {
  readonly #ring: TextRing;
  #hits = 0;
  #misses = 0;

  /** @param budget Most bytes of keys and bodies kept (0 turns the cache off). */
  constructor(readonly budget: number) {
    this.#ring = new TextRing(budget, 16);
  }

  /** Lookups answered from the cache. */
  get hits(): number {
    return this.#hits;
  }

  /** Lookups not answered from the cache. */
  get misses(): number {
    return this.#misses;
  }

  /** The key of a job: the validated query (paging and facets included) and its cursor scope. */
  static key(job: SearchJob): string {
    const scope = job.cursorScope;
    return `${scope.release}\u0000${scope.query}\u0000${JSON.stringify(job.query)}`;
  }

  /**
   * The body for `key` (a native one with `took_ms` counted from
   * `startedAt`), or `undefined` when not cached. A body kept as bytes is
   * answered as bytes.
   */
  get(key: string, startedAt: number): SearchBody | undefined {
    // The ring is keyed by the key's hash: the key kept before the body says whose it is.
    const kept = this.#ring.getBytes(hashKey(key));
    const lead = kept && leadLength(kept, key);
    if (lead === undefined) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    if (kept![lead - 1] === BYTES) return kept!.subarray(lead);
    const body = decoder.decode(kept!.subarray(lead));
    const cut = body.indexOf(TOOK, Math.max(0, body.length - TOOK_TAIL));
    if (cut < 0) return body;
    return `${body.slice(0, cut + TOOK.length)}${Math.round((clock() - startedAt) * 100) / 100}}`;
  }

  /** Keeps `body` (a finished search body, text or bytes) for `key`. */
  set(key: string, body: SearchBody): void {
    if (this.budget === 0) return;
    const kind = typeof body === "string" ? "\u0000" : "\u0001";
    this.#ring.set(hashKey(key), body, `${key}${kind}`);
  }
}
