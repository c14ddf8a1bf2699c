/**
 * Ranking without SQL: the byte-key sort and the rank entries must give
 * exactly the order SQLite gives for `ORDER BY active DESC, sort_key, npi`.
 */
import { assertEquals, assertThrows } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { sortByKey } from "../lib/store/key_sort.ts";
import {
  type RankedProviders,
  RankKeyWriter,
  rankProviders,
  type RankSource,
  zip9Of,
} from "../lib/store/rank_keys.ts";

const encoder = new TextEncoder();

/** Keys laid end to end, as the sorter takes them. */
function byteKeys(keys: readonly string[]) {
  const parts = keys.map((k) => encoder.encode(k));
  const offsets = new Uint32Array(keys.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
  const bytes = new Uint8Array(offsets[keys.length]!);
  parts.forEach((p, i) => bytes.set(p, offsets[i]!));
  return { bytes, offsets };
}

/** A small seeded generator (xorshift), so a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** A word from a small alphabet, so that keys share long prefixes and repeat. */
function word(next: () => number, alphabet: string, maxLength: number): string {
  let s = "";
  const length = Math.floor(next() * (maxLength + 1));
  for (let j = 0; j < length; j++) s += alphabet[Math.floor(next() * alphabet.length)];
  return s;
}

Deno.test("[rank] the byte-key sort agrees with a comparison sort, ties kept in order", () => {
  const next = random(7);
  for (let round = 0; round < 60; round++) {
    const n = Math.floor(next() * 4000);
    // Long shared prefixes and few letters: every path of the sorter (runs, one-digit passes, ties).
    const stem = "smith".repeat(Math.floor(next() * 8));
    const keys = Array.from({ length: n }, () => stem + word(next, "ab ~z9é\u0001", 9));
    // Positions of 25 and 40 bits leave 4 and 3 bytes of prefix: the layouts of huge inputs.
    const positionBits = [0, 25, 40][round % 3];
    const order = sortByKey(byteKeys(keys), Uint32Array.from(keys.keys()), null, positionBits);
    const bytes = keys.map((k) => encoder.encode(k));
    const expected = [...keys.keys()].sort((a, b) => {
      const x = bytes[a]!, y = bytes[b]!;
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        if (x[i] !== y[i]) return x[i]! - y[i]!;
      }
      return x.length - y.length || a - b;
    });
    assertEquals([...order], expected, `round ${round}`);
  }
});

Deno.test("[rank] equal keys are ordered by the tie-break values", () => {
  const next = random(5);
  for (const n of [10, 300, 5000]) {
    const keys = Array.from({ length: n }, () => word(next, "ab", 3));
    // A random permutation of 0..n-1 as the tie values.
    const of = Uint32Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [of[i], of[j]] = [of[j]!, of[i]!];
    }
    const key = new Uint32Array(n);
    of.forEach((v, i) => (key[v] = i));
    for (const positionBits of [0, 30]) {
      const order = sortByKey(
        byteKeys(keys),
        Uint32Array.from(keys.keys()),
        { of, key },
        positionBits,
      );
      const expected = [...keys.keys()].sort((a, b) =>
        keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : of[a]! - of[b]!
      );
      assertEquals([...order], expected, `${n} keys`);
    }
  }
});

Deno.test("[rank] sorts no keys, one key, and a given subset in its own order", () => {
  assertEquals([...sortByKey(byteKeys([]), new Uint32Array(0))], []);
  assertEquals([...sortByKey(byteKeys(["b"]), Uint32Array.of(0))], [0]);
  const keys = byteKeys(["b", "a", "b", "", "a"]);
  assertEquals([...sortByKey(keys, Uint32Array.of(4, 2, 0, 1, 3))], [3, 4, 1, 2, 0]);
});

interface Row {
  seq: number;
  npi: number;
  active: boolean;
  key: string;
  postal: string | null;
}

/** What SQLite gives for the same rows: the order the ranking must reproduce. */
function sqliteOrder(rows: readonly Row[]) {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec("CREATE TABLE r (seq INTEGER, npi INTEGER, active INTEGER, key TEXT, postal TEXT)");
    const insert = db.prepare("INSERT INTO r VALUES (?, ?, ?, ?, ?)");
    for (const r of rows) insert.run(r.seq, r.npi, r.active ? 1 : 0, r.key, r.postal);
    const seqs = (sql: string) => db.prepare(sql).all().map((r) => (r as { seq: number }).seq);
    return {
      byRank: seqs("SELECT seq FROM r ORDER BY active DESC, key, npi"),
      byNpi: seqs("SELECT seq FROM r ORDER BY npi"),
      // Nine digits only, then in rank order.
      byZip9: db.prepare(
        `WITH ranked AS (
           SELECT seq, postal, row_number() OVER (ORDER BY active DESC, key, npi) AS rank FROM r)
         SELECT CAST(postal AS INTEGER) AS zip9, seq FROM ranked
         WHERE postal GLOB '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]' ORDER BY postal, rank`,
      ).all().map((r) => ({ ...r })),
    };
  } finally {
    db.close();
  }
}

