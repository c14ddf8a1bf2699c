/**
 * Pinned files: a file's pages are locked in memory (the process's locked
 * memory grows by the file's size) and let go again; a release stops a pin
 * under way.
 */
import { assertEquals } from "@std/assert";
import { PinnedFiles } from "../lib/index/mapped_file.ts";
import { ownProcFile } from "./_utils.ts";

/** This process's locked memory in kB. */
async function lockedKb(): Promise<number> {
  const match = /VmLck:\s+(\d+) kB/.exec(await ownProcFile("status"));
  if (!match) throw new Error("no VmLck line in /proc/PID/status");
  return Number(match[1]);
}

/**
 * Writes two files in `dir` (3 and 1 MB: within the smallest memlock limit
 * a host sets, 8 MB here, with or without privileges), pins them with
 * `pins`, and checks that 4 MB were kept with a pause after each chunk.
 * Returns the files' paths.
 */
async function pinTwoFiles(dir: string, pins: PinnedFiles): Promise<string[]> {
  const files = [`${dir}/a`, `${dir}/b`];
  await Deno.writeFile(files[0]!, new Uint8Array(3 << 20).fill(7));
  await Deno.writeFile(files[1]!, new Uint8Array(1 << 20).fill(9));
  let pauses = 0;
  const bytes = await pins.pin(files, () => {
    pauses++;
    return Promise.resolve();
  });
  assertEquals(bytes, 4 << 20);
  assertEquals(pauses, 2, "a pause after each chunk");
  return files;
}

Deno.test({
  name: "[pin] a file's pages are locked in memory and let go",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const before = await lockedKb();
      const pins = new PinnedFiles();
      const files = await pinTwoFiles(dir, pins);
      assertEquals(await lockedKb() - before, 4096);
      pins.release();
      assertEquals(await lockedKb(), before);

      // Released while pinning: nothing stays locked, and the rest is not pinned.
      const stopped = new PinnedFiles();
      const locked = await stopped.pin(files, () => {
        stopped.release();
        return Promise.resolve();
      });
      assertEquals(locked, 0);
      assertEquals(await lockedKb(), before);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
