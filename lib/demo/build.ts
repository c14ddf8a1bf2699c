/**
 * Builds the synthetic demo database through the same record mapping and
 * builder as the real importer, so the demo exercises the real code path.
 *
 * @module
 */
import { generateDemo } from "./generate.ts";
import {
  endpointFromRow,
  locationFromRow,
  otherNameFromRow,
  providerFromRow,
} from "../nppes/record.ts";
import { type BuildStats, DatabaseBuilder } from "../store/builder.ts";
import { BUILTIN_TAXONOMY_SOURCE, builtinTaxonomy } from "../taxonomy/nucc.ts";

/** What to build. */
export interface DemoBuildOptions {
  /** Database file to write (replaced atomically). */
  path: string;
  records: number;
  seed?: number;
  /** Index ids held in memory before a segment is written (see `BuildOptions`). */
  segmentEntries?: number;
  /** Bytes a records part grows to before the next starts (see `BuildOptions`). */
  recordPartBytes?: number;
  /** Called every few thousand records. */
  onProgress?: (done: number, total: number) => void;
  /** Writes the files derived from the built database, given its path, before it replaces `path`. */
  derive?: (db: string) => void;
}

/**
 * Generates `records` synthetic providers into a new database at `path`.
 *
 * @example
 * ```ts
 * await buildDemoDatabase({ path: "data/providers.db", records: 100_000 });
 * ```
 */
export function buildDemoDatabase(options: DemoBuildOptions): BuildStats {
  const builder = DatabaseBuilder.create({
    target: options.path,
    source: "demo",
    taxonomy: { entries: builtinTaxonomy(), source: BUILTIN_TAXONOMY_SOURCE },
    segmentEntries: options.segmentEntries,
    recordPartBytes: options.recordPartBytes,
  });
  try {
    let done = 0;
    let others = 0, locations = 0, endpoints = 0;
    for (const bundle of generateDemo({ records: options.records, seed: options.seed })) {
      builder.addProvider(providerFromRow(bundle.main));
      for (const row of bundle.otherNames) {
        const { npi, name } = otherNameFromRow(row);
        builder.addOtherName(npi, name);
        others++;
      }
      for (const row of bundle.locations) {
        const { npi, location } = locationFromRow(row);
        builder.addLocation(npi, location);
        locations++;
      }
      for (const row of bundle.endpoints) {
        const { npi, endpoint } = endpointFromRow(row);
        builder.addEndpoint(npi, endpoint);
        endpoints++;
      }
      if (++done % 10_000 === 0) options.onProgress?.(done, options.records * 2);
    }
    const name = `synthetic seed ${options.seed ?? "default"}`;
    builder.addFile({ kind: "npidata", name, rows: done, skipped: 0 });
    builder.addFile({ kind: "othername", name, rows: others, skipped: 0 });
    builder.addFile({ kind: "pl", name, rows: locations, skipped: 0 });
    builder.addFile({ kind: "endpoint", name, rows: endpoints, skipped: 0 });
    const stats = builder.finalize((d, t) =>
      options.onProgress?.(options.records + (d / t) * options.records, options.records * 2)
    );
    options.derive?.(builder.tempPath);
    builder.commit();
    return stats;
  } catch (error) {
    builder.abort();
    throw error;
  }
}
