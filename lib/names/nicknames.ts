/**
 * First names and their nicknames (Robert → Bob, Rob, Robbie; Peggy →
 * Margaret), from the hand-curated US table `names.csv` of the public
 * repository carltonnorthern/nicknames (Apache-2.0), vendored under
 * `vendor/nicknames/` and compiled into `_nicknames_data.ts` by
 * `scripts/vendor_nicknames.ts`.
 *
 * One table serves every use in the service (the NPI Registry API's
 * `use_first_name_alias`, roster matching), so they agree on what counts as
 * the same first name.
 *
 * Relations are one hop: a name's aliases are its nicknames and the formal
 * names it is a nickname of, not the nicknames of those (Al is a nickname of
 * Albert, Alfred, Alan and a dozen more; two hops would make Albert match
 * Alfred).
 *
 * @module
 */
import { NICKNAME_LINES } from "./_nicknames_data.ts";

/** Where the vendored table comes from, for documentation and manifests. */
export const NICKNAME_SOURCE = {
  repository: "https://github.com/carltonnorthern/nicknames",
  file: "names.csv",
  license: "Apache-2.0",
} as const;

/**
 * A formal name and its nicknames as one line of the compiled table:
 * `formal:nick nick nick` (lower-case ASCII).
 */
export type NicknameLine = string;

/** Lookup over the nickname relation, in both directions. */
export class NicknameTable {
  readonly #nicknames = new Map<string, string[]>();
  readonly #formals = new Map<string, string[]>();

  /** Builds the table from compiled lines (see {@linkcode NicknameLine}). */
  constructor(lines: readonly NicknameLine[]) {
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon <= 0) throw new Error(`nickname line without "formal:": ${JSON.stringify(line)}`);
      const formal = line.slice(0, colon);
      const nicks = line.slice(colon + 1).split(" ").filter((n) => n !== "" && n !== formal);
      append(this.#nicknames, formal, nicks);
      for (const nick of nicks) append(this.#formals, nick, [formal]);
    }
  }

  /** Number of distinct names the table knows (formal names and nicknames). */
  get size(): number {
    const names = new Set([...this.#nicknames.keys(), ...this.#formals.keys()]);
    return names.size;
  }

  /**
   * The nicknames of a formal name, lower-case; empty when it has none.
   *
   * @example
   * ```ts
   * nicknames().nicknamesOf("Robert"); // includes "bob", "rob", "robby"
   * ```
   */
  nicknamesOf(name: string): readonly string[] {
    return this.#nicknames.get(name.toLowerCase()) ?? [];
  }

  /**
   * The formal names that `name` is a nickname of, lower-case.
   *
   * @example
   * ```ts
   * nicknames().formalNamesOf("peggy"); // ["margaret"]
   * ```
   */
  formalNamesOf(name: string): readonly string[] {
    return this.#formals.get(name.toLowerCase()) ?? [];
  }

  /**
   * The name itself, its nicknames and its formal names: every first name a
   * search for `name` with aliases should also accept. Lower-case, no
   * duplicates, `name` first.
   *
   * @example
   * ```ts
   * nicknames().aliasesOf("bob"); // ["bob", "robert", ...]
   * ```
   */
  aliasesOf(name: string): string[] {
    const key = name.toLowerCase();
    return [...new Set([key, ...this.nicknamesOf(key), ...this.formalNamesOf(key)])];
  }

  /**
   * Whether two different first names are related as nickname and formal
   * name (either way round). A name is not its own nickname: equal names
   * answer `false`, so callers can tell an exact agreement from a nickname
   * one.
   *
   * @example
   * ```ts
   * nicknames().areNicknames("William", "bill"); // true
   * nicknames().areNicknames("William", "william"); // false
   * ```
   */
  areNicknames(a: string, b: string): boolean {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    if (x === y) return false;
    return this.nicknamesOf(x).includes(y) || this.nicknamesOf(y).includes(x);
  }
}

function append(map: Map<string, string[]>, key: string, values: readonly string[]): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [...values]);
  else for (const v of values) if (!list.includes(v)) list.push(v);
}

/**
 * Parses the upstream `names.csv` (`name1,relationship,name2`, one
 * `has_nickname` relation a row, CRLF or LF) into compiled lines, sorted by
 * formal name. Throws on a row it does not understand, naming it.
 *
 * @example
 * ```ts
 * compileNicknameCsv("name1,relationship,name2\r\nrobert,has_nickname,bob\r\n");
 * // ["robert:bob"]
 * ```
 */
export function compileNicknameCsv(csv: string): NicknameLine[] {
  const rows = csv.split(/\r?\n/).filter((line) => line.trim() !== "");
  const header = rows.shift();
  if (header !== "name1,relationship,name2") {
    throw new Error(`names.csv: expected the header "name1,relationship,name2", got ${header}`);
  }
  const groups = new Map<string, string[]>();
  rows.forEach((row, i) => {
    const [formal, relation, nick, ...rest] = row.split(",");
    const valid = (s: string | undefined): s is string =>
      s !== undefined && /^[a-z][a-z.'-]*$/.test(s);
    if (rest.length > 0 || relation !== "has_nickname" || !valid(formal) || !valid(nick)) {
      throw new Error(`names.csv row ${i + 2}: expected "name,has_nickname,nickname", got ${row}`);
    }
    append(groups, formal, [nick]);
  });
  return [...groups.keys()].sort().map((formal) => `${formal}:${groups.get(formal)!.join(" ")}`);
}

let shared: NicknameTable | undefined;

/** The vendored table, built on first use and shared by every caller. */
export function nicknames(): NicknameTable {
  shared ??= new NicknameTable(NICKNAME_LINES);
  return shared;
}
