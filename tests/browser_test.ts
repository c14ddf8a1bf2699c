/**
 * The web page and the API reference in headless Chromium, against the real
 * server (a subprocess with a small demo dataset). Skipped when Chromium is
 * not installed at /usr/bin/chromium.
 *
 * @module
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import type { Page } from "playwright-core";
import { chromiumPresent, launchChromium, startServer } from "./browser_support.ts";

/** Reports Content-Security-Policy violations to the test (runs before the page's scripts). */
const CSP_PROBE = `document.addEventListener("securitypolicyviolation", (e) =>
  window.reportCspViolation(e.violatedDirective + " " + e.blockedURI));`;

// The test waits on locators only: `waitForFunction` with a string would
// `eval` inside the page and trip its CSP (the test is not type-checked
// against the DOM, so functions are not an option either).

/** A raw NUCC code, as the API gives taxonomy facet values. */
const TAXONOMY_CODE = /^\s*[0-9A-Z]{9}X\s*$/;

async function firstNpi(page: Page): Promise<string> {
  return await page.locator(".card-link").first().getAttribute("data-npi") ?? "";
}

async function pagerInfo(page: Page): Promise<string> {
  return await page.locator(".pager-info").textContent() ?? "";
}

Deno.test({
  name: "[browser] the web page searches, filters, pages and opens records; /docs tries the API",
  ignore: !chromiumPresent(),
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "browser-test-" });
    const server = await startServer({ db: `${dir}/providers.db`, demoRecords: 3000 });
    const { origin } = server;
    const browser = await launchChromium();
    const requests: string[] = [];
    const consoleErrors: { text: string; url: string }[] = [];
    const pageErrors: string[] = [];
    const cspViolations: string[] = [];
    try {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        geolocation: { latitude: 40.7506, longitude: -73.9972 }, // Manhattan
        permissions: ["geolocation"],
      });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      page.on("request", (request) => requests.push(request.url()));
      page.on("console", (message) => {
        if (message.type() === "error") {
          consoleErrors.push({ text: message.text(), url: message.location().url });
        }
      });
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.exposeFunction("reportCspViolation", (v: string) => cspViolations.push(v));
      await page.addInitScript({ content: CSP_PROBE });

      await t.step("the page loads with its CSP and says the demo data is synthetic", async () => {
        const response = await page.goto(`${origin}/`);
        assertEquals(response?.status(), 200);
        assertStringIncludes(
          response?.headers()["content-security-policy"] ?? "",
          "script-src 'self'",
        );
        const banner = page.locator("#dataset-banner.banner-demo");
        await banner.waitFor();
        const text = await banner.textContent() ?? "";
        assertStringIncludes(text, "synthetic");
        assertStringIncludes(text, "3,000 records");
        await page.locator(".welcome").waitFor();
      });

      await t.step("typing suggests specialties; the keyboard picks one and searches", async () => {
        const q = page.locator("#q");
        await q.focus();
        await q.pressSequentially("family med", { delay: 20 });
        const options = page.locator("#q-listbox [role=option]");
        await options.first().waitFor();
        assertEquals(await q.getAttribute("aria-expanded"), "true");
        await page.keyboard.press("ArrowDown");
        const first = options.first();
        assertEquals(await first.getAttribute("aria-selected"), "true");
        assertEquals(await q.getAttribute("aria-activedescendant"), await first.getAttribute("id"));
        assertStringIncludes(await first.textContent() ?? "", "Family Medicine");
        await page.keyboard.press("Escape");
        assertEquals(await q.getAttribute("aria-expanded"), "false");
        await page.keyboard.press("ArrowDown"); // reopens on the same suggestions
        assertEquals(await q.getAttribute("aria-expanded"), "true");
        await page.keyboard.press("Enter");
        await page.waitForURL(/[?&]taxonomy=207Q00000X(&|$)/);
        await page.locator("#results-title").waitFor();
        assertEquals(await page.locator("#specialty").inputValue(), "Family Medicine Physician");
        assertEquals(await q.inputValue(), "");
        assertEquals(await page.locator(".card").count(), 10);
        assertMatch(await page.locator("#results-title").textContent() ?? "", /^\d+ providers$/);
        await page.locator("#status", { hasText: "providers" }).waitFor({ state: "attached" });
      });

      await t.step("Next and Previous page with the cursor", async () => {
        const page1 = await firstNpi(page);
        assertMatch(await pagerInfo(page), /^Page 1 of \d+$/);
        await page.locator("#next-page").click();
        await page.waitForURL(/[?&]cursor=/);
        await page.locator(".pager-info", { hasText: /^Page 2 of/ }).waitFor();
        assert((await firstNpi(page)) !== page1, "page 2 shows other providers");
        await page.locator("#results-title:focus").waitFor(); // focus moves to the results
        await page.locator("#prev-page").click();
        await page.locator(".pager-info", { hasText: /^Page 1 of/ }).waitFor();
        assert(!new URL(page.url()).searchParams.has("cursor"));
        assertEquals(await firstNpi(page), page1);
      });

      await t.step("facets show specialty names and a state facet filters", async () => {
        // Taxonomy facets are codes in the API; the page shows their names.
        await page.locator("[data-param=taxonomy]").first().waitFor();
        await page.locator("[data-param=taxonomy] .facet-label", { hasText: TAXONOMY_CODE }).first()
          .waitFor({ state: "detached" });
        const facet = page.locator("#facets button[data-param=state]").first();
        const state = await facet.getAttribute("data-value") ?? "";
        // The count reads "1,234 providers" (the word is for screen readers only).
        const countText = await facet.locator(".facet-count").textContent() ?? "";
        const count = Number(countText.match(/^[\d,]+/)?.[0].replace(/,/g, ""));
        assert(count > 0, countText);
        await facet.click();
        await page.waitForURL(new RegExp(`[?&]state=${state}(&|$)`));
        const expected = `${count} provider${count === 1 ? "" : "s"}`;
        await page.locator("#results-title", { hasText: new RegExp(`^${expected}$`) }).waitFor();
        assertEquals(
          await page.locator(`#facets button[data-param=state][data-value=${state}]`).getAttribute(
            "aria-pressed",
          ),
          "true",
        );
        assertStringIncludes(await page.locator("#active-filters").textContent() ?? "", "State:");
        // Focus stays on the facet that was pressed.
        await page.locator(`#facets button[data-param=state][data-value=${state}]:focus`).waitFor();
      });

      await t.step("a record opens, and Back restores the search and its focus", async () => {
        const searchUrl = page.url();
        const npi = await firstNpi(page);
        await page.locator(".card-link").first().click();
        await page.locator("#detail-title").waitFor();
        assertEquals(new URL(page.url()).searchParams.get("provider"), npi);
        await page.locator("#detail-title:focus").waitFor();
        const detail = await page.locator(".detail").textContent() ?? "";
        assertStringIncludes(detail, npi);
        assertStringIncludes(detail, "Specialties");
        assertStringIncludes(detail, "Practice location");
        await page.goBack();
        await page.locator("#results-title").waitFor();
        assertEquals(page.url(), searchUrl);
        await page.locator(`a.card-link[data-npi="${npi}"]:focus`).waitFor(); // focus returns to the card
        await page.goBack();
        await page.waitForURL((url) => !url.searchParams.has("state"));
        await page.locator("#results-title").waitFor();
        assertEquals(
          await page.locator("#facets button[data-param=state][aria-pressed=true]").count(),
          0,
        );
      });

      await t.step("a malformed ZIP shows the API's per-parameter error", async () => {
        await page.locator("#near").fill("123");
        await page.locator("#near").press("Enter");
        await page.locator("#view [role=alert]").waitFor();
        assertStringIncludes(await page.locator("#near-error").textContent() ?? "", "5-digit ZIP");
        assertEquals(await page.locator("#near").getAttribute("aria-invalid"), "true");
        assertStringIncludes(page.url(), "near=123");
      });

      await t.step("“Use my location” searches near the browser's position", async () => {
        await page.locator("#locate").click();
        await page.waitForURL(/[?&]near=40\.7506%2C-73\.9972(&|$)/);
        await page.locator("#results-title").waitFor();
        assertEquals(await page.locator("#near").inputValue(), "40.7506,-73.9972");
        assertEquals(await page.locator("#near").getAttribute("aria-invalid"), null);
        assert(await page.locator(".card .distance").count() > 0, "cards show distances");
        assertStringIncludes(
          await page.locator(".results-summary").textContent() ?? "",
          "of your location",
        );
      });

      await t.step(
        "a 503 while the data loads shows a retrying message, then results",
        async () => {
          let answered = 0;
          const search = (url: URL) => url.pathname === "/v1/providers/search";
          await page.route(search, async (route) => {
            if (answered++ > 0) return await route.continue();
            await route.fulfill({
              status: 503,
              headers: { "Content-Type": "application/problem+json", "Retry-After": "1" },
              body: JSON.stringify({
                type: "/problems/loading",
                title: "Service Unavailable",
                status: 503,
                detail: "The dataset is loading (50%): try again shortly",
                request_id: "browser-test",
              }),
            });
          });
          await page.locator("#entity_type").selectOption("organization");
          await page.locator(".message-wait", { hasText: "still loading" }).waitFor();
          // It retries by itself after Retry-After.
          await page.locator(".message-wait").waitFor({ state: "detached" });
          assert(answered >= 2);
          assertEquals(await page.locator("#view [role=alert]").count(), 0);
          assertEquals(await page.locator("#view .cards, #view .message-empty").count(), 1);
          await page.unroute(search);
          assertStringIncludes(page.url(), "entity_type=organization");
        },
      );

      await t.step("/docs renders the operations and “Try it out” calls /v1/health", async () => {
        const response = await page.goto(`${origin}/docs`);
        assertEquals(response?.status(), 200);
        const operation = page.locator("#operations-health-healthV1");
        await operation.waitFor();
        assert(await page.locator(".opblock").count() >= 8, "every operation is listed");
        await operation.locator(".opblock-summary-control").click();
        await operation.locator(".try-out__btn").click();
        await operation.locator(".execute").click();
        const status = operation.locator(".live-responses-table tbody .response-col_status")
          .first();
        await status.waitFor();
        assertEquals((await status.textContent())?.trim(), "200");
        assertStringIncludes(
          await operation.locator(".live-responses-table").textContent() ?? "",
          '"status": "ok"',
        );
      });

      await t.step("nothing left the origin; no console errors or CSP violations", () => {
        const foreign = requests.filter((url) => !url.startsWith(`${origin}/`));
        assertEquals(foreign, [], "requests to other origins");
        // Expected: the browser logs the 400 of the malformed ZIP and the staged 503.
        const unexpected = consoleErrors.filter((e) =>
          !(/status of 400/.test(e.text) && e.url.includes("near=123")) &&
          !(/status of 503/.test(e.text) && e.url.includes("entity_type=organization"))
        );
        assertEquals(unexpected, [], "console errors");
        assertEquals(pageErrors, [], "uncaught page errors");
        assertEquals(cspViolations, [], "CSP violations");
      });
      await context.close();
    } finally {
      await browser.close();
      const { code } = await server.stop();
      await Deno.remove(dir, { recursive: true });
      assertEquals(code, 0);
    }
  },
});
