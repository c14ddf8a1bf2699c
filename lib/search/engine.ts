/**
 * Executes a {@linkcode SearchQuery} on the SQLite store: exact totals,
 * relevance tiers, true great-circle distance, stable ordering, cursor and
 * offset paging, and facet counts over the whole filtered set.
 *
 * Without free text or a point, results come straight from the provider
 * table in id order (ids are name ranks), so browsing stops early. With
 * either, the matching set is materialised with its sort keys, sorted once,
 * and sliced.
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { CursorPosition, FacetName, SearchQuery } from "./query.ts";
import { type SqlFilter, sqlFilter } from "./filters.ts";
import { planWords, tiers, TypoFinder } from "./text_query.ts";
import { distance } from "../geo/zip.ts";

/** One result: the provider's id, with its relevance score and distance when asked. */
export interface SearchHit {
  id: number;
  score?: number;
  distance?: number;
}

/** A facet's top values. */
export type Facets = Partial<Record<FacetName, { value: string; count: number }[]>>;

/** A page of results. */
export interface SearchPage {
  total: number;
  hits: SearchHit[];
  /** Where the next page starts; `null` on the last page. */
  next: CursorPosition | null;
  /** The absolute position of the first hit. */
  offset: number;
  facets?: Facets;
}

/** What the engine needs besides the query. */
export interface EngineContext {
  db: DatabaseSync;
  typos: TypoFinder;
  /** Active and total record counts, for the unfiltered browse. */
  counts: { active: number; records: number };
  /** Aborted when the request is abandoned. */
  signal?: AbortSignal;
}

/** Most values per facet. */
export const FACET_SIZE = 20;

const FACET_COLUMNS: Record<Exclude<FacetName, "taxonomy">, string> = {
  state: "p.state",
  city: "p.city",
  sex: "p.sex",
  entity_type: "CASE p.entity WHEN 1 THEN 'individual' WHEN 2 THEN 'organization' END",
};

function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
}

/** Rows of a candidate: id, coordinates, facet fields. */
interface Candidate {
  id: number;
  lat: number | null;
  lon: number | null;
  state: string | null;
  city: string | null;
  sex: string | null;
  entity: number | null;
  tier: number;
  score: number;
  distance: number;
}

/**
 * Runs a search.
 *
 * @example
 * ```ts
 * const page = search(query, { db, typos: new TypoFinder(db), counts: { active, records } });
 * ```
 */
export function search(query: SearchQuery, ctx: EngineContext): SearchPage {
  const filter = sqlFilter(query);
  if (!query.words && !query.near) return browse(query, filter, ctx);
  return materialised(query, filter, ctx);
}

function browse(query: SearchQuery, filter: SqlFilter, ctx: EngineContext): SearchPage {
  const { db } = ctx;
  const total = filter.narrowed
    ? (db.prepare(`SELECT count(*) AS n FROM provider p WHERE ${filter.where}`).get(
      ...filter.params,
    ) as { n: number }).n
    : query.includeDeactivated
    ? ctx.counts.records
    : ctx.counts.active;
  checkAbort(ctx.signal);
  const after = query.cursor?.after[0];
  const offset = query.cursor ? query.cursor.offset : query.offset;
  const rows = db.prepare(
    `SELECT p.id AS id FROM provider p WHERE ${filter.where}${
      after !== undefined ? " AND p.id > ?" : ""
    }
     ORDER BY p.id LIMIT ? OFFSET ?`,
  ).all(
    ...filter.params,
    ...(after !== undefined ? [after] : []),
    query.limit,
    query.cursor ? 0 : query.offset,
  ) as {
    id: number;
  }[];
  const hits = rows.map((r) => ({ id: r.id }));
  const last = hits.at(-1);
  const next = last && offset + hits.length < total
    ? { offset: offset + hits.length, after: [last.id] }
    : null;
  const page: SearchPage = { total, hits, next, offset };
  if (query.facets.length) page.facets = sqlFacets(query.facets, filter, ctx);
  return page;
}

function sqlFacets(names: readonly FacetName[], filter: SqlFilter, ctx: EngineContext): Facets {
  const facets: Facets = {};
  for (const name of names) {
    checkAbort(ctx.signal);
    const sql = name === "taxonomy"
      ? `SELECT t.code AS value, count(*) AS count FROM provider_taxonomy t JOIN provider p ON p.id = t.id
         WHERE ${filter.where} GROUP BY t.code ORDER BY count DESC, value LIMIT ${FACET_SIZE}`
      : `SELECT ${FACET_COLUMNS[name]} AS value, count(*) AS count FROM provider p
         WHERE ${filter.where} AND ${
        FACET_COLUMNS[name]
      } IS NOT NULL GROUP BY 1 ORDER BY count DESC, value LIMIT ${FACET_SIZE}`;
    facets[name] = ctx.db.prepare(sql).all(...filter.params) as { value: string; count: number }[];
  }
  return facets;
}

