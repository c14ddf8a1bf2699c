/**
 * The cold classes' part of the benchmark report: a table of p50/p99/max
 * and searches/s per class at c=1 and c=8, the text mix, the serving
 * process's memory (anonymous and mapped separately), and the targets.
 *
 * @module
 */
import { COLD_CLASSES } from "./cold.ts";
import type { ColdResults } from "./cold_mix.ts";
import type { MemorySplit } from "./proc.ts";
import type { MachineProbe } from "./machine_probe.ts";

/** What a cold run measured (see `coldRun` in `run.ts`). */
export interface ColdRun {
  /** Providers in the served dataset. */
  records: number;
  harvest: { pages: number; providers: number };
  startup_ms: number;
  results: ColdResults;
  memory: MemorySplit | null;
  /** The same, after the server then sat idle for {@linkcode IDLE_SECONDS} (its collectors ran). */
  memory_idle?: MemorySplit | null;
  /** The server's settings the run was given (threads, memory), beyond its defaults. */
  settings?: Record<string, string>;
  /** The instance's speed, probed just before the measured server started and after the run. */
  machine?: { before: MachineProbe; after: MachineProbe };
}

/** Seconds the server sits idle after the run before its memory is read again. */
export const IDLE_SECONDS = 10;

function ms(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(n < 10 ? 2 : 1)} ms` : "–";
}

/** " with `NAME=value`, …" for the settings a run was given; "" for none. */
function settingsNote(settings: Record<string, string> | undefined): string {
  const set = Object.entries(settings ?? {}).map(([name, value]) => `\`${name}=${value}\``);
  return set.length ? ` with ${set.join(", ")}` : "";
}

/** The sentence that says how fast the instance was, before and after the run. */
export function machineNote(before: MachineProbe, after: MachineProbe): string {
  return `This instance (\`bench/machine_probe.ts\`, before and after the run): the reference CPU ` +
    `workload took ${before.cpu_ms} and ${after.cpu_ms} ms, a read at random from 64 MiB ` +
    `${before.memory_read_ns} and ${after.memory_read_ns} ns, a first touch of a ` +
    `fresh 4 KiB page ${before.page_touch_us} and ${after.page_touch_us} µs.`;
}

/**
 * The markdown of a cold run, with the targets marked met or not.
 *
 * @example
 * ```ts
 * console.log(coldMarkdown(run, 9_726_865));
 * ```
 */
export function coldMarkdown(run: ColdRun, records: number): string {
  const { results, memory } = run;
  const lines: string[] = [];
  lines.push(
    `#### Cold searches: distinct URLs, none repeated (${
      records.toLocaleString("en-US")
    } providers)`,
  );
  lines.push("");
  lines.push(
    `Built from ${
      run.harvest.providers.toLocaleString("en-US")
    } providers read from ${run.harvest.pages} random ZIP pages ` +
      `of the served data; per class ${results.sizes.warm} warm-up URLs, then ${results.sizes.c1} at c=1 ` +
      `and ${results.sizes.c8} at c=8, all different, on a server started after the harvest` +
      settingsNote(run.settings) + ".",
  );
  if (run.machine) lines.push("", machineNote(run.machine.before, run.machine.after));
  lines.push("");
  lines.push(
    "| class | URLs | c1 p50 | c1 p99 | c8 p50 | c8 p99 | c8 max | c8 searches/s | errors |",
  );
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  const measured = COLD_CLASSES.filter((c) => results.classes[c]);
  for (const c of measured) {
    const r = results.classes[c];
    lines.push(
      `| ${c} | ${r.distinct} | ${ms(r.c1.p50_ms)} | ${ms(r.c1.p99_ms)} | ${ms(r.c8.p50_ms)} | ${
        ms(r.c8.p99_ms)
      } | ${ms(r.c8.max_ms)} | ${r.c8.rps.toFixed(0)} | ${r.c8.errors + r.c8.non2xx} |`,
    );
  }
  if (results.text_mix) {
    const m = results.text_mix;
    lines.push(
      `| text mix (interleaved) | ${m.requests} | – | – | ${ms(m.p50_ms)} | ${ms(m.p99_ms)} | ${
        ms(m.max_ms)
      } | ${m.rps.toFixed(0)} | ${m.errors + m.non2xx} |`,
    );
  }
  lines.push("");
  const worstP99 = Math.max(...measured.map((c) => results.classes[c].c8.p99_ms));
  const worstP50 = Math.max(...measured.map((c) => results.classes[c].c1.p50_ms));
  const mark = (ok: boolean) => (ok ? "met" : "**not met**");
  lines.push("| target (cold) | measured | |");
  lines.push("|---|---|---|");
  lines.push(
    `| every class p99 ≤ 20 ms at c=8 | worst ${ms(worstP99)} | ${mark(worstP99 <= 20)} |`,
  );
  lines.push(`| every class p50 ≤ 3 ms at c=1 | worst ${ms(worstP50)} | ${mark(worstP50 <= 3)} |`);
  if (results.text_mix) {
    lines.push(
      `| ≥ 1,500 cold text searches/s | ${results.text_mix.rps.toFixed(0)}/s | ${
        mark(results.text_mix.rps >= 1500)
      } |`,
    );
  }
  if (memory) {
    const idle = run.memory_idle
      ? `; ${IDLE_SECONDS} s later, idle: ${run.memory_idle.anonymous_mb} MB anonymous`
      : "";
    lines.push(
      `| serving anonymous memory ≤ 1 GB after the run | ${memory.anonymous_mb} MB anonymous, ` +
        `${memory.file_mb} MB mapped file pages${idle} | ${mark(memory.anonymous_mb <= 1024)} |`,
    );
  }
  lines.push(`| start ≤ 1 s | ${run.startup_ms} ms | ${mark(run.startup_ms <= 1000)} |`);
  return lines.join("\n") + "\n";
}
