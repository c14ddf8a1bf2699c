/**
 * Stored records damaged on purpose, for the tests of the writers that read
 * stored forms as text (`record_text_test.ts`, `registry_text_test.ts`):
 * hostile text (quotes, backslashes, control characters, surrogates,
 * formula starts, line breaks) in any string, odd numbers, and reference
 * rows of their own.
 *
 * @module
 */
import { encodeProvider, packEndpoint, packOtherLocation } from "../lib/store/codec.ts";
import { packOtherName } from "../lib/store/sides.ts";
import type { StoredRecord } from "../lib/store/record_text.ts";
import type { OtherNameType, Provider } from "../lib/provider.ts";

/** Pieces of text that break naive writers. */
export const HOSTILE = [
  '"',
  "\\",
  "\\\\",
  '\\"',
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u2028",
  "é",
  "€",
  "😀",
  "\ud800",
  "\udfff",
  ",",
  "|",
  "=",
  "+",
  "@",
  "-",
  " ",
  "'",
  "null",
  "{",
  "]",
];

/** `value` damaged: hostile pieces at its start, middle or end, sometimes alone. */
export function damage(value: string | null, random: () => number): string | null {
  if (random() < 0.6) return value;
  const piece = HOSTILE[Math.floor(random() * HOSTILE.length)]!;
  const base = value ?? "";
  const at = Math.floor(random() * (base.length + 1));
  const roll = random();
  if (roll < 0.2) return piece;
  if (roll < 0.3) return "";
  return base.slice(0, at) + piece + base.slice(at);
}

/** Every string of a plain value damaged, recursively (numbers sometimes made odd). */
export function damageAll<T>(value: T, random: () => number): T {
  if (typeof value === "string") return damage(value, random) as T;
  if (typeof value === "number") {
    const odd = [-0, 1e-7, -122.41941, 1e21, 45, 0.1 + 0.2];
    return (random() < 0.3 ? odd[Math.floor(random() * odd.length)] : value) as T;
  }
  if (Array.isArray(value)) return value.map((v) => damageAll(v, random)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = damageAll(v, random);
    return out as T;
  }
  return value;
}

const TYPES: OtherNameType[] = ["former_name", "doing_business_as", "other_name"];

/** A stored record made from a damaged provider, with reference rows of its own. */
export function storedFrom(provider: Provider, random: () => number): StoredRecord {
  const p = damageAll(provider, random);
  p.npi = provider.npi; // Stays a string (the CSV takes it as one).
  if (random() < 0.1) p.name = `=${p.name}`;
  if (random() < 0.3 && p.taxonomies.length > 1) {
    p.taxonomies = p.taxonomies.map((t) => ({ ...t, primary: false }));
  }
  if (random() < 0.1) p.taxonomies = [];
  const sides = random() < 0.5 ? 0 : 1 + Math.floor(random() * 7);
  const sideNames = [
    ...p.other_names.filter(() => random() < 0.5), // already in the record: not repeated
    ...Array.from({ length: Math.floor(random() * 3) }, () => ({
      type: TYPES[Math.floor(random() * TYPES.length)]!,
      name: damage("SIDE NAME", random) ?? "",
    })),
  ];
  return {
    doc: encodeProvider(p),
    sides,
    otherNames: (sides & 1) ? sideNames.map(packOtherName) : [],
    locations: (sides & 2)
      ? damageAll(provider.other_locations, random).map((l) => JSON.stringify(packOtherLocation(l)))
      : [],
    endpoints: (sides & 4)
      ? damageAll(provider.endpoints, random).map((e) => JSON.stringify(packEndpoint(e)))
      : [],
  };
}
