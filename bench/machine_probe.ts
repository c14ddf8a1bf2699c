/**
 * How fast this instance is at what the cold benchmark's figures lean on,
 * measured beside them: a fixed CPU workload, reads from memory at random,
 * and the first touch of fresh memory (10–15 µs a page on this host, tens
 * of times a bare machine's). Instances of one kind differ, so a report
 * carries them; they do not follow everything that moves a run's figures
 * (the benchmarks guide's twenty-first round: the text mix ranged by half
 * within an afternoon while they held).
 *
 * @module
 */

/** What {@linkcode probeMachine} measured. */
export interface MachineProbe {
  /** Milliseconds for a fixed integer workload (30 million steps of xorshift): lower is faster. */
  cpu_ms: number;
  /** Microseconds to first touch a fresh 4 KiB page of anonymous memory (fault and zeroing). */
  page_touch_us: number;
  /** Nanoseconds a read when each depends on the last, at random over 64 MiB (memory latency). */
  memory_read_ns: number;
}

const PAGE = 4096;
const TOUCH_BYTES = 64 * 1024 * 1024;
const CPU_STEPS = 30_000_000;
/** Entries of the chain {@linkcode chaseReads} follows: 64 MiB of them. */
const CHAIN_LENGTH = 16 * 1024 * 1024;
const CHASE_STEPS = 2_000_000;

/** One cycle through every index of a `length`-long array, in random order (Sattolo's algorithm). */
function randomCycle(length: number): Uint32Array {
  const next = new Uint32Array(length);
  for (let i = 0; i < length; i++) next[i] = i;
  let x = 88172645;
  for (let i = length - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % i;
    const t = next[i]!;
    next[i] = next[j]!;
    next[j] = t;
  }
  return next;
}

/** The time of `CHASE_STEPS` reads through `next`, each at the index the last one read, in ns a read. */
function chaseReads(next: Uint32Array): number {
  const started = performance.now();
  let at = 0;
  for (let i = 0; i < CHASE_STEPS; i++) at = next[at]!;
  const ns = ((performance.now() - started) * 1e6) / CHASE_STEPS;
  return at === next.length ? -1 : ns;
}

/** The time of the fixed CPU workload, in ms (the result is returned too, so it is not optimized away). */
function cpuWorkload(): { ms: number; value: number } {
  const started = performance.now();
  let x = 2463534242;
  for (let i = 0; i < CPU_STEPS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  return { ms: performance.now() - started, value: x };
}

/** One write a page of `bytes`, timed in ms. */
function touchPages(bytes: Uint8Array): number {
  const started = performance.now();
  for (let i = 0; i < bytes.length; i += PAGE) bytes[i] = 1;
  return performance.now() - started;
}

/**
 * Measures the instance, best of `rounds` (the least disturbed): the CPU
 * workload, a chain of dependent reads through 64 MiB, and the first touch
 * of 64 MiB of fresh memory less a second touch of the same pages.
 *
 * @example
 * ```ts
 * const { cpu_ms, memory_read_ns, page_touch_us } = probeMachine();
 * ```
 */
export function probeMachine(rounds = 3): MachineProbe {
  let cpu = Infinity, touch = Infinity, read = Infinity;
  const chain = randomCycle(CHAIN_LENGTH);
  for (let r = 0; r < rounds; r++) {
    read = Math.min(read, chaseReads(chain));
    cpu = Math.min(cpu, cpuWorkload().ms);
    // Large enough that the C library maps it fresh from the kernel (no page of it touched yet).
    const fresh = new Uint8Array(TOUCH_BYTES);
    const first = touchPages(fresh);
    const again = touchPages(fresh);
    touch = Math.min(touch, Math.max(0, ((first - again) * 1000) / (TOUCH_BYTES / PAGE)));
  }
  return {
    cpu_ms: Math.round(cpu * 10) / 10,
    page_touch_us: Math.round(touch * 100) / 100,
    memory_read_ns: Math.round(read * 10) / 10,
  };
}

if (import.meta.main) console.log(probeMachine());
