/**
 * Web Worker that writes the posting lists of the text and name fields
 * ({@linkcode writeField}) into a scratch database, while the building
 * thread writes the rest of the database beside it.
 *
 * Message in: a {@linkcode PostingsRequest}. Message out: a
 * {@linkcode PostingsMessage}. The output database holds `posting (field,
 * term, ids)` and `term_docs (term, docs)` (the counts of the typo
 * vocabulary), in the order written.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { bytesOf } from "./typed.ts";
import { mergeTerms, type SegmentRange, type SegmentSource, writeField } from "./merge.ts";

/** What to merge and where to write it. */
export interface PostingsRequest {
  /** Scratch databases of segments, and the array turning each one's numbers into ids. */
  sources: { path: string; segments: SegmentRange[][]; toId: Uint32Array }[];
  fields: number[];
  /** Every id is below it. */
  universe: number;
  /** The output database (created). */
  out: string;
}

/** What the worker reports once. */
export type PostingsMessage = { type: "done" } | { type: "error"; message: string };

/** The tables of the output database. */
export const POSTINGS_OUT_SCHEMA = `
CREATE TABLE posting (field INTEGER NOT NULL, term TEXT NOT NULL, ids BLOB NOT NULL);
CREATE TABLE term_docs (term TEXT NOT NULL, docs INTEGER NOT NULL);
`;

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<PostingsRequest>) => void) | null;
  postMessage(message: PostingsMessage): void;
};

function run(request: PostingsRequest): void {
  const out = new DatabaseSync(request.out);
  const sources: SegmentSource[] = [];
  try {
    out.exec(
      "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;",
    );
    out.exec(POSTINGS_OUT_SCHEMA);
    for (const { path, segments, toId } of request.sources) {
      sources.push({ db: new DatabaseSync(path, { readOnly: true }), segments, toId });
    }
    const insert = out.prepare("INSERT INTO posting (field, term, ids) VALUES (?, ?, ?)");
    const count = out.prepare("INSERT INTO term_docs (term, docs) VALUES (?, ?)");
    const sink = {
      put: (field: number, term: string, ids: Uint32Array) => insert.run(field, term, bytesOf(ids)),
      count: (term: string, docs: number) => count.run(term, docs),
    };
    out.exec("BEGIN");
    for (const field of request.fields) {
      writeField(field, mergeTerms(field, sources), request.universe, sink);
    }
    out.exec("COMMIT");
  } finally {
    for (const source of sources) source.db.close();
    out.close();
  }
}

scope.onmessage = (event) => {
  try {
    run(event.data);
    scope.postMessage({ type: "done" });
  } catch (error) {
    scope.postMessage({
      type: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  }
};
