/**
 * The PostgreSQL peer's minimal HTTP wrapper, run as its own process by
 * `postgres.ts` so its CPU shows separately:
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 --allow-env=PG* bench/peer/server.ts \
 *   --http-port=7990 --pg-port=55432 --database=nppes [--connections=8] [--exit-with-parent=true]
 * ```
 *
 * Routes: `GET /health`, `GET /v1/providers/search` (the parameters of the
 * benchmark's query mix: `npi`, `q`, `last_name`, `state`, `specialty`,
 * `near`, `radius`, `facets`, `limit`, `offset`) and
 * `GET /v1/providers/{npi}`. A pool of 8 connections runs prepared
 * statements; a search runs its page, count and facet queries at once.
 * Specialties resolve through this service's resolver and ZIPs through its
 * ZIP table, so both sides search the same codes and points.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix
import postgres from "npm:postgres@3.4.9";
import { lookupZip } from "../../lib/geo/zip.ts";
import { builtinTaxonomy } from "../../lib/taxonomy/nucc.ts";
import { buildSpecialtyIndex, resolveSpecialty } from "../../lib/taxonomy/resolve.ts";
import {
  detailStatement,
  METERS_PER_MILE,
  PEER_FACETS,
  type PeerFacet,
  type PeerQuery,
  searchStatements,
  type SqlValue,
  type Statement,
} from "./search_sql.ts";

/** Options of the wrapper, from its command line. */
export interface ServerOptions {
  /** Port to listen on, 127.0.0.1. */
  httpPort: number;
  /** PostgreSQL port on 127.0.0.1. */
  pgPort: number;
  /** Database name. */
  database: string;
  /** Pool size. */
  connections: number;
  /** Exit when stdin ends (the parent that started us died or closed it). */
  exitWithParent: boolean;
}

