/**
 * Runs the cold classes against a server: per class a warm-up on its own
 * paths, then a c=1 run and a c=8 run on paths neither the warm-up nor the
 * other run used; then the free-text classes interleaved at c=8 (the
 * throughput of cold text search).
 *
 * @module
 */
import type { LoadResult } from "./load.ts";
import { runPaths } from "./url_load.ts";
import {
  COLD_CLASSES,
  COLD_TEXT_CLASSES,
  type ColdClass,
  coldPaths,
  type HarvestedProvider,
  shuffle,
  splitPaths,
} from "./cold.ts";
import { Rng } from "../lib/demo/prng.ts";

/** Paths per class for each part of the run. */
export interface ColdSizes {
  warm: number;
  c1: number;
  c8: number;
  mix: number;
}

/** The default sizes: 5,000 distinct paths in the headline c=8 run of each class. */
export const COLD_SIZES: ColdSizes = { warm: 500, c1: 1000, c8: 5000, mix: 1000 };

/** One class's cold results. */
export interface ColdClassResult {
  /** Distinct paths the class had (every part together). */
  distinct: number;
  c1: LoadResult;
  c8: LoadResult;
}

/** The results of a cold run. */
export interface ColdResults {
  sizes: ColdSizes;
  classes: Record<ColdClass, ColdClassResult>;
  /** The free-text classes interleaved, at c=8 (null when only some classes ran). */
  text_mix: LoadResult | null;
}

/** The paths of every class, split into the run's parts. */
export function coldPlan(
  providers: readonly HarvestedProvider[],
  sizes: ColdSizes,
  seed: number,
): Record<ColdClass, { warm: string[]; c1: string[]; c8: string[]; mix: string[] }> {
  const total = sizes.warm + sizes.c1 + sizes.c8 + sizes.mix;
  const plan = {} as Record<
    ColdClass,
    { warm: string[]; c1: string[]; c8: string[]; mix: string[] }
  >;
  COLD_CLASSES.forEach((cls, i) => {
    const paths = coldPaths(cls, providers, total, seed + i);
    const mix = paths.slice(0, Math.min(sizes.mix, Math.floor(paths.length / 8)));
    plan[cls] = { ...splitPaths(paths.slice(mix.length), sizes), mix };
  });
  return plan;
}

/**
 * Measures every cold class at c=1 and c=8, then the text mix.
 *
 * @example
 * ```ts
 * const results = await runCold(base, coldPlan(harvest.providers, COLD_SIZES, 1), { maxSeconds: 30, log: console.log });
 * ```
 */
export async function runCold(
  base: string,
  plan: ReturnType<typeof coldPlan>,
  options: {
    maxSeconds: number;
    log: (line: string) => void;
    who?: string;
    sizes?: ColdSizes;
    /** Only these classes, and no text mix (for a quick look at some classes). */
    only?: readonly string[] | null;
  },
): Promise<ColdResults> {
  const classes = {} as Record<ColdClass, ColdClassResult>;
  const who = (options.who ?? "ours").padEnd(8);
  for (const cls of COLD_CLASSES.filter((c) => !options.only || options.only.includes(c))) {
    const p = plan[cls];
    if (p.c8.length === 0 || p.c1.length === 0) {
      throw new Error(`The cold class '${cls}' has too few distinct paths: harvest more pages`);
    }
    if (p.warm.length) await runPaths(base, p.warm, { connections: 8, maxSeconds: 5 });
    const c1 = await runPaths(base, p.c1, { connections: 1, maxSeconds: options.maxSeconds });
    const c8 = await runPaths(base, p.c8, { connections: 8, maxSeconds: options.maxSeconds });
    const distinct = p.warm.length + p.c1.length + p.c8.length + p.mix.length;
    classes[cls] = { distinct, c1, c8 };
    options.log(
      `${who} cold ${cls.padEnd(26)} ${
        String(distinct).padStart(5)
      } urls  c1 p50 ${c1.p50_ms} p99 ${c1.p99_ms}  ` +
        `c8 p50 ${c8.p50_ms} p99 ${c8.p99_ms} max ${c8.max_ms} ms, ${c8.rps}/s${
          c8.errors + c8.non2xx ? `, ${c8.errors + c8.non2xx} errors` : ""
        }`,
    );
  }
  if (options.only) return { sizes: options.sizes ?? COLD_SIZES, classes, text_mix: null };
  const mixPaths = shuffle(COLD_TEXT_CLASSES.flatMap((c) => plan[c].mix), new Rng(99));
  const text_mix = await runPaths(base, mixPaths, {
    connections: 8,
    maxSeconds: options.maxSeconds,
  });
  options.log(
    `${who} cold text mix (${mixPaths.length} urls) c8 p50 ${text_mix.p50_ms} p99 ${text_mix.p99_ms} ms, ${text_mix.rps}/s`,
  );
  return { sizes: options.sizes ?? COLD_SIZES, classes, text_mix };
}
