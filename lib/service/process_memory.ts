/**
 * The process's memory, split the way a memory-mapped database needs:
 * anonymous memory (the JavaScript heaps, caches, the search index read
 * into arrays) against file-backed mapped pages (the SQLite file through
 * `mmap`, which the kernel can drop under pressure).
 *
 * @module
 */

/**
 * Parses `/proc/self/smaps_rollup` text into bytes by field (`Rss`,
 * `Anonymous`, `Pss_File`...); fields are given there in kB.
 *
 * @example
 * ```ts
 * parseSmapsRollup("Rss:  2048 kB\nAnonymous:  1024 kB\n"); // { Rss: 2097152, Anonymous: 1048576 }
 * ```
 */
export function parseSmapsRollup(text: string): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z_]+):\s+(\d+) kB$/.exec(line.trim());
    if (match) fields[match[1]!] = Number(match[2]) * 1024;
  }
  return fields;
}

/**
 * Memory by kind, in bytes: `rss`, `heap_used`, `heap_total`, `external`
 * (V8, `Deno.memoryUsage()`), and where `/proc/self/smaps_rollup` can be
 * read (Linux, and Deno run with `--allow-all`) `anonymous` and
 * `file_mapped` (resident, file-backed).
 *
 * @example
 * ```ts
 * readMemory().rss > 0; // true
 * ```
 */
export function readMemory(): Record<string, number> {
  const usage = Deno.memoryUsage();
  const out: Record<string, number> = {
    rss: usage.rss,
    heap_used: usage.heapUsed,
    heap_total: usage.heapTotal,
    external: usage.external,
  };
  try {
    const fields = parseSmapsRollup(Deno.readTextFileSync("/proc/self/smaps_rollup"));
    if (fields.Rss !== undefined && fields.Anonymous !== undefined) {
      out.rss = fields.Rss;
      out.anonymous = fields.Anonymous;
      out.file_mapped = Math.max(0, fields.Rss - fields.Anonymous);
    }
  } catch {
    // Not Linux, or Deno's permissions: it lets a process read /proc/self only with
    // --allow-all (`--allow-read` is not enough). Then the V8 figures alone.
  }
  return out;
}
