/**
 * The benchmark's PostgreSQL peer (`bench/peer/`): the SQL builders always;
 * the whole peer (initdb, load, HTTP wrapper) on a small demo dataset when
 * PostgreSQL 15 is installed at /usr/lib/postgresql/15, skipped otherwise.
 *
 * @module
 */
import { assert, assertEquals, assertMatch, assertStringIncludes, assertThrows } from "@std/assert";
import {
  columnNames,
  copyStatement,
  parseCsvLine,
  providerTableSql,
} from "../bench/peer/schema.ts";
import { detailStatement, searchStatements } from "../bench/peer/search_sql.ts";
import { parseSearch, RequestError } from "../bench/peer/server.ts";
import { startPostgresPeer } from "../bench/peer/postgres.ts";
import { mixUrls } from "../bench/mix.ts";
import { writeDemoCsv } from "../lib/demo/csv.ts";
import { LAYOUTS } from "../lib/nppes/columns.ts";

function postgresInstalled(): boolean {
  try {
    return Deno.statSync("/usr/lib/postgresql/15/bin/postgres").isFile;
  } catch {
    return false;
  }
}

Deno.test("peer: CSV header to column names", () => {
  assertEquals(parseCsvLine('"NPI","Provider Last Name (Legal Name)",""\r\n'), [
    "NPI",
    "Provider Last Name (Legal Name)",
    "",
  ]);
  assertEquals(parseCsvLine('"a ""b""",c'), ['a "b"', "c"]);
  const names = columnNames(LAYOUTS.npidata);
  assertEquals(names.length, 330);
  assertEquals(new Set(names).size, 330);
  assert(names.every((n) => /^[a-z][a-z0-9_]{0,62}$/.test(n)), "valid identifiers");
  assertEquals(names[0], "npi");
  assertEquals(columnNames(["A b", "a-b", "1x"]), ["a_b", "a_b_2", "c_1x"]);
});

Deno.test("peer: load SQL names the NPPES columns it needs", () => {
  const headers = LAYOUTS.npidata;
  const sql = providerTableSql(headers, columnNames(headers), {
    table: "othername",
    columns: columnNames(LAYOUTS.othername),
  });
  assertStringIncludes(sql, 'n."provider_last_name_legal_name" AS last_name');
  assertStringIncludes(sql, "LEFT JOIN zip_centroid");
  assertStringIncludes(sql, "string_agg(");
  assertThrows(
    () => providerTableSql(["NPI"], ["npi"], null),
    Error,
    "npidata header has no column",
  );
  const copy = copyStatement("othername", ["npi", "name"], "/x/o'k.csv");
  assertStringIncludes(copy, "FROM '/x/o''k.csv'");
  assertStringIncludes(copy, 'FORCE_NULL ("npi", "name")');
});