/** Writes `rows` through one writer per part (odd parts to a file), as the import does. */
function sources(rows: readonly Row[], parts: number, dir: string): RankSource[] {
  const out: RankSource[] = [];
  for (let k = 0; k < parts; k++) {
    const mine = rows.filter((_, i) => i % parts === k);
    const path = `${dir}/rank${k}`;
    const file = k % 2 === 1
      ? Deno.openSync(path, { write: true, create: true, truncate: true })
      : null;
    const writer = new RankKeyWriter(file);
    for (const r of mine) writer.add(r.npi, r.active, r.key, zip9Of(r.postal));
    const bytes = writer.finish();
    file?.close();
    const seqs = Uint32Array.from(mine, (r) => r.seq);
    out.push(
      bytes ? { bytes, seqs, counts: writer.counts } : { path, seqs, counts: writer.counts },
    );
  }
  return out;
}

function seqs(ranked: RankedProviders, ids: ArrayLike<number>): number[] {
  return Array.from(ids, (id) => ranked.seqById[id]!);
}

Deno.test("[rank] providers ranked as SQLite orders them, from memory and from files", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const next = random(11);
    const rows: Row[] = [];
    for (let seq = 1; seq <= 3000; seq++) {
      rows.push({
        seq,
        // Unique NPIs in random order (no two rows of one NPI reach the ranking).
        npi: 1_000_000_000 + ((seq * 7919) % 3001) * 3,
        active: next() < 0.9,
        key: next() < 0.05 ? "~" : word(next, "ab z", 6),
        // Some ZIP+4 codes (several shared), five-digit and foreign codes, none.
        postal: next() < 0.2
          ? null
          : next() < 0.6
          ? "0" + word(next, "12", 8).padEnd(8, "3")
          : next() < 0.5
          ? "20817"
          : word(next, "12K", 9),
      });
    }
    const expected = sqliteOrder(rows);
    for (const parts of [1, 2, 3]) {
      const ranked = rankProviders(sources(rows, parts, dir), { lastSeq: rows.length });
      assertEquals(ranked.size, rows.length);
      const ids = Array.from({ length: ranked.size }, (_, i) => i + 1);
      assertEquals(seqs(ranked, ids), expected.byRank);
      assertEquals(seqs(ranked, ranked.idsByNpi), expected.byNpi);
      const zip9 = Array.from(ranked.zip9Ids, (id, k) => ({
        zip9: ranked.zip9Codes[k]!,
        seq: ranked.seqById[id]!,
      }));
      assertEquals(zip9, expected.byZip9);
      for (let id = 1; id <= ranked.size; id++) {
        assertEquals(ranked.idBySeq[rows[ranked.seqById[id]! - 1]!.seq], id);
      }
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("[rank] dropped seqs are left out, changed flags count, any text sorts by bytes", () => {
  const writer = new RankKeyWriter();
  const rows: [number, boolean, string, number][] = [
    [1003000126, true, "zoë", 208171841],
    [1003000134, true, "adams", -1],
    [1003000142, false, "東京", 12345],
    [1003000159, true, "adams", 100011234],
  ];
  for (const [npi, active, key, zip9] of rows) writer.add(npi, active, key, zip9);
  const source = {
    bytes: writer.finish()!,
    seqs: Uint32Array.of(4, 2, 0, 7),
    counts: writer.counts,
  };
  const ranked = rankProviders([source], {
    lastSeq: 7,
    dropped: Uint32Array.of(2),
    changed: { seqs: Uint32Array.of(7), active: Uint8Array.of(0) },
  });
  // Seq 2 dropped, the entry with seq 0 left out, seq 7 now deactivated (so after seq 4).
  assertEquals([...ranked.seqById], [0, 4, 7]);
  assertEquals([...ranked.idBySeq], [0, 0, 0, 0, 1, 0, 0, 2]);
  assertEquals([...ranked.idsByNpi], [1, 2]);
  assertEquals([[...ranked.zip9Codes], [...ranked.zip9Ids]], [[100011234, 208171841], [2, 1]]);
  const all = rankProviders([{ ...source, seqs: Uint32Array.of(4, 2, 3, 7) }], { lastSeq: 7 });
  // "adams" (two, by NPI), "zoë", then the deactivated "東京" (UTF-8 bytes sort after ASCII).
  assertEquals([...all.seqById], [0, 2, 7, 4, 3]);
  assertEquals([...all.zip9Codes], [12345, 100011234, 208171841]);
});

Deno.test("[rank] ZIP+4 codes are nine digits", () => {
  assertEquals(zip9Of("208171841"), 208171841);
  assertEquals(zip9Of("012345678"), 12345678);
  for (const odd of [null, "20817", "2081718412", "20817184A", "K1A0B1234", ""]) {
    assertEquals(zip9Of(odd), -1, String(odd));
  }
});

Deno.test("[rank] entries that do not match their count are refused", () => {
  const writer = new RankKeyWriter();
  writer.add(1003000126, true, "a", -1);
  const bytes = writer.finish()!;
  assertThrows(
    () =>
      rankProviders(
        [{ bytes, seqs: Uint32Array.of(1), counts: { ...writer.counts, entries: 2 } }],
        {
          lastSeq: 1,
        },
      ),
    Error,
    "expected 2, read 1",
  );
});
