/**
 * The FHIR directory's pure parts: ids and references, `near`, the Plan-Net
 * claim of each resource, and OperationOutcome codes.
 *
 * @module
 */
import { deactivatedStub } from "../lib/store/prepare.ts";
import { assertEquals, assertThrows } from "@std/assert";
import { parseId, parseReference } from "../lib/fhir/ids.ts";
import { FhirParamIssue, parseNear } from "../lib/fhir/search_params.ts";
import { PLAN_NET_PROFILES, providerResources } from "../lib/fhir/resources.ts";
import { operationOutcome } from "../lib/fhir/outcome.ts";
import { HttpError, ValidationError } from "../lib/http/errors.ts";
import type { Provider } from "../lib/provider.ts";
import { validate } from "./_fhir_validator.ts";

Deno.test("[fhir-units] ids: NPIs with check digits, positions without leading zeros", () => {
  assertEquals(parseId("Practitioner", "1234567893"), { npi: "1234567893", index: null });
  assertEquals(parseId("Practitioner", "1234567890"), null, "check digit");
  assertEquals(parseId("Location", "1234567893-0"), { npi: "1234567893", index: 0 });
  assertEquals(parseId("Location", "1234567893-07"), null);
  assertEquals(parseId("Location", "1234567893"), null);
  assertEquals(parseId("Endpoint", "1234567893-12"), { npi: "1234567893", index: 12 });
  assertEquals(parseReference("Location", "https://x/fhir/Location/1234567893-1"), {
    npi: "1234567893",
    index: 1,
  });
  assertEquals(parseReference("Location", "Organization/1234567893"), null);
  assertEquals(parseReference("Practitioner", "1234567893"), { npi: "1234567893", index: null });
});

Deno.test("[fhir-units] near: units, defaults and limits", () => {
  assertEquals(parseNear("40|-74"), { lat: 40, lon: -74, radius: 50, unit: "km", fhirUnit: "km" });
  assertEquals(parseNear("40|-74|2000|m"), {
    lat: 40,
    lon: -74,
    radius: 2,
    unit: "km",
    fhirUnit: "m",
  });
  assertEquals(parseNear("40|-74|10|mi").unit, "mi");
  assertEquals(parseNear("40|-74|10|[mi_i]").fhirUnit, "[mi_i]");
  assertEquals(parseNear("40|-74|310|mi").radius, 310);
  assertThrows(() => parseNear("40|-74|311|mi"), FhirParamIssue, "at most 500 km");
  assertThrows(() => parseNear("40"), FhirParamIssue);
  assertThrows(() => parseNear("40|-181"), FhirParamIssue, "longitude");
});

function provider(overrides: Partial<Provider> = {}): Provider {
  return {
    // Every field empty, then this provider's.
    ...deactivatedStub("1234567893"),
    npi: "1234567893",
    entity_type: "individual",
    status: "active",
    name: "ANN LEE",
    individual: {
      prefix: null,
      first_name: "ANN",
      middle_name: null,
      last_name: "LEE",
      suffix: null,
      credential: null,
      sex: "F",
      sole_proprietor: null,
    },
    taxonomies: [{
      code: "207RC0000X",
      description: null,
      primary: true,
      license: null,
      state: null,
      group: null,
    }],
    practice_location: {
      line1: "1 MAIN ST",
      line2: null,
      city: "BOSTON",
      state: "MA",
      postal_code: "02108",
      country_code: "US",
      phone: null,
      fax: null,
      lat: 42.3576,
      lon: -71.0646,
    },
    ...overrides,
  };
}

const ctx = { displayOf: (code: string) => code === "207RC0000X" ? "Cardiologist" : null };

Deno.test("[fhir-units] a resource claims Plan-Net only when it meets it, and is valid R4 either way", () => {
  const bare = providerResources(provider(), ctx);
  assertEquals(bare.role!.meta, undefined, "no phone and no endpoint: not a Plan-Net role");
  assertEquals((bare.practitioner!.meta as { profile: string[] }).profile, [
    PLAN_NET_PROFILES.Practitioner,
  ]);
  const located = { ...provider().practice_location!, phone: "6175550100" };
  const phoned = providerResources(provider({ practice_location: located }), ctx);
  assertEquals((phoned.role!.meta as { profile: string[] }).profile, [
    PLAN_NET_PROFILES.PractitionerRole,
  ]);
  const nameless = providerResources(
    provider({ individual: { ...provider().individual!, last_name: null }, name: "ANN" }),
    ctx,
  );
  assertEquals(nameless.practitioner!.meta, undefined, "no family name: not Plan-Net");
  for (const all of [bare, phoned, nameless]) {
    for (const r of [all.practitioner!, all.role!, ...all.locations]) assertEquals(validate(r), []);
  }
});

Deno.test("[fhir-units] OperationOutcome issue codes follow the status", () => {
  const codes = (e: HttpError) =>
    (operationOutcome(e).issue as { code: string }[]).map((i) => i.code);
  assertEquals(codes(new HttpError(404, "x")), ["not-found"]);
  assertEquals(codes(new HttpError(410, "x")), ["deleted"]);
  assertEquals(codes(new HttpError(429, "x")), ["throttled"]);
  assertEquals(codes(new HttpError(503, "x", { type: "timeout" })), ["timeout"]);
  assertEquals(codes(new HttpError(500, "x")), ["exception"]);
  assertEquals(
    codes(
      new ValidationError([
        { parameter: "foo", message: "unknown or unsupported search parameter" },
        { parameter: "_count", message: "must be an integer" },
      ]),
    ),
    ["not-supported", "invalid"],
  );
});
