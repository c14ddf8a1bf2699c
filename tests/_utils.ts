/**
 * Shared fixtures and assertions for the test suite.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { type App, createApp } from "../lib/service/app.ts";
import { createRoutes, type RouteDeps } from "../routes/mod.ts";
import { type Config, loadConfig } from "../lib/config.ts";
import { createLogger } from "../lib/log.ts";
import type { Route } from "../lib/http/router.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { Metrics } from "../lib/service/metrics.ts";

/** A test application whose log lines are collected in `logs`. */
export interface TestApp extends App {
  logs: Record<string, unknown>[];
  /** Sends a request to the in-process handler. */
  request(path: string, init?: RequestInit & { remote?: string }): Promise<Response>;
}

/** Builds an application in-process, with optional config, dependencies and route table. */
export function testApp(
  options: { config?: Partial<Config>; routes?: Route[]; deps?: Partial<RouteDeps> } = {},
): TestApp {
  const logs: Record<string, unknown>[] = [];
  const log = createLogger({ write: (line) => logs.push(JSON.parse(line)) });
  const config = { ...loadConfig({}), ...options.config };
  const deps = { dataset: new Dataset(), ...options.deps };
  const metrics = deps.metrics ?? new Metrics(deps.dataset);
  const cache = {
    maxAgeSeconds: config.cacheMaxAgeSeconds,
    staleSeconds: config.cacheStaleSeconds,
  };
  const routes = options.routes ?? createRoutes({ cache, config, ...deps, metrics });
  const app = createApp({ config, log, metrics }, routes);
  return {
    ...app,
    logs,
    async request(path, init = {}) {
      const { remote = "127.0.0.1", ...rest } = init;
      const info = {
        remoteAddr: { transport: "tcp", hostname: remote, port: 40000 },
        completed: Promise.resolve(),
      } as Deno.ServeHandlerInfo<Deno.NetAddr>;
      return await app.handler(new Request(new URL(path, "http://localhost"), rest), info);
    },
  };
}

/** Asserts a problem+json response and returns its body. */
export async function assertProblem(
  response: Response,
  status: number,
): Promise<Record<string, unknown> & { errors?: { parameter: string; message: string }[] }> {
  assertEquals(response.status, status);
  assertEquals(response.headers.get("content-type"), "application/problem+json; charset=utf-8");
  const body = await response.json();
  assertEquals(body.status, status);
  assertEquals(typeof body.type, "string");
  assertEquals(typeof body.title, "string");
  assertEquals(typeof body.detail, "string");
  assertEquals(body.request_id, response.headers.get("x-request-id"));
  assert(
    !/at .*\.ts:\d+|\bSELECT\b|\/work\//.test(JSON.stringify(body)),
    "problem leaks internals",
  );
  return body;
}

/** Asserts a 200 JSON response and returns its body. */
export async function assertJson<T = Record<string, unknown>>(
  response: Response,
  status = 200,
): Promise<T> {
  assertEquals(response.status, status, await peek(response));
  assertEquals(response.headers.get("content-type"), "application/json; charset=utf-8");
  return await response.json() as T;
}

async function peek(response: Response): Promise<string> {
  if (response.status < 400) return "";
  return await response.clone().text();
}

export { freePort } from "../scripts/processes.ts";

/**
 * A small seeded random number generator (mulberry32): the same seed gives
 * the same sequence, so randomised tests are repeatable.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * This process's `/proc/PID/<name>` (`maps`, `status`), as another process
 * reads it: Deno lets a process read its own `/proc` entries only with
 * every permission.
 */
export async function ownProcFile(name: string): Promise<string> {
  const { stdout, success } = await new Deno.Command("cat", { args: [`/proc/${Deno.pid}/${name}`] })
    .output();
  if (!success) throw new Error(`cannot read /proc/${Deno.pid}/${name}`);
  return new TextDecoder().decode(stdout);
}
