/**
 * The files the browser loads, served in-process by `routes/web.ts`: content
 * types, caching, 304s, path safety, and the pages' own rules (no inline
 * script or style, only local assets, a small JavaScript budget).
 *
 * @module
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { assertProblem, testApp } from "./_utils.ts";
import { contentTypeOf, etagMatches, safeStaticPath, STATIC_ROOT } from "../routes/web.ts";

Deno.test("[web] GET / is the HTML page with CSP, ETag and revalidation", async () => {
  const app = testApp();
  const response = await app.request("/?q=smith&near=10001");
  assertEquals(response.status, 200);
  assertEquals(response.headers.get("content-type"), "text/html; charset=utf-8");
  assertStringIncludes(response.headers.get("content-security-policy") ?? "", "script-src 'self'");
  assertEquals(response.headers.get("x-content-type-options"), "nosniff");
  assertEquals(response.headers.get("cache-control"), "no-cache");
  assertMatch(response.headers.get("etag") ?? "", /^"[0-9a-f]{24}"$/);
  assertStringIncludes(await response.text(), "<title>Find a provider</title>");
});

Deno.test("[web] a matching If-None-Match is a 304 without a body; HEAD has no body", async (t) => {
  const app = testApp();
  const first = await app.request("/static/app.js");
  const etag = first.headers.get("etag") ?? "";
  await first.body?.cancel();
  await t.step("304", async () => {
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, "*"]) {
      const response = await app.request("/static/app.js", {
        headers: { "If-None-Match": header },
      });
      assertEquals(response.status, 304, header);
      assertEquals(response.headers.get("etag"), etag);
      assertEquals(await response.text(), "");
    }
  });
  await t.step("200 when the tag differs", async () => {
    const response = await app.request("/static/app.js", { headers: { "If-None-Match": '"x"' } });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("content-type"), "text/javascript; charset=utf-8");
    await response.body?.cancel();
  });
  await t.step("HEAD", async () => {
    const response = await app.request("/docs", { method: "HEAD" });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("content-type"), "text/html; charset=utf-8");
    assertEquals(await response.text(), "");
  });
});

Deno.test("[web] assets have their media types and cache policies", async () => {
  const app = testApp();
  const cases: [string, string, string][] = [
    ["/docs", "text/html; charset=utf-8", "no-cache"],
    ["/static/app.css", "text/css; charset=utf-8", "no-cache"],
    ["/static/favicon.svg", "image/svg+xml", "no-cache"],
    [
      "/static/vendor/swagger-ui-dist/swagger-ui-bundle.js",
      "text/javascript; charset=utf-8",
      "public, max-age=86400",
    ],
    [
      "/static/vendor/swagger-ui-dist/swagger-ui.css",
      "text/css; charset=utf-8",
      "public, max-age=86400",
    ],
  ];
  for (const [path, type, cache] of cases) {
    const response = await app.request(path);
    assertEquals(response.status, 200, path);
    assertEquals(response.headers.get("content-type"), type, path);
    assertEquals(response.headers.get("cache-control"), cache, path);
    await response.body?.cancel();
  }
});

Deno.test("[web] nothing outside static/ is reachable, hidden or missing files are 404", async () => {
  const app = testApp();
  const paths = [
    "/static/nope.js",
    "/static/.hidden",
    "/static/..%2Fdeno.json",
    "/static/%2e%2e%2Fdeno.json",
    "/static/..%5Cdeno.json",
    "/static/app.js%00",
    "/static/%00",
    "/static/vendor/..%2F..%2Froutes/web.ts",
    "/static/vendor/swagger-ui-dist/..%2F..%2F..%2Fdeno.json",
    "/static/vendor/swagger-ui-dist/nope.js",
    "/static/vendor", // a directory
    "/static/%2Fetc%2Fpasswd",
  ];
  for (const path of paths) {
    const body = await assertProblem(await app.request(path), 404);
    assertEquals(body.type, "/problems/not-found", path);
  }
  // URL parsing resolves dot segments (also percent-encoded ones) before routing.
  const dots = await app.request("/static/vendor/%2e%2e/app.js");
  assertEquals(dots.status, 200);
  assertEquals(dots.headers.get("content-type"), "text/javascript; charset=utf-8");
  await dots.body?.cancel();
});

Deno.test("[web] POST to a page is a 405 with Allow", async () => {
  const app = testApp();
  const response = await app.request("/", { method: "POST" });
  await assertProblem(response, 405);
  assertEquals(response.headers.get("allow"), "GET, HEAD, OPTIONS");
});

Deno.test("[web] safeStaticPath, contentTypeOf and etagMatches", () => {
  assertEquals(safeStaticPath(["app.js"]), "app.js");
  assertEquals(
    safeStaticPath(["vendor", "swagger-ui-dist", "swagger-ui.css"]),
    "vendor/swagger-ui-dist/swagger-ui.css",
  );
  for (const bad of ["", ".", "..", ".env", "a/b", "a\\b", "a\0b", "%2e", "a b"]) {
    assertEquals(safeStaticPath([bad]), null, JSON.stringify(bad));
  }
  assertEquals(safeStaticPath([]), null);
  assertEquals(contentTypeOf("x.PNG"), "image/png");
  assertEquals(contentTypeOf("LICENSE"), "application/octet-stream");
  assert(etagMatches('W/"a", "b"', '"b"'));
  assert(!etagMatches(null, '"b"'));
  assert(!etagMatches('"a"', '"b"'));
});

async function staticText(name: string): Promise<string> {
  return await Deno.readTextFile(new URL(name, STATIC_ROOT));
}

Deno.test("[web] the pages use no inline script or style and load only local files", async () => {
  const app = testApp();
  for (const page of ["index.html", "docs.html", "match.html"]) {
    const html = await staticText(page);
    assert(!/<style[\s>]/i.test(html), `${page}: <style>`);
    assert(!/\sstyle=/i.test(html), `${page}: style attribute`);
    assert(!/\son[a-z]+=/i.test(html), `${page}: inline event handler`);
    for (const script of html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)) {
      assertMatch(script[0], /\ssrc="\/static\//, `${page}: external script only`);
      assertEquals(script[1]!.trim(), "", `${page}: empty script body`);
    }
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs) {
      assert(!/^(https?:)?\/\//.test(ref), `${page}: ${ref} is not local`);
      if (ref.startsWith("/static/")) {
        const response = await app.request(ref);
        assertEquals(response.status, 200, `${page}: ${ref}`);
        await response.body?.cancel();
      }
    }
  }
});

Deno.test("[web] the page's JavaScript and CSS stay small (vendored docs library aside)", async () => {
  let js = 0;
  let css = 0;
  const imports = new Set<string>();
  for await (const entry of Deno.readDir(STATIC_ROOT)) {
    if (!entry.isFile) continue;
    const text = await staticText(entry.name);
    if (entry.name.endsWith(".js")) {
      js += new TextEncoder().encode(text).length;
      for (const m of text.matchAll(/from "\.\/([a-z_]+\.js)"/g)) imports.add(m[1]!);
      assert(!/https?:\/\/(?!www\.w3\.org)/.test(text), `${entry.name} names no remote URL`);
    }
    if (entry.name.endsWith(".css")) css += new TextEncoder().encode(text).length;
  }
  assert(js < 100_000, `JavaScript is ${js} bytes`);
  assert(css < 40_000, `CSS is ${css} bytes`);
  for (const name of imports) {
    await Deno.stat(new URL(name, STATIC_ROOT)); // every module import exists
  }
});
