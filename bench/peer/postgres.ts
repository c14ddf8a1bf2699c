/**
 * The PostgreSQL comparison peer of the benchmark: PostgreSQL 15 loaded with
 * the NPPES files the way a competent user does it by hand (COPY into raw
 * text tables, a typed `provider` table derived with SQL, pg_trgm,
 * earthdistance and B-tree/GIN/GiST indexes, VACUUM ANALYZE), answering
 * the benchmark's query mix through a minimal HTTP wrapper
 * (`server.ts`, a separate Deno process) so both sides pay the same HTTP
 * cost.
 *
 * Bulk load follows PostgreSQL's "Populating a Database" chapter: COPY,
 * indexes after the data, a large `maintenance_work_mem` and `max_wal_size`,
 * and `wal_level = minimal` (no replication), which lets COPY into a table
 * created in the same transaction skip WAL while staying durable (the data
 * is synced at commit). Serving keeps `fsync` and `synchronous_commit` on.
 *
 * The cluster lives in `workDir/pgdata` (or, when the postgres user cannot
 * enter `workDir`, in a /tmp folder named after it). It is reused when it
 * already holds the same npidata file (name, size and modification time);
 * its recorded load time is reported again.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix
import postgres from "npm:postgres@3.4.9";
import { allZips } from "../../lib/geo/zip.ts";
import {
  columnNames,
  copyStatement,
  createRawTable,
  ident,
  indexStatements,
  literal,
  parseCsvLine,
  providerTableSql,
} from "./schema.ts";

/** Where and how to run the peer. */
export interface PeerOptions {
  /** Folder holding the NPPES CSV files (`npidata_pfile_*.csv`, `othername_pfile_*.csv`, ...). */
  csvDir: string;
  /** Folder for the cluster, its socket and its log; created when missing, kept for reuse. */
  workDir: string;
  /** TCP port PostgreSQL listens on (127.0.0.1 only). */
  pgPort: number;
  /** TCP port of the HTTP wrapper (127.0.0.1 only). */
  httpPort: number;
  /** Progress lines. */
  log: (line: string) => void;
}

/** A running peer. */
export interface Peer {
  /** Always `"postgres"`. */
  name: "postgres";
  /** Base URL of the HTTP wrapper, `http://127.0.0.1:httpPort`. */
  url: string;
  /** Seconds from the first COPY to the end of VACUUM ANALYZE (of the load that built the cluster). */
  loadSeconds: number;
  /** npidata rows divided by `loadSeconds`. */
  loadRowsPerSecond: number;
  /**
   * PID of the postmaster. Backends (one per pooled connection) and parallel
   * workers are its children: sum the process tree for PostgreSQL's CPU.
   */
  serverPid: number;
  /** PID of the HTTP wrapper process (`server.ts`); it exits when this process does. */
  wrapperPid: number;
  /** Stops the wrapper, then PostgreSQL (`pg_ctl stop -m fast`); the data directory stays. */
  stop(): Promise<void>;
}

const PG_BIN = "/usr/lib/postgresql/15/bin";
const DATABASE = "nppes";
/** Bump when the schema or load SQL changes, so old clusters are reloaded. */
const SCHEMA_VERSION = 2;

/** Server settings a user would set on a 2-core, 24 GB box. */
const SETTINGS: Record<string, string> = {
  shared_buffers: "2GB",
  effective_cache_size: "16GB",
  work_mem: "64MB",
  maintenance_work_mem: "1GB",
  max_parallel_workers_per_gather: "2",
  max_parallel_maintenance_workers: "2",
  random_page_cost: "1.1",
  max_wal_size: "8GB",
  wal_level: "minimal",
  max_wal_senders: "0",
  jit: "off",
};

/** The NPPES files of one release, found in `csvDir`. */
interface NppesFiles {
  npidata: string;
  othername: string | null;
  pl: string | null;
  endpoint: string | null;
}

interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(cmd: string[], cwd?: string): Promise<CommandResult> {
  const output = await new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function runOrThrow(cmd: string[], what: string, cwd?: string): Promise<string> {
  const result = await run(cmd, cwd);
  if (result.code !== 0) {
    throw new Error(
      `${what} failed (exit ${result.code}): ${(result.stderr || result.stdout).trim()}`,
    );
  }
  return result.stdout;
}

async function isRoot(): Promise<boolean> {
  try {
    return Deno.uid() === 0;
  } catch {
    const out = await run(["id", "-u"]);
    return out.stdout.trim() === "0";
  }
}

/** Prefixes a command so it runs as the `postgres` user when we are root. */
function asPostgres(root: boolean, cmd: string[]): string[] {
  return root ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function ensureInstalled(log: (line: string) => void): Promise<void> {
  if (await exists(`${PG_BIN}/postgres`)) return;
  log(
    "PostgreSQL 15 is not installed: installing postgresql-15 and postgresql-contrib with apt-get",
  );
  const advice = "install postgresql-15 and postgresql-contrib (Debian 12) and run again";
  const update = await run(["apt-get", "update"]);
  if (update.code !== 0) {
    throw new Error(`PostgreSQL 15 is not installed and 'apt-get update' failed: ${advice}`);
  }
  const install = await run([
    "env",
    "DEBIAN_FRONTEND=noninteractive",
    "apt-get",
    "install",
    "-y",
    "--no-install-recommends",
    "postgresql-15",
    "postgresql-contrib",
  ]);
  if (install.code !== 0 || !(await exists(`${PG_BIN}/postgres`))) {
    throw new Error(
      `PostgreSQL 15 is not installed and apt-get failed: ${advice}\n${install.stderr.trim()}`,
    );
  }
  log("Installed PostgreSQL 15");
}

async function findFiles(csvDir: string): Promise<NppesFiles> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(csvDir)) if (entry.isFile) names.push(entry.name);
  } catch (error) {
    throw new Error(`Cannot read the CSV folder '${csvDir}': ${(error as Error).message}`);
  }
  names.sort();
  const find = (prefix: string): string | null => {
    const name = names.find((n) =>
      n.startsWith(prefix) && n.endsWith(".csv") && !n.includes("fileheader")
    );
    return name === undefined ? null : `${csvDir}/${name}`;
  };
  const npidata = find("npidata_pfile_");
  if (npidata === null) {
    throw new Error(
      `No npidata_pfile_*.csv in '${csvDir}': generate one with 'deno task demo --csv DIR' ` +
        "or unpack an NPPES release there",
    );
  }
  return {
    npidata,
    othername: find("othername_pfile_"),
    pl: find("pl_pfile_"),
    endpoint: find("endpoint_pfile_"),
  };
}

async function readHeader(path: string): Promise<string[]> {
  const file = await Deno.open(path, { read: true });
  try {
    const buffer = new Uint8Array(64 * 1024);
    const n = await file.read(buffer);
    const text = new TextDecoder().decode(buffer.subarray(0, n ?? 0)).replace(/^\uFEFF/, "");
    const end = text.indexOf("\n");
    if (end < 0) throw new Error(`'${path}' has no complete header line: is it an NPPES CSV file?`);
    return parseCsvLine(text.slice(0, end));
  } finally {
    file.close();
  }
}

async function cacheKey(path: string): Promise<string> {
  const info = await Deno.stat(path);
  const name = path.slice(path.lastIndexOf("/") + 1);
  return `v${SCHEMA_VERSION}|${name}|${info.size}|${info.mtime?.toISOString() ?? "?"}`;
}

/** Whether the postgres user can write `dir` (and enter every folder above it). */
async function postgresCanWrite(dir: string, root: boolean): Promise<boolean> {
  return (await run(asPostgres(root, ["test", "-w", dir]))).code === 0;
}

