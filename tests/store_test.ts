/**
 * The store conformance suite: what every {@linkcode ProviderStore} must do.
 * Run here against the SQLite store built from the fixture files.
 */
import { NAME_KEY_VERSION } from "../lib/store/sort_key.ts";
import { assert, assertEquals } from "@std/assert";
import type { ProviderStore } from "../lib/store/store.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { openSqliteStore } from "../lib/store/sqlite_store.ts";
import { StoreOpenError } from "../lib/store/store.ts";
import { fixtureDatabase, NPI, npi } from "./_fixtures.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";
import { assertJson, testApp } from "./_utils.ts";
import { Dataset } from "../lib/service/dataset.ts";
import { assertThrows } from "@std/assert";
import { renderRecords } from "../lib/store/flat_records.ts";
import { FLAG } from "../lib/index/fields.ts";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { SEARCH_PARAMS, toSearchQuery } from "../lib/search/params.ts";
import { specialtyIndex } from "../routes/specialties.ts";

/** The conformance suite. */
export async function storeConformance(t: Deno.TestContext, store: ProviderStore): Promise<void> {
  await t.step("getProvider finds active and deactivated NPIs, null otherwise", () => {
    assertEquals(store.getProvider(NPI.enkeshafi)?.npi, NPI.enkeshafi);
    assertEquals(store.getProvider(NPI.gone)?.status, "deactivated");
    assertEquals(store.getProvider(npi("199999999")), null);
    assertEquals(store.getProvider("abc"), null);
  });
  await t.step("getProvidersById keeps the order given and skips unknown ids", () => {
    const all = store.getProvidersById([1, 2, 3, 4, 5, 6, 7]);
    assertEquals(all.length, 7);
    const reversed = store.getProvidersById([3, 999, 1]);
    assertEquals(reversed.map((r) => r.id), [3, 1]);
  });
  await t.step("exportText and providerJsonById write the records of getProvidersById", () => {
    const ids = [3, 999, 1, 2, 7, 3];
    const providers = store.getProvidersById(ids).map((r) => r.provider);
    assertEquals(store.exportText(ids, "ndjson"), renderRecords(providers, "ndjson"));
    assertEquals(store.exportText(ids, "csv"), renderRecords(providers, "csv"));
    assertEquals(store.providerJsonById(ids), providers.map((p) => JSON.stringify(p)));
  });
  await t.step("ids rank active providers first, then by name", () => {
    const all = store.getProvidersById([1, 2, 3, 4, 5, 6, 7]).map((r) => r.provider);
    assertEquals(all.at(-1)?.status, "deactivated");
    const names = all.filter((p) => p.status === "active").map((p) =>
      (p.individual
        ? `${p.individual.last_name} ${p.individual.first_name}`
        : p.organization?.name ?? "")
        .toLowerCase().replace(/[^a-z ]/g, "")
    );
    assertEquals(names, [...names].sort());
  });
  await t.step("dataset counts agree with the records", () => {
    const info = store.dataset();
    assertEquals(info.records, 7);
    assertEquals(info.active + info.deactivated, info.records);
    assert(!Number.isNaN(Date.parse(info.built_at)));
  });
  await t.step("taxonomy lists NUCC codes with names", () => {
    const entries = store.taxonomy();
    assert(entries.length > 800);
    assertEquals(
      entries.find((e) => e.code === "207RC0000X")?.display,
      "Cardiovascular Disease Physician",
    );
  });
}

