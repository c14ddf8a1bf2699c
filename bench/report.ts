/**
 * Benchmark reports: the results document, a markdown table with the
 * targets, and an SVG chart of p99 per class, ours against the peer.
 *
 * @module
 */
import type { LoadResult } from "./load.ts";
import { CLASSES, type QueryClass } from "./mix.ts";
import { coldMarkdown, type ColdRun } from "./cold_report.ts";

/** Results of one benchmark run. */
export interface BenchResults {
  date: string;
  records: number;
  machine: { cpus: number; memory_gb: number; deno: string };
  import: { seconds: number; rows: number; rows_per_s: number; peak_rss_mb: number };
  startup_ms: number;
  serve_rss_mb: number;
  serve_peak_rss_mb: number;
  /** The round with the median ratio, and every round's ratio. */
  health: { ours: LoadResult; bare: LoadResult; ratio: number; round_ratios: number[] };
  classes: Record<QueryClass, { c1: LoadResult; c8: LoadResult; totals: number | null }>;
  peer: {
    name: string;
    load_seconds: number;
    load_rows_per_s: number;
    classes: Partial<Record<QueryClass, { c1: LoadResult; c8: LoadResult; totals: number | null }>>;
    p99_ratio: number;
    text_p99_ratio: number;
  } | null;
  /** The cold classes (distinct URLs): the headline. Absent in runs before they existed. */
  cold?: ColdRun;
}

/** Classes whose answer is free-text search (the ≥5× target applies to them). */
export const TEXT_CLASSES: readonly QueryClass[] = [
  "common_surname",
  "rare_surname_typo",
  "prefix_2",
  "org_words",
  "last_name_prefix_state",
];

/** Geometric mean of positive numbers. */
export function geometricMean(values: readonly number[]): number {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  if (positive.length === 0) return 0;
  return Math.exp(positive.reduce((s, v) => s + Math.log(v), 0) / positive.length);
}

function f(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "–";
}

/** The markdown report, with each target marked met or not. */
export function markdownReport(r: BenchResults): string {
  const lines: string[] = [];
  lines.push(`### ${r.records.toLocaleString("en-US")} providers, ${r.date}`);
  lines.push("");
  lines.push(
    `Machine: ${r.machine.cpus} cores, ${r.machine.memory_gb} GB, Deno ${r.machine.deno}.`,
  );
  lines.push("");
  if (r.cold) {
    lines.push(coldMarkdown(r.cold, r.records));
    lines.push(
      "#### Repeated URLs: one URL per class, asked again and again (answered largely from caches)",
    );
    lines.push("");
  }
  lines.push(
    "| class | ours p50 c8 | ours p99 c8 | ours rps c8 | ours p99 c1 | peer p99 c8 | peer rps c8 | p99 ratio (peer/ours) |",
  );
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const c of CLASSES) {
    const ours = r.classes[c];
    const peer = r.peer?.classes[c];
    const ratio = peer ? peer.c8.p99_ms / ours.c8.p99_ms : NaN;
    lines.push(
      `| ${c} | ${f(ours.c8.p50_ms, 2)} ms | ${f(ours.c8.p99_ms, 2)} ms | ${f(ours.c8.rps, 0)} | ${
        f(ours.c1.p99_ms, 2)
      } ms | ${peer ? `${f(peer.c8.p99_ms, 2)} ms` : "–"} | ${peer ? f(peer.c8.rps, 0) : "–"} | ${
        f(ratio)
      }× |`,
    );
  }
  lines.push("");
  const maxP99 = Math.max(...CLASSES.map((c) => r.classes[c].c8.p99_ms));
  const maxP50 = Math.max(...CLASSES.map((c) => r.classes[c].c8.p50_ms));
  const errors = CLASSES.reduce((n, c) => n + r.classes[c].c8.errors + r.classes[c].c8.non2xx, 0);
  const mark = (ok: boolean) => (ok ? "met" : "**not met**");
  lines.push("| target | measured | |");
  lines.push("|---|---|---|");
  lines.push(
    `| every class p99 ≤ 20 ms at c=8 | worst ${f(maxP99, 2)} ms | ${mark(maxP99 <= 20)} |`,
  );
  lines.push(`| every class p50 ≤ 3 ms at c=8 | worst ${f(maxP50, 2)} ms | ${mark(maxP50 <= 3)} |`);
  lines.push(
    `| /health ≥ 0.8× bare Deno.serve | ${f(r.health.ratio, 2)}× (median of ${
      (r.health.round_ratios ?? [r.health.ratio]).join(", ")
    }) | ${mark(r.health.ratio >= 0.8)} |`,
  );
  lines.push(
    `| import ≥ 50,000 rows/s | ${f(r.import.rows_per_s, 0)} rows/s (${f(r.import.seconds)} s) | ${
      mark(r.import.rows_per_s >= 50_000)
    } |`,
  );
  lines.push(
    `| import peak RSS ≤ 2 GB | ${f(r.import.peak_rss_mb, 0)} MB | ${
      mark(r.import.peak_rss_mb <= 2048)
    } |`,
  );
  lines.push(
    `| serving RSS ≤ 1 GB | ${f(r.serve_peak_rss_mb, 0)} MB peak | ${
      mark(r.serve_peak_rss_mb <= 1024)
    } |`,
  );
  lines.push(
    `| start to serving ≤ 1 s | ${f(r.startup_ms, 0)} ms | ${mark(r.startup_ms <= 1000)} |`,
  );
  if (r.peer) {
    lines.push(
      `| ≥ 5× better p99 than ${r.peer.name} on text classes | ${
        f(r.peer.text_p99_ratio)
      }× (all classes ${f(r.peer.p99_ratio)}×) | ${mark(r.peer.text_p99_ratio >= 5)} |`,
    );
  }
  lines.push(`| errors under load | ${errors} | ${mark(errors === 0)} |`);
  return lines.join("\n") + "\n";
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&"]/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!,
  );
}

