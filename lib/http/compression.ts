/**
 * Response compression: which coding a client accepts (`Accept-Encoding`
 * with its q-values), which bodies are worth compressing, and the codings
 * themselves.
 *
 * The codings are `node:zlib`'s synchronous ones: measured on a 75 KB
 * search answer (`deno run -A bench/compression.ts`, two runs), gzip level
 * 6 takes 0.53–0.56 ms against 0.90–1.23 ms through
 * `CompressionStream("gzip")`, and brotli quality 4 takes 0.69 ms against
 * 2.17–2.24 ms through `CompressionStream("brotli")` (Deno's name; `"br"`
 * is refused) for an answer 8 % larger (11.6 KB against 10.7 KB; quality 5
 * matches that size at 1.17 ms, still faster).
 *
 * @module
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** A content coding the service sends. */
export type Encoding = "br" | "gzip";

/** Brotli quality for answers made per request: as fast as gzip level 6, as small. */
export const BROTLI_QUALITY = 4;
/** Gzip level (zlib's default). */
export const GZIP_LEVEL = 6;

/**
 * The coding to answer with for an `Accept-Encoding` value: the one with the
 * highest q-value among `br` and `gzip` (brotli on ties), `*` standing for
 * any coding not named; `null` when neither is acceptable (q=0 or absent).
 *
 * @example
 * ```ts
 * negotiateEncoding("gzip, deflate, br"); // "br"
 * negotiateEncoding("br;q=0.5, gzip;q=0.8"); // "gzip"
 * negotiateEncoding("*;q=0"); // null
 * ```
 */
export function negotiateEncoding(header: string | null): Encoding | null {
  if (!header) return null;
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(",")) {
    const [rawName, ...params] = part.split(";");
    const name = rawName!.trim().toLowerCase();
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=");
      if (key?.trim().toLowerCase() !== "q") continue;
      const parsed = Number(value?.trim());
      q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
    }
    if (name === "br") br = q;
    else if (name === "gzip" || name === "x-gzip") gzip = Math.max(gzip ?? 0, q);
    else if (name === "*") any = q;
  }
  const brQ = br ?? any ?? 0;
  const gzipQ = gzip ?? any ?? 0;
  if (brQ <= 0 && gzipQ <= 0) return null;
  return brQ >= gzipQ ? "br" : "gzip";
}

const COMPRESSIBLE = new Set([
  "application/json",
  "application/problem+json",
  "application/x-ndjson",
  "application/ndjson",
  "application/geo+json",
  "application/fhir+json",
  "application/javascript",
  "application/xml",
  "image/svg+xml",
  "text/csv",
  "text/html",
  "text/css",
  "text/javascript",
  "text/plain",
  "text/xml",
]);

/**
 * Whether a body of this media type is worth compressing: JSON, NDJSON,
 * CSV, text, scripts, styles, SVG; never images or fonts already
 * compressed.
 *
 * @example
 * ```ts
 * isCompressible("application/json; charset=utf-8"); // true
 * isCompressible("image/png"); // false
 * ```
 */
export function isCompressible(contentType: string | null): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(";");
  const type = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return COMPRESSIBLE.has(type) || type.endsWith("+json");
}

/**
 * Compresses `body` with `encoding`.
 *
 * @example
 * ```ts
 * const gz = compress(new TextEncoder().encode("a".repeat(1000)), "gzip");
 * gz.length < 100; // true
 * ```
 */
export function compress(body: Uint8Array, encoding: Encoding): Uint8Array<ArrayBuffer> {
  const out = encoding === "br"
    ? brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    })
    : gzipSync(body, { level: GZIP_LEVEL });
  return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
}

/**
 * Adds `token` to a `Vary` header unless it is there already.
 *
 * @example
 * ```ts
 * const headers = new Headers({ Vary: "Accept" });
 * addVary(headers, "Accept-Encoding");
 * headers.get("vary"); // "Accept, Accept-Encoding"
 * ```
 */
export function addVary(headers: Headers, token: string): void {
  const current = headers.get("vary");
  if (!current) {
    headers.set("Vary", token);
    return;
  }
  const lower = token.toLowerCase();
  if (current.split(",").some((t) => t.trim().toLowerCase() === lower || t.trim() === "*")) return;
  headers.set("Vary", `${current}, ${token}`);
}

/**
 * The coding for a streamed answer: gzip whenever the client accepts it
 * (cheaper a byte than brotli as a stream), else brotli, else `null`.
 *
 * @example
 * ```ts
 * streamEncoding("gzip, deflate, br"); // "gzip"
 * streamEncoding("br"); // "br"
 * ```
 */
export function streamEncoding(header: string | null): Encoding | null {
  const best = negotiateEncoding(header);
  if (best !== "br") return best;
  // brotli won, but gzip goes whenever the client takes it at all (brotli counted out last).
  return negotiateEncoding(`${header}, br;q=0`) === "gzip" ? "gzip" : "br";
}
