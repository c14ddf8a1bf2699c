/**
 * Web Worker that merges the posting lists of the text and name fields
 * ({@linkcode writeField}) and streams them to the building thread, which
 * writes them into the database between pieces of its own work: the merge
 * takes one core while the building thread writes the rest.
 *
 * Message in: a {@linkcode PostingsRequest}. Messages out:
 * {@linkcode PostingsMessage}: batches of rows (their buffers transferred),
 * then `done`. The worker waits for a credit of `credits` before each batch
 * and the building thread gives one back once it has written it
 * ({@linkcode SharedCredits}), so at most a few batches are in flight. The
 * text terms' counts for the typo vocabulary go to a scratch database,
 * `term_docs (term, docs)`, which is complete (and closed) when the worker
 * posts `counted`, before the name-key fields are merged.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { bytesOf } from "./typed.ts";
import { mergeTerms, type SegmentRange, type SegmentSource, writeField } from "./merge.ts";
import { TEXT_FIELDS } from "./fields.ts";
import { SharedCredits } from "../shared_credits.ts";

/** What to merge, and where the counts go. */
export interface PostingsRequest {
  /** Scratch databases of segments, and the array turning each one's numbers into ids. */
  sources: { path: string; segments: SegmentRange[][]; toId: Uint32Array }[];
  fields: number[];
  /** Every id is below it. */
  universe: number;
  /** The scratch database of the terms' counts (created). */
  counts: string;
  /** Batches that may be in flight ({@linkcode SharedCredits}). */
  credits: SharedArrayBuffer;
}

/**
 * Posting rows: row `i` is field `fields[i]`, term `terms[i]` and the ids
 * `ids[starts[i] .. starts[i + 1])` (bytes of 32-bit ids).
 */
export interface PostingRows {
  type: "rows";
  fields: Uint8Array<ArrayBuffer>;
  terms: string[];
  ids: Uint8Array<ArrayBuffer>;
  starts: Uint32Array<ArrayBuffer>;
}

/** What the worker reports. */
export type PostingsMessage = PostingRows | { type: "counted" } | { type: "done" } | {
  type: "error";
  message: string;
};

/** The table of the counts database. */
export const TERM_DOCS_SCHEMA =
  "CREATE TABLE term_docs (term TEXT NOT NULL, docs INTEGER NOT NULL)";

/** A batch is posted once its lists hold this many bytes (or rows). */
const BATCH_BYTES = 4 << 20;
const BATCH_ROWS = 16_384;

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<PostingsRequest>) => void) | null;
  postMessage(message: PostingsMessage, options?: { transfer: ArrayBuffer[] }): void;
};

/** Collects rows and posts them in batches, each once a credit is free. */
class RowBatcher {
  #fields: number[] = [];
  #terms: string[] = [];
  #lists: Uint32Array[] = [];
  #bytes = 0;

  constructor(private readonly credits: SharedCredits) {}

  add(field: number, term: string, ids: Uint32Array): void {
    this.#fields.push(field);
    this.#terms.push(term);
    this.#lists.push(ids);
    this.#bytes += ids.byteLength;
    if (this.#bytes >= BATCH_BYTES || this.#terms.length >= BATCH_ROWS) this.flush();
  }

  flush(): void {
    if (this.#terms.length === 0) return;
    const starts = new Uint32Array(this.#lists.length + 1);
    const ids = new Uint8Array(this.#bytes);
    for (let i = 0; i < this.#lists.length; i++) {
      ids.set(bytesOf(this.#lists[i]!), starts[i]!);
      starts[i + 1] = starts[i]! + this.#lists[i]!.byteLength;
    }
    const rows: PostingRows = {
      type: "rows",
      fields: Uint8Array.from(this.#fields),
      terms: this.#terms,
      ids,
      starts,
    };
    this.credits.takeBlocking();
    scope.postMessage(rows, { transfer: [rows.fields.buffer, ids.buffer, starts.buffer] });
    this.#fields = [];
    this.#terms = [];
    this.#lists = [];
    this.#bytes = 0;
  }
}

function run(request: PostingsRequest): void {
  let counts: DatabaseSync | null = new DatabaseSync(request.counts);
  const sources: SegmentSource[] = [];
  try {
    counts.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
    counts.exec(TERM_DOCS_SCHEMA);
    for (const { path, segments, toId } of request.sources) {
      sources.push({ db: new DatabaseSync(path, { readOnly: true }), segments, toId });
    }
    const count = counts.prepare("INSERT INTO term_docs (term, docs) VALUES (?, ?)");
    const rows = new RowBatcher(new SharedCredits(request.credits));
    const sink = {
      put: (field: number, term: string, ids: Uint32Array) => rows.add(field, term, ids),
      count: (term: string, docs: number) => count.run(term, docs),
    };
    counts.exec("BEGIN");
    // Text fields first: their counts are complete once they are merged.
    const fields = [
      ...request.fields.filter((f) => TEXT_FIELDS.includes(f)),
      ...request.fields.filter((f) => !TEXT_FIELDS.includes(f)),
    ];
    for (const field of fields) {
      if (counts && !TEXT_FIELDS.includes(field)) {
        counts.exec("COMMIT");
        counts.close();
        counts = null;
        scope.postMessage({ type: "counted" });
      }
      writeField(field, mergeTerms(field, sources), request.universe, sink);
    }
    rows.flush();
    if (counts) {
      counts.exec("COMMIT");
      scope.postMessage({ type: "counted" });
    }
  } finally {
    for (const source of sources) source.db.close();
    counts?.close();
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
