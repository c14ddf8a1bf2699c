/**
 * Prints a SHA-256 digest of every table of a provider database, over its
 * rows in primary-key order, so two builds can be compared table by table
 * (a refactoring of the importer must leave every digest unchanged). The
 * `meta` table's build time is left out, and `record` rows are taken by
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

/** Tables read by content rather than as stored (see the module comment). */
const BY_CONTENT: Record<string, string> = {
  record: "SELECT npi, doc FROM record ORDER BY npi, doc",
  provider:
    "SELECT p.id, p.npi, r.doc, p.active, p.sides FROM provider p JOIN record r ON r.seq = p.record ORDER BY p.id",
};

/** Rows of `meta` whose values depend on when the build ran. */
const VOLATILE_META = new Set(["built_at"]);

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
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = (db.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    ).all() as { name: string }[]).map((t) => t.name);
    const out = new Map<string, string>();
    for (const table of tables) {
      const hash = createHash("sha256");
      const sql = BY_CONTENT[table] ?? `SELECT * FROM "${table}" ORDER BY 1, 2`;
      for (const row of db.prepare(sql).iterate()) {
        const values = Object.values(row as Record<string, unknown>);
        if (table === "meta" && VOLATILE_META.has(String(values[0]))) continue;
        for (const value of values) {
          hash.update(value instanceof Uint8Array ? value : JSON.stringify(value));
          hash.update("\0");
        }
      }
      out.set(table, hash.digest("hex"));
    }
    return out;
  } finally {
    db.close();
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