/**
 * The folder the cluster lives in: `workDir`, given to the postgres user;
 * or, when that user cannot enter it (a parent folder is private, like
 * /root), a folder in /tmp named after `workDir`.
 */
async function prepareWorkDir(
  workDir: string,
  root: boolean,
  log: (line: string) => void,
): Promise<string> {
  if (root) await runOrThrow(["chown", "postgres:postgres", workDir], `chown of '${workDir}'`);
  if (await postgresCanWrite(workDir, root)) return workDir;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(workDir));
  const hex = [...new Uint8Array(digest)].slice(0, 6).map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const fallback = `/tmp/nppes-peer-${hex}`;
  await Deno.mkdir(fallback, { recursive: true });
  if (root) await runOrThrow(["chown", "postgres:postgres", fallback], `chown of '${fallback}'`);
  if (!(await postgresCanWrite(fallback, root))) {
    throw new Error(
      `The postgres user can write neither '${workDir}' nor '${fallback}': give it a workDir ` +
        "it can enter (every parent folder searchable by others, e.g. under /tmp)",
    );
  }
  log(`The postgres user cannot enter '${workDir}': keeping the cluster in ${fallback}`);
  return fallback;
}

async function ensureCluster(
  dataDir: string,
  workDir: string,
  root: boolean,
  log: (line: string) => void,
): Promise<void> {
  if (await exists(`${dataDir}/PG_VERSION`)) return;
  log(`initdb ${dataDir}`);
  await runOrThrow(
    asPostgres(root, [
      `${PG_BIN}/initdb`,
      "-D",
      dataDir,
      "-U",
      "postgres",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
    ]),
    "initdb",
    workDir,
  );
  const conf = `${dataDir}/postgresql.conf`;
  await Deno.writeTextFile(conf, "\ninclude_if_exists = 'peer.conf'\n", { append: true });
}

async function writeSettings(dataDir: string, workDir: string, port: number): Promise<void> {
  const lines = [
    "# Written by bench/peer/postgres.ts on every start.",
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = ${literal(workDir)}`,
    ...Object.entries(SETTINGS).map(([k, v]) => `${k} = ${literal(v)}`),
  ];
  await Deno.writeTextFile(`${dataDir}/peer.conf`, lines.join("\n") + "\n");
}

async function pgCtl(root: boolean, workDir: string, args: string[]): Promise<CommandResult> {
  return await run(asPostgres(root, [`${PG_BIN}/pg_ctl`, ...args]), workDir);
}

async function startServer(
  dataDir: string,
  workDir: string,
  root: boolean,
  log: (line: string) => void,
): Promise<number> {
  const status = await pgCtl(root, workDir, ["status", "-D", dataDir]);
  if (status.code === 0) {
    log("A PostgreSQL server is already running on this data directory: stopping it first");
    await pgCtl(root, workDir, ["stop", "-D", dataDir, "-m", "fast", "-w"]);
  }
  const logFile = `${workDir}/postgres.log`;
  const started = await pgCtl(root, workDir, [
    "start",
    "-D",
    dataDir,
    "-l",
    logFile,
    "-w",
    "-t",
    "120",
  ]);
  if (started.code !== 0) {
    let tail = "";
    try {
      tail = (await Deno.readTextFile(logFile)).split("\n").slice(-15).join("\n");
    } catch {
      // no log yet
    }
    throw new Error(
      `PostgreSQL did not start (is port taken? see ${logFile}): ${started.stderr.trim()}\n${tail}`,
    );
  }
  const pidLine = (await Deno.readTextFile(`${dataDir}/postmaster.pid`)).split("\n")[0] ?? "";
  const pid = Number(pidLine.trim());
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new Error(`Cannot read the postmaster PID from ${dataDir}/postmaster.pid`);
  }
  return pid;
}

async function stopServer(dataDir: string, workDir: string, root: boolean): Promise<void> {
  const result = await pgCtl(root, workDir, [
    "stop",
    "-D",
    dataDir,
    "-m",
    "fast",
    "-w",
    "-t",
    "120",
  ]);
  if (result.code !== 0 && !/is the server running|No such file/i.test(result.stderr)) {
    throw new Error(`pg_ctl stop failed: ${result.stderr.trim()}`);
  }
}

type Sql = ReturnType<typeof postgres>;

function connect(port: number, database: string, max: number): Sql {
  return postgres({
    host: "127.0.0.1",
    port,
    user: "postgres",
    database,
    max,
    ssl: false,
    idle_timeout: 0,
    onnotice: () => {},
    connection: { application_name: "nppes-peer-load" },
  });
}

interface LoadRecord {
  seconds: number;
  rows: number;
}

async function recordedLoad(port: number, key: string): Promise<LoadRecord | null> {
  const admin = connect(port, "postgres", 1);
  try {
    const found = await admin`SELECT 1 FROM pg_database WHERE datname = ${DATABASE}`;
    if (found.length === 0) return null;
  } finally {
    await admin.end();
  }
  const sql = connect(port, DATABASE, 1);
  try {
    const has = await sql`SELECT to_regclass('peer_meta') IS NOT NULL AS ok`;
    if (has[0]?.ok !== true) return null;
    const rows = await sql<{ key: string; seconds: number; rows: string }[]>`
      SELECT key, load_seconds AS seconds, npidata_rows::text AS rows FROM peer_meta`;
    const row = rows[0];
    if (row === undefined || row.key !== key) return null;
    return { seconds: row.seconds, rows: Number(row.rows) };
  } finally {
    await sql.end();
  }
}

async function recreateDatabase(port: number): Promise<void> {
  const admin = connect(port, "postgres", 1);
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${ident(DATABASE)} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${ident(DATABASE)}`);
  } finally {
    await admin.end();
  }
}

