/**
 * The web page and its assets: `GET /` (find a provider), `GET /docs` (the
 * interactive API reference) and `GET /static/...` (files under `static/`).
 *
 * Files are read relative to this module, so the same code works under
 * `deno run`, in Docker and in a `deno compile --include static` binary.
 * Responses carry a content type, `Cache-Control` and a strong `ETag`; a
 * matching `If-None-Match` is answered `304`.
 *
 * @module
 */
import type { Operation, Route } from "../lib/http/router.ts";
import { NotFoundError } from "../lib/http/errors.ts";
import { etagMatches, NOT_MODIFIED } from "../lib/http/cache.ts";
import { responseWithBody } from "../lib/http/body.ts";
import { isCompressible } from "../lib/http/compression.ts";

/** Where the static files live: `static/` beside `routes/`. */
export const STATIC_ROOT: URL = new URL("../static/", import.meta.url);

/** Media types by file extension; anything else is `application/octet-stream`. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  json: "application/json; charset=utf-8",
  map: "application/json; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  ico: "image/x-icon",
  woff2: "font/woff2",
};

/** `Cache-Control` of pages and of the service's own assets: always revalidate (cheap with ETag). */
const REVALIDATE = "no-cache";
/** `Cache-Control` of vendored, versioned third-party files. */
const VENDOR_CACHE = "public, max-age=86400";

/** A safe path segment: no dot files, no `.`/`..`, no separators, NUL or escapes. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/**
 * Joins path segments into a path relative to the static root, or returns
 * `null` when any segment could escape it or name a hidden file.
 *
 * @example
 * ```ts
 * safeStaticPath(["app.js"]); // "app.js"
 * safeStaticPath([".."]); // null
 * safeStaticPath(["a/b"]); // null
 * ```
 */
export function safeStaticPath(segments: readonly string[]): string | null {
  if (segments.length === 0) return null;
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) return null;
  }
  return segments.join("/");
}

/**
 * The media type of a file name, from its extension.
 *
 * @example
 * ```ts
 * contentTypeOf("app.js"); // "text/javascript; charset=utf-8"
 * ```
 */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  const ext = dot < 0 ? "" : name.slice(dot + 1).toLowerCase();
  return CONTENT_TYPES[ext] ?? "application/octet-stream";
}

interface CachedFile {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  mtime: number | null;
  size: number;
}

/** Whether an `If-None-Match` header value matches an `ETag` (re-exported from lib/http/cache.ts). */
export { etagMatches };

async function etagOf(body: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  const hex = Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
  return `"${hex}"`;
}

/** Serves files under one root, caching their bytes and ETags until they change on disk. */
class StaticFiles {
  readonly #root: URL;
  readonly #cache = new Map<string, CachedFile>();

  constructor(root: URL) {
    this.#root = root;
  }

  async #load(path: string): Promise<CachedFile | null> {
    const url = new URL(path, this.#root);
    if (!url.href.startsWith(this.#root.href)) return null;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(url);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        return null;
      }
      throw error;
    }
    if (!info.isFile) return null;
    const mtime = info.mtime?.getTime() ?? null;
    const cached = this.#cache.get(path);
    if (cached && cached.mtime === mtime && cached.size === info.size) return cached;
    const body = await Deno.readFile(url);
    const file: CachedFile = { body, etag: await etagOf(body), mtime, size: info.size };
    this.#cache.set(path, file);
    return file;
  }

  /** Answers `path` (already checked by {@linkcode safeStaticPath}), or throws a 404. */
  async serve(request: Request, path: string | null, cacheControl: string): Promise<Response> {
    const file = path === null ? null : await this.#load(path);
    if (!file || path === null) {
      const shown = new URL(request.url).pathname.slice(0, 200);
      throw new NotFoundError(`No file at '${shown}': see / for the web page, /docs for the API`);
    }
    const headers: Record<string, string> = {
      "Cache-Control": cacheControl,
      "ETag": file.etag,
    };
    if (isCompressible(contentTypeOf(path))) headers.Vary = "Accept-Encoding";
    if (etagMatches(request.headers.get("if-none-match"), file.etag)) {
      return new Response(null, { status: NOT_MODIFIED, headers });
    }
    headers["Content-Type"] = contentTypeOf(path);
    return responseWithBody(file.body, { headers });
  }
}

const HTML_RESPONSE: Operation["responses"] = {
  "200": {
    description: "The page (revalidated with `ETag`; a matching `If-None-Match` is a 304)",
    contentType: "text/html",
    schema: { type: "string" },
  },
};

