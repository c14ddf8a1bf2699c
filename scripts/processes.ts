/**
 * Starting the service and the importer as separate processes, the way a
 * user runs them: shared by the end-to-end and fault tests, the browser
 * test, the benchmark and the soak.
 *
 * @module
 */

/** The repository root (with a trailing slash). */
export const ROOT: string = new URL("..", import.meta.url).pathname;

/** The permissions `deno task start` grants, for a server subprocess. */
export const SERVE_PERMISSIONS: readonly string[] = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
  "--allow-ffi",
];

/**
 * The V8 flags of `deno task start`: collections on demand, which the idle
 * server asks for before it gives memory back (`IdleRelease`).
 */
export const SERVE_V8_FLAGS = "--v8-flags=--expose-gc";

/** A port nobody listens on right now, on the loopback interface. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

type Output = "piped" | "inherit" | "null";

/**
 * The command running `main.ts` (or another script) with the service's permissions.
 *
 * @example
 * ```ts
 * const child = serverCommand({ PORT: "7861", PROVIDERS_DB: "/tmp/p.db" }).spawn();
 * ```
 */
export function serverCommand(
  env: Record<string, string>,
  options: { script?: string; stdout?: Output; stderr?: Output } = {},
): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVE_PERMISSIONS, SERVE_V8_FLAGS, options.script ?? `${ROOT}main.ts`],
    cwd: ROOT,
    env: { HOST: "127.0.0.1", ...SERVE_ENV, ...env },
    stdout: options.stdout ?? "null",
    stderr: options.stderr ?? "null",
  });
}

/**
 * The environment `deno task start` sets, and so the benchmark's servers:
 * glibc maps blocks of 4 MB or more on their own and unmaps them when freed
 * (by default its threshold grows with the blocks freed, up to 32 MB, and
 * the large arrays searches make and drop stay resident). Measured on the
 * cold classes at full scale: 128 KB (as the import) kept 330 MB less
 * anonymous memory but cost a fifth to a half of the throughput, in page
 * faults on every fresh block; 4 MB keeps the speed.
 */
export const SERVE_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: "4194304" };

/**
 * The environment `deno task import` sets: glibc returns a freed block of
 * 128 KB or more to the system at once (by default the threshold grows with
 * the blocks freed, up to 32 MB, and the importer's threads free hundreds
 * of megabytes of arrays that would stay resident). Other C libraries
 * ignore it.
 */
export const IMPORT_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: "131072" };

/** The files of an import, by kind. */
export interface ImportFiles {
  npidata: string;
  othername?: string;
  pl?: string;
  endpoint?: string;
}

/**
 * The command running `deno task import` on `files` into `db`.
 *
 * @example
 * ```ts
 * const { success } = await importCommand("/tmp/p.db", { npidata: "npidata.csv" }).output();
 * ```
 */
export function importCommand(
  db: string,
  files: ImportFiles,
  options: { stdout?: Output; stderr?: Output } = {},
): Deno.Command {
  const args = [
    "run",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-sys",
    // As `deno task import`: a bounded heap per thread makes V8 collect early, and the importer
    // asks for collections between phases (lib/memory.ts), keeping the peak low.
    "--v8-flags=--max-old-space-size=512,--expose-gc",
    `${ROOT}scripts/import.ts`,
  ];
  args.push("--db", db, "--npi", files.npidata);
  if (files.othername) args.push("--othername", files.othername);
  if (files.pl) args.push("--pl", files.pl);
  if (files.endpoint) args.push("--endpoint", files.endpoint);
  return new Deno.Command(Deno.execPath(), {
    args,
    env: IMPORT_ENV,
    stdout: options.stdout ?? "piped",
    stderr: options.stderr ?? "piped",
  });
}

/**
 * Polls `url` until it answers `status` (200 by default); returns how long
 * that took in ms, or throws after `timeoutMs`.
 */
export async function waitForStatus(
  url: string,
  options: { status?: number; timeoutMs?: number } = {},
): Promise<number> {
  const status = options.status ?? 200;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = performance.now();
  while (true) {
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.status === status) return performance.now() - started;
    } catch { /* not listening yet */ }
    if (performance.now() - started > timeoutMs) {
      throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