/** COPY source: the file itself when the server can read it, else streamed through the driver. */
async function copyInto(
  sql: Sql,
  table: string,
  path: string,
  serverReadable: boolean,
): Promise<number> {
  const header = await readHeader(path);
  const columns = columnNames(header);
  let count = 0;
  await sql.begin(async (tx) => {
    await tx.unsafe(createRawTable(table, columns));
    if (serverReadable) {
      const result = await tx.unsafe(copyStatement(table, columns, path));
      count = result.count;
    } else {
      const { createReadStream } = await import("node:fs");
      const { pipeline } = await import("node:stream/promises");
      const writable = await tx.unsafe(copyStatement(table, columns, null)).writable();
      await pipeline(createReadStream(path), writable);
    }
  });
  if (!serverReadable) {
    const rows = await sql.unsafe(`SELECT count(*)::int AS n FROM ${ident(table)}`);
    count = Number(rows[0]?.n ?? 0);
  }
  return count;
}

async function loadZipCentroids(sql: Sql): Promise<number> {
  const zips = allZips();
  await sql.begin(async (tx) => {
    await tx.unsafe(
      "CREATE TABLE zip_centroid (zip text PRIMARY KEY, lat float8 NOT NULL, lon float8 NOT NULL)",
    );
    for (let i = 0; i < zips.length; i += 5000) {
      const batch = zips.slice(i, i + 5000).map((z) => ({ zip: z.zip, lat: z.lat, lon: z.lon }));
      await tx`INSERT INTO zip_centroid ${tx(batch, "zip", "lat", "lon")}`;
    }
  });
  return zips.length;
}

