/** The in-memory index of a build's records by NPI. */
import { assertEquals } from "@std/assert";
import { NpiIndex } from "../lib/store/npi_index.ts";

/** A small deterministic generator of NPI-sized numbers. */
function numbers(count: number, seed: number): number[] {
  let x = seed;
  return Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return 1_000_000_000 + (x % 9_000_000_000) * 3 % 9_000_000_000;
  });
}

/** Checks an index of `npis` (seq i + 1 for `npis[i]`) against a plain map. */
function assertIndexes(npis: number[]): void {
  const npiBySeq = Float64Array.from([0, ...npis]);
  const seqs = Uint32Array.from(npis, (_, i) => i + 1);
  const index = NpiIndex.of(npiBySeq, seqs);
  assertEquals(index.size, npis.length);
  const expected = new Map<number, number[]>();
  npis.forEach((npi, i) => expected.set(npi, [...(expected.get(npi) ?? []), i + 1]));
  for (const [npi, all] of expected) {
    assertEquals([...index.seqsOf(npi)], all, `seqs of ${npi}`);
    assertEquals(index.seqOf(npi), all.at(-1));
  }
  const repeated = [...expected].filter(([, all]) => all.length > 1).map(([npi]) => npi);
  assertEquals(index.repeated(), repeated.sort((a, b) => a - b));
  assertEquals(index.seqOf(1_234_567_893), null);
  assertEquals(index.seqOf(0), null);
  assertEquals(index.seqOf(99_999_999_999), null);
}

Deno.test("[npi index] finds every seq by NPI, the last of a repeated NPI, and nothing else", async (t) => {
  await t.step("NPIs of the registry's range (two radix passes)", () => {
    const npis = numbers(5000, 11).map((n) => 1_000_000_000 + n % 1_999_999_999);
    npis.push(npis[3]!, npis[4]!, npis[3]!, 1_000_000_000, 2_999_999_999);
    assertIndexes(npis);
  });
  await t.step("numbers spanning more than 2^32 (three passes)", () => {
    const npis = numbers(5000, 7);
    npis.push(npis[10]!, npis[20]!, npis[10]!, 9_999_999_995, 4_294_967_296, 4_294_967_295);
    assertIndexes(npis);
  });
});

Deno.test("[npi index] without() drops the seqs it is told to", () => {
  const npiBySeq = Float64Array.of(0, 1003000126, 1003000118, 1003000126, 1003000134);
  const index = NpiIndex.of(npiBySeq, Uint32Array.of(1, 2, 3, 4)).without((seq) => seq === 3);
  assertEquals(index.size, 3);
  assertEquals([...index.seqsOf(1003000126)], [1]);
  assertEquals(index.seqOf(1003000134), 4);
});
