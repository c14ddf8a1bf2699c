/**
 * Copies the Plan-Net StructureDefinitions the tests validate against (and the
 * guide's CapabilityStatement, whose requirements they check) from
 * an unpacked `hl7.fhir.us.davinci-pdex-plan-net` npm package into
 * `vendor/plan-net/`, checking each is the profile it should be.
 *
 * ```sh
 * cd /tmp && npm pack hl7.fhir.us.davinci-pdex-plan-net@1.2.0 && tar xzf hl7.fhir.us.davinci-pdex-plan-net-1.2.0.tgz
 * deno run --allow-read --allow-write scripts/vendor_plan_net.ts /tmp/package
 * ```
 *
 * @module
 */
import { PLAN_NET_PROFILES } from "../lib/fhir/resources.ts";

/** Where the vendored files go. */
const TARGET = new URL("../vendor/plan-net/", import.meta.url);

/**
 * Copies the profile of each served type from `packageDir`; returns the
 * file names written. Throws when a file is missing or names another URL.
 *
 * @example
 * ```ts
 * await vendorPlanNet("/tmp/package"); // ["StructureDefinition-plannet-Practitioner.json", …]
 * ```
 */
export async function vendorPlanNet(packageDir: string): Promise<string[]> {
  const written: string[] = [];
  for (const [type, url] of Object.entries(PLAN_NET_PROFILES)) {
    const name = `StructureDefinition-plannet-${type}.json`;
    const text = await Deno.readTextFile(`${packageDir}/${name}`);
    const sd = JSON.parse(text) as { url?: string; snapshot?: unknown };
    if (sd.url !== url) throw new Error(`${name} is '${sd.url}', not '${url}': is this Plan-Net?`);
    if (!sd.snapshot) throw new Error(`${name} has no snapshot: the validator needs one`);
    await Deno.writeTextFile(new URL(name, TARGET), text);
    written.push(name);
  }
  // The guide's CapabilityStatement: tests/fhir_test.ts checks /fhir/metadata lists what it requires.
  const cs = "CapabilityStatement-plan-net.json";
  const text = await Deno.readTextFile(`${packageDir}/${cs}`);
  if ((JSON.parse(text) as { resourceType?: string }).resourceType !== "CapabilityStatement") {
    throw new Error(`${cs} is not a CapabilityStatement: is this Plan-Net?`);
  }
  await Deno.writeTextFile(new URL(cs, TARGET), text);
  written.push(cs);
  return written;
}

if (import.meta.main) {
  const dir = Deno.args[0];
  if (!dir) {
    console.error(
      "Usage: deno run --allow-read --allow-write scripts/vendor_plan_net.ts PACKAGE_DIR",
    );
    Deno.exit(2);
  }
  for (const name of await vendorPlanNet(dir)) console.log(`wrote vendor/plan-net/${name}`);
}
