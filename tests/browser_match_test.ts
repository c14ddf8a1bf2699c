/**
 * The "match a roster" page and the search page's CSV download, in headless
 * Chromium against the real server (a subprocess with a small demo
 * dataset). Skipped when Chromium is not installed at /usr/bin/chromium.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { chromiumPresent, launchChromium, startServer } from "./browser_support.ts";

Deno.test({
  name: "[browser] the match page uploads a roster, shows reasons, filters and downloads",
  ignore: !chromiumPresent(),
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "browser-match-" });
    const server = await startServer({ db: `${dir}/providers.db`, demoRecords: 2000 });
    const { origin } = server;
    const browser = await launchChromium();
    const pageErrors: string[] = [];
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on("pageerror", (error) => pageErrors.push(error.message));

      // A roster from two real records (one with a nickname-free exact name) and a stranger.
      const search =
        await (await fetch(`${origin}/v1/providers/search?entity_type=individual&limit=2`))
          .json();
      const people = search.results as {
        npi: string;
        individual: { first_name: string; last_name: string };
        practice_location: { line1: string; city: string; state: string; postal_code: string };
      }[];
      const roster = [
        "id,first_name,last_name,address,city,state,postal_code",
        ...people.map((p, i) =>
          [
            `p${i}`,
            p.individual.first_name,
            p.individual.last_name,
            p.practice_location.line1,
            p.practice_location.city,
            p.practice_location.state,
            p.practice_location.postal_code.slice(0, 5),
          ].map((v) => `"${v}"`).join(",")
        ),
        "x,Nobody,Qqzzyx,1 Nowhere Rd,Springfield,IL,62701",
        "bad,,,,,,",
      ].join("\n");

      await t.step("the page uploads the CSV and lists each row with its status", async () => {
        const response = await page.goto(`${origin}/match`);
        assertEquals(response?.status(), 200);
        await Deno.writeTextFile(`${dir}/roster.csv`, roster);
        await page.locator("#roster").setInputFiles(`${dir}/roster.csv`);
        await page.locator("#match-button").click();
        await page.locator("#match-download:not([hidden])").waitFor();
        const rows = page.locator("#match-rows tr");
        assertEquals(await rows.count(), 4);
        const statuses = await page.locator("#match-rows tr td:nth-child(3)").allTextContents();
        assertEquals(statuses, ["matched", "matched", "unmatched", "invalid"]);
        const first = await rows.first().textContent() ?? "";
        assert(first.includes(people[0]!.npi), first);
        assertMatch(await page.locator("#match-summary").textContent() ?? "", /4 rows: 2 matched/);
      });

      await t.step("a status filter shows only its rows", async () => {
        await page.getByRole("button", { name: /^unmatched/ }).click();
        assertEquals(await page.locator("#match-rows tr:not([hidden])").count(), 1);
        await page.getByRole("button", { name: /^all/ }).click();
        assertEquals(await page.locator("#match-rows tr:not([hidden])").count(), 4);
      });

      await t.step("the results download as CSV", async () => {
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.locator("#match-download").click(),
        ]);
        const path = await download.path();
        const text = await Deno.readTextFile(path);
        const lines = text.trimEnd().split("\r\n");
        assertEquals(lines.length, 5);
        assert(lines[0]!.startsWith("id,row,status,reason"));
      });

      await t.step("a bad roster shows the server's message", async () => {
        await Deno.writeTextFile(`${dir}/bad.csv`, "surname\nSmith\n");
        await page.locator("#roster").setInputFiles(`${dir}/bad.csv`);
        await page.locator("#match-button").click();
        await page.locator("#roster-error:not([hidden])").waitFor();
        assertMatch(await page.locator("#roster-error").textContent() ?? "", /surname/);
      });

      await t.step("the search page offers the whole result set as CSV", async () => {
        await page.goto(`${origin}/?state=NY`);
        const link = page.locator("#download-csv");
        await link.waitFor();
        const href = await link.getAttribute("href") ?? "";
        assertMatch(href, /^\/v1\/providers\/export\?/);
        const params = new URLSearchParams(href.split("?")[1]);
        assertEquals(params.get("state"), "NY");
        assertEquals(params.get("format"), "csv");
        const response = await fetch(`${origin}${href}`);
        assertEquals(response.status, 200);
        const text = await response.text();
        assertEquals(
          text.trimEnd().split("\r\n").length - 1,
          Number(response.headers.get("x-total-count")),
        );
      });
      assertEquals(pageErrors, []);
    } finally {
      await browser.close();
      await server.stop();
    }
  },
});
