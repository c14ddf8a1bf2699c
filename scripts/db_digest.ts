/**
 * Prints a SHA-256 digest of every table of a provider database, its part
 * files' included (`posting`, `record`), over its rows in primary-key
 * order, so two builds can be compared table by table (a refactoring of
 * the importer must leave every digest unchanged). The `meta` table's
 * build time and part names are left out, and `record` rows are taken by
 * content: their sequence numbers are the order in which parallel import
 * workers delivered them, which differs from run to run (so `provider`
 * rows are digested with their record's text, not its number).
 *
 * ```sh
 * deno run --allow-read scripts/db_digest.ts data/providers.db
 * ```
 *
 * @module
 */
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { partPath, PARTS_META_KEY, readPartNames } from "../lib/store/parts.ts";

/** Rows of `meta` whose values depend on when the build ran (its time, its parts' stamp). */
const VOLATILE_META = new Set(["built_at", PARTS_META_KEY]);

/** Digest of rows, each a list of values. */
function digestOf(rows: Iterable<unknown[]>): string {
  const hash = createHash("sha256");
  for (const values of rows) {
    for (const value of values) {
      hash.update(value instanceof Uint8Array ? value : JSON.stringify(value));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/**
 * Digests of each table of the database at `path`, by table name.
 *
 * @example
 * ```ts
 * const digests = tableDigests("data/providers.db");
 * digests.get("provider"); // "3f1c…"
 * ```
 */
export function tableDigests(path: string): Map<string, string> {
  const parts = readPartNames(path);
  if (!parts) throw new Error(`'${path}' is not a provider database with part files`);
  const db = new DatabaseSync(path, { readOnly: true });
  const open = (file: string) => new DatabaseSync(partPath(path, file), { readOnly: true });
  const postings = open(parts.postings);
  const records = parts.records.map((r) => open(r.file));
  try {
    const rows = (connection: DatabaseSync, sql: string) =>
      (function* () {
        for (const row of connection.prepare(sql).iterate()) {
          yield Object.values(row as Record<string, unknown>);
        }
      })();
    const docs = new Map<number, { npi: number; doc: string }>();
    for (const part of records) {
      for (const [seq, npi, doc] of rows(part, "SELECT seq, npi, doc FROM record")) {
        docs.set(seq as number, { npi: npi as number, doc: doc as string });
      }
    }
    const tables = (db.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    ).all() as { name: string }[]).map((t) => t.name);
    const out = new Map<string, string>();
    for (const table of tables) {
      if (table === "provider") {
        out.set(
          table,
          digestOf(
            [...rows(db, "SELECT id, npi, record, active, sides FROM provider ORDER BY id")].map((
              [id, npi, seq, active, sides],
            ) => [id, npi, docs.get(seq as number)?.doc ?? null, active, sides]),
          ),
        );
        continue;
      }
      const all = rows(db, `SELECT * FROM "${table}" ORDER BY 1, 2`);
      out.set(
        table,
        digestOf(
          table === "meta" ? [...all].filter((v) => !VOLATILE_META.has(String(v[0]))) : all,
        ),
      );
    }
    out.set("posting", digestOf(rows(postings, "SELECT * FROM posting ORDER BY 1, 2")));
    out.set(
      "record",
      digestOf(
        [...docs.values()].sort((a, b) => a.npi - b.npi || (a.doc < b.doc ? -1 : 1))
          .map((r) => [r.npi, r.doc]),
      ),
    );
    return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
  } finally {
    for (const connection of [db, postings, ...records]) connection.close();
  }
}

if (import.meta.main) {
  const path = Deno.args[0];
  if (!path) {
    console.error("usage: deno run --allow-read scripts/db_digest.ts FILE.db");
    Deno.exit(2);
  }
  for (const [table, digest] of tableDigests(path)) console.log(`${digest}  ${table}`);
}