/** A request the wrapper refuses, with its status. */
export class RequestError extends Error {
  /** HTTP status. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const SEARCH_PARAMETERS = new Set([
  "npi",
  "q",
  "last_name",
  "state",
  "specialty",
  "near",
  "radius",
  "facets",
  "limit",
  "offset",
]);

const specialties = buildSpecialtyIndex(builtinTaxonomy());

function integerParam(
  value: string | null,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === null) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new RequestError(400, `'${name}' must be an integer from ${min} to ${max}`);
  }
  return Number(value);
}

function listParam(value: string | null): string[] {
  if (value === null) return [];
  return value.split(",").map((v) => v.trim()).filter((v) => v !== "");
}

/**
 * Validates search parameters and resolves specialty words (to taxonomy
 * codes) and ZIPs (to centroids).
 *
 * @example
 * ```ts
 * parseSearch(new URLSearchParams("q=smith")).words; // ["smith"]
 * ```
 */
export function parseSearch(params: URLSearchParams): PeerQuery {
  for (const [name, value] of params) {
    if (SEARCH_PARAMETERS.has(name) && value.trim() === "") {
      throw new RequestError(400, `'${name}' must not be empty`);
    }
    if (!SEARCH_PARAMETERS.has(name)) {
      throw new RequestError(
        400,
        `unknown parameter '${name}' (the peer answers the benchmark mix only)`,
      );
    }
  }
  const npis = listParam(params.get("npi"));
  for (const npi of npis) {
    if (!/^[0-9]{10}$/.test(npi)) {
      throw new RequestError(400, `'npi' must be 10 digits, got '${npi}'`);
    }
  }
  const q = params.get("q");
  if (q !== null && (q.length < 1 || q.length > 200)) {
    throw new RequestError(400, "'q' must be 1 to 200 characters");
  }
  const words = q === null
    ? []
    : q.toLowerCase().split(/[^\p{L}\p{N}']+/u).filter((w) => w !== "").slice(0, 12);

  let lastName: PeerQuery["lastName"] = null;
  const last = params.get("last_name");
  if (last !== null) {
    const prefix = last.endsWith("*");
    const key = (prefix ? last.slice(0, -1) : last).trim().toLowerCase();
    if (key.includes("*") || key.length < (prefix ? 2 : 1)) {
      throw new RequestError(400, "'last_name' needs at least 2 letters before a final '*'");
    }
    lastName = { key, prefix };
  }

  const states = listParam(params.get("state")).map((s) => s.toUpperCase());
  for (const state of states) {
    if (!/^[A-Z]{2}$/.test(state)) {
      throw new RequestError(400, `'state' must be 2 letters, got '${state}'`);
    }
  }

  let codes: string[] | null = null;
  const specialtyList = listParam(params.get("specialty"));
  if (specialtyList.length > 0) {
    const found = new Set<string>();
    for (const words of specialtyList) {
      const resolved = resolveSpecialty(specialties, words);
      if (!resolved.ok) {
        throw new RequestError(
          400,
          `unknown specialty '${words}'` +
            (resolved.suggestions.length > 0
              ? `; did you mean ${resolved.suggestions.join(", ")}?`
              : ""),
        );
      }
      for (const code of resolved.codes) found.add(code);
    }
    codes = [...found].sort();
  }

  let near: PeerQuery["near"] = null;
  const nearValue = params.get("near");
  const radiusValue = params.get("radius");
  if (nearValue !== null) {
    const zip = lookupZip(nearValue);
    if (zip === null) {
      throw new RequestError(400, `'near' must be a known 5-digit ZIP, got '${nearValue}'`);
    }
    const radius = radiusValue === null ? 25 : Number(radiusValue);
    if (!Number.isFinite(radius) || radius <= 0 || radius > 500) {
      throw new RequestError(
        400,
        "'radius' must be a number greater than 0 and at most 500 (miles)",
      );
    }
    near = { lat: zip.lat, lon: zip.lon, radiusMeters: radius * METERS_PER_MILE };
  } else if (radiusValue !== null) {
    throw new RequestError(400, "'radius' needs 'near'");
  }

  const facets = listParam(params.get("facets")) as PeerFacet[];
  for (const facet of facets) {
    if (!PEER_FACETS.includes(facet)) {
      throw new RequestError(400, `unknown facet '${facet}' (one of ${PEER_FACETS.join(", ")})`);
    }
  }

  return {
    npis,
    words,
    lastName,
    states,
    codes,
    near,
    facets,
    limit: integerParam(params.get("limit"), "limit", 1, 100, 10),
    offset: integerParam(params.get("offset"), "offset", 0, 10000, 0),
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

function problem(status: number, detail: string): Response {
  return new Response(JSON.stringify({ status, detail }), {
    status,
    headers: { "content-type": "application/problem+json" },
  });
}

function parseArgs(args: readonly string[]): ServerOptions {
  const values = new Map<string, string>();
  for (const arg of args) {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (m === null) {
      throw new Error(
        `Unexpected argument '${arg}': use --http-port=N --pg-port=N [--database=NAME] [--connections=N] [--exit-with-parent=true]`,
      );
    }
    values.set(m[1]!, m[2]!);
  }
  const port = (name: string): number => {
    const value = Number(values.get(name));
    if (!Number.isInteger(value) || value <= 0 || value > 65535) {
      throw new Error(`--${name}=PORT is required (1-65535)`);
    }
    return value;
  };
  const connections = Number(values.get("connections") ?? "8");
  if (!Number.isInteger(connections) || connections < 1 || connections > 90) {
    throw new Error("--connections=N must be an integer from 1 to 90");
  }
  return {
    httpPort: port("http-port"),
    pgPort: port("pg-port"),
    database: values.get("database") ?? "nppes",
    connections,
    exitWithParent: values.get("exit-with-parent") === "true",
  };
}

/**
 * Serves the peer's routes over a PostgreSQL pool until SIGTERM or SIGINT.
 *
 * @example
 * ```ts
 * await serve({ httpPort: 7990, pgPort: 55432, database: "nppes", connections: 8, exitWithParent: false });
 * ```
 */
export async function serve(options: ServerOptions): Promise<void> {
  const sql = postgres({
    host: "127.0.0.1",
    port: options.pgPort,
    user: "postgres",
    database: options.database,
    max: options.connections,
    prepare: true,
    ssl: false,
    idle_timeout: 0,
    max_lifetime: 0,
    onnotice: () => {},
    connection: { application_name: "nppes-peer" },
  });
  const loaded = await sql<{ tables: { othername: boolean; pl: boolean; endpoint: boolean } }[]>`
    SELECT tables FROM peer_meta`;
  const tables = loaded[0]?.tables ?? { othername: false, pl: false, endpoint: false };

  const query = <T extends Record<string, unknown>>(statement: Statement): Promise<T[]> =>
    sql.unsafe<T[]>(statement.text, statement.params as SqlValue[] as never[], { prepare: true });

  async function search(params: URLSearchParams): Promise<Response> {
    const t0 = performance.now();
    const statements = searchStatements(parseSearch(params));
    const [page, count, ...facets] = await Promise.all([
      query(statements.page),
      query<{ total: number }>(statements.count),
      ...statements.facets.map((f) => query<{ value: string; count: number }>(f.statement)),
    ]);
    const body: Record<string, unknown> = {
      total: count[0]?.total ?? 0,
      limit: statements.page.params.at(-2),
      offset: statements.page.params.at(-1),
      results: page,
    };
    if (statements.facets.length > 0) {
      body.facets = Object.fromEntries(
        statements.facets.map((
          f,
          i,
        ) => [f.name, (facets[i] ?? []).map((r) => ({ value: r.value, count: r.count }))]),
      );
    }
    body.took_ms = Math.round((performance.now() - t0) * 10) / 10;
    return json(200, body);
  }

  async function detail(npi: string): Promise<Response> {
    if (!/^[0-9]{10}$/.test(npi)) {
      return problem(400, `NPI must be 10 digits, got '${npi.slice(0, 20)}'`);
    }
    const rows = await query<{ body: string }>(detailStatement(tables, npi));
    const row = rows[0];
    if (row === undefined) return problem(404, `No provider with NPI ${npi}`);
    return new Response(row.body, {
      headers: { "content-type": "application/json; charset=utf-8" },
    });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "GET" && request.method !== "HEAD") return problem(405, "GET only");
    try {
      if (url.pathname === "/health" || url.pathname === "/v1/health") {
        return json(200, { status: "ok" });
      }
      if (url.pathname === "/v1/providers/search") return await search(url.searchParams);
      const m = /^\/v1\/providers\/([^/]+)$/.exec(url.pathname);
      if (m !== null) return await detail(decodeURIComponent(m[1]!));
      return problem(404, `No route ${url.pathname}`);
    } catch (error) {
      if (error instanceof RequestError) return problem(error.status, error.message);
      console.error(`peer: ${request.url}: ${(error as Error).message}`);
      return problem(500, "query failed");
    }
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.httpPort, onListen: () => {} },
    handle,
  );
  let stopping = false;
  const shutdown = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await server.shutdown();
    await sql.end({ timeout: 5 });
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", () => void shutdown());
  Deno.addSignalListener("SIGINT", () => void shutdown());
  if (options.exitWithParent) {
    // Reads until EOF: the parent closed the pipe or died.
    void (async () => {
      for await (const _ of Deno.stdin.readable) {
        // ignore input
      }
      await shutdown();
    })();
  }
  await server.finished;
}

if (import.meta.main) {
  await serve(parseArgs(Deno.args));
}
