/**
 * Giving memory back when idle: the release's timing (after a quiet spell,
 * once, only after enough activity, never while disabled or stopped); while
 * busy: the trim's pace (at most one an interval, never two at once); and
 * glibc's trim through FFI, on the thread and off it, where the start
 * commands allow it.
 */
import { assert, assertEquals } from "@std/assert";
import { BusyTrim, IdleRelease, LIBC_PATHS, trimMallocHeap } from "../lib/memory.ts";
import { ROOT, SERVE_PERMISSIONS } from "../scripts/processes.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("IdleRelease", async (t) => {
  await t.step("releases once after a quiet spell, not again without new activity", async () => {
    let released = 0;
    const idle = new IdleRelease(30, { minActivity: 1, release: () => released++ });
    idle.touch();
    assertEquals(released, 0);
    await sleep(80);
    assertEquals(released, 1);
    await sleep(80);
    assertEquals(released, 1, "nothing happened since: no second release");
    idle.touch();
    await sleep(80);
    assertEquals(released, 2);
    idle.stop();
  });

  await t.step("activity postpones the release until it stops", async () => {
    let released = 0;
    const idle = new IdleRelease(60, { minActivity: 1, release: () => released++ });
    for (let i = 0; i < 6; i++) {
      idle.touch();
      await sleep(20);
    }
    assertEquals(released, 0, "touched every 20 ms: never 60 ms quiet");
    await sleep(120);
    assertEquals(released, 1);
    idle.stop();
  });

  await t.step("waits for enough activity", async () => {
    let released = 0;
    const idle = new IdleRelease(20, { minActivity: 3, release: () => released++ });
    idle.touch();
    idle.touch();
    await sleep(60);
    assertEquals(released, 0, "two of three");
    idle.touch();
    await sleep(60);
    assertEquals(released, 1);
    idle.touch();
    await sleep(60);
    assertEquals(released, 1, "the count starts over after a release");
    idle.stop();
  });

  await t.step("a delay of 0 never releases; stop cancels a pending release", async () => {
    let released = 0;
    const off = new IdleRelease(0, { minActivity: 1, release: () => released++ });
    off.touch();
    const stopped = new IdleRelease(20, { minActivity: 1, release: () => released++ });
    stopped.touch();
    stopped.stop();
    await sleep(60);
    assertEquals(released, 0);
  });

  await t.step(
    "the default release trims exactly where FFI is allowed for the C library",
    async () => {
      const allowed = Deno.build.os === "linux" && LIBC_PATHS.some((path) => {
        try {
          return Deno.statSync(path).isFile &&
            Deno.permissions.querySync({ name: "ffi", path }).state === "granted";
        } catch {
          return false;
        }
      });
      const idle = new IdleRelease(1, { minActivity: 1 });
      idle.touch();
      await sleep(30);
      idle.stop();
      // Where FFI is not allowed nothing is opened, and nobody is prompted.
      assertEquals(trimMallocHeap(), allowed);
    },
  );
});

Deno.test("BusyTrim", async (t) => {
  /** A trim that settles when told, counting how often it was started. */
  function heldTrim() {
    const started: (() => void)[] = [];
    return {
      started,
      trim: () => new Promise<unknown>((resolve) => started.push(() => resolve(1))),
    };
  }

  await t.step("trims on the first touch, then at most once an interval", async () => {
    const { started, trim } = heldTrim();
    const busy = new BusyTrim(50, trim);
    busy.touch();
    assertEquals(started.length, 1);
    started[0]!();
    await sleep(0);
    for (let i = 0; i < 5; i++) busy.touch();
    assertEquals(started.length, 1, "touched again within the interval: no second trim");
    await sleep(70);
    busy.touch();
    busy.touch();
    assertEquals(started.length, 2, "one more once the interval passed");
    started[1]!();
  });

  await t.step("never two at once, however long one takes", async () => {
    const { started, trim } = heldTrim();
    const busy = new BusyTrim(10, trim);
    busy.touch();
    await sleep(40);
    busy.touch();
    assertEquals(started.length, 1, "the first has not finished");
    started[0]!();
    await sleep(0);
    busy.touch();
    assertEquals(started.length, 2, "due, and the first done");
    started[1]!();
  });

  await t.step("a failed trim does not stop the next", async () => {
    let calls = 0;
    const busy = new BusyTrim(1, () => (calls++, Promise.reject(new Error("no trim"))));
    busy.touch();
    await sleep(10);
    busy.touch();
    assertEquals(calls, 2);
  });

  await t.step("an interval of 0, or no trim to be had, never trims", () => {
    const { started, trim } = heldTrim();
    new BusyTrim(0, trim).touch();
    new BusyTrim(10, null).touch();
    assertEquals(started.length, 0);
  });
});

Deno.test("trimMallocHeap and backgroundMallocTrim call glibc's malloc_trim with the start commands' permissions", async () => {
  const libc = LIBC_PATHS.find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(
    script,
    `import { backgroundMallocTrim, trimMallocHeap } from "${
      new URL("lib/memory.ts", `file://${ROOT}`).href
    }";
let scraps = [];
for (let i = 0; i < 20000; i++) scraps.push(new Uint8Array(1000 + (i % 7) * 100));
scraps = null;
const pending = backgroundMallocTrim()?.();
const answer = pending === undefined ? "none" : pending instanceof Promise ? typeof await pending : "not a promise";
console.log(JSON.stringify([trimMallocHeap(), trimMallocHeap(), answer]));`,
  );
  const run = (flags: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, script],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
  // The start task (and so the Docker image, held to it in deploy_files_test.ts) allows FFI
  // (unscoped: reading a mapped index map needs it, see `lib/index/mapped_file.ts`), and the test
  // servers get the same flag.
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks as Record<
    string,
    string
  >;
  const ffi = tasks.start!.split(/\s+/).find((flag) => flag.startsWith("--allow-ffi")) ?? "";
  assertEquals(ffi, "--allow-ffi", "deno task start allows FFI");
  assert(SERVE_PERMISSIONS.includes(ffi), "the test and benchmark servers run with it too");

  const granted = await run(["--allow-read", ffi]);
  const out = new TextDecoder().decode(granted.stdout).trim();
  assert(granted.success, new TextDecoder().decode(granted.stderr));
  const glibc = Deno.build.os === "linux" && libc !== undefined;
  assertEquals(
    JSON.parse(out),
    [glibc, glibc, glibc ? "number" : "none"],
    `on this machine (C library: ${
      libc ?? "none"
    }); off the thread, a promise of malloc_trim's answer`,
  );

  // Without the permission: false, and no prompt or error.
  const denied = await run(["--allow-read"]);
  assert(denied.success, new TextDecoder().decode(denied.stderr));
  assertEquals(JSON.parse(new TextDecoder().decode(denied.stdout).trim()), [
    false,
    false,
    "none",
  ]);
  await Deno.remove(script);
});
