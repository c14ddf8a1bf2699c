import { assert, assertEquals, assertMatch } from "@std/assert";
import { importCommand } from "../scripts/processes.ts";
import { demoImportFiles, writeFixtureFiles } from "./_fixtures.ts";
import {
  buildStillRuns,
  describeLeftovers,
  findLeftovers,
  holdBuildLock,
} from "../lib/store/build_leftovers.ts";
import { partFiles, readPartNames } from "../lib/store/parts.ts";

const decoder = new TextDecoder();

/** A build's temporary files and part files (`providers.db.<pid>-<stamp>.<kind>`), by name. */
function buildFiles(dir: string): string[] {
  return [...Deno.readDirSync(dir)]
    .map((e) => e.name)
    .filter((name) =>
      /\.(building|stage|download)-/.test(name) ||
      /\.\d+-[0-9a-z]+\.(postings|records-|map|unions)/.test(name)
    )
    .sort();
}

const demoCsv = (dir: string, records: number) => demoImportFiles(dir, records, 11);

Deno.test("[leftovers] a build runs while a process holds the lock on its main file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const building = `${dir}/p.db.building-1-abc`;
    const lock = holdBuildLock(building, true);
    assert(buildStillRuns(building), "locked by this process");
    // Another process sees the same.
    const probe = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `const f = Deno.openSync(${
          JSON.stringify(building)
        }); Deno.exit(f.tryLockSync(true) ? 1 : 0)`,
      ],
    }).output();
    assert(probe.success, "the other process finds it locked");
    lock?.close();
    assert(!buildStillRuns(building), "unlocked: its process is gone");
    assert(!buildStillRuns(`${dir}/missing`), "no main file: nothing runs");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[leftovers] an import killed with SIGKILL leaves files; the next import removes them and says so", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = `${dir}/providers.db`;
    const csv = await demoCsv(`${dir}`, 30_000);
    const killed = importCommand(db, csv).spawn();
    // Kill it mid-way: once its build and stage files exist.
    const deadline = Date.now() + 60_000;
    while (
      !(buildFiles(dir).some((n) => n.includes(".building-")) &&
        buildFiles(dir).some((n) => n.includes(".stage-")))
    ) {
      assert(Date.now() < deadline, "the import never created its files");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    killed.kill("SIGKILL");
    const status = await killed.status;
    await Promise.all([killed.stdout.cancel(), killed.stderr.cancel()]);
    assertEquals(status.signal, "SIGKILL");
    const left = buildFiles(dir);
    assert(left.some((n) => n.startsWith(`providers.db.building-${killed.pid}-`)), left.join());
    assert(left.some((n) => n.startsWith(`providers.db.stage-${killed.pid}-`)), left.join());
    assert(left.some((n) => n.startsWith(`providers.db.${killed.pid}-`)), left.join());
    assertEquals(findLeftovers(db).map((l) => l.path.split("/").at(-1)).sort(), left);

    // A build that still runs (this test process holds its lock) keeps its files.
    const stamp = `${Deno.pid}-${Date.now().toString(36)}`;
    const liveLock = holdBuildLock(`${db}.building-${stamp}`, true);
    await Deno.writeTextFile(`${db}.stage-${stamp}`, "in use");

    const fixture = await writeFixtureFiles(dir);
    const next = await importCommand(db, {
      npidata: fixture.npi,
      othername: fixture.othername,
      pl: fixture.pl,
      endpoint: fixture.endpoint,
    }).output();
    const output = decoder.decode(next.stdout) + decoder.decode(next.stderr);
    assert(next.success, output);
    assertMatch(
      output,
      new RegExp(
        `Removed ${left.length} files \\([\\d.]+ MB\\) left by killed builds \\(pid ${killed.pid}, no longer running\\)`,
      ),
    );
    for (const name of left) assert(output.includes(name), `${name} is named`);
    // The finished import's own parts stay: the database names them.
    const kept = readPartNames(db)!;
    assertEquals(
      buildFiles(dir),
      [
        ...partFiles(kept),
        `providers.db.building-${stamp}`,
        `providers.db.stage-${stamp}`,
      ].sort(),
      "only the live build's files and the served parts are left",
    );
    liveLock?.close();
    assertMatch(output, /release +nppes-20260810-/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[leftovers] a killed build's kept unions, whole or being written, are leftovers", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const db = `${dir}/providers.db`;
    // Pid 2147483646 runs nothing here, and no lock is held for its build.
    const names = ["unions", "unions.writing"].map((kind) =>
      `providers.db.2147483646-mx1a2b3c.${kind}`
    );
    for (const name of names) Deno.writeTextFileSync(`${dir}/${name}`, "x");
    assertEquals(findLeftovers(db).map((l) => l.path.split("/").at(-1)), names);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[leftovers] the message names the files, their size and the pids", () => {
  assertEquals(
    describeLeftovers([
      { path: "/d/p.db.building-42-abc", bytes: 3 * 1024 * 1024, pid: 42 },
      { path: "/d/p.db.stage-42-abc", bytes: 1024 * 1024, pid: 42 },
    ]),
    "Removed 2 files (4.0 MB) left by killed builds (pid 42, no longer running): " +
      "p.db.building-42-abc, p.db.stage-42-abc",
  );
});
