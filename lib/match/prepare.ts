/**
 * A roster row made ready to compare: its values normalised once, the
 * supplied NPI checked locally, and what makes the row unusable listed.
 *
 * @module
 */
import { isValidNpi } from "../npi.ts";
import { STATE_CODES } from "../search/params.ts";
import { TAXONOMY_CODE_PATTERN } from "../taxonomy/nucc.ts";
import type { RosterRow } from "./roster_parse.ts";
import {
  cityKey,
  orgKey,
  orgWords,
  type PersonName,
  personName,
  phone,
  type Street,
  street,
  type Zip,
  zip,
} from "./normalize.ts";

/** A row problem that makes it `invalid`: the field and what is wrong. */
export interface RowProblem {
  field: string;
  message: string;
}

/** A roster row, normalised. */
export interface PreparedRow {
  source: RosterRow;
  /** Who the row names: a person (a last name is given) or an organization. */
  kind: "individual" | "organization";
  /** The supplied NPI when it is 10 digits with a valid check digit. */
  npi: string | null;
  person: PersonName | null;
  org: { words: string[]; key: string } | null;
  street: Street | null;
  city: string;
  state: string | null;
  zip: Zip | null;
  phone: string | null;
  /** Taxonomy codes the row's `taxonomy` or `specialty` stands for; null when not given. */
  specialtyCodes: string[] | null;
  /** Notes on the row's own values (`npi_check_digit_invalid`, `specialty_unknown`, ...). */
  warnings: string[];
  /** Why the row cannot be matched; empty when it can. */
  problems: RowProblem[];
}

/** Resolves specialty words to taxonomy codes (null: unknown words). */
export type SpecialtyResolver = (words: string) => string[] | null;

/**
 * Normalises a roster row. Values that cannot be read (a state that is no
 * USPS code, a ZIP that is not 5 or 9 digits) are problems; a wrong NPI is
 * only a warning (the name is still matched).
 *
 * @example
 * ```ts
 * const row = prepareRow({ row: 1, line: 2, id: "r1", values: { last_name: "Smith MD" } }, () => null);
 * row.person?.lastKey; // "smith"
 * ```
 */
export function prepareRow(source: RosterRow, resolveSpecialty: SpecialtyResolver): PreparedRow {
  const v = source.values;
  const warnings: string[] = [];
  const problems: RowProblem[] = [];
  let npi: string | null = null;
  if (v.npi !== undefined) {
    const digits = v.npi.replace(/\s/g, "");
    if (!/^\d{10}$/.test(digits)) warnings.push("npi_malformed");
    else if (!isValidNpi(digits)) warnings.push("npi_check_digit_invalid");
    else npi = digits;
  }
  const person = v.last_name || v.first_name ? personName(v) : null;
  const hasPerson = person !== null && person.lastKey !== "";
  const org = v.organization_name
    ? { words: orgWords(v.organization_name), key: orgKey(v.organization_name) }
    : null;
  const kind = hasPerson ? "individual" : "organization";
  if (!hasPerson && (!org || org.key === "")) {
    problems.push({
      field: v.first_name ? "last_name" : "last_name|organization_name",
      message: v.first_name
        ? "a person needs a last name"
        : "give a last name (a person) or an organization name",
    });
  }
  let state: string | null = null;
  if (v.state) {
    const code = v.state.trim().toUpperCase();
    if (STATE_CODES.has(code)) state = code;
    else {problems.push({
        field: "state",
        message: `'${v.state.slice(0, 20)}' is not a USPS state code`,
      });}
  }
  const postal = zip(v.postal_code);
  if (v.postal_code && !postal) {
    problems.push({
      field: "postal_code",
      message: `'${v.postal_code.slice(0, 20)}' is not a US ZIP (5 or 9 digits)`,
    });
  }
  const tel = phone(v.phone);
  if (v.phone && !tel) warnings.push("phone_unreadable");
  let specialtyCodes: string[] | null = null;
  if (v.taxonomy) {
    const codes = v.taxonomy.split(/[,;|\s]+/).map((c) => c.toUpperCase()).filter((c) => c);
    const good = codes.filter((c) => TAXONOMY_CODE_PATTERN.test(c));
    if (good.length < codes.length) warnings.push("taxonomy_malformed");
    if (good.length) specialtyCodes = good;
  }
  if (v.specialty) {
    const codes = resolveSpecialty(v.specialty);
    if (codes === null) warnings.push("specialty_unknown");
    else specialtyCodes = [...new Set([...(specialtyCodes ?? []), ...codes])];
  }
  if (person && person.stripped.length) warnings.push("name_tokens_stripped");
  return {
    source,
    kind,
    npi,
    person: hasPerson ? person : null,
    org: org && org.key !== "" ? org : null,
    street: v.address ? street(v.address, v.address_2) : null,
    city: cityKey(v.city),
    state,
    zip: postal,
    phone: tel,
    specialtyCodes,
    warnings,
    problems,
  };
}
