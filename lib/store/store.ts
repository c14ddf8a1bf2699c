/**
 * The store: the records and facts of a dataset, behind one small
 * interface. {@linkcode openSqliteStore} implements it; the conformance
 * suite in `tests/store_test.ts` holds any implementation to it. Searching
 * is the layer above (`lib/search/searcher.ts`).
 *
 * @module
 */
import type { Provider } from "../provider.ts";
import type { TaxonomyEntry } from "../taxonomy/nucc.ts";
import type { FileRecord } from "./builder.ts";
import type { StoredRecordRow } from "./record_batch.ts";

/** What `GET /v1/dataset` reports. */
export interface DatasetInfo {
  source: "nppes" | "demo";
  synthetic: boolean;
  records: number;
  active: number;
  deactivated: number;
  built_at: string;
  schema_version: number;
  files: FileRecord[];
  taxonomy_source: string;
  zip_dataset: string;
  zips_not_found: number;
}

/** Read access to a provider dataset. */
export interface ProviderStore {
  /** The provider with this NPI (active or deactivated), or `null`. */
  getProvider(npi: string): Provider | null;
  /**
   * Providers by internal id, in the order given; unknown ids are skipped.
   * `stored`: their stored records, read already (by a search worker, with
   * the page: see `SearchPage.records`), decoded instead of read again.
   */
  getProvidersById(
    ids: readonly number[],
    stored?: readonly StoredRecordRow[],
  ): { id: number; provider: Provider }[];
  /**
   * The stored records of providers by internal id, in the order given
   * (unknown ids are skipped), undecoded: what {@linkcode getProvidersById}
   * decodes when handed them.
   */
  storedRecords(ids: readonly number[]): StoredRecordRow[];
  /**
   * The JSON text of providers by internal id, in the order given (unknown
   * ids are skipped): what the routes send, cached across requests.
   */
  providerJsonById(ids: readonly number[]): string[];
  /**
   * Providers by internal id as export text, in the order given (unknown ids
   * are skipped): NDJSON lines (each the JSON text of `providerJsonById`) or
   * CSV lines of the export's columns (`EXPORT_COLUMNS`, without the header).
   * Not cached: an export reads each record once.
   */
  exportText(ids: readonly number[], format: "ndjson" | "csv"): string;
  /** The JSON text of the provider with this NPI, or `null`. */
  providerJson(npi: string): string | null;
  /** What is being served. */
  dataset(): DatasetInfo;
  /**
   * The form of the name key the ids are ranked by (`NAME_KEY_VERSION` of
   * `sort_key.ts` for a database built by this version, 1 for an older one).
   */
  nameKeyVersion(): number;
  /** The NUCC code set of this dataset, by code. */
  taxonomy(): readonly TaxonomyEntry[];
  /** Releases the database. */
  close(): void;
}

/** The store could not be opened; the message says why and what to do. */
export class StoreOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreOpenError";
  }
}