Deno.test("[store] the SQLite store passes the conformance suite", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const store = openSearchableStore(await fixtureDatabase(dir));
    try {
      await storeConformance(t, store);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[store] opening a missing, corrupt or old database says what to do", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing: StoreOpenError = assertThrows(
      () => openSqliteStore(`${dir}/none.db`),
      StoreOpenError,
    );
    assert(missing.message.includes("does not exist"));
    await Deno.writeTextFile(`${dir}/junk.db`, "this is not sqlite".repeat(100));
    const corrupt: StoreOpenError = assertThrows(
      () => openSqliteStore(`${dir}/junk.db`),
      StoreOpenError,
    );
    assert(corrupt.message.includes("not a provider database"));
    const path = await fixtureDatabase(dir);
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path);
    db.exec("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    db.close();
    const old: StoreOpenError = assertThrows(() => openSqliteStore(path), StoreOpenError);
    assert(old.message.includes("schema version is 0"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[store] a database says which name key ranks it; one built before says nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = await fixtureDatabase(dir);
    const fresh = openSqliteStore(path);
    assertEquals(fresh.nameKeyVersion(), NAME_KEY_VERSION);
    fresh.close();
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path);
    db.exec("DELETE FROM meta WHERE key = 'name_key'");
    db.close();
    const older = openSqliteStore(path);
    assertEquals(older.nameKeyVersion(), 1);
    older.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[store] index columns are read on first use or by warm, with the same answers", async () => {
  const dir = await Deno.makeTempDir();
  const path = await searchFixtureDatabase(dir);
  // Read from SQLite; the index map's columns are views, never copies to hand on.
  const warmed = openSearchableStore(path, { indexMap: false });
  const cold = openSearchableStore(path, { indexMap: false });
  const mapped = openSearchableStore(path);
  try {
    let steps = 1;
    while (warmed.warm()) steps++;
    // One column a step (city, lat, lon, taxonomy offsets, codes, primaries), then one step for each
    // pass of the points but the last (`points.ts`).
    assertEquals(steps, 6 + 2);
    assertEquals(warmed.warm(), false);
    const body = async (store: typeof cold, query: string) => {
      const app = testApp({ deps: { dataset: new Dataset({ kind: "ready", store }) } });
      const json = await assertJson<Record<string, unknown>>(
        await app.request(`/v1/providers/search?${query}`),
      );
      delete json.took_ms;
      return json;
    };
    // Distance reads lat and lon; the facets read city and the taxonomy columns.
    const query = "near=10001&radius=50&sort=distance&facets=city,taxonomy,state&limit=50";
    const expected = await body(warmed, query);
    assert((expected.total as number) > 0);
    assertEquals(await body(cold, query), expected);
    const read = Object.keys(cold.index.columnBytes()).sort();
    assertEquals(
      read,
      ["city", "lat", "lon", "tax_codes", "tax_offsets"],
      "what the search needed",
    );
    assertEquals(await body(mapped, query), expected);
    assertEquals(mapped.index.columnBytes(), {}, "mapped columns are not handed on");
  } finally {
    warmed.close();
    cold.close();
    mapped.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[store] a missing or short index column fails at open, not in a search", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = await fixtureDatabase(dir);
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path);
    db.exec("CREATE TABLE saved AS SELECT * FROM index_blob WHERE name = 'lat'");
    db.exec("DELETE FROM index_blob WHERE name = 'lat'");
    const missing: StoreOpenError = assertThrows(() => openSqliteStore(path), StoreOpenError);
    assert(missing.message.includes("no 'lat' column: import the data again"), missing.message);
    db.exec("INSERT INTO index_blob SELECT * FROM saved");
    db.exec("UPDATE index_blob SET data = substr(data, 1, 8) WHERE name = 'city'");
    const short: StoreOpenError = assertThrows(() => openSqliteStore(path), StoreOpenError);
    assert(short.message.includes("'city' column is 8 bytes"), short.message);
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Runs `use` on a store opened by `open` over the search fixture, then closes and deletes it. */
async function onSearchFixture<S extends { close(): void }>(
  open: (path: string) => S,
  use: (store: S) => void,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const store = open(await searchFixtureDatabase(dir));
    try {
      use(store);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("[store] state counts, read without the lists, agree with the state column", async () => {
  await onSearchFixture(openSearchableStore, (store) => {
    const index = store.index;
    const counted = new Array<number>(index.states.length).fill(0);
    for (let id = 1; id <= index.size; id++) counted[index.state[id]!]!++;
    counted[0] = 0; // no state: not a filter value
    assert(counted.filter((n) => n > 0).length > 1, "the fixture has several states");
    assertEquals(index.states.map((_, value) => index.stateCount(value)), counted);
  });
});

Deno.test("[store] deactivated providers' ids follow the active ones' (activeEnd)", async () => {
  await onSearchFixture(
    (path) => openSearchableStore(path, { indexMap: false }),
    (store) => {
      const index = store.index;
      const end = index.activeEnd;
      const active = (id: number) => (index.flags[id]! & FLAG.active) !== 0;
      assert(end > 1 && end <= index.size, `the fixture has both kinds (end ${end})`);
      for (let id = 1; id <= index.size; id++) assertEquals(active(id), id < end, `id ${id}`);
      assertEquals(index.countFlags(FLAG.active, FLAG.active), end - 1);
    },
  );
  // Flags out of that order (never written by a build) are told apart: the flags are tested.
  await onSearchFixture(
    (path) => openSearchableStore(path, { indexMap: false }),
    (store) => {
      const flags = store.index.flags;
      flags[1] = flags[1]! & ~FLAG.active;
      assertEquals(store.index.activeEnd, 0);
    },
  );
});

Deno.test("[store] the bound between active and deactivated providers: the last active found, the first deactivated only when asked", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/demo.db`;
  buildDemoDatabase({ path: db, records: 4000, seed: 9 });
  const store = openSearchableStore(db);
  try {
    const first = store.index.activeEnd;
    assert(first > 1 && first <= store.index.size, `the demo has deactivated providers (${first})`);
    const specialties = specialtyIndex(store);
    const ids = (params: string) => {
      const path = `/v1/providers/search?${params}`;
      const url = new URL(path, "http://x").searchParams;
      const cursorScope = { query: path, release: "" };
      const query = toSearchQuery(SEARCH_PARAMS.parse(url), { specialties, cursorScope, url });
      return store.search(query).hits.map((h) => h.id);
    };
    const npiOf = (id: number) => JSON.parse(store.providerJsonById([id])[0]!).npi as string;
    // Deactivated records carry no name or place: they are found by NPI, and only when asked.
    const last = npiOf(first - 1), deactivated = npiOf(first);
    assertEquals(ids(`npi=${last}`), [first - 1]);
    assertEquals(ids(`npi=${deactivated}`), []);
    assertEquals(ids(`npi=${deactivated}&include_deactivated=true`), [first]);
    assertEquals(ids(`npi=${last},${deactivated}&include_deactivated=true`), [first - 1, first]);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[store] providers read in one batch are those read one at a time, in the order asked", async () => {
  await onSearchFixture(openSqliteStore, (store) => {
    const size = store.dataset().records;
    const ids = Array.from({ length: size }, (_, i) => size - i);
    const batch = store.getProvidersById([...ids, 3, size + 5, 3]);
    assertEquals(batch.map((r) => r.id), [...ids, 3, 3], "unknown ids skipped, repeats kept");
    const sided = batch.filter(({ provider: p }) =>
      p.other_names.length > 0 || p.other_locations.length > 0 || p.endpoints.length > 0
    );
    assert(sided.length > 0, "the fixture has records with reference rows");
    for (const { id, provider } of batch) {
      assertEquals(provider, store.getProvidersById([id])[0]!.provider, `id ${id}`);
      assertEquals(provider, store.getProvider(provider.npi), `NPI ${provider.npi}`);
    }
  });
});
