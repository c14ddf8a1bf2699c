/**
 * Copies the files the API reference (`GET /docs`) needs from the npm package
 * `swagger-ui-dist` into `static/vendor/swagger-ui-dist/`, so the service
 * serves them itself: no CDN, no network at run time, and the same files
 * under `deno run`, Docker and `deno compile --include static`.
 *
 * Run after changing {@linkcode SWAGGER_UI_VERSION}, then commit the result:
 *
 * ```sh
 * deno run --no-lock --allow-read --allow-write --allow-env --allow-sys --allow-net scripts/vendor_docs.ts
 * ```
 *
 * The package is imported by a computed `npm:` specifier, with `--no-lock`,
 * on purpose: it is not a dependency of the service, so it stays out of the
 * import map and the lockfile (and out of `deno install`, which would also
 * warn about the analytics install script of its dependency `@scarf/scarf`).
 *
 * The `sourceMappingURL` comments are removed (the maps are not vendored, so
 * a browser's developer tools would otherwise ask for missing files).
 *
 * @module
 */

/** The pinned version of `swagger-ui-dist` (check with `npm view swagger-ui-dist version`). */
export const SWAGGER_UI_VERSION = "5.35.0";

/** Files copied from the package, as they are. */
const FILES = [
  "swagger-ui-bundle.js",
  "swagger-ui.css",
  "LICENSE",
  "NOTICE",
  "swagger-ui-bundle.js.LICENSE.txt",
  "package.json",
] as const;

/** Removes `//# sourceMappingURL=...` and `/*# sourceMappingURL=... *\/` comments. */
export function stripSourceMap(text: string): string {
  return text
    .replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n")
    .replace(/\n?\/\*# sourceMappingURL=\S+ ?\*\/\s*$/, "\n");
}

/** The package's directory in Deno's npm cache, downloading it first when needed. */
async function packageDir(): Promise<URL> {
  // Importing a tiny file of the package makes Deno fetch it into its npm cache.
  // A computed specifier: type checking and `deno install` never fetch the package.
  const specifier = `npm:swagger-ui-dist@${SWAGGER_UI_VERSION}`;
  await import(`${specifier}/absolute-path.js`);
  const resolved = import.meta.resolve(`${specifier}/package.json`);
  if (!resolved.startsWith("file:")) {
    throw new Error(`Cannot locate swagger-ui-dist in the npm cache: resolved to '${resolved}'`);
  }
  return new URL(".", resolved);
}

/** Copies the files and returns the destination directory. */
export async function vendorDocs(
  destination: URL = new URL("../static/vendor/swagger-ui-dist/", import.meta.url),
): Promise<URL> {
  const source = await packageDir();
  const meta = JSON.parse(await Deno.readTextFile(new URL("package.json", source)));
  if (meta.version !== SWAGGER_UI_VERSION) {
    throw new Error(`Expected swagger-ui-dist ${SWAGGER_UI_VERSION}, found '${meta.version}'`);
  }
  await Deno.remove(destination, { recursive: true }).catch(() => {});
  await Deno.mkdir(destination, { recursive: true });
  for (const name of FILES) {
    const from = new URL(name, source);
    const to = new URL(name, destination);
    if (name.endsWith(".js") || name.endsWith(".css")) {
      await Deno.writeTextFile(to, stripSourceMap(await Deno.readTextFile(from)));
    } else {
      await Deno.copyFile(from, to);
    }
  }
  return destination;
}

if (import.meta.main) {
  const destination = await vendorDocs();
  console.log(`swagger-ui-dist ${SWAGGER_UI_VERSION} copied to ${destination.pathname}`);
}
