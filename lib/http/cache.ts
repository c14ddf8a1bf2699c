/**
 * HTTP caching of data answers: `ETag` from the dataset's version and the
 * normalized request, `Cache-Control` with `max-age` and
 * `stale-while-revalidate`, `Vary`, and `304 Not Modified` for a matching
 * `If-None-Match` — answered before the route runs, so a revalidation costs
 * no search.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Handler, RequestContext, Wrapper } from "./handler.ts";
import { COMMON_HEADERS } from "./wrappers.ts";
import { STATUS_CODE as STD_STATUS_CODE } from "@std/http/status";
import type { Operation, ResponseSpec } from "./router.ts";

/** 304, from the standard table (lib/http/status.ts lists only the codes the API itself uses). */
export const NOT_MODIFIED = (STD_STATUS_CODE as { readonly NotModified: 304 }).NotModified;

/** How long shared caches and clients may keep data answers. */
export interface CachePolicy {
  /** `max-age`, in seconds. */
  maxAgeSeconds: number;
  /** `stale-while-revalidate`, in seconds. */
  staleSeconds: number;
}

/** `Cache-Control` of answers that must not be stored: errors, 503s, probes, metrics. */
export const NO_STORE = "no-store";

/**
 * The `Cache-Control` value of a policy.
 *
 * @example
 * ```ts
 * cacheControl({ maxAgeSeconds: 300, staleSeconds: 3600 });
 * // "public, max-age=300, stale-while-revalidate=3600"
 * ```
 */
export function cacheControl(policy: CachePolicy): string {
  if (policy.maxAgeSeconds === 0 && policy.staleSeconds === 0) return "public, no-cache";
  return `public, max-age=${policy.maxAgeSeconds}, stale-while-revalidate=${policy.staleSeconds}`;
}

/**
 * Whether an `If-None-Match` header value matches `etag` (weak comparison,
 * RFC 9110 §13.1.2; `*` matches any).
 *
 * @example
 * ```ts
 * etagMatches('W/"a", "b"', '"b"'); // true
 * etagMatches('"a"', 'W/"a"'); // true
 * ```
 */
export function etagMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((part) => {
    const tag = part.trim();
    return tag === "*" || tag.replace(/^W\//, "") === bare;
  });
}

/**
 * The request as cached answers are keyed: the path and the query
 * parameters sorted by name (the order of repeated names kept), so
 * `?b=2&a=1` and `?a=1&b=2` share an answer.
 *
 * @example
 * ```ts
 * normalizedRequest(new URL("http://x/v1/providers/search?state=NY&q=smith"));
 * // "/v1/providers/search?q=smith&state=NY"
 * ```
 */
export function normalizedRequest(url: URL): string {
  if (url.search === "") return url.pathname;
  const params = [...url.searchParams];
  if (params.length === 0) return url.pathname;
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `${url.pathname}?${new URLSearchParams(params)}`;
}

/**
 * A short hash of text (SHA-256, base64url, 128 bits).
 *
 * @example
 * ```ts
 * shortHash("abc").length; // 22
 * ```
 */
