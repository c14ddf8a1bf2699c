/**
 * A token-bucket rate limiter keyed by client address.
 *
 * @module
 */

/** The answer to one request for a token. */
export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

/** A rate limiter. */
export interface RateLimiter {
  /** Takes one token from `key`'s bucket. */
  take(key: string): TakeResult;
  /** How many clients are tracked (for tests and metrics). */
  readonly size: number;
}

/**
 * Creates a limiter allowing `perMinute` requests a minute per key, with
 * bursts up to `perMinute`. Buckets refill continuously; full buckets are
 * forgotten so memory stays bounded by the number of active clients.
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ perMinute: 60 });
 * limiter.take("127.0.0.1"); // { ok: true }
 * ```
 */
export function createRateLimiter(
  options: { perMinute: number; now?: () => number; maxTracked?: number },
): RateLimiter {
  const capacity = options.perMinute;
  const perMs = options.perMinute / 60_000;
  const now = options.now ?? (() => performance.now());
  const maxTracked = options.maxTracked ?? 100_000;
  const buckets = new Map<string, { tokens: number; at: number }>();

  function prune(t: number): void {
    for (const [key, bucket] of buckets) {
      if (bucket.tokens + (t - bucket.at) * perMs >= capacity) buckets.delete(key);
    }
    // Still too many active clients: forget the oldest ones (they get a full bucket back).
    for (const key of buckets.keys()) {
      if (buckets.size <= maxTracked / 2) break;
      buckets.delete(key);
    }
  }

  return {
    get size() {
      return buckets.size;
    },
    take(key) {
      const t = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= maxTracked) prune(t);
        bucket = { tokens: capacity, at: t };
        buckets.set(key, bucket);
      } else {
        bucket.tokens = Math.min(capacity, bucket.tokens + (t - bucket.at) * perMs);
        bucket.at = t;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { ok: true };
      }
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)),
      };
    },
  };
}
