/**
 * A cache of texts kept outside the JavaScript heap: UTF-8 bytes in one
 * buffer, written around it as a ring, found through a map of numbers.
 *
 * The serving thread caches the JSON text of records and finished search
 * bodies. Kept as strings, each survived two young-generation collections
 * and was copied into the old generation before it was evicted: at eight
 * connections the serving thread's scavenges took 1.5–2.0 s of a 12–14 s
 * run (pauses up to 66 ms, which every request in flight waits through).
 * Kept as bytes, a text costs one copy in, one decoding out, and nothing
 * to collect.
 *
 * Eviction is first in, first out, with reinsertion: an entry read once it
 * is in the older half of the ring (by bytes written since) is written
 * again at the head, so that what is read often stays, as in an LRU.
 *
 * @module
 */

/** Bytes before each entry's text: its length and the ring's write count when it was written. */
const HEADER = 8;
/** Largest budget: ages are counted modulo 2³² bytes written. */
const MAX_BUDGET = 1 << 30;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A byte-bounded cache of texts by number key, in a ring buffer of
 * `budget` bytes (allocated at the first text kept). A text whose bytes
 * exceed `1 / largestShare` of the budget is not kept.
 *
 * @example
 * ```ts
 * const ring = new TextRing(1 << 20);
 * ring.set(7, '{"npi":"1234567893"}');
 * ring.get(7); // '{"npi":"1234567893"}'
 * ```
 */
export class TextRing {
  #buffer: Uint8Array | null = null;
  #view: DataView | null = null;
  /** The offset of each key's newest entry. */
  readonly #at = new Map<number, number>();
  /** Entries in the order written, oldest at `#first`: keys and offsets. */
  #keys: number[] = [];
  #offsets: number[] = [];
  #first = 0;
  /** Where the next entry goes. */
  #head = 0;
  /** Bytes written since the ring was made, modulo 2³². */
  #written = 0;
  /** Lookups answered since the ring was made. */
  hits = 0;
  /** Lookups the ring could not answer since it was made. */
  misses = 0;

  /**
   * @param budget Bytes of the ring (0 turns the cache off; at most 1 GiB).
   * @param largestShare A text is kept only within this share of the budget.
   */
  constructor(readonly budget: number, readonly largestShare = 4) {
    if (!Number.isInteger(budget) || budget < 0 || budget > MAX_BUDGET) {
      throw new RangeError(`A text ring's budget is 0 to ${MAX_BUDGET} bytes, not ${budget}`);
    }
  }

  /** Texts kept. */
  get size(): number {
    return this.#at.size;
  }

  /** Whether `key` is kept (not counted as a lookup). */
  has(key: number): boolean {
    return this.#at.has(key);
  }

  /** The text kept for `key`, or `undefined`. */
  get(key: number): string | undefined {
    const kept = this.#read(key);
    return kept && decoder.decode(kept);
  }

  /**
   * A copy of the bytes kept for `key` (as {@linkcode TextRing.get} reads
   * them, undecoded), or `undefined`.
   */
  getBytes(key: number): Uint8Array<ArrayBuffer> | undefined {
    return this.#read(key)?.slice();
  }

