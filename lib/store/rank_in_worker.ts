/**
 * The building thread's side of the ranking worker (`rank_worker.ts`).
 *
 * @module
 */
import type { RankedProviders } from "./rank_keys.ts";
import type { RankMessage, RankRequest } from "./rank_worker.ts";

/**
 * Ranks the providers of a build in a worker (`rankProviders`
 * there), so the building thread goes on with the reference files. The
 * worker ends with the answer or the failure.
 *
 * @example
 * ```ts
 * const ranked = await rankInWorker({ sources, options });
 * ```
 */
export function rankInWorker(request: RankRequest): Promise<RankedProviders> {
  const worker = new Worker(new URL("./rank_worker.ts", import.meta.url).href, {
    type: "module",
  });
  const ranking = new Promise<RankedProviders>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<RankMessage>) => {
      const message = event.data;
      if (message.type === "done") resolve(message.ranked);
      else reject(new Error(`Ranking the providers failed: ${message.message}`));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`Ranking the providers failed: ${event.message}`));
    };
  }).finally(() => worker.terminate());
  // A failure nobody waits for yet must not surface as an unhandled rejection.
  ranking.catch(() => {});
  worker.postMessage(request);
  return ranking;
}