async function load(
  port: number,
  files: NppesFiles,
  key: string,
  root: boolean,
  log: (line: string) => void,
): Promise<LoadRecord> {
  await recreateDatabase(port);
  const sql = connect(port, DATABASE, 1);
  try {
    const step = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const result = await work();
      log(`  ${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      return result;
    };
    const readable = async (path: string): Promise<boolean> =>
      (await run(asPostgres(root, ["test", "-r", path]))).code === 0;

    const t0 = performance.now();
    await sql.unsafe("CREATE EXTENSION IF NOT EXISTS pg_trgm");
    await sql.unsafe("CREATE EXTENSION IF NOT EXISTS cube");
    await sql.unsafe("CREATE EXTENSION IF NOT EXISTS earthdistance");
    const zips = await step("zip_centroid", () => loadZipCentroids(sql));
    log(`  zip_centroid rows: ${zips}`);

    const raw: { table: string; npi: string }[] = [];
    const othersLoaded: Record<"othername" | "pl" | "endpoint", boolean> = {
      othername: false,
      pl: false,
      endpoint: false,
    };
    const copy = async (table: string, path: string): Promise<number> => {
      const direct = await readable(path);
      const rows = await step(
        `COPY ${table} ${direct ? "FROM file" : "FROM STDIN (file not readable by postgres)"}`,
        () => copyInto(sql, table, path, direct),
      );
      log(`  ${table} rows: ${rows.toLocaleString("en-US")}`);
      raw.push({ table, npi: "npi" });
      return rows;
    };
    const npidataRows = await copy("npidata", files.npidata);
    for (const table of ["othername", "pl", "endpoint"] as const) {
      const path = files[table];
      if (path === null) {
        log(`  no ${table}_pfile_*.csv: skipped`);
        continue;
      }
      await copy(table, path);
      othersLoaded[table] = true;
    }

    // Statistics first: without them the planner joins the fresh tables by nested loops.
    await step(
      "ANALYZE raw tables",
      () =>
        sql.unsafe(`ANALYZE ${["zip_centroid", ...raw.map((r) => r.table)].map(ident).join(", ")}`),
    );
    const header = await readHeader(files.npidata);
    const otherHeader = files.othername === null ? null : await readHeader(files.othername);
    await step("CREATE TABLE provider AS SELECT", () =>
      sql.begin(async (tx) => {
        await tx.unsafe(
          providerTableSql(
            header,
            columnNames(header),
            otherHeader === null ? null : { table: "othername", columns: columnNames(otherHeader) },
          ),
        );
      }));
    for (const statement of indexStatements(raw)) {
      const name = /(?:INDEX "?([^"\s]+)|ADD PRIMARY KEY)/.exec(statement);
      await step(name?.[1] ?? "primary key", () => sql.unsafe(statement));
    }
    await step("VACUUM ANALYZE", () => sql.unsafe("VACUUM (ANALYZE)"));
    const seconds = (performance.now() - t0) / 1000;

    await sql.unsafe(
      "CREATE TABLE peer_meta (key text NOT NULL, load_seconds float8 NOT NULL, " +
        "npidata_rows bigint NOT NULL, tables jsonb NOT NULL, loaded_at timestamptz DEFAULT now())",
    );
    await sql.unsafe(
      "INSERT INTO peer_meta (key, load_seconds, npidata_rows, tables) VALUES ($1, $2, $3, $4)",
      [
        key,
        seconds,
        npidataRows,
        JSON.stringify(othersLoaded),
      ],
    );
    return { seconds, rows: npidataRows };
  } finally {
    await sql.end();
  }
}

/** SIGTERM (and end of its stdin), then SIGKILL after 10 s. */
async function stopWrapper(child: Deno.ChildProcess): Promise<void> {
  const signal = (name: Deno.Signal): void => {
    try {
      child.kill(name);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  await child.stdin.close().catch(() => {});
  const timer = setTimeout(() => signal("SIGKILL"), 10_000);
  try {
    await child.status;
  } finally {
    clearTimeout(timer);
  }
}

async function waitForHealth(
  url: string,
  child: Deno.ChildProcess,
  seconds: number,
): Promise<void> {
  let exited: Deno.CommandStatus | null = null;
  child.status.then((status) => {
    exited = status;
  });
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (exited !== null) {
      throw new Error(
        `The peer's HTTP wrapper exited (code ${
          (exited as Deno.CommandStatus).code
        }) before answering`,
      );
    }
    try {
      const response = await fetch(`${url}/health`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The peer's HTTP wrapper did not answer ${url}/health within ${seconds} s`);
}