export function shortHash(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/**
 * The weak `ETag` of a data answer: the dataset version and the normalized
 * request. Weak, because the body differs in `took_ms` and in its coding
 * while meaning the same.
 *
 * @example
 * ```ts
 * dataEtag("v1", "/v1/dataset"); // 'W/"v1-…"'
 * ```
 */
export function dataEtag(version: string, request: string): string {
  return `W/"${version}-${fastHash(request)}"`;
}

/**
 * A fast 53-bit hash of text (cyrb53), base 36: enough to tell requests
 * apart in an `ETag` (a cache compares tags of one URL only).
 *
 * @example
 * ```ts
 * fastHash("/v1/dataset") === fastHash("/v1/dataset"); // true
 * ```
 */
export function fastHash(text: string): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** What {@linkcode withDataCache} needs. */
export interface DataCacheOptions {
  /** The dataset's version, or `null` while none is served (then nothing is cached). */
  version: () => string | null;
  /** How long answers may be kept. */
  policy: CachePolicy;
  /** Called for each conditional answer (`hit`: 304) and each full one (`miss`), for metrics. */
  onLookup?: (result: "hit" | "miss") => void;
}

/**
 * Makes a data route cacheable: its `200` answers carry `ETag`,
 * `Cache-Control` and `Vary: Accept-Encoding`; a request whose
 * `If-None-Match` matches the `ETag` is answered `304` without running the
 * route. Anything but a `200` passes as it is (problems say `no-store`).
 * The `ETag` names the dataset version, so a new dataset changes every one.
 *
 * @example
 * ```ts
 * const handler = withDataCache({ version: () => dataset.version(), policy })(routeHandler);
 * ```
 */
export function withDataCache(options: DataCacheOptions): Wrapper {
  const control = cacheControl(options.policy);
  return function dataCache(next: Handler): Handler {
    return (request: Request, ctx: RequestContext) => {
      const version = options.version();
      if (version === null) return next(request, ctx);
      const etag = dataEtag(version, normalizedRequest(ctx.url));
      const headers = { "ETag": etag, "Cache-Control": control, "Vary": "Accept-Encoding" };
      if (etagMatches(request.headers.get("if-none-match"), etag)) {
        options.onLookup?.("hit");
        return new Response(null, {
          status: NOT_MODIFIED,
          headers: { ...COMMON_HEADERS, ...headers },
        });
      }
      options.onLookup?.("miss");
      const answer = (response: Response): Response => {
        if (response.status !== 200) return response;
        for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        return response;
      };
      const result = next(request, ctx);
      return result instanceof Promise ? result.then(answer) : answer(result);
    };
  };
}

/** OpenAPI documentation of the caching headers of a `200`. */
export const CACHE_HEADERS_DOC: NonNullable<ResponseSpec["headers"]> = {
  "ETag": {
    description: "Validator: weak, from the dataset version and the normalized request " +
      "(a new dataset changes it); send it back in `If-None-Match` to get a `304`",
    schema: { type: "string" },
  },
  "Cache-Control": {
    description: "`public, max-age=CACHE_MAX_AGE_SECONDS, " +
      "stale-while-revalidate=CACHE_STALE_SECONDS`; errors say `no-store`",
    schema: { type: "string" },
  },
  "Vary": {
    description: "`Accept-Encoding`: the body may be gzip- or brotli-compressed",
    schema: { type: "string" },
  },
  "Content-Encoding": {
    description: "`br` or `gzip` when the body is compressed (as `Accept-Encoding` allows, " +
      "bodies of COMPRESSION_MIN_BYTES or more)",
    schema: { type: "string" },
  },
};

/** The `304` of a cacheable operation. */
export const NOT_MODIFIED_DOC: ResponseSpec = {
  description: "Not modified: `If-None-Match` matched the `ETag` (no body; the same `ETag`, " +
    "`Cache-Control` and `Vary`)",
  headers: {
    "ETag": CACHE_HEADERS_DOC.ETag!,
    "Cache-Control": CACHE_HEADERS_DOC["Cache-Control"]!,
  },
};

/**
 * An operation documented as {@linkcode withDataCache} serves it: its `200`
 * with the caching headers, and a `304`.
 *
 * @example
 * ```ts
 * documentCaching(operation).responses["304"]; // NOT_MODIFIED_DOC
 * ```
 */
export function documentCaching(operation: Operation): Operation {
  const ok = operation.responses["200"];
  return {
    ...operation,
    responses: {
      ...operation.responses,
      ...(ok ? { "200": { ...ok, headers: { ...ok.headers, ...CACHE_HEADERS_DOC } } } : {}),
      "304": NOT_MODIFIED_DOC,
    },
  };
}
