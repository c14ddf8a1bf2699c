/**
 * Streaming a whole result set: pages through the search engine in the
 * search's own order (the same cursor the search hands out), reading and
 * encoding one page per pull, so memory holds one page whatever the size
 * and a slow client slows the export instead of filling memory.
 *
 * @module
 */
import type { SearchPage } from "../search/engine.ts";
import type { SearchQuery } from "../search/query.ts";
import { EXPORT_CSV_HEADER } from "../store/flat_records.ts";
import { clock, DeadlineError, type Watch } from "../deadline.ts";
import type { PageFinder } from "../search/page_finder.ts";
import { type BodyChunk, GzipJoiner, textChunk } from "../http/gzip_chunks.ts";

/** Formats of an export. */
export type ExportFormat = "ndjson" | "csv";

/**
 * The gzip level of exports: 1, as nginx's `gzip_comp_level` default, since
 * compression is most of an export's cost. At 1 million records (CA, 250
 * records a piece) level 1 deflates NDJSON in a third of level 6's time to
 * 0.22 of its size against 0.14 (CSV: a sixth of the time, 0.48 against 0.33).
 */
export const EXPORT_GZIP_LEVEL = 1;

/** What an export reads from the dataset. */
export interface ExportSource {
  find: PageFinder;
  /** Records by internal id as export text (`ProviderStore.exportText`), on this thread. */
  text(ids: readonly number[], format: ExportFormat): string;
  /**
   * Renders records by id on another thread (a search worker), UTF-8 and
   * deflated at `gzipLevel` unless `null`: half of each page is rendered
   * there while this thread renders the other half.
   */
  render?: (
    ids: number[],
    format: ExportFormat,
    gzipLevel: number | null,
    watch: Watch,
  ) => Promise<BodyChunk>;
}

/** Options of one export. */
export interface ExportOptions {
  format: ExportFormat;
  /**
   * Write the body as one gzip stream whose pieces are compressed where the
   * records are rendered, on both threads (see `lib/http/gzip_chunks.ts`);
   * the caller says `Content-Encoding: gzip`. Default false.
   */
  gzip?: boolean;
  /** Records a page (a pull). Default 500. */
  pageSize?: number;
  /** When the whole export must end, on `clock()`; the stream errors there. */
  deadline?: number;
  /** Time limit of each page's search, in ms. */
  pageTimeoutMs?: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** Called once the stream ends, with the records written and whether it was whole. */
  onEnd?: (records: number, complete: boolean) => void;
}

/** A prepared export: the first page is found, the rest is pulled on demand. */
export interface PreparedExport {
  /** Records in the whole result set. */
  total: number;
  /** The body. */
  body: ReadableStream<Uint8Array>;
}

/** The least and most of a page rendered by the worker. */
const SHARE_RANGE = [0.2, 0.8] as const;

/** The bytes of two chunks in order, as one array. */
function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  if (b.byteLength === 0) return a;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

/**
 * Finds the first page of `query` (so errors are answered before any byte
 * is sent) and returns the total and a pull-based body streaming every
 * record in the search's order.
 *
 * @example
 * ```ts
 * const { total, body } = await prepareExport(query, source, { format: "csv" });
 * return new Response(body, { headers: { "Content-Type": "text/csv" } });
 * ```
 */
export async function prepareExport(
  base: SearchQuery,
  source: ExportSource,
  options: ExportOptions,
): Promise<PreparedExport> {
  const pageSize = options.pageSize ?? 500;
  const deadline = options.deadline ?? Infinity;
  const level = options.gzip ? EXPORT_GZIP_LEVEL : null;
  const pageWatch = (): Watch => ({
    signal: options.signal,
    deadline: Math.min(deadline, clock() + (options.pageTimeoutMs ?? Infinity)),
  });
  let query: SearchQuery = {
    ...base,
    limit: pageSize,
    offset: 0,
    cursor: null,
    facets: [],
  };
  let page: SearchPage | null = await source.find(query, pageWatch());
  const total = page.total;
  const gzip = options.gzip ? new GzipJoiner() : null;
  /** The bytes to send for a chunk (the gzip header goes with the first). */
  const send = (chunk: BodyChunk): Uint8Array => gzip ? gzip.add(chunk) : chunk.bytes;
  let written = 0;
  let headerSent = options.format !== "csv";
  let ended = false;
  const end = (complete: boolean) => {
    if (ended) return;
    ended = true;
    options.onEnd?.(written, complete);
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (gzip) controller.enqueue(gzip.end());
    controller.close();
    end(true);
  };
  /**
   * One page under way: the worker renders its first half and then finds the
   * next page while this thread renders the second half. Renders get no
   * abort signal: a client that leaves would have the pool terminate the
   * worker, and a half page is soon done.
   */
  interface Step {
    ids: number[];
    half: number;
    far: Promise<BodyChunk> | null;
    next: SearchPage | Promise<SearchPage> | null;
  }
  const begin = (current: SearchPage): Step => {
    const ids = current.hits.map((h) => h.id);
    let far: Promise<BodyChunk> | null = null;
    let half = 0;
    if (source.render && ids.length >= 64) {
      half = Math.round(ids.length * share);
      far = source.render(ids.slice(0, half), options.format, level, {
        deadline: pageWatch().deadline,
      });
      far.catch(() => {}); // Awaited in the pull; a failure there errors the stream.
    }
    let next: SearchPage | Promise<SearchPage> | null = null;
    if (current.next) {
      query = { ...query, cursor: current.next };
      next = source.find(query, pageWatch());
      if (next instanceof Promise) next.catch(() => {});
    }
    return { ids, half, far, next };
  };
  let step: Step | null = null;
  /**
   * The worker's share of each page, balanced as the export runs: this
   * thread also writes the response, the worker also finds the pages, and
   * either may have the other's core busy. When this thread waited for the
   * worker's half, the worker gets less; when it did not, more.
   */
  let share = 0.5;
  const balance = (ownMs: number, waitedMs: number) => {
    share = waitedMs > ownMs * 0.05
      ? Math.max(SHARE_RANGE[0], share - 0.02)
      : Math.min(SHARE_RANGE[1], share + 0.02);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(send(textChunk(EXPORT_CSV_HEADER, level)));
          return;
        }
        if (!page) {
          finish(controller);
          return;
        }
        if (options.signal?.aborted) throw options.signal.reason;
        if (clock() > deadline) throw new DeadlineError("The export's time limit passed");
        const { ids, half, far, next } = step ?? begin(page);
        step = null;
        const started = clock();
        const near = textChunk(source.text(ids.slice(half), options.format), level);
        const rendered = clock();
        const farChunk = far ? await far : null;
        if (farChunk) balance(rendered - started, clock() - rendered);
        const bytes = farChunk ? joined(send(farChunk), send(near)) : send(near);
        written += ids.length;
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        page = next instanceof Promise ? await next : next;
        if (!page || page.hits.length === 0) {
          page = null;
          finish(controller);
          return;
        }
        // The next page's first half is rendered while the client takes this one.
        step = begin(page);
      } catch (error) {
        end(false);
        controller.error(error);
      }
    },
    cancel() {
      end(false);
    },
  }, { highWaterMark: 1 });
  return { total, body };
}
