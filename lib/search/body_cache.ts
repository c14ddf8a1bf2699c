/**
 * Finished search bodies by request, on the serving thread: a dataset never
 * changes under a pool, so a search asked again has the same body but for
 * `took_ms`, and is answered without a trip to a worker.
 *
 * @module
 */
import type { SearchJob } from "./response.ts";
import { clock } from "../deadline.ts";

const TOOK = ',"took_ms":';

/** A byte-bounded LRU of search bodies (without their `took_ms`), keyed by the whole job. */
export class BodyCache {
  #entries = new Map<string, string>();
  #bytes = 0;
  /** Lookups answered from the cache. */
  hits = 0;
  /** Lookups not answered from the cache. */
  misses = 0;

  /** @param budget Most bytes of body text kept (0 turns the cache off). */
  constructor(readonly budget: number) {}

  /** The key of a job: the validated query (paging and facets included) and its cursor scope. */
  static key(job: SearchJob): string {
    const scope = job.cursorScope;
    return `${scope.release}\u0000${scope.query}\u0000${JSON.stringify(job.query)}`;
  }

  /**
   * The body for `key` with `took_ms` counted from `startedAt`, or
   * `undefined` when not cached.
   */
  get(key: string, startedAt: number): string | undefined {
    const head = this.#entries.get(key);
    if (head === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#entries.delete(key);
    this.#entries.set(key, head);
    return `${head}${TOOK}${Math.round((clock() - startedAt) * 100) / 100}}`;
  }

  /** Keeps `body` (a finished search body) for `key`. */
  set(key: string, body: string): void {
    const cut = body.lastIndexOf(TOOK);
    if (cut < 0 || this.budget === 0) return;
    const head = body.slice(0, cut);
    const bytes = (head.length + key.length) * 2;
    if (bytes > this.budget / 16) return;
    const old = this.#entries.get(key);
    if (old !== undefined) this.#bytes -= (old.length + key.length) * 2;
    this.#entries.delete(key);
    this.#entries.set(key, head);
    this.#bytes += bytes;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.budget) break;
      this.#entries.delete(k);
      this.#bytes -= (v.length + k.length) * 2;
    }
  }
}
