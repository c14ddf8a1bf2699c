/**
 * Typed command-line parsing for the data commands, on top of the standard
 * library's `parseArgs`: unknown options are errors with a "did you mean".
 *
 * @module
 */
import { parseArgs as stdParseArgs } from "@std/cli/parse-args";
import { closest } from "./text/edit_distance.ts";

/** The declared options of a command. */
export interface CliSpec<S extends string, B extends string> {
  string: readonly S[];
  boolean: readonly B[];
}

/** Parsed options: strings (or undefined) and booleans. */
export type CliArgs<S extends string, B extends string> =
  & { [K in S]?: string }
  & { [K in B]: boolean };

/** A command line that cannot be understood; print the message and the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Parses `args` against `spec`. Throws {@linkcode UsageError} for unknown
 * options, stray arguments, and string options given no value.
 *
 * @example
 * ```ts
 * const args = parseCli(["--db", "x.db", "--update"], { string: ["db"], boolean: ["update"] });
 * args.db; // "x.db"
 * ```
 */
export function parseCli<const S extends string, const B extends string>(
  args: readonly string[],
  spec: CliSpec<S, B>,
): CliArgs<S, B> {
  const known = [...spec.string, ...spec.boolean, "help"];
  const unknown: string[] = [];
  const parsed = stdParseArgs([...args], {
    string: [...spec.string],
    boolean: [...spec.boolean, "help"],
    unknown: (arg: string) => {
      unknown.push(arg);
      return false;
    },
  }) as Record<string, unknown>;
  if (unknown.length > 0) {
    const arg = unknown[0]!;
    const name = arg.replace(/^-+/, "").split("=")[0]!;
    const hint = arg.startsWith("-") ? closest(name, known, 3) : null;
    throw new UsageError(
      arg.startsWith("-")
        ? `Unknown option '${arg}'${hint ? `: did you mean '--${hint}'?` : ""}`
        : `Unexpected argument '${arg}': options take the form --name value`,
    );
  }
  for (const name of spec.string) {
    if (parsed[name] === "") throw new UsageError(`Option '--${name}' needs a value`);
  }
  return parsed as CliArgs<S, B>;
}

/**
 * Runs a command's `main`: a {@linkcode UsageError} prints the message and
 * the usage and exits 2; anything else propagates.
 *
 * @example
 * ```ts
 * if (import.meta.main) await runCli(main, USAGE);
 * ```
 */
export async function runCli(main: () => Promise<void>, usage: string): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}\n\n${usage}`);
      Deno.exit(2);
    }
    throw error;
  }
}

/**
 * Runs a command's `main` as {@linkcode runCli} does, and ends the process
 * with status 1 and its message (`error: …`) on any other error: for the
 * commands whose failures are the user's to act on (a database to stop
 * serving, a file to fetch again), not stack traces.
 *
 * @example
 * ```ts
 * if (import.meta.main) await runScript(() => Promise.resolve().then(main), USAGE);
 * ```
 */
export async function runScript(main: () => Promise<void>, usage: string): Promise<void> {
  try {
    await runCli(main, usage);
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
