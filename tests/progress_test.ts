import { assertEquals } from "@std/assert";
import { createProgress } from "../lib/import/progress.ts";

/** A progress reporter on a clock the test moves, collecting what it prints. */
function recorder() {
  const lines: string[] = [];
  let clock = 0;
  const progress = createProgress({
    terminal: false,
    intervalMs: 0,
    now: () => clock,
    write: (text) => lines.push(text),
  });
  return { progress, lines, advance: (ms: number) => (clock += ms) };
}

Deno.test("progress prints rate, elapsed time and ETA from the clock", () => {
  const { progress, lines, advance } = recorder();
  progress.start("npidata", 1000);
  advance(2000);
  progress.update(250, 10_000);
  progress.finish("40,000 rows");
  assertEquals(lines, [
    "npidata:  25.0%  10,000 rows  5.0k rows/s  elapsed 00:02  ETA 00:06\n",
    "npidata: 40,000 rows\n",
  ]);
});

Deno.test("progress shows no rate for a phase that starts with every row counted", () => {
  const { progress, lines } = recorder();
  progress.start("finalizing (columns)", 9_726_865);
  progress.update(9_726_865, 9_726_865);
  assertEquals(lines, [
    "finalizing (columns): 100.0%  9,726,865 rows  -- rows/s  elapsed 00:00  ETA 00:00\n",
  ]);
});
