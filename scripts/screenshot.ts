/**
 * Saves a screenshot of the web page with search results (1280×800) to
 * `docs/screenshot.png`, for the README. Needs Chromium at /usr/bin/chromium.
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys \
 *   scripts/screenshot.ts [--url http://localhost:7860] [--out docs/screenshot.png]
 * ```
 *
 * Without `--url` it starts the server itself on a free port, serving
 * `--db` (default: a 100,000-record demo kept in the temp directory, built on
 * the first run in about 20 s).
 *
 * @module
 */
import { parseArgs } from "@std/cli/parse-args";
import { launchChromium, type RunningServer, startServer } from "../tests/browser_support.ts";

/** The search shown: family medicine within 10 miles of ZIP 10001 (Manhattan). */
export const SCREENSHOT_QUERY = "specialty=family+medicine&near=10001&radius=10";

/** Options of {@linkcode takeScreenshot}. */
export interface ScreenshotOptions {
  /** The server's origin, e.g. `http://127.0.0.1:7860`. */
  origin: string;
  /** Where to write the PNG. */
  out: string;
  /** The page's query string. */
  query?: string;
}

/** Opens the page on a search, waits until it is complete, and writes a 1280×800 PNG. */
export async function takeScreenshot(options: ScreenshotOptions): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`${options.origin}/?${options.query ?? SCREENSHOT_QUERY}`);
    await page.locator(".card").first().waitFor();
    await page.locator("#dataset-banner:not([hidden])").waitFor();
    // Wait until the taxonomy facets show names rather than codes.
    await page.locator("[data-param=taxonomy]").first().waitFor();
    await page.locator("[data-param=taxonomy] .facet-label", { hasText: /^\s*[0-9A-Z]{9}X\s*$/ })
      .first().waitFor({ state: "detached" });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: options.out });
  } finally {
    await browser.close();
  }
}

if (import.meta.main) {
  const args = parseArgs(Deno.args, {
    string: ["url", "out", "db", "records", "query"],
    default: { out: "docs/screenshot.png", records: "100000" },
  });
  let server: RunningServer | null = null;
  let origin = args.url as string | undefined;
  if (!origin) {
    const tmp = Deno.env.get("TMPDIR") ?? "/tmp";
    const db = (args.db as string | undefined) ?? `${tmp}/provider-search-screenshot.db`;
    console.log(`starting the server on ${db} (a first run builds the demo)...`);
    server = await startServer({ db, demoRecords: Number(args.records), timeoutMs: 180_000 });
    origin = server.origin;
  }
  try {
    await Deno.mkdir(new URL(".", new URL(args.out as string, `file://${Deno.cwd()}/`)), {
      recursive: true,
    });
    await takeScreenshot({
      origin,
      out: args.out as string,
      query: args.query as string | undefined,
    });
    console.log(`wrote ${args.out}`);
  } finally {
    await server?.stop();
  }
}
