/**
 * `deno task bench:scaling --in A.json,B.json,... --out PREFIX`: the scaling
 * curve of the cold classes.
 * Reads cold results (`bench/results/*-cold.json`, written by
 * `deno task bench --db FILE --cold-only` at several dataset sizes) and
 * writes a markdown table and an SVG chart of p99 at c=8 per class against
 * the number of providers, so users see how cost grows with the data.
 *
 * @module
 */
import { parseCli, runCli, UsageError } from "../lib/cli.ts";
import { COLD_CLASSES } from "./cold.ts";
import type { ColdRun } from "./cold_report.ts";

const USAGE = `Usage: deno task bench:scaling --in A.json,B.json,... --out PREFIX

  --in FILES   cold results at different sizes, comma list
               (each from 'deno task bench --db DB --cold-only')
  --out PREFIX write PREFIX.md and PREFIX.svg`;

/** The markdown table: per class, c1 p50 and c8 p99 at each size, and c8 searches/s. */
export function scalingMarkdown(runs: readonly ColdRun[]): string {
  const sorted = [...runs].sort((a, b) => a.records - b.records);
  const sizes = sorted.map((r) => `${(r.records / 1e6).toFixed(1)} M`);
  const lines = [
    `| class | ${sizes.map((s) => `${s} c1 p50 / c8 p99 / c8 per s`).join(" | ")} |`,
    `|---|${sizes.map(() => "---:").join("|")}|`,
  ];
  for (const c of COLD_CLASSES) {
    if (!sorted.every((r) => r.results.classes[c])) continue;
    const cells = sorted.map((r) => {
      const x = r.results.classes[c];
      return `${x.c1.p50_ms.toFixed(2)} / ${x.c8.p99_ms.toFixed(1)} ms / ${x.c8.rps.toFixed(0)}`;
    });
    lines.push(`| ${c} | ${cells.join(" | ")} |`);
  }
  const mem = sorted.map((r) =>
    r.memory ? `${r.memory.anonymous_mb} MB anon + ${r.memory.file_mb} MB mapped` : "–"
  );
  lines.push(`| memory after the run | ${mem.join(" | ")} |`);
  return lines.join("\n") + "\n";
}

const PALETTE = [
  "#2563eb",
  "#dc2626",
  "#16a34a",
  "#9333ea",
  "#ea580c",
  "#0891b2",
  "#ca8a04",
  "#db2777",
  "#4b5563",
  "#65a30d",
  "#7c3aed",
];

/** A line chart (log-log) of c8 p99 per class against the number of providers. */
export function scalingSvg(runs: readonly ColdRun[]): string {
  const sorted = [...runs].sort((a, b) => a.records - b.records);
  const classes = COLD_CLASSES.filter((c) => sorted.every((r) => r.results.classes[c]));
  const width = 760, height = 420, left = 70, right = 200, top = 40, bottom = 50;
  const xs = sorted.map((r) => r.records);
  const ys = classes.flatMap((c) => sorted.map((r) => r.results.classes[c].c8.p99_ms));
  const [x0, x1] = [Math.log10(Math.min(...xs)), Math.log10(Math.max(...xs))];
  const [y0, y1] = [
    Math.floor(Math.log10(Math.max(0.1, Math.min(...ys)))),
    Math.ceil(Math.log10(Math.max(...ys))),
  ];
  const x = (v: number) => left + ((Math.log10(v) - x0) / (x1 - x0 || 1)) * (width - left - right);
  const y = (v: number) =>
    top + (1 - (Math.log10(Math.max(v, 0.1)) - y0) / (y1 - y0 || 1)) * (height - top - bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="22" font-size="15" font-weight="600">Cold searches: p99 at 8 connections against dataset size (log-log)</text>`,
  ];
  for (let p = y0; p <= y1; p++) {
    out.push(
      `<line x1="${left}" y1="${y(10 ** p)}" x2="${width - right}" y2="${
        y(10 ** p)
      }" stroke="#e5e7eb"/>`,
      `<text x="${left - 6}" y="${y(10 ** p) + 4}" text-anchor="end" fill="#6b7280">${
        10 ** p
      } ms</text>`,
    );
  }
  for (const r of sorted) {
    out.push(
      `<text x="${x(r.records)}" y="${height - bottom + 18}" text-anchor="middle" fill="#6b7280">${
        (r.records / 1e6).toFixed(1)
      } M</text>`,
    );
  }
  classes.forEach((c, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const points = sorted.map((r) => `${x(r.records)},${y(r.results.classes[c].c8.p99_ms)}`);
    out.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.join(" ")}"/>`,
    );
    for (const p of points) {
      const [px, py] = p.split(",");
      out.push(`<circle cx="${px}" cy="${py}" r="3" fill="${color}"/>`);
    }
    out.push(
      `<rect x="${width - right + 16}" y="${
        top + i * 20
      }" width="12" height="10" fill="${color}"/>`,
      `<text x="${width - right + 32}" y="${top + i * 20 + 9}">${c}</text>`,
    );
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}

async function main(): Promise<void> {
  const args = parseCli(Deno.args, { string: ["in", "out"], boolean: [] });
  if ((args as { help?: boolean }).help) {
    console.log(USAGE);
    return;
  }
  const files = args.in?.split(",").filter(Boolean) ?? [];
  if (!args.out || files.length < 2) {
    throw new UsageError("Give --in with two or more result files and --out PREFIX");
  }
  const runs = await Promise.all(
    files.map(async (f) => JSON.parse(await Deno.readTextFile(f)) as ColdRun),
  );
  await Deno.writeTextFile(`${args.out}.md`, scalingMarkdown(runs));
  await Deno.writeTextFile(`${args.out}.svg`, scalingSvg(runs));
  console.log(`wrote ${args.out}.md and ${args.out}.svg`);
}

if (import.meta.main) await runCli(main, USAGE);
