/**
 * Recent service times of searches, per query shape, for admission by
 * waiting time (`pool.ts`).
 *
 * Searches differ by orders of magnitude: a name lookup takes a
 * millisecond, everyone within 500 miles of a city with every facet takes a
 * hundred. One average over all of them makes the expected wait of a queue
 * of slow searches far too short (and of fast ones far too long), so each
 * search is given a *shape* — what kind of work it is: free text and how
 * many words, which filters, the radius around a point to a power of two,
 * the facets, whether the worker renders records — and its service time is
 * estimated from the recent searches of the same shape. A shape not seen
 * yet takes the overall average.
 *
 * Each estimate is an exponentially weighted mean and mean deviation (1/8
 * the newest, as TCP estimates round trips; the deviation starts at half
 * the first sample).
 *
 * @module
 */
import type { SearchQuery } from "./query.ts";

/** A service time estimate, ms. */
export interface ServiceEstimate {
  /** Recent mean. */
  ms: number;
  /** Recent mean deviation from it. */
  deviationMs: number;
}

/** Weight of the newest service time in the running mean and deviation. */
export const SERVICE_EWMA_WEIGHT = 0.125;

/** Shapes remembered at most (the least recently served are forgotten). */
const MAX_SHAPES = 512;

/** Folds one sample into an estimate (a new one from the first sample). */
function fold(estimate: ServiceEstimate | undefined, ms: number): ServiceEstimate {
  if (!estimate) return { ms, deviationMs: ms / 2 };
  const deviationMs = estimate.deviationMs +
    SERVICE_EWMA_WEIGHT * (Math.abs(ms - estimate.ms) - estimate.deviationMs);
  return { ms: estimate.ms + SERVICE_EWMA_WEIGHT * (ms - estimate.ms), deviationMs };
}

/**
 * Running service time estimates, overall and per shape.
 *
 * @example
 * ```ts
 * const times = new ServiceTimes();
 * times.add("near:512|f5", 120);
 * times.estimate("near:512|f5").ms; // 120
 * times.estimate("q1").ms; // 120: an unknown shape takes the overall mean
 * ```
 */
export class ServiceTimes {
  #overall: ServiceEstimate | undefined;
  readonly #shapes = new Map<string, ServiceEstimate>();

  /** Counts a search of `shape` that took `ms` in its worker. */
  add(shape: string, ms: number): void {
    this.#overall = fold(this.#overall, ms);
    const next = fold(this.#shapes.get(shape), ms);
    this.#shapes.delete(shape);
    this.#shapes.set(shape, next);
    if (this.#shapes.size > MAX_SHAPES) {
      this.#shapes.delete(this.#shapes.keys().next().value!);
    }
  }

  /** The overall estimate; `undefined` before the first search. */
  get overall(): ServiceEstimate | undefined {
    return this.#overall;
  }

  /**
   * The estimate of a search of `shape`: its own, else the overall one,
   * else (before any search finished) `fallbackMs` with no deviation.
   */
  estimate(shape: string, fallbackMs = 0): ServiceEstimate {
    return this.#shapes.get(shape) ?? this.#overall ?? { ms: fallbackMs, deviationMs: 0 };
  }
}

/** The power of two at or above `n` (1 for `n` ≤ 1): a coarse size class. */
function sizeClass(n: number): number {
  return n <= 1 ? 1 : 2 ** Math.ceil(Math.log2(n));
}

/**
 * The shape of a search: the kind of work it is, coarse enough that
 * searches of one shape take about as long. Paging and the sort order are
 * left out (they cost little beside finding the set); what finds the set
 * and what is counted over it are in.
 *
 * @example
 * ```ts
 * searchShape(query); // e.g. "near:512|facets:5" or "q2|states"
 * ```
 */
export function searchShape(query: SearchQuery): string {
  const parts: string[] = [];
  if (query.words) parts.push(`q${Math.min(query.words.length, 4)}`);
  if (query.near) {
    const miles = query.near.unit === "km" ? query.near.radius / 1.609344 : query.near.radius;
    parts.push(`near:${sizeClass(miles)}`);
  }
  const lists: [string, unknown][] = [
    ["npis", query.npis],
    ["states", query.states],
    ["cities", query.cities],
    ["postal", query.postal],
    ["codes", query.taxonomyCodes ?? query.specialtyCodes],
    ["names", query.lastNames ?? query.firstNames ?? query.organizationNames ?? query.anyNames],
    ["check", query.check],
    ["addresses", query.addresses],
    ["range", query.idRange ?? query.ownLastName],
  ];
  for (const [name, value] of lists) if (value) parts.push(name);
  if (query.includeDeactivated) parts.push("all");
  if (query.facets.length) parts.push(`facets:${query.facets.length}`);
  return parts.join("|") || "browse";
}

/** Recent waits remembered by {@linkcode WaitCalibration}. */
const CALIBRATION_WINDOW = 64;
/** Waits needed before the calibration departs from 1. */
const CALIBRATION_MIN_SAMPLES = 8;
/**
 * The largest factor. A larger cap holds more waits within the budget under
 * a flood (at 1 million records and c=256, 16 kept 89–94% within it against
 * 87–89% with 4) but refuses searches at eight connections on a machine far
 * from overloaded (37 of some 4,000 organization-word searches at 9.7
 * million), when a few slow searches lift the factor.
 */
const CALIBRATION_MAX = 4;
/** The quantile of recent actual ÷ estimated waits the calibration takes. */
const CALIBRATION_QUANTILE = 0.99;

/**
 * How far the waits estimated from service times are from the waits seen:
 * the 99th percentile of actual ÷ estimated over the last 64 searches that
 * waited, clamped to [0.5, {@linkcode CALIBRATION_MAX}]. Estimates multiplied by it are exceeded by
 * about one wait in a hundred, however the estimate is biased: service times
 * miss the serving thread's own delays and the machine's slow spells, and
 * overstate the wait when most searches are faster than their shape's
 * deviation suggests.
 *
 * @example
 * ```ts
 * const calibration = new WaitCalibration();
 * for (let i = 0; i < 20; i++) calibration.observe(100, 150);
 * calibration.factor; // 1.5
 * ```
 */
export class WaitCalibration {
  readonly #ratios = new Float64Array(CALIBRATION_WINDOW);
  #count = 0;
  #factor = 1;

  /** Counts a search estimated to wait `estimatedMs` that waited `actualMs`. */
  observe(estimatedMs: number, actualMs: number): void {
    if (!(estimatedMs > 0)) return;
    this.#ratios[this.#count++ % CALIBRATION_WINDOW] = actualMs / estimatedMs;
    const n = Math.min(this.#count, CALIBRATION_WINDOW);
    if (n < CALIBRATION_MIN_SAMPLES) return;
    const sorted = this.#ratios.slice(0, n).sort();
    const at = sorted[Math.min(n - 1, Math.floor(CALIBRATION_QUANTILE * n))]!;
    this.#factor = Math.min(CALIBRATION_MAX, Math.max(0.5, at));
  }

  /** What estimated waits are multiplied by (1 until enough searches have waited). */
  get factor(): number {
    return this.#factor;
  }
}
