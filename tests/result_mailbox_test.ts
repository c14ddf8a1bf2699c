/**
 * Search answers through shared memory (`lib/search/result_mailbox.ts`):
 * the mailbox itself, and the pool settling a finished search on the next
 * request's arrival while its event loop has not delivered the worker's
 * message (as under overload, when new requests keep it busy).
 */
import { assert, assertEquals } from "@std/assert";
import { MAILBOX_BYTES, ResultMailbox } from "../lib/search/result_mailbox.ts";
import { SearchPool } from "../lib/search/pool.ts";
import { searchQuery } from "../lib/search/query.ts";
import { clock } from "../lib/deadline.ts";
import { bodyText, type SearchBody } from "../lib/search/response.ts";
import { searchFixtureDatabase } from "./_search_fixtures.ts";

Deno.test("[mailbox] one answer at a time, read once, too large ones refused", () => {
  const box = new ResultMailbox<{ id: number; text?: string }>(ResultMailbox.buffer(64));
  assertEquals(box.take(), null);
  assert(box.put({ id: 1, text: "é, ü and ✓" }));
  assertEquals(box.put({ id: 2 }), false, "full until taken");
  // The other side sees the same memory.
  const other = new ResultMailbox<{ id: number; text?: string }>(box.shared);
  assertEquals(other.take(), { id: 1, text: "é, ü and ✓" });
  assertEquals(box.take(), null, "taken once");
  assertEquals(box.put({ id: 3, text: "x".repeat(100) }), false, "over 64 bytes: by message");
  assert(box.put({ id: 4 }), "a refused answer leaves the mailbox empty");
  assertEquals(box.take(), { id: 4 });
  assertEquals(ResultMailbox.buffer().byteLength > MAILBOX_BYTES, true);
});

Deno.test("[mailbox] the pool settles a finished search when the next request arrives", async () => {
  const dir = await Deno.makeTempDir();
  const path = await searchFixtureDatabase(dir);
  const pool = await SearchPool.start({ path, workers: 1, queue: 8, workerDelayMs: 30 });
  try {
    const job = (q: string) => ({
      query: searchQuery({ words: [q], limit: 5 }),
      cursorScope: { query: q, release: "test" },
      startedAt: clock(),
    });
    let first: SearchBody | undefined;
    const running = pool.run(job("smith")).then((body) => first = body);
    // Block this thread (as a flood of requests would) until the worker has surely answered:
    // its message cannot be delivered meanwhile.
    const until = performance.now() + 600;
    while (performance.now() < until) { /* busy */ }
    assertEquals(first, undefined);
    // A new request arrives: the pool reads the mailbox first. Only microtasks run before the
    // check (the worker's message would need a turn of the event loop).
    const second = pool.run(job("jones"));
    for (let i = 0; i < 3; i++) await Promise.resolve();
    assert(first !== undefined, "the first search is answered from the mailbox");
    await running;
    assert(first && JSON.parse(bodyText(first)).total > 0);
    assert(JSON.parse(bodyText(await second)).total >= 0);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});
