/**
 * Web Worker that ranks the providers of a build ({@linkcode rankProviders})
 * while the building thread goes on with the reference files.
 *
 * Message in: a {@linkcode RankRequest}. Message out: a
 * {@linkcode RankMessage}, its arrays transferred.
 *
 * @module
 */
import {
  type RankedProviders,
  type RankOptions,
  rankProviders,
  type RankSource,
} from "./rank_keys.ts";

/** What to rank. */
export interface RankRequest {
  sources: RankSource[];
  options: RankOptions;
}

/** What the worker reports once. */
export type RankMessage =
  | { type: "done"; ranked: RankedProviders }
  | { type: "error"; message: string };

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<RankRequest>) => void) | null;
  postMessage(message: RankMessage, options?: { transfer: ArrayBuffer[] }): void;
};

scope.onmessage = (event) => {
  try {
    const ranked = rankProviders(event.data.sources, event.data.options);
    const transfer = [
      ranked.seqById,
      ranked.idBySeq,
      ranked.idsByNpi,
      ranked.zip9Ids,
      ranked.zip9Codes,
    ].map((a) => a.buffer as ArrayBuffer);
    scope.postMessage({ type: "done", ranked }, { transfer });
  } catch (error) {
    scope.postMessage({
      type: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  }
};
