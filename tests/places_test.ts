/**
 * Place matches looked up within another filter's ids
 * (`placeCandidates(…, within)`, `lib/search/places.ts`) equal the whole
 * lookup intersected with those ids — the candidates and the unsure ones —
 * for cities, states, ZIPs, ZIP+4s and prefixes of every kind of address,
 * on a demo registry with mailing addresses and secondary locations.
 */
import { assert, assertEquals } from "@std/assert";
import { buildDemoDatabase } from "../lib/demo/build.ts";
import { openSearchableStore } from "../lib/search/searcher.ts";
import { placeCandidates } from "../lib/search/places.ts";
import { intersect } from "../lib/index/sorted.ts";
import type { PlaceMatch } from "../lib/search/query.ts";

type AddressScope = PlaceMatch["scope"];
import type { Address } from "../lib/provider.ts";
import { foldText } from "../lib/text/fold.ts";
import { seededRandom } from "./_utils.ts";

const dir = await Deno.makeTempDir();
const path = `${dir}/places.db`;
buildDemoDatabase({ path, records: 4_000, seed: 5 });
const store = openSearchableStore(path);
const index = store.index;
const zip9 = (code: number) => {
  const rows = store.db.prepare("SELECT id FROM provider_zip9 WHERE zip9 = ? ORDER BY id")
    .all(code) as { id: number }[];
  return Uint32Array.from(rows, (r) => r.id);
};

/** A place match built from one of a provider's addresses, some criteria left out or cut short. */
function placeOf(address: Address, scope: AddressScope, random: () => number): PlaceMatch | null {
  const city = address.city ? foldText(address.city).toUpperCase() : null;
  const digits = (address.postal_code ?? "").replace(/\D/g, "");
  const place: PlaceMatch = {
    scope,
    city: city && random() < 0.6 ? (random() < 0.2 ? `${city.slice(0, 3)}*` : city) : null,
    state: address.state && random() < 0.6 ? address.state : null,
    postal: digits.length >= 5 && random() < 0.5
      ? random() < 0.3 ? { digits: digits.slice(0, 3), prefix: true } : {
        digits: digits.length === 9 && random() < 0.5 ? digits : digits.slice(0, 5),
        prefix: false,
      }
      : null,
  };
  return place.city || place.state || place.postal ? place : null;
}

Deno.test("[places] a place looked up within a filter's ids is the whole lookup, intersected", () => {
  const random = seededRandom(41);
  const scopes: AddressScope[] = ["any", "primary", "mailing", "secondary"];
  let tried = 0, found = 0, unsure = 0;
  for (let round = 0; round < 400; round++) {
    const id = 1 + Math.floor(random() * index.size);
    const provider = store.getProvidersById([id])[0]!.provider;
    const addresses = [
      provider.practice_location,
      provider.mailing_address,
      ...provider.other_locations,
    ].filter((a): a is Address => a !== null);
    if (addresses.length === 0) continue;
    const address = addresses[Math.floor(random() * addresses.length)]!;
    const place = placeOf(address, scopes[round % scopes.length]!, random);
    if (!place) continue;
    // A few hundred ids, this provider among them half of the time.
    const within = Uint32Array.from(
      new Set([
        ...Array.from({ length: 300 }, () => 1 + Math.floor(random() * index.size)),
        ...(random() < 0.5 ? [id] : []),
      ]),
    ).sort();
    const whole = placeCandidates(place, index, zip9);
    const narrowed = placeCandidates(place, index, zip9, within);
    const label = JSON.stringify(place);
    assertEquals(narrowed.ids, intersect(whole.ids, within), label);
    assertEquals(narrowed.unsure, intersect(whole.unsure, within), label);
    tried++;
    found += narrowed.ids.length;
    unsure += narrowed.unsure.length;
  }
  assert(
    tried > 300 && found > 100 && unsure > 0,
    `${tried} places, ${found} found, ${unsure} unsure`,
  );
});

Deno.test("[places] primary locations: the lookup equals a brute force over the records", () => {
  const random = seededRandom(12);
  const primaries = Array.from({ length: index.size }, (_, k) => k + 1).map((id) => ({
    id,
    at: store.getProvidersById([id])[0]?.provider.practice_location ?? null,
  }));
  const matches = (a: Address, place: PlaceMatch) => {
    const city = a.city ? foldText(a.city).toUpperCase() : "";
    const digits = (a.postal_code ?? "").replace(/\D/g, "");
    if (place.city !== null) {
      const ok = place.city.endsWith("*")
        ? city.startsWith(place.city.slice(0, -1))
        : city === place.city;
      if (!ok) return false;
    }
    if (place.state !== null && a.state !== place.state) return false;
    if (place.postal !== null) {
      const { digits: want, prefix } = place.postal;
      const ok = prefix
        ? digits.startsWith(want)
        : want.length === 5
        ? digits.slice(0, 5) === want
        : digits === want;
      if (!ok) return false;
    }
    return true;
  };
  let tried = 0;
  for (let round = 0; round < 120; round++) {
    const { at } = primaries[Math.floor(random() * primaries.length)]!;
    if (!at) continue;
    const place = placeOf(at, "primary", random);
    if (!place) continue;
    const want = primaries.filter((p) => p.at && matches(p.at, place)).map((p) => p.id);
    const got = placeCandidates(place, index, zip9);
    assertEquals([...got.ids], want, JSON.stringify(place));
    assertEquals(got.unsure.length, 0);
    tried++;
  }
  assert(tried > 80, `${tried} places`);
});

Deno.test("[places] cleanup", async () => {
  store.close();
  await Deno.remove(dir, { recursive: true });
});
