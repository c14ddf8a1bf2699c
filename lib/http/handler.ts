/**
 * The one handler type every route and wrapper shares.
 *
 * @module
 */

/**
 * What the outer wrappers learn about a request, passed down to every
 * handler. The parsed URL and the abort signal are made on first use, so a
 * route that needs neither (health) pays for neither.
 */
export class RequestContext {
  /** The request's id: the caller's `X-Request-ID` when valid, else a fresh UUID v4. */
  readonly requestId: string;
  /** The path of the request URL. */
  readonly pathname: string;
  /** Length of the path and query, in characters. */
  readonly targetLength: number;
  /** Path parameters of the matched route, e.g. `{ npi: "1003000126" }`. */
  params: Record<string, string> = {};
  /** The pattern of the route that matched (`/v1/providers/:npi`), `null` until one did. */
  route: string | null = null;
  /** The client's address as the server saw it, when known. */
  readonly remoteAddr: string | null;
  /**
   * When the request must be answered, on `clock()` of `lib/deadline.ts`
   * (set by the timeout wrapper); long work stops there. `Infinity` = none.
   */
  deadline = Infinity;
  readonly #href: string;
  #url: URL | undefined;
  #controller: AbortController | undefined;

  /**
   * @example
   * ```ts
   * const ctx = new RequestContext("http://localhost/health", "req-1", null);
   * ctx.pathname; // "/health"
   * ```
   */
  constructor(href: string, requestId: string, remoteAddr: string | null) {
    this.#href = href;
    this.requestId = requestId;
    this.remoteAddr = remoteAddr;
    // Fast path for plain paths; anything with escapes or dot segments goes through the URL parser.
    const start = href.indexOf("/", href.indexOf("//") + 2);
    const query = href.indexOf("?", start);
    const hash = href.indexOf("#", start);
    const end = query >= 0 ? query : hash >= 0 ? hash : href.length;
    const raw = start >= 0 ? href.slice(start, end) : "/";
    this.pathname = /[%.\\]/.test(raw) ? this.url.pathname : raw;
    this.targetLength = start >= 0 ? (hash >= 0 ? hash : href.length) - start : 1;
  }

  /** The parsed request URL. */
  get url(): URL {
    return this.#url ??= new URL(this.#href);
  }

  /** Aborted when the request times out: long work checks it and stops. */
  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  /** Tells the work behind this request to stop. */
  abort(reason: unknown): void {
    (this.#controller ??= new AbortController()).abort(reason);
  }
}

/** A request handler: a plain function from request to response. */
export type Handler = (request: Request, ctx: RequestContext) => Response | Promise<Response>;

/** A wrapper adds one cross-cutting concern around a handler. */
export type Wrapper = (next: Handler) => Handler;

/**
 * Applies wrappers so that the first in the list is the outermost.
 *
 * @example
 * ```ts
 * const handler = compose([withRequestId(), withLogging(log)], router);
 * ```
 */
export function compose(wrappers: readonly Wrapper[], inner: Handler): Handler {
  return wrappers.reduceRight((next, wrap) => wrap(next), inner);
}
