import { assert, assertEquals } from "@std/assert";
import { probeMachine } from "../bench/machine_probe.ts";
import { machineNote } from "../bench/cold_report.ts";

Deno.test("[bench] the machine probe measures a CPU workload and first touches of fresh pages", () => {
  const probe = probeMachine(1);
  assertEquals(Object.keys(probe).sort(), ["cpu_ms", "memory_read_ns", "page_touch_us"]);
  assert(Number.isFinite(probe.cpu_ms) && probe.cpu_ms > 0, `cpu_ms ${probe.cpu_ms}`);
  assert(
    Number.isFinite(probe.memory_read_ns) && probe.memory_read_ns > 0,
    `memory_read_ns ${probe.memory_read_ns}`,
  );
  assert(
    Number.isFinite(probe.page_touch_us) && probe.page_touch_us >= 0,
    `page_touch_us ${probe.page_touch_us}`,
  );
});

Deno.test("[bench] a cold report says how fast the instance was before and after", () => {
  const note = machineNote(
    { cpu_ms: 52.5, page_touch_us: 11.3, memory_read_ns: 180.5 },
    { cpu_ms: 61, page_touch_us: 14.02, memory_read_ns: 240 },
  );
  assert(note.includes("52.5 and 61 ms"), note);
  assert(note.includes("180.5 and 240 ns"), note);
  assert(note.includes("11.3 and 14.02 µs"), note);
});
