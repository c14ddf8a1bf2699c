/**
 * Web Worker that computes the typo vocabulary ({@linkcode computeVocabulary})
 * from the term counts the postings worker wrote, while the building thread
 * copies the posting lists; the building thread then writes it.
 *
 * Message in: a {@linkcode VocabularyRequest}. Message out: a
 * {@linkcode VocabularyMessage}, its arrays transferred.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { computeVocabulary, type Vocabulary } from "./vocabulary.ts";

/** Where the counts are. */
export interface VocabularyRequest {
  /** The postings worker's output database (its `term_docs` table), opened read-only. */
  path: string;
  /** More (term, providers) counts, added to the table's. */
  extra: [string, number][];
}

/** What the worker reports once. */
export type VocabularyMessage =
  | { type: "done"; vocabulary: Vocabulary }
  | { type: "error"; message: string };

/** Each term once, in term order, with its counts summed. */
export const TERM_TOTALS = `
SELECT term, sum(docs) AS docs FROM (
  SELECT term, docs FROM term_docs
  UNION ALL SELECT value ->> 0, value ->> 1 FROM json_each(?)
) GROUP BY term ORDER BY term`;

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<VocabularyRequest>) => void) | null;
  postMessage(message: VocabularyMessage, options?: { transfer: ArrayBuffer[] }): void;
};

function run(request: VocabularyRequest): Vocabulary {
  const db = new DatabaseSync(request.path, { readOnly: true });
  try {
    const totals = db.prepare(TERM_TOTALS);
    return computeVocabulary(
      (function* () {
        for (const row of totals.iterate(JSON.stringify(request.extra))) {
          const { term, docs } = row as { term: string; docs: number };
          yield [term, docs] as const;
        }
      })(),
    );
  } finally {
    db.close();
  }
}

scope.onmessage = (event) => {
  try {
    const vocabulary = run(event.data);
    const { docs, starts, pairs } = vocabulary;
    scope.postMessage({ type: "done", vocabulary }, {
      transfer: [docs.buffer, starts.buffer, pairs.buffer],
    });
  } catch (error) {
    scope.postMessage({
      type: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  }
};