Deno.test("peer: search parameters become one filter shared by page, count and facets", () => {
  const query = parseSearch(
    new URLSearchParams("q=Memorial Hospital&state=ca&facets=city,taxonomy"),
  );
  assertEquals(query.words, ["memorial", "hospital"]);
  assertEquals(query.states, ["CA"]);
  const s = searchStatements(query);
  // Two words, a prefix for the last one, the state; then limit and offset.
  assertEquals(s.count.params, ["memorial", "hospital", "hospital%", "CA"]);
  assertEquals(s.page.params, ["memorial", "hospital", "hospital%", "CA", 10, 0]);
  assertMatch(s.page.text, /ORDER BY coalesce\(greatest/);
  assertEquals(s.facets.map((f) => f.name), ["city", "taxonomy"]);
  assertStringIncludes(s.facets[1]!.statement.text, "unnest(taxonomy_codes)");
  for (const f of s.facets) assertEquals(f.statement.params, s.count.params);

  const short = searchStatements(parseSearch(new URLSearchParams("q=jo")));
  assert(!short.page.text.includes("% $1"), "no trigram similarity for a 2-letter word");
  assertStringIncludes(short.page.text, "lower(last_name) LIKE $2");

  const prefix = searchStatements(parseSearch(new URLSearchParams("last_name=o_b*&state=TX")));
  assertEquals(prefix.count.params, ["o\\_b%", "TX"]);
  assertStringIncludes(prefix.page.text, "MATERIALIZED");

  const near = parseSearch(new URLSearchParams("specialty=family medicine&near=10001&radius=10"));
  assert(near.codes !== null && near.codes.includes("207Q00000X"));
  assert(near.near !== null && Math.abs(near.near.radiusMeters - 16093.44) < 1e-6);
  assertStringIncludes(searchStatements(near).page.text, "earth_box(");

  const browse = searchStatements(parseSearch(new URLSearchParams("offset=490")));
  assertEquals(browse.count.text, "SELECT count(*)::int AS total FROM provider WHERE active");
  assertEquals(browse.page.params, [10, 490]);

  assertEquals(
    detailStatement({ othername: true, pl: false, endpoint: true }, "1234567893").params,
    [
      "1234567893",
    ],
  );
});

Deno.test("peer: bad search parameters are 400s", () => {
  for (
    const qs of [
      "npi=123",
      "radius=5",
      "specialty=cardiolgy",
      "state=",
      "last_name=s*",
      "near=00000",
      "limit=0",
      "offset=10001",
      "facets=color",
      "cursor=x",
    ]
  ) {
    const error = assertThrows(() => parseSearch(new URLSearchParams(qs)), RequestError);
    assertEquals(error.status, 400, qs);
  }
});

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test({
  name: "peer: loads demo CSV files into PostgreSQL and answers the query mix",
  ignore: !postgresInstalled(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    // A private (0700) folder, as the benchmark lays it out: the postgres
    // user can neither read the CSV files (so the load takes the COPY FROM
    // STDIN path) nor enter the work folder (so the cluster goes to /tmp).
    const csvDir = await Deno.makeTempDir({ prefix: "peer_csv_" });
    const workDir = `${csvDir}/postgres`;
    const lines: string[] = [];
    let fallback: string | null = null;
    try {
      const { files } = await writeDemoCsv(csvDir, { records: 3000 });
      const npidata = await Deno.readTextFile(files.find((f) => f.kind === "npidata")!.path);
      const row = npidata.split("\r\n").slice(1).find((line) => {
        const fields = parseCsvLine(line);
        return fields[1] === "1" && fields[39] === "";
      });
      const npi = parseCsvLine(row ?? "")[0] ?? "";
      assertMatch(npi, /^[0-9]{10}$/);

      const options = {
        csvDir,
        workDir,
        pgPort: freePort(),
        httpPort: freePort(),
        log: (line: string) => lines.push(line),
      };
      const peer = await startPostgresPeer(options);
      try {
        assertEquals(peer.name, "postgres");
        assert(peer.loadSeconds > 0 && peer.loadRowsPerSecond > 0);
        assert(lines.some((l) => l.includes("FROM STDIN")), lines.join("\n"));
        fallback = /keeping the cluster in (\S+)/.exec(lines.join("\n"))?.[1] ?? null;
        assert(fallback !== null, lines.join("\n"));
        const urls = mixUrls({ npi, rareSurnameTypo: "smiht", deepCursor: null });
        for (const [name, path] of Object.entries(urls)) {
          const response = await fetch(peer.url + path);
          const body = await response.json();
          assertEquals(response.status, 200, `${name}: ${JSON.stringify(body)}`);
          if (name === "detail") {
            assertEquals(body.provider.npi, Number(npi));
            assertEquals(body.record.npi, npi);
          } else {
            assert(typeof body.total === "number" && Array.isArray(body.results), name);
          }
          if (name === "npi_lookup") assertEquals(body.total, 1);
          if (name === "specialty_state_facets") assert(Array.isArray(body.facets.city));
        }
        const health = await fetch(`${peer.url}/health`);
        assertEquals(await health.text(), '{"status":"ok"}');
        const missing = await fetch(`${peer.url}/v1/providers/1234567893`);
        await missing.body?.cancel();
        assertEquals(missing.status, 404);
      } finally {
        await peer.stop();
      }

      // Same files: the cluster is reused, not loaded again.
      lines.length = 0;
      const again = await startPostgresPeer(options);
      try {
        assert(lines.some((l) => l.startsWith("Reusing the cluster")), lines.join("\n"));
        const response = await fetch(`${again.url}/v1/providers/search?npi=${npi}`);
        assertEquals((await response.json()).total, 1);
      } finally {
        await again.stop();
      }
    } finally {
      await Deno.remove(csvDir, { recursive: true });
      if (fallback !== null) await Deno.remove(fallback, { recursive: true });
    }
  },
});
