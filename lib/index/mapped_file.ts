/**
 * Files mapped into memory read-only, through the C library's `mmap`: an
 * `ArrayBuffer` whose pages are the operating system's page cache. Reading
 * a typed array over it copies nothing and adds no anonymous memory (the
 * pages count as mapped file memory, shared by every thread and process
 * that maps the file, and given back by the system under pressure).
 *
 * Needs Linux with glibc at one of {@linkcode LIBC_PATHS} and FFI allowed
 * without a path (`--allow-ffi`, as the start commands allow: Deno lets a
 * view over native memory be made only then, and the C library alone can
 * open any other anyway); elsewhere (Deno Deploy, no permission)
 * {@linkcode mapReadOnly} returns null and the caller reads its data
 * another way.
 *
 * A mapping lives as long as its buffer: it is unmapped once the buffer is
 * collected, when no view of it can be read any more — or by
 * {@linkcode unmapAll}, for a thread about to end (its collections would
 * never come, and the mapping would hold a replaced file's disk space for
 * as long as the process runs). Writing through a view of a mapping, or
 * reading one after {@linkcode unmapAll}, is a fault of the process.
 *
 * @module
 */
import { LIBC_PATHS } from "../memory.ts";

const SYMBOLS = {
  open: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  mmap: { parameters: ["pointer", "usize", "i32", "i32", "i32", "i64"], result: "pointer" },
  munmap: { parameters: ["pointer", "usize"], result: "i32" },
  mlock: { parameters: ["pointer", "usize"], result: "i32" },
  munlock: { parameters: ["pointer", "usize"], result: "i32" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

/** `O_RDONLY`, `PROT_READ`, `MAP_SHARED` (the same on every Linux architecture). */
const O_RDONLY = 0, PROT_READ = 1, MAP_SHARED = 1;
/** `MAP_FAILED`: `(void *) -1`. */
const MAP_FAILED = 0xffff_ffff_ffff_ffffn;

/** The C library's calls, once found on this thread; null when they cannot be had. */
let libc: Libc | null | undefined;

function findLibc(): Libc | null {
  if (Deno.build.os !== "linux" || typeof Deno.dlopen !== "function") return null;
  // Asked, never prompted: without the permission the search stops quietly.
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
  for (const path of LIBC_PATHS) {
    try {
      return Deno.dlopen(path, SYMBOLS).symbols;
    } catch {
      // Not there: try the next.
    }
  }
  return null;
}

/** A mapping made on this thread and not unmapped yet. */
interface Mapping {
  pointer: Deno.PointerObject;
  bytes: number;
}

/** The mappings of this thread not unmapped yet. */
const live = new Set<Mapping>();

function unmap(mapping: Mapping): void {
  if (!live.delete(mapping)) return;
  libc?.munmap(mapping.pointer, BigInt(mapping.bytes));
}

/** Unmaps a mapping once its buffer is collected (no view can read it any more). */
const unmapper = new FinalizationRegistry<Mapping>(unmap);

/**
 * Unmaps every mapping made on this thread, now: for a thread about to end,
 * once nothing will read a view of them again (a read would be a fault).
 * Returns how many it unmapped.
 *
 * @example
 * ```ts
 * store.close();
 * unmapAll(); // then self.close()
 * ```
 */
export function unmapAll(): number {
  const all = [...live];
  for (const mapping of all) {
    unmapper.unregister(mapping);
    unmap(mapping);
  }
  return all.length;
}

/** Whether files can be mapped on this thread (Linux, glibc, FFI allowed). */
export function canMapFiles(): boolean {
  if (libc === undefined) libc = findLibc();
  return libc !== null;
}

/**
 * Maps the whole file at `path` read-only and shared (files can be mapped
 * here: see {@linkcode canMapFiles}); null when it is empty. Throws when it
 * cannot be opened or mapped.
 */
function mapWhole(path: string): Mapping | null {
  const c = libc!;
  const bytes = Deno.statSync(path).size;
  if (bytes === 0) return null;
  const fd = c.open(new TextEncoder().encode(`${path}\0`), O_RDONLY);
  if (fd < 0) throw new Error(`Cannot open '${path}' to map it`);
  let pointer: Deno.PointerValue;
  try {
    pointer = c.mmap(null, BigInt(bytes), PROT_READ, MAP_SHARED, fd, 0n);
  } finally {
    // The mapping keeps the file; the descriptor is not needed past this call.
    c.close(fd);
  }
  if (pointer === null || Deno.UnsafePointer.value(pointer) === MAP_FAILED) {
    throw new Error(`Cannot map '${path}' (${bytes} bytes) into memory`);
  }
  return { pointer, bytes };
}

/**
 * The whole file at `path`, mapped read-only and shared, as an
 * `ArrayBuffer`; null where files cannot be mapped (see
 * {@linkcode canMapFiles}) or the file is empty. Throws when the file
 * cannot be opened or mapped.
 *
 * @example
 * ```ts
 * const buffer = mapReadOnly("data/providers.db.4242-m1x2y3.map");
 * if (buffer) new Uint8Array(buffer, 0, 8); // the file's first bytes, read in place
 * ```
 */
export function mapReadOnly(path: string): ArrayBuffer | null {
  if (!canMapFiles()) return null;
  const mapping = mapWhole(path);
  if (!mapping) return null;
  const buffer = Deno.UnsafePointerView.getArrayBuffer(mapping.pointer, mapping.bytes);
  live.add(mapping);
  unmapper.register(buffer, mapping, mapping);
  return buffer;
}

/** A mapped file and the JSON header at its start (see {@linkcode mapWithHeader}). */
export interface MappedWithHeader<T> {
  buffer: ArrayBuffer;
  header: T;
  /** Where the header ends: the first byte after it. */
  headerEnd: number;
}

/**
 * Maps the whole file at `path` read-only (see {@linkcode mapReadOnly}) and
 * reads the header its writer put first: the 8 ASCII bytes `magic`, a
 * little-endian `u32` length, then that many bytes of JSON. Null where
 * files cannot be mapped; throws `bad(why)` when the file is cut short, is
 * not a `kind` (no `magic`), or its header is not JSON.
 *
 * @example
 * ```ts
 * const mapped = mapWithHeader<{ version: number }>(path, "NPIXMAP1", "index map", (why) => new Error(why));
 * ```
 */
export function mapWithHeader<T>(
  path: string,
  magic: string,
  kind: string,
  bad: (why: string) => Error,
): MappedWithHeader<T> | null {
  if (Deno.statSync(path).size < 12) throw bad("it is cut short");
  const buffer = mapReadOnly(path);
  if (!buffer) return null;
  const decoder = new TextDecoder();
  if (decoder.decode(new Uint8Array(buffer, 0, 8)) !== magic) throw bad(`no ${kind} header`);
  const headerBytes = new DataView(buffer).getUint32(8, true);
  if (12 + headerBytes > buffer.byteLength) throw bad("it is cut short");
  try {
    const header = JSON.parse(decoder.decode(new Uint8Array(buffer, 12, headerBytes))) as T;
    return { buffer, header, headerEnd: 12 + headerBytes };
  } catch {
    throw bad("its header is not readable");
  }
}

/** Bytes locked at a time by {@linkcode PinnedFiles.pin}: a pause of some milliseconds each. */
const PIN_CHUNK_BYTES = 64 * 1024 * 1024;

/**
 * Files whose pages are locked in memory (`mlock`) through a read-only
 * mapping of each: a host that pages out what was not read for a while
 * would otherwise make the first search that needs such a page wait for
 * the disk. The pages are the page cache's (mapped file memory, not
 * anonymous), shared with every other mapping and read. Locking needs the
 * privilege to (`CAP_IPC_LOCK`, or a memlock limit as large as the files)
 * and the memory.
 */
export class PinnedFiles {
  readonly #held: Mapping[] = [];
  #released = false;
  /** Bytes locked so far. */
  locked = 0;

  /**
   * Maps `paths` and locks their pages, {@linkcode PIN_CHUNK_BYTES} at a
   * time with `pause()` between (reading what is not in memory yet): a
   * server keeps answering meanwhile. Resolves with the bytes locked;
   * rejects when files cannot be mapped here or the system refuses the
   * lock (what was locked is let go).
   */
  async pin(paths: readonly string[], pause: () => Promise<void>): Promise<number> {
    if (!canMapFiles()) throw new Error("files cannot be mapped here (Linux, glibc, --allow-ffi)");
    const c = libc!;
    for (const path of paths) {
      const mapping = this.#released ? null : mapWhole(path);
      if (!mapping) continue;
      const { pointer, bytes } = mapping;
      this.#held.push(mapping);
      for (let at = 0; at < bytes && !this.#released; at += PIN_CHUNK_BYTES) {
        const length = Math.min(PIN_CHUNK_BYTES, bytes - at);
        const start = Deno.UnsafePointer.offset(pointer, at)!;
        if (c.mlock(start, BigInt(length)) !== 0) {
          this.release();
          throw new Error(
            `the system refused to lock '${path}' in memory (it needs CAP_IPC_LOCK or a memlock ` +
              "limit as large as the files, and the memory)",
          );
        }
        this.locked += length;
        await pause();
      }
    }
    if (this.#released) this.release();
    return this.locked;
  }

  /** Unlocks and unmaps every file (also stops a {@linkcode pin} under way). */
  release(): void {
    this.#released = true;
    for (const { pointer, bytes } of this.#held.splice(0)) {
      libc?.munlock(pointer, BigInt(bytes));
      libc?.munmap(pointer, BigInt(bytes));
    }
    this.locked = 0;
  }
}
