/**
 * The one handler type every route and wrapper shares.
 *
 * @module
 */

/** What the outer wrappers learn about a request, passed down to every handler. */
export interface RequestContext {
  /** The request's id: the caller's `X-Request-ID` when valid, else a fresh UUID v4. */
  readonly requestId: string;
  /** The parsed request URL. */
  readonly url: URL;
  /** Path parameters of the matched route, e.g. `{ npi: "1003000126" }`. */
  params: Record<string, string>;
  /** The client's address as the server saw it, when known. */
  readonly remoteAddr: string | null;
  /** Aborted when the request times out: long work checks it and stops. */
  readonly signal: AbortSignal;
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