/**
 * Starts the PostgreSQL peer: installs PostgreSQL 15 when missing, creates
 * or reuses the cluster in `workDir`, loads `csvDir` unless the cluster
 * already holds that npidata file, and starts the HTTP wrapper on
 * `127.0.0.1:httpPort`. Needs `--allow-run`, `--allow-read`,
 * `--allow-write`, `--allow-net` and `--allow-env`, and root or the
 * `postgres` user to run the server.
 *
 * @example
 * ```ts
 * const peer = await startPostgresPeer({
 *   csvDir: "/tmp/peer-csv", workDir: "/tmp/peer-work", pgPort: 55432, httpPort: 7990,
 *   log: console.log,
 * });
 * await fetch(`${peer.url}/v1/providers/search?q=smith`);
 * await peer.stop();
 * ```
 */
export async function startPostgresPeer(options: PeerOptions): Promise<Peer> {
  const { log } = options;
  await Deno.mkdir(options.workDir, { recursive: true });
  const givenWorkDir = await Deno.realPath(options.workDir);
  const csvDir = await Deno.realPath(options.csvDir);

  const root = await isRoot();

  await ensureInstalled(log);
  const files = await findFiles(csvDir);
  const key = await cacheKey(files.npidata);
  const workDir = await prepareWorkDir(givenWorkDir, root, log);
  const dataDir = `${workDir}/pgdata`;
  await ensureCluster(dataDir, workDir, root, log);
  await writeSettings(dataDir, workDir, options.pgPort);
  const serverPid = await startServer(dataDir, workDir, root, log);
  log(`PostgreSQL 15 running (pid ${serverPid}) on 127.0.0.1:${options.pgPort}`);

  let wrapper: Deno.ChildProcess | null = null;
  try {
    let loaded = await recordedLoad(options.pgPort, key);
    if (loaded !== null) {
      log(
        `Reusing the cluster in ${dataDir}: it already holds ${
          files.npidata.slice(files.npidata.lastIndexOf("/") + 1)
        } (${loaded.rows.toLocaleString("en-US")} rows, loaded in ${loaded.seconds.toFixed(1)} s)`,
      );
    } else {
      log(`Loading ${csvDir} into PostgreSQL`);
      loaded = await load(options.pgPort, files, key, root, log);
      log(
        `Loaded ${loaded.rows.toLocaleString("en-US")} npidata rows in ${
          loaded.seconds.toFixed(1)
        } s ` +
          `(${Math.round(loaded.rows / loaded.seconds).toLocaleString("en-US")} rows/s)`,
      );
    }

    const server = new URL("./server.ts", import.meta.url).pathname;
    const config = new URL("../../deno.json", import.meta.url).pathname;
    wrapper = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        `--config=${config}`,
        "--allow-net=127.0.0.1",
        "--allow-env=PG*",
        server,
        `--http-port=${options.httpPort}`,
        `--pg-port=${options.pgPort}`,
        `--database=${DATABASE}`,
        "--exit-with-parent=true",
      ],
      stdin: "piped",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    const url = `http://127.0.0.1:${options.httpPort}`;
    await waitForHealth(url, wrapper, 60);
    log(`HTTP wrapper (pid ${wrapper.pid}) on ${url}`);

    const child = wrapper;
    let stopped = false;
    return {
      name: "postgres",
      url,
      loadSeconds: loaded.seconds,
      loadRowsPerSecond: loaded.rows / loaded.seconds,
      serverPid,
      wrapperPid: child.pid,
      async stop(): Promise<void> {
        if (stopped) return;
        stopped = true;
        await stopWrapper(child);
        await stopServer(dataDir, workDir, root);
      },
    };
  } catch (error) {
    if (wrapper !== null) await stopWrapper(wrapper);
    await stopServer(dataDir, workDir, root).catch(() => {});
    throw error;
  }
}
