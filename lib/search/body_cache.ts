/**
 * Finished search bodies by request, on the serving thread: a dataset never
 * changes under a pool, so a search asked again has the same body (but for
 * a native body's `took_ms`), and is answered without a trip to a worker.
 *
 * @module
 */
import type { SearchJob } from "./response.ts";
import { clock } from "../deadline.ts";
import { ByteLru } from "../lru.ts";

const TOOK = ',"took_ms":';

/**
 * How far from its end a body's `took_ms` is looked for: it is the native
 * body's last member (`,"took_ms":12345.67}`), and a body without one (the
 * NPI Registry API's, up to 200 records) is not scanned through.
 */
const TOOK_TAIL = 40;

/** A kept body: its text up to `took_ms` (which a hit appends anew), or whole; and its key's length. */
interface Kept {
  text: string;
  took: boolean;
  keyLength: number;
}

/**
 * A byte-bounded LRU of search bodies, keyed by the whole job. A native
 * body is kept without its `took_ms`, which a hit counts again; a body
 * without one (the NPI Registry API's) is kept and answered as it is. An
 * entry costs its text and key (UTF-16); one over a sixteenth of the
 * budget is not kept.
 *
 * @example
 * ```ts
 * const cache = new BodyCache(32 << 20);
 * cache.set("k", '{"total":1,"took_ms":4.2}');
 * cache.get("k", clock()); // '{"total":1,"took_ms":0.01}'
 * ```
 */
export class BodyCache {
  readonly #entries: ByteLru<Kept>;

  /** @param budget Most bytes of body text kept (0 turns the cache off). */
  constructor(readonly budget: number) {
    this.#entries = new ByteLru<Kept>(budget, (k) => (k.text.length + k.keyLength) * 2, 0, 16);
  }

  /** Lookups answered from the cache. */
  get hits(): number {
    return this.#entries.hits;
  }

  /** Lookups not answered from the cache. */
  get misses(): number {
    return this.#entries.misses;
  }

  /** The key of a job: the validated query (paging and facets included) and its cursor scope. */
  static key(job: SearchJob): string {
    const scope = job.cursorScope;
    return `${scope.release}\u0000${scope.query}\u0000${JSON.stringify(job.query)}`;
  }

  /**
   * The body for `key` (a native one with `took_ms` counted from
   * `startedAt`), or `undefined` when not cached.
   */
  get(key: string, startedAt: number): string | undefined {
    const kept = this.#entries.get(key);
    if (kept === undefined) return undefined;
    if (!kept.took) return kept.text;
    return `${kept.text}${TOOK}${Math.round((clock() - startedAt) * 100) / 100}}`;
  }

  /** Keeps `body` (a finished search body) for `key`. */
  set(key: string, body: string): void {
    if (this.budget === 0) return;
    const cut = body.indexOf(TOOK, Math.max(0, body.length - TOOK_TAIL));
    this.#entries.set(
      key,
      cut < 0
        ? { text: body, took: false, keyLength: key.length }
        : { text: body.slice(0, cut), took: true, keyLength: key.length },
    );
  }
}
