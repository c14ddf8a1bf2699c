/**
 * The router: one table of routes, compiled once, dispatching by path and
 * then by method. It tells 404 from 405, derives `Allow`, answers `HEAD`
 * from `GET` and `OPTIONS` with `Allow` and the CORS preflight headers.
 *
 * @module
 */
import type { Handler, RequestContext } from "./handler.ts";
import { HttpError, NotFoundError } from "./errors.ts";
import type { JsonSchema, ParamDef, ParsedQuery, QuerySchema } from "./params.ts";
import { STATUS_CODE } from "./status.ts";

/** Methods a route may define. `HEAD` and `OPTIONS` are derived. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One documented response of an operation. */
export interface ResponseSpec {
  description: string;
  /** Media type; `application/json` when a schema is given and this is not. */
  contentType?: string;
  /** The body's schema, or a `$ref` to a component. */
  schema?: JsonSchema;
  /** Response headers worth documenting, by name. */
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** A path parameter's documentation. */
export interface PathParamSpec {
  description: string;
  schema: JsonSchema;
  example?: string;
}

/** The OpenAPI operation a route carries beside its handler. */
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  // deno-lint-ignore no-explicit-any
  query?: QuerySchema<Record<string, ParamDef<any>>>;
  pathParams?: Record<string, PathParamSpec>;
  /** The request body, by media type (for `POST`). */
  requestBody?: {
    description: string;
    required: boolean;
    content: Record<string, { schema: JsonSchema; example?: string }>;
  };
  /** Responses by status code (the common problem responses are added for you). */
  responses: Record<string, ResponseSpec>;
  /** Whether the rate limiter applies (true unless said otherwise). */
  rateLimited?: boolean;
  /**
   * How invalid parameters are answered: a 400 problem (default), or
   * `in-body` when the route answers them itself (the NPI Registry API's
   * 200 with `Errors`), so no 400 is documented.
   */
  validation?: "problem" | "in-body";
}

/** A method's handler and its documentation. */
export interface Endpoint {
  handler: Handler;
  operation: Operation;
}

/** One entry of the route table. */
export interface Route {
  /** A `URLPattern` pathname, e.g. `/v1/providers/:npi`. */
  path: string;
  methods: Partial<Record<Method, Endpoint>>;
}

/**
 * An endpoint whose handler receives its query already parsed by the same
 * schema the OpenAPI document shows; unknown or malformed parameters are a
 * 400 before the handler runs.
 *
 * @example
 * ```ts
 * const schema = defineQuery({ q: text({ description: "Words", maxLength: 200 }) });
 * endpoint({ operationId: "s", summary: "Search", tags: [], responses: {}, query: schema },
 *   (_request, _ctx, query) => Response.json({ q: query.q ?? null }));
 * ```
 */
export function endpoint<S extends Record<string, ParamDef<unknown>>>(
  operation: Operation & { query: QuerySchema<S> },
  handler: (
    request: Request,
    ctx: RequestContext,
    query: ParsedQuery<S>,
  ) => Response | Promise<Response>,
): Endpoint {
  const schema: QuerySchema<S> = operation.query;
  return {
    operation,
    handler: (request, ctx) => handler(request, ctx, schema.parse(ctx.url.searchParams)),
  };
}

/** The result of matching a path against the table. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** A compiled route table. */
export interface Router {
  /** The handler that dispatches requests. */
  handler: Handler;
  /** Finds the route for a path, or `null`. */
  match(pathname: string): RouteMatch | null;
}

/** Headers sent with every `OPTIONS` answer and CORS preflight. */
export function preflightHeaders(allow: string): Record<string, string> {
  return {
    "Allow": allow,
    "Access-Control-Allow-Methods": allow,
    "Access-Control-Allow-Headers": "X-Request-ID, Content-Type",
    "Access-Control-Max-Age": "86400",
  };
}

/** The `Allow` value of a route: its methods plus the derived ones. */
export function allowedMethods(route: Route): string {
  const methods: string[] = Object.keys(route.methods);
  if (route.methods.GET) methods.push("HEAD");
  methods.push("OPTIONS");
  return methods.join(", ");
}

function isStatic(path: string): boolean {
  return !/[:*(){}?+]/.test(path);
}

function decodeParams(groups: Record<string, string | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(groups)) {
    if (value === undefined || /^\d+$/.test(name)) continue;
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      params[name] = value;
    }
  }
  return params;
}

async function headFrom(result: Response | Promise<Response>): Promise<Response> {
  const response = await result;
  await response.body?.cancel();
  return new Response(null, { status: response.status, headers: response.headers });
}

/**
 * Compiles a route table. Static paths are looked up in a map, the others
 * tried in table order; the first match wins.
 *
 * @example
 * ```ts
 * const router = createRouter([{ path: "/health", methods: { GET: { handler, operation } } }]);
 * ```
 */
export function createRouter(routes: readonly Route[]): Router {
  const statics = new Map<string, Route>();
  const dynamic: { pattern: URLPattern; route: Route }[] = [];
  for (const route of routes) {
    if (isStatic(route.path)) statics.set(route.path, route);
    else dynamic.push({ pattern: new URLPattern({ pathname: route.path }), route });
  }

  function match(pathname: string): RouteMatch | null {
    const route = statics.get(pathname);
    if (route) return { route, params: {} };
    for (const entry of dynamic) {
      const result = entry.pattern.exec({ pathname });
      if (result) return { route: entry.route, params: decodeParams(result.pathname.groups) };
    }
    return null;
  }

  const allows = new Map(routes.map((route) => [route, allowedMethods(route)]));

  function handler(request: Request, ctx: RequestContext): Response | Promise<Response> {
    const found = match(ctx.pathname);
    if (!found) throw new NotFoundError(`No route for '${ctx.pathname}': see /openapi.json`);
    ctx.params = found.params;
    ctx.route = found.route.path;
    const { route } = found;
    const method = request.method;
    const allow = allows.get(route)!;
    if (method === "GET" && route.methods.GET) return route.methods.GET.handler(request, ctx);
    if (method === "OPTIONS") {
      return new Response(null, {
        status: STATUS_CODE.NoContent,
        headers: preflightHeaders(allow),
      });
    }
    if (method === "HEAD" && route.methods.GET) {
      return headFrom(route.methods.GET.handler(request, ctx));
    }
    const endpoint = route.methods[method as Method];
    if (!endpoint) {
      throw new HttpError(
        STATUS_CODE.MethodNotAllowed,
        `Method '${method.slice(0, 20)}' is not allowed on '${ctx.pathname}': use ${allow}`,
        { headers: { Allow: allow }, type: "method-not-allowed" },
      );
    }
    return endpoint.handler(request, ctx);
  }

  return { handler, match };
}
