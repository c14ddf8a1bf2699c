/**
 * The cold query classes: thousands of distinct URLs per class, built from
 * values read out of the served dataset (names, organizations, cities,
 * ZIPs, NPIs, specialties) across the whole name order, shuffled, so that
 * almost nothing is answered from a cache of finished bodies or result
 * sets. This is what a national directory's long-tail traffic looks like.
 *
 * @module
 */
import { allZips, lookupZip } from "../lib/geo/zip.ts";
import { Rng } from "../lib/demo/prng.ts";

/** The cold classes, in report order. */
export const COLD_CLASSES = [
  "surname",
  "first_last",
  "surname_typo",
  "name_prefix",
  "typeahead",
  "org_words",
  "search_box",
  "specialty_near",
  "specialty_state_facets",
  "name_near_sorted",
  "last_name_wildcard_state",
  "city_browse",
  "detail",
  "registry_api",
  "registry_api_address",
  "fhir_family",
  "fhir_location_near",
  "fhir_role_specialty_state",
  "fhir_read",
  "fhir_last_updated",
  "fhir_near_radius",
  "fhir_org_endpoint",
  "fhir_plan_net",
] as const;

/** A cold class. */
export type ColdClass = (typeof COLD_CLASSES)[number];

/** The free-text classes, interleaved in the mixed run. */
export const COLD_TEXT_CLASSES: readonly ColdClass[] = [
  "surname",
  "first_last",
  "surname_typo",
  "name_prefix",
  "org_words",
  "search_box",
];

/** One harvested provider: the values the classes are built from. */
export interface HarvestedProvider {
  npi: string;
  first: string | null;
  last: string | null;
  organization: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  specialties: string[];
}

/** What the harvest found. */
export interface Harvest {
  pages: number;
  providers: HarvestedProvider[];
}

/** The fields of a result record the harvest reads. */
export interface ResultRecord {
  npi: string;
  individual: { first_name: string | null; last_name: string | null } | null;
  organization: { name: string | null } | null;
  taxonomies: { description: string | null }[];
  practice_location:
    | { city: string | null; state: string | null; postal_code: string | null }
    | null;
}

/**
 * Reads providers out of the served dataset one ZIP page at a time, ZIPs
 * drawn at random from every known ZIP (so names come from the whole name
 * order, not its first pages), until `pages` non-empty pages were read.
 *
 * @example
 * ```ts
 * const harvest = await harvestProviders("http://127.0.0.1:7860", { pages: 2000, seed: 1 });
 * ```
 */
export function harvestProviders(
  base: string,
  options: { pages: number; seed: number; concurrency?: number },
): Promise<Harvest> {
  return harvestPages(async (zip) => {
    const response = await politeFetch(`${base}/v1/providers/search?postal_code=${zip}&limit=100`);
    if (!response.ok) throw new Error(`Harvesting ZIP ${zip} answered ${response.status}`);
    return (await response.json() as { results: ResultRecord[] }).results;
  }, options);
}

/**
 * {@linkcode harvestProviders} with the pages read by `page` (the first
 * 100 records of a ZIP): over HTTP, or from a store in this process.
 */