  /**
   * The bytes kept for `key`, a view valid until the next write (an entry
   * read in the older half is written again at the head first).
   */
  #read(key: number): Uint8Array | undefined {
    const at = this.#at.get(key);
    if (at === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    const buffer = this.#buffer!, view = this.#view!;
    const length = view.getUint32(at, true);
    if (((this.#written - view.getUint32(at + 4, true)) >>> 0) <= this.budget / 2) {
      return buffer.subarray(at + HEADER, at + HEADER + length);
    }
    // The entry may be overwritten by its own copy: the bytes are copied first.
    const to = this.#place(HEADER + length);
    buffer.copyWithin(to, at, at + HEADER + length);
    this.#commit(key, to, length);
    return buffer.subarray(to + HEADER, to + HEADER + length);
  }

  /**
   * Keeps `lead` and `text` (a string, or bytes kept as they are), one
   * after the other, for `key`, in place of what was kept for it (let go
   * of too when they are not kept). Giving them apart spares a long text
   * its copy into a joined string.
   */
  set(key: number, text: string | Uint8Array, lead = ""): void {
    const limit = this.budget / this.largestShare;
    this.#at.delete(key);
    const length = lead.length + text.length;
    if (this.budget === 0 || HEADER + length > limit) return;
    this.#buffer ??= new Uint8Array(this.budget);
    this.#view ??= new DataView(this.#buffer.buffer);
    // Room for one byte a character first (JSON is mostly ASCII), for three when that was short.
    let at = this.#place(HEADER + length);
    let written = this.#encode(at, length, lead, text);
    if (written < 0) {
      const most = typeof text === "string" ? length * 3 : lead.length * 3 + text.length;
      if (HEADER + most > limit) return;
      at = this.#place(HEADER + most);
      written = this.#encode(at, most, lead, text);
    }
    this.#commit(key, at, written);
  }

  /** Writes `lead` and `text` as UTF-8 after the header at `at`: the bytes written, or -1 when `room` was short. */
  #encode(at: number, room: number, lead: string, text: string | Uint8Array): number {
    const into = this.#buffer!.subarray(at + HEADER, at + HEADER + room);
    let lent = 0;
    if (lead !== "") {
      const first = encoder.encodeInto(lead, into);
      if (first.read < lead.length) return -1;
      lent = first.written;
    }
    if (typeof text !== "string") {
      if (room - lent < text.length) return -1;
      into.set(text, lent);
      return lent + text.length;
    }
    const second = encoder.encodeInto(text, lent === 0 ? into : into.subarray(lent));
    return second.read < text.length ? -1 : lent + second.written;
  }

  /** Records the entry just written at `at` (`length` bytes of text) as `key`'s newest. */
  #commit(key: number, at: number, length: number): void {
    const view = this.#view!;
    view.setUint32(at, length, true);
    view.setUint32(at + 4, this.#written, true);
    this.#keys.push(key);
    this.#offsets.push(at);
    this.#at.set(key, at);
    this.#head = at + HEADER + length;
    this.#written = (this.#written + HEADER + length) >>> 0;
  }

  /** The offset of `bytes` contiguous free bytes, the oldest entries evicted to make them. */
  #place(bytes: number): number {
    const capacity = this.budget;
    for (;;) {
      if (this.#first === this.#keys.length) return this.#head = 0;
      const oldest = this.#offsets[this.#first]!;
      if (this.#head > oldest) {
        // Live entries run from the oldest to the head: room at the end, or go round.
        if (capacity - this.#head >= bytes) return this.#head;
        this.#head = 0;
      } else if (oldest - this.#head >= bytes) {
        // The head has gone round: the room is what lies before the oldest entry.
        return this.#head;
      } else this.#evictOldest();
    }
  }

  #evictOldest(): void {
    const key = this.#keys[this.#first]!, at = this.#offsets[this.#first]!;
    this.#first++;
    if (this.#at.get(key) === at) this.#at.delete(key);
    if (this.#first === this.#keys.length) {
      this.#keys = [];
      this.#offsets = [];
      this.#first = 0;
    } else if (this.#first >= 1024 && this.#first * 2 >= this.#keys.length) {
      this.#keys = this.#keys.slice(this.#first);
      this.#offsets = this.#offsets.slice(this.#first);
      this.#first = 0;
    }
  }
}

/**
 * A 30-bit hash of a string (FNV-1a), as the key of a {@linkcode TextRing}
 * for texts named by strings: a small integer, which the ring's map holds
 * without boxing it. The caller keeps the name in the text and checks it,
 * as different names may share a hash.
 */
export function hashKey(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 2;
}