/** A grouped bar chart (log scale) of p99 at c=8 per class: ours and the peer. */
export function svgChart(r: BenchResults): string {
  const width = 900, rowH = 34, top = 50, left = 190, right = 90;
  const height = top + CLASSES.length * rowH + 40;
  const values = CLASSES.flatMap((
    c,
  ) => [r.classes[c].c8.p99_ms, r.peer?.classes[c]?.c8.p99_ms ?? 0]).filter((v) => v > 0);
  const max = Math.max(...values, 1);
  const min = Math.min(...values, 0.1);
  const lo = Math.log10(Math.min(min, 0.1)), hi = Math.log10(max * 1.5);
  const x = (v: number) =>
    left + ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * (width - left - right);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  parts.push(
    `<text x="${left}" y="22" font-size="15" font-weight="600">p99 latency at 8 connections, ${
      r.records.toLocaleString("en-US")
    } providers (log scale, lower is better)</text>`,
  );
  parts.push(
    `<rect x="${left}" y="30" width="12" height="10" fill="#2563eb"/><text x="${
      left + 16
    }" y="39">this service</text>`,
  );
  if (r.peer) {
    parts.push(
      `<rect x="${left + 110}" y="30" width="12" height="10" fill="#9ca3af"/><text x="${
        left + 126
      }" y="39">${escapeXml(r.peer.name)}</text>`,
    );
  }
  for (let p = Math.ceil(lo); p <= Math.floor(hi); p++) {
    const gx = x(10 ** p);
    parts.push(
      `<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${height - 30}" stroke="#e5e7eb"/>`,
    );
    parts.push(
      `<text x="${gx}" y="${height - 14}" text-anchor="middle" fill="#6b7280">${
        10 ** p >= 1 ? 10 ** p : 10 ** p
      } ms</text>`,
    );
  }
  CLASSES.forEach((c, i) => {
    const y = top + i * rowH;
    parts.push(`<text x="${left - 8}" y="${y + 18}" text-anchor="end">${c}</text>`);
    const ours = r.classes[c].c8.p99_ms;
    parts.push(
      `<rect x="${left}" y="${y + 4}" width="${x(ours) - left}" height="12" fill="#2563eb"/>`,
    );
    parts.push(`<text x="${x(ours) + 4}" y="${y + 14}" fill="#1e3a8a">${f(ours, 2)}</text>`);
    const peer = r.peer?.classes[c]?.c8.p99_ms;
    if (peer) {
      parts.push(
        `<rect x="${left}" y="${y + 17}" width="${x(peer) - left}" height="12" fill="#9ca3af"/>`,
      );
      parts.push(`<text x="${x(peer) + 4}" y="${y + 27}" fill="#374151">${f(peer, 2)}</text>`);
    }
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