export async function harvestPages(
  page: (zip: string) => Promise<ResultRecord[]>,
  options: { pages: number; seed: number; concurrency?: number },
): Promise<Harvest> {
  const zips = shuffle(allZips().map((z) => z.zip), new Rng(options.seed));
  const providers: HarvestedProvider[] = [];
  let pages = 0, next = 0;
  const worker = async () => {
    while (pages < options.pages && next < zips.length) {
      const results = await page(zips[next++]!);
      if (results.length === 0) continue;
      pages++;
      for (const r of results) providers.push(harvested(r));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return { pages, providers };
}

/**
 * A GET that does what a `503` asks: waits its `Retry-After` (a server just started sheds the
 * searches that cannot start within its wait budget while it reads its index) and asks again, a
 * few times.
 */
async function politeFetch(url: string, tries = 5): Promise<Response> {
  for (let attempt = 1;; attempt++) {
    const response = await fetch(url);
    if (response.status !== 503 || attempt >= tries) return response;
    await response.body?.cancel();
    const seconds = Number(response.headers.get("retry-after") ?? "1");
    await new Promise((resolve) => setTimeout(resolve, Math.min(10, seconds || 1) * 1000));
  }
}

/** The values of one record of a search answer that the classes are built from. */
export function harvested(r: ResultRecord): HarvestedProvider {
  const place = r.practice_location;
  return {
    npi: r.npi,
    first: plainWord(r.individual?.first_name),
    last: plainWord(r.individual?.last_name),
    organization: r.organization?.name ?? null,
    city: place?.city ?? null,
    state: place?.state ?? null,
    zip: place?.postal_code?.slice(0, 5) ?? null,
    specialties: r.taxonomies.flatMap((t) => t.description ? [t.description] : []),
  };
}

/** A name part usable as one query word: letters only, lower case, or null. */
function plainWord(value: string | null | undefined): string | null {
  const v = value?.toLowerCase() ?? "";
  return /^[a-z]{2,}$/.test(v) ? v : null;
}

/** Fisher–Yates shuffle of a copy, by a seeded generator. */
export function shuffle<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A surname with one letter changed in its middle (a one-edit typo). */
export function withTypo(word: string, rng: Rng): string {
  const i = 1 + rng.int(word.length - 2);
  const letters = "aeioulnrst";
  let c = letters[rng.int(letters.length)]!;
  if (c === word[i]) c = c === "a" ? "e" : "a";
  return word.slice(0, i) + c + word.slice(i + 1);
}

const SEARCH = "/v1/providers/search";
const REGISTRY = "/api/?version=2.1";
const enc = encodeURIComponent;

/** Organization words usable in `q`: letters, 3 or more, not the commonest legal endings. */
function organizationWords(name: string): string[] {
  const stop = new Set(["llc", "inc", "pllc", "the", "and", "of", "pc", "pa", "ltd", "corp"]);
  return name.toLowerCase().split(/[^a-z]+/).filter((w) => w.length >= 3 && !stop.has(w));
}

/**
 * Candidate paths of one class from the harvest (repeats possible: the
 * caller keeps the distinct ones).
 */
function* candidates(
  cls: ColdClass,
  providers: readonly HarvestedProvider[],
  rng: Rng,
): Generator<string> {
  const people = providers.filter((p) => p.last !== null);
  const withZip = providers.filter((p) => p.zip !== null);
  const withSpecialty = providers.filter((p) => p.specialties.length > 0 && p.zip && p.state);
  const organizations = providers.filter((p) => p.organization);
  for (let tries = 0; tries < providers.length * 4; tries++) {
    const p = rng.pick(people);
    const last = p.last!;
    switch (cls) {
      case "surname":
        yield `${SEARCH}?q=${last}`;
        break;
      case "first_last":
        if (p.first) yield `${SEARCH}?q=${p.first}%20${last}`;
        break;
      case "surname_typo":
        if (last.length >= 5) yield `${SEARCH}?q=${withTypo(last, rng)}`;
        break;
      case "name_prefix":
        if (p.first && last.length >= 4) {
          yield `${SEARCH}?q=${p.first}%20${
            last.slice(0, rng.range(2, Math.min(5, last.length - 1)))
          }`;
        }
        break;
      case "typeahead": {
        // A search box's first keys: one word as typed so far, a surname's or an organization's.
        const org = organizations.length > 0 && rng.chance(0.3) ? rng.pick(organizations) : null;
        const words = org ? organizationWords(org.organization!) : [];
        const word = words.length > 0 ? rng.pick(words) : last;
        const letters = word.toLowerCase().replace(/[^a-z]/g, "");
        if (letters.length >= 2) {
          yield `${SEARCH}?q=${letters.slice(0, rng.range(2, Math.min(6, letters.length)))}`;
        }
        break;
      }
      case "org_words": {
        if (organizations.length === 0) return;
        const org = rng.pick(organizations);
        const words = organizationWords(org.organization!);
        if (words.length >= 2) {
          const n = words.length >= 3 && rng.chance(0.3) ? 3 : 2;
          const at = rng.int(words.length - n + 1);
          yield `${SEARCH}?q=${enc(words.slice(at, at + n).join(" "))}`;
        }
        break;
      }
      case "search_box": {
        // Names as typed on a form: titles, credentials, initials, ZIPs and states as hints.
        const first = p.first ?? "";
        const forms = [
          `Dr. ${first} ${last}, M.D.`,
          `${last} ${p.zip?.slice(0, 5) ?? ""}`,
          `${first} ${rng.pick([..."abcdefghjklmnprst"])} ${last}`,
          `${last}, ${first} ${p.state ?? ""}`,
          `${last} md`,
        ];
        yield `${SEARCH}?q=${enc(rng.pick(forms).trim())}`;
        break;
      }
      case "specialty_near": {
        const s = rng.pick(withSpecialty);
        const zip = rng.pick(withZip).zip!;
        yield `${SEARCH}?specialty=${enc(rng.pick(s.specialties))}&near=${zip}&radius=10`;
        break;
      }
      case "specialty_state_facets": {
        const s = rng.pick(withSpecialty);
        const state = rng.pick(withZip).state ?? s.state!;
        yield `${SEARCH}?specialty=${
          enc(rng.pick(s.specialties))
        }&state=${state}&facets=city,taxonomy,sex`;
        break;
      }
      case "name_near_sorted":
        yield `${SEARCH}?q=${last}&near=${rng.pick(withZip).zip}&radius=50&sort=distance`;
        break;
      case "last_name_wildcard_state":
        if (last.length >= 4) {
          yield `${SEARCH}?last_name=${last.slice(0, rng.range(3, last.length - 1))}*&state=${
            rng.pick(withZip).state
          }`;
        }
        break;
      case "city_browse": {
        const c = rng.pick(withZip);
        if (c.city && c.state) {
          yield `${SEARCH}?city=${enc(c.city)}&state=${c.state}&offset=${rng.int(20) * 10}`;
        }
        break;
      }
      case "detail":
        yield `/v1/providers/${rng.pick(providers).npi}`;
        break;
      case "registry_api":
        yield registryPath(p, providers, rng);
        break;
      case "registry_api_address": {
        const path = registryAddressPath(rng.pick(withZip), rng);
        if (path) yield path;
        break;
      }
      // The FHIR directory on the same engine: its own classes, same targets.
      case "fhir_family":
        yield `/fhir/Practitioner?family=${enc(last)}`;
        break;
      case "fhir_location_near": {
        const zip = lookupZip(rng.pick(withZip).zip!);
        if (zip) yield `/fhir/Location?near=${zip.lat}|${zip.lon}|10|km`;
        break;
      }
      case "fhir_role_specialty_state": {
        const s = rng.pick(withSpecialty);
        yield `/fhir/PractitionerRole?specialty:text=${enc(rng.pick(s.specialties))}` +
          `&location.address-state=${rng.pick(withZip).state ?? s.state!}` +
          "&_include=PractitionerRole:practitioner";
        break;
      }
      case "fhir_read":
        yield `/fhir/Practitioner/${p.npi}`;
        break;
      case "fhir_last_updated":
        yield lastUpdatedPath(p, rng);
        break;
      case "fhir_near_radius": {
        // Radii from a block to a metro area, in km or miles, some pages deep.
        const zip = lookupZip(rng.pick(withZip).zip!);
        const radius = rng.pick([1, 2, 5, 10, 20, 40]);
        const unit = rng.pick(["km", "mi"]);
        if (zip) {
          yield `/fhir/Location?near=${zip.lat}|${zip.lon}|${radius}|${unit}` +
            `&_count=${rng.pick([10, 20, 50])}`;
        }
        break;
      }
      case "fhir_org_endpoint": {
        // Organization types and Endpoint listings, with a date or a state.
        const year = 2008 + rng.int(19);
        const forms = [
          `/fhir/Organization?type=${rng.pick(["prvgrp", "fac"])}&address-state=${p.state ?? "NY"}`,
          `/fhir/Organization?type=prvgrp&_lastUpdated=ge${year}-${pad(1 + rng.int(12))}`,
          `/fhir/Endpoint?connection-type=${
            rng.pick(["hl7-fhir-rest", "direct-project", "SOAP"])
          }&_lastUpdated=ge${year}-${pad(1 + rng.int(12))}-${pad(1 + rng.int(28))}`,
        ];
        yield rng.pick(forms);
        break;
      }
      case "fhir_plan_net": {
        // Plan-Net parameters added last: Endpoint names, Location owner chains, an organization's
        // endpoint chain, and a Plan-Net client's role/network filters (checked, matching nothing).
        const org = organizations.length ? rng.pick(organizations) : p;
        const state = rng.pick(withZip).state ?? "NY";
        const month = `${2008 + rng.int(19)}-${pad(1 + rng.int(12))}`;
        const forms = [
          `/fhir/Endpoint?name=${
            rng.pick(["direct", "fhir", "portal", "referral", "secure", "health"])
          }&_lastUpdated=ge${month}`,
          `/fhir/Location?organization.type=${rng.pick(["prvgrp", "fac"])}&address-state=${state}` +
          `&_count=${rng.pick([10, 20, 50])}`,
          `/fhir/Location?_lastUpdated=${month}&_count=${rng.pick([10, 20, 50])}`,
          `/fhir/Organization?endpoint.organization=${org.npi}&_include=Organization:endpoint`,
          `/fhir/PractitionerRole?specialty:text=${
            enc(rng.pick(p.specialties.length ? p.specialties : ["dentist"]))
          }` +
          `&location.address-state=${state}&role=${rng.pick(["ph", "nurse"])}`,
        ];
        yield rng.pick(forms);
        break;
      }
    }
  }
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * A `_lastUpdated` search as a directory sync or an audit makes it: what
 * changed since a day (mostly recent), in a month, in a year range within a
 * state, or for a surname.
 */
function lastUpdatedPath(p: HarvestedProvider, rng: Rng): string {
  const year = 2007 + rng.int(20);
  const day = `${year}-${pad(1 + rng.int(12))}-${pad(1 + rng.int(28))}`;
  const type = rng.pick(["Practitioner", "Organization", "PractitionerRole", "Location"]);
  switch (rng.int(5)) {
    case 0:
      return `/fhir/${type}?_lastUpdated=ge${2024 + rng.int(3)}-${pad(1 + rng.int(12))}-${
        pad(1 + rng.int(28))
      }`;
    case 1:
      return `/fhir/${type}?_lastUpdated=${year}-${pad(1 + rng.int(12))}`;
    case 2:
      return `/fhir/Practitioner?address-state=${p.state ?? "NY"}&_lastUpdated=ge${year}` +
        `&_lastUpdated=lt${year + 1 + rng.int(4)}`;
    case 3:
      return `/fhir/Practitioner?family=${enc(p.last!)}&_lastUpdated=gt${day}`;
    default:
      return `/fhir/${type}?_lastUpdated=${rng.pick(["lt", "le", "sa", "eb"])}${day}`;
  }
}

/**
 * An NPI Registry API call the way published clients make them (R `npi`,
 * Python loaders): mostly first + last name + state, then last name + state,
 * lookups by number, organization-name prefixes in a state, and a
 * specialty in a ZIP; half ask the default page of 10, half a loader's 200.
 */
function registryPath(p: HarvestedProvider, providers: readonly HarvestedProvider[], rng: Rng) {
  const limit = rng.chance(0.5) ? "" : "&limit=200";
  const roll = rng.int(10);
  const last = p.last!;
  const state = p.state ?? "NY";
  if (roll < 4 && p.first) {
    return `${REGISTRY}&first_name=${p.first}&last_name=${last}&state=${state}${limit}`;
  }
  if (roll < 6) return `${REGISTRY}&last_name=${last}&state=${state}${limit}`;
  if (roll < 8) return `${REGISTRY}&number=${rng.pick(providers).npi}`;
  const other = rng.pick(providers);
  if (roll < 9 && other.organization) {
    const word = organizationWords(other.organization)[0];
    if (word) return `${REGISTRY}&organization_name=${word}*&state=${other.state ?? state}${limit}`;
  }
  const s = other.specialties[0];
  if (s && other.zip) {
    return `${REGISTRY}&taxonomy_description=${enc(s)}&postal_code=${other.zip}${limit}`;
  }
  return `${REGISTRY}&last_name=${last}&state=${state}${limit}`;
}

/**
 * An NPI Registry API call by address, the criteria that, without
 * `address_purpose`, look at every address of a provider (primary location,
 * mailing address, each secondary location): city and state, then a ZIP,
 * a city and state with a specialty, a ZIP prefix with a last name, and
 * one in ten restricted to the mailing address or the secondary locations.
 */
function registryAddressPath(p: HarvestedProvider, rng: Rng): string | null {
  if (!p.city || !p.state || !p.zip) return null;
  const limit = rng.chance(0.5) ? "" : "&limit=200";
  const purpose = rng.chance(0.1) ? `&address_purpose=${rng.pick(["MAILING", "SECONDARY"])}` : "";
  const roll = rng.int(10);
  const place = `city=${enc(p.city)}&state=${p.state}`;
  let criteria: string;
  if (roll < 4) criteria = `${place}&skip=${rng.int(5) * 10}`;
  else if (roll < 6) criteria = `postal_code=${p.zip}`;
  else if (roll < 8 && p.specialties[0]) {
    criteria = `${place}&taxonomy_description=${enc(p.specialties[0])}`;
  } else if (p.last) criteria = `postal_code=${p.zip.slice(0, 3)}*&last_name=${p.last}`;
  else criteria = `${place}&enumeration_type=NPI-2`;
  return `${REGISTRY}&${criteria}${purpose}${limit}`;
}

/**
 * Up to `count` distinct paths of a class, shuffled; fewer when the
 * harvest does not hold that many distinct values.
 *
 * @example
 * ```ts
 * const paths = coldPaths("surname", harvest.providers, 6000, 7);
 * ```
 */
export function coldPaths(
  cls: ColdClass,
  providers: readonly HarvestedProvider[],
  count: number,
  seed: number,
): string[] {
  const rng = new Rng(seed);
  const seen = new Set<string>();
  for (const path of candidates(cls, providers, rng)) {
    seen.add(path);
    if (seen.size >= count) break;
  }
  return shuffle([...seen], rng);
}

/**
 * Splits a class's paths into disjoint parts for the warm-up, the c=1 run
 * and the c=8 run, so that no run repeats another's paths.
 */
export function splitPaths(
  paths: readonly string[],
  sizes: { warm: number; c1: number },
): { warm: string[]; c1: string[]; c8: string[] } {
  return {
    warm: paths.slice(0, sizes.warm),
    c1: paths.slice(sizes.warm, sizes.warm + sizes.c1),
    c8: paths.slice(sizes.warm + sizes.c1),
  };
}
