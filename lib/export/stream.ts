/**
 * Streaming a whole result set: pages through the search engine in the
 * search's own order (the same cursor the search hands out), reading and
 * encoding one page per pull, so memory holds one page whatever the size
 * and a slow client slows the export instead of filling memory.
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import type { SearchPage } from "../search/engine.ts";
import type { SearchQuery } from "../search/query.ts";
import { EXPORT_CSV_HEADER, renderRecords } from "../store/flat_records.ts";
import { clock, DeadlineError, type Watch } from "../deadline.ts";
import type { PageFinder } from "../search/page_finder.ts";

/** Formats of an export. */
export type ExportFormat = "ndjson" | "csv";

/** What an export reads from the dataset. */
export interface ExportSource {
  find: PageFinder;
  /** Records by internal id, in the order given. */
  records(ids: readonly number[]): { id: number; provider: Provider }[];
  /**
   * Renders records by id on another thread (a search worker): half of each
   * page is rendered there while this thread renders the other half.
   */
  render?: (ids: number[], format: ExportFormat, watch: Watch) => Promise<string>;
}

/** Options of one export. */
export interface ExportOptions {
  format: ExportFormat;
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
  const encoder = new TextEncoder();
  let written = 0;
  let headerSent = options.format !== "csv";
  let ended = false;
  const end = (complete: boolean) => {
    if (ended) return;
    ended = true;
    options.onEnd?.(written, complete);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(EXPORT_CSV_HEADER));
          return;
        }
        if (!page) {
          controller.close();
          end(true);
          return;
        }
        if (options.signal?.aborted) throw options.signal.reason;
        if (clock() > deadline) throw new DeadlineError("The export's time limit passed");
        const current = page;
        const ids = current.hits.map((h) => h.id);
        let far: Promise<string> | null = null;
        let half = 0;
        if (source.render && ids.length >= 64) {
          half = ids.length >> 1;
          far = source.render(ids.slice(0, half), options.format, pageWatch());
          far.catch(() => {}); // Awaited below; a failure there errors the stream.
        }
        // The next page is asked for now: a worker finds it while the pages are rendered.
        let next: SearchPage | Promise<SearchPage> | null = null;
        if (current.next) {
          query = { ...query, cursor: current.next };
          next = source.find(query, pageWatch());
          if (next instanceof Promise) next.catch(() => {});
        }
        const near = renderRecords(
          source.records(ids.slice(half)).map((r) => r.provider),
          options.format,
        );
        const text = far ? (await far) + near : near;
        written += ids.length;
        if (text) controller.enqueue(encoder.encode(text));
        page = next instanceof Promise ? await next : next;
        if (!page || page.hits.length === 0) {
          page = null;
          controller.close();
          end(true);
        }
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
