/**
 * Web Worker that builds the demo database off the serving thread, so the
 * server keeps answering (health, 503 "loading") while it runs, with the
 * files derived from it (the kept unions, `lib/search/kept_unions.ts`).
 *
 * Message in: `{ path, records, seed }`. Messages out: `{ type: "progress", done, total }`,
 * then `{ type: "done", stats }` or `{ type: "error", message }`.
 *
 * @module
 */
import { buildDemoDatabase } from "../demo/build.ts";
import { addKeptUnions } from "../search/kept_union_build.ts";

/** The request the worker accepts. */
export interface DemoBuildRequest {
  path: string;
  records: number;
  seed: number;
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<DemoBuildRequest>) => void) | null;
  postMessage(message: unknown): void;
  close(): void;
};

scope.onmessage = (event) => {
  const { path, records, seed } = event.data;
  try {
    const stats = buildDemoDatabase({
      path,
      records,
      seed,
      onProgress: (done, total) => scope.postMessage({ type: "progress", done, total }),
      derive: (built) => void addKeptUnions(built),
    });
    scope.postMessage({ type: "done", stats });
  } catch (error) {
    scope.postMessage({
      type: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  }
  scope.close();
};