const ASSET_RESPONSES: Operation["responses"] = {
  "200": {
    description: "The file, with `Content-Type` from its extension, `Cache-Control` and `ETag`",
    contentType: "*/*",
    schema: { type: "string", format: "binary" },
    headers: {
      "ETag": { description: "Strong validator of the file's bytes", schema: { type: "string" } },
      "Cache-Control": { description: "Caching policy", schema: { type: "string" } },
    },
  },
  "304": { description: "Not modified: `If-None-Match` matched the file's `ETag`" },
  "404": {
    description: "No such file (or a name that is not allowed: hidden files, `..`, separators)",
    contentType: "application/problem+json",
    schema: { $ref: "#/components/schemas/Problem" },
  },
};

/** Options of {@linkcode webRoutes}. */
export interface WebRoutesOptions {
  /** The directory to serve (default {@linkcode STATIC_ROOT}); must end with `/`. */
  root?: URL;
}

/**
 * The web routes: `/`, `/docs`, `/static/{path}` and
 * `/static/vendor/{package}/{file}`.
 *
 * @example
 * ```ts
 * const table = [...webRoutes(), ...otherRoutes];
 * ```
 */
export function webRoutes(options: WebRoutesOptions = {}): Route[] {
  const files = new StaticFiles(options.root ?? STATIC_ROOT);
  return [
    {
      path: "/",
      methods: {
        GET: {
          handler: (request) => files.serve(request, "index.html", REVALIDATE),
          operation: {
            operationId: "webPage",
            summary: "Find-a-provider web page",
            description:
              "The search page. Its query string mirrors the parameters of `/v1/providers/search` " +
              "(plus `provider` for an open provider record), so searches can be shared and bookmarked.",
            tags: ["web"],
            responses: HTML_RESPONSE,
          },
        },
      },
    },
    {
      path: "/match",
      methods: {
        GET: {
          handler: (request) => files.serve(request, "match.html", REVALIDATE),
          operation: {
            operationId: "matchPage",
            summary: "Match-a-roster web page",
            description:
              "Uploads a roster CSV to `POST /v1/match`, shows matched, review and unmatched rows with " +
              "their reasons as they stream in, and offers the results as a CSV download.",
            tags: ["web"],
            responses: HTML_RESPONSE,
          },
        },
      },
    },
    {
      path: "/docs",
      methods: {
        GET: {
          handler: (request) => files.serve(request, "docs.html", REVALIDATE),
          operation: {
            operationId: "apiReference",
            summary: "Interactive API reference",
            description:
              "Swagger UI over `/openapi.json`, served from local files; “Try it out” calls this server.",
            tags: ["web"],
            responses: HTML_RESPONSE,
          },
        },
      },
    },
    {
      path: "/static/:path",
      methods: {
        GET: {
          handler: (request, ctx) =>
            files.serve(request, safeStaticPath([ctx.params.path ?? ""]), REVALIDATE),
          operation: {
            operationId: "staticAsset",
            summary: "A static asset of the web page",
            description: "Scripts, styles and images of the web page, from `static/`.",
            tags: ["web"],
            pathParams: {
              path: {
                description: "File name under `static/`",
                schema: { type: "string", pattern: "^[A-Za-z0-9_][A-Za-z0-9._-]*$" },
                example: "app.js",
              },
            },
            responses: ASSET_RESPONSES,
          },
        },
      },
    },
    {
      path: "/static/vendor/:package/:file",
      methods: {
        GET: {
          handler: (request, ctx) =>
            files.serve(
              request,
              safeStaticPath(["vendor", ctx.params.package ?? "", ctx.params.file ?? ""]),
              VENDOR_CACHE,
            ),
          operation: {
            operationId: "vendorAsset",
            summary: "A vendored third-party asset",
            description:
              "Files of third-party packages copied into `static/vendor/` (the API reference's Swagger UI).",
            tags: ["web"],
            pathParams: {
              package: {
                description: "Package name",
                schema: { type: "string", pattern: "^[A-Za-z0-9_][A-Za-z0-9._-]*$" },
                example: "swagger-ui-dist",
              },
              file: {
                description: "File name in the package's directory",
                schema: { type: "string", pattern: "^[A-Za-z0-9_][A-Za-z0-9._-]*$" },
                example: "swagger-ui.css",
              },
            },
            responses: ASSET_RESPONSES,
          },
        },
      },
    },
  ];
}