function materialised(query: SearchQuery, filter: SqlFilter, ctx: EngineContext): SearchPage {
  const { db } = ctx;
  const columns =
    "p.id AS id, p.lat AS lat, p.lon AS lon, p.state AS state, p.city AS city, p.sex AS sex, p.entity AS entity";
  const found = new Map<number, Candidate>();
  const take = (rows: Record<string, SQLInputValue>[], tier: number, score: number) => {
    for (const row of rows) {
      const id = row.id as number;
      if (found.has(id)) continue;
      found.set(id, {
        id,
        lat: row.lat as number | null,
        lon: row.lon as number | null,
        state: row.state as string | null,
        city: row.city as string | null,
        sex: row.sex as string | null,
        entity: row.entity as number | null,
        tier,
        score,
        distance: 0,
      });
    }
  };
  if (query.words) {
    const plan = planWords(query.words, ctx.typos);
    const list = tiers(plan);
    for (const [i, tier] of list.entries()) {
      checkAbort(ctx.signal);
      let rows: Record<string, SQLInputValue>[];
      if (tier.match) {
        rows = db.prepare(
          `SELECT ${columns} FROM provider_fts f JOIN provider p ON p.id = f.rowid
           WHERE provider_fts MATCH ? AND ${filter.where}`,
        ).all(tier.match, ...filter.params) as Record<string, SQLInputValue>[];
      } else {
        const alternatives = tier.names!.map((keys) =>
          "(" + keys.map(() =>
            "p.id IN (SELECT id FROM name_key WHERE kind = ? AND key = ?)"
          ).join(" AND ") + ")"
        );
        rows = db.prepare(
          `SELECT ${columns} FROM provider p WHERE (${
            alternatives.join(" OR ")
          }) AND ${filter.where}`,
        )
          .all(...tier.names!.flat(2), ...filter.params) as Record<string, SQLInputValue>[];
      }
      take(rows, i, tier.score);
    }
  } else {
    take(
      db.prepare(`SELECT ${columns} FROM provider p WHERE ${filter.where}`).all(
        ...filter.params,
      ) as Record<
        string,
        SQLInputValue
      >[],
      0,
      0,
    );
  }
  checkAbort(ctx.signal);
  let candidates = [...found.values()];
  const near = query.near;
  if (near) {
    const limit = near.radius;
    candidates = candidates.filter((c) => {
      if (c.lat === null || c.lon === null) return false;
      c.distance = distance(near.lat, near.lon, c.lat, c.lon, near.unit);
      return c.distance <= limit;
    });
  }
  const key = sortKey(query);
  candidates.sort((a, b) => compareKeys(key(a), key(b)));
  const total = candidates.length;
  let start = query.offset;
  if (query.cursor) {
    const after = query.cursor.after;
    start = firstAfter(candidates, key, after);
  }
  const slice = candidates.slice(start, start + query.limit);
  const hits = slice.map((c) => {
    const hit: SearchHit = { id: c.id };
    if (query.words) hit.score = c.score;
    if (near) hit.distance = Math.round(c.distance * 10) / 10;
    return hit;
  });
  const last = slice.at(-1);
  const next = last && start + slice.length < total
    ? { offset: start + slice.length, after: key(last) }
    : null;
  const page: SearchPage = { total, hits, next, offset: start };
  if (query.facets.length) page.facets = candidateFacets(query.facets, candidates, ctx);
  return page;
}

/** The sort key of a candidate under the query's order; the id breaks every tie. */
function sortKey(query: SearchQuery): (c: Candidate) => number[] {
  switch (query.sort) {
    case "name":
      return (c) => [c.id];
    case "distance":
      return (c) => [c.distance, c.id];
    case "relevance":
      return query.near ? (c) => [c.tier, c.distance, c.id] : (c) => [c.tier, c.id];
  }
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Index of the first candidate whose key is greater than `after` (binary search). */
function firstAfter(
  sorted: readonly Candidate[],
  key: (c: Candidate) => number[],
  after: readonly number[],
): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(key(sorted[mid]!), after) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function top(counts: Map<string, number>): { value: string; count: number }[] {
  return [...counts].map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, FACET_SIZE);
}

function candidateFacets(
  names: readonly FacetName[],
  candidates: readonly Candidate[],
  ctx: EngineContext,
): Facets {
  const facets: Facets = {};
  for (const name of names) {
    checkAbort(ctx.signal);
    const counts = new Map<string, number>();
    if (name === "taxonomy") {
      const rows = ctx.db.prepare(
        "SELECT code AS value, count(*) AS count FROM provider_taxonomy WHERE id IN (SELECT value FROM json_each(?)) GROUP BY code",
      ).all(JSON.stringify(candidates.map((c) => c.id))) as { value: string; count: number }[];
      for (const r of rows) counts.set(r.value, r.count);
    } else {
      for (const c of candidates) {
        const value = name === "entity_type"
          ? (c.entity === 1 ? "individual" : c.entity === 2 ? "organization" : null)
          : c[name];
        if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
      }
    }
    facets[name] = top(counts);
  }
  return facets;
}
