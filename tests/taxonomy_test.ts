import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import {
  BUILTIN_TAXONOMY_SOURCE,
  builtinTaxonomy,
  isTaxonomyCode,
  parseNuccCsv,
  TAXONOMY_CODE_PATTERN,
  type TaxonomyEntry,
} from "../lib/taxonomy/nucc.ts";
import { SPECIALTY_SYNONYMS } from "../lib/taxonomy/synonyms.ts";
import {
  buildSpecialtyIndex,
  resolveSpecialty,
  searchSpecialties,
  specialtyCodeSets,
  type SpecialtyResolution,
  taxonomyEntry,
} from "../lib/taxonomy/resolve.ts";

const BUILTIN = builtinTaxonomy();
const BUILTIN_CODES = new Set(BUILTIN.map((e) => e.code));
const INDEX = buildSpecialtyIndex(BUILTIN);

function entry(code: string): TaxonomyEntry {
  const found = BUILTIN.find((e) => e.code === code);
  if (found === undefined) throw new Error(`Builtin taxonomy lacks '${code}'`);
  return found;
}

function codesOf(result: SpecialtyResolution): string[] {
  if (!result.ok) throw new Error(`Expected a match, got ${JSON.stringify(result)}`);
  return result.codes;
}

function suggestionsOf(result: SpecialtyResolution): string[] {
  if (result.ok) throw new Error(`Expected no match, got ${JSON.stringify(result)}`);
  return result.suggestions;
}

function assertIncludesAll(actual: readonly string[], expected: readonly string[]): void {
  const missing = expected.filter((code) => !actual.includes(code));
  assertEquals(missing, [], `missing from ${JSON.stringify(actual)}`);
}

function withPrefix(prefix: string): string[] {
  return BUILTIN.map((e) => e.code).filter((code) => code.startsWith(prefix));
}

Deno.test("[taxonomy] builtin list holds every plan-net code once, sorted", () => {
  assertEquals(BUILTIN_TAXONOMY_SOURCE, "hl7.fhir.us.davinci-pdex-plan-net@1.2.0");
  assertEquals(BUILTIN.length, 857);
  assertEquals(BUILTIN_CODES.size, BUILTIN.length);
  const codes = BUILTIN.map((e) => e.code);
  assertEquals(codes, [...codes].sort());
  for (const e of BUILTIN) {
    assert(isTaxonomyCode(e.code), `${e.code} has the NUCC shape`);
    assert(e.display.length > 0, `${e.code} has a display name`);
    assertEquals(e.definition, null);
  }
  assertEquals(BUILTIN.filter((e) => e.section === "Individual").length, 675);
  assertEquals(BUILTIN.filter((e) => e.section === "Non-Individual").length, 182);
});

Deno.test("[taxonomy] builtin entries carry their hierarchy", () => {
  assertEquals(entry("207RC0000X"), {
    code: "207RC0000X",
    display: "Cardiovascular Disease Physician",
    grouping: "Allopathic & Osteopathic Physicians",
    classification: "Internal Medicine",
    specialization: "Cardiovascular Disease",
    definition: null,
    section: "Individual",
  });
  assertEquals(entry("207R00000X").classification, "Internal Medicine");
  assertEquals(entry("207R00000X").specialization, null);
  assertEquals(entry("207RC0200X").specialization, "Critical Care Medicine");
  assertEquals(entry("2084P0800X").classification, "Psychiatry & Neurology");
  assertEquals(entry("2084P0800X").specialization, "Psychiatry");
  assertEquals(entry("101YA0400X").grouping, "Behavioral Health & Social Service Providers");
  assertEquals(entry("101YA0400X").classification, "Counselor");
  assertEquals(entry("101YA0400X").specialization, "Addiction (Substance Use Disorder)");
  assertEquals(entry("1223X0400X").grouping, "Dental Providers");
  assertEquals(entry("1223X0400X").classification, "Dentist");
  assertEquals(
    entry("363LF0000X").grouping,
    "Physician Assistants & Advanced Practice Nursing Providers",
  );
  assertEquals(entry("363LF0000X").specialization, "Family");
  const urgent = entry("261QU0200X");
  assertEquals(urgent.grouping, "Ambulatory Health Care Facilities");
  assertEquals(urgent.classification, "Clinic/Center");
  assertEquals(urgent.specialization, "Urgent Care");
  assertEquals(urgent.section, "Non-Individual");
  assertEquals(entry("3336C0003X").grouping, "Suppliers");
  assertEquals(entry("282N00000X").grouping, "Hospitals");
  assertEquals(entry("202D00000X").section, "Individual");
});

Deno.test("[taxonomy] every builtin code has a grouping, all but one a classification", () => {
  assertEquals(BUILTIN.filter((e) => e.grouping === null), []);
  assertEquals(BUILTIN.filter((e) => e.classification === null).map((e) => e.code), [
    "247ZC0005X",
  ]);
  for (const e of BUILTIN) {
    const isClassification = e.code.slice(4, 9) === "00000";
    assertEquals(e.specialization === null, isClassification, e.code);
  }
});

Deno.test("[taxonomy] builtinTaxonomy returns copies the caller may change", () => {
  const first = builtinTaxonomy();
  const target = first[0];
  if (target === undefined) throw new Error("Builtin taxonomy is empty");
  target.display = "changed";
  first.pop();
  const second = builtinTaxonomy();
  assertEquals(second.length, 857);
  assertEquals(second[0]?.display, "Drama Therapist");
});

Deno.test("[taxonomy] code pattern accepts NUCC codes and nothing else", () => {
  for (const code of ["207RC0000X", "101YA0400X", "390200000X", "1223X0400X", "3336C0003X"]) {
    assert(isTaxonomyCode(code), code);
    assert(TAXONOMY_CODE_PATTERN.test(code), code);
  }
  for (
    const code of [
      "",
      "207RC0000",
      "207RC0000XX",
      "207rc0000x",
      "207RC0000Y",
      "207RC00A0X",
      "A07RC0000X",
      "20ARC0000X",
      "007RC0000X",
      " 207RC0000X",
      "207RC-000X",
    ]
  ) {
    assert(!isTaxonomyCode(code), JSON.stringify(code));
  }
});

const NUCC_HEADER =
  "Code,Grouping,Classification,Specialization,Definition,Notes,Display Name,Section";

Deno.test("[taxonomy] parses the NUCC CSV with quotes, line breaks and a BOM", () => {
  const csv = "\uFEFF" + NUCC_HEADER + "\r\n" +
    '207RE0101X,Allopathic & Osteopathic Physicians,Internal Medicine,"Endocrinology, Diabetes & Metabolism","A physician who ""specializes"" in glands,\r\nhormones and metabolism.",Note,Endocrinology Physician,Individual\r\n' +
    "207R00000X,Allopathic & Osteopathic Physicians,Internal Medicine,,Internists care for adults.,,Internal Medicine Physician,Individual\r\n" +
    '261QU0200X,Ambulatory Health Care Facilities,Clinic/Center,Urgent Care,"Walk-in care.",,Urgent Care Clinic/Center,Non-Individual\r\n' +
    "\r\n";
  const entries = parseNuccCsv(csv);
  assertEquals(entries.map((e) => e.code), ["207R00000X", "207RE0101X", "261QU0200X"]);
  assertEquals(entries[1], {
    code: "207RE0101X",
    display: "Endocrinology Physician",
    grouping: "Allopathic & Osteopathic Physicians",
    classification: "Internal Medicine",
    specialization: "Endocrinology, Diabetes & Metabolism",
    definition: 'A physician who "specializes" in glands,\r\nhormones and metabolism.',
    section: "Individual",
  });
  assertEquals(entries[0]?.specialization, null);
  assertEquals(entries[2]?.section, "Non-Individual");
});

Deno.test("[taxonomy] parses older NUCC CSVs without display name or section", () => {
  const csv = "Code,Grouping,Classification,Specialization,Definition\n" +
    "207Q00000X,Allopathic & Osteopathic Physicians,Family Medicine,,Whole-family care\n" +
    "207QA0505X,Allopathic & Osteopathic Physicians,Family Medicine,Adult Medicine,\n" +
    "207q00000x,Allopathic & Osteopathic Physicians,Family Medicine,,Repeated code, last wins";
  const entries = parseNuccCsv(csv);
  assertEquals(entries.length, 2);
  assertEquals(entries[0]?.display, "Family Medicine");
  assertEquals(entries[0]?.definition, "Repeated code");
  assertEquals(entries[0]?.section, null);
  assertEquals(entries[1]?.display, "Adult Medicine");
});

Deno.test("[taxonomy] rejects a NUCC CSV with a wrong header or broken rows", () => {
  const missing = assertThrows(
    () => parseNuccCsv("Code,Grouping,Specialization,Definition\n207Q00000X,x,,y\n"),
    Error,
  );
  assertMatch(missing.message, /missing column "Classification"/);
  assertThrows(() => parseNuccCsv(""), Error, "empty");
  assertThrows(
    () => parseNuccCsv(`${NUCC_HEADER}\n207Q00000X,G,C,,"never closed\n`),
    SyntaxError,
    "never closes",
  );
  assertThrows(
    () => parseNuccCsv(`${NUCC_HEADER}\n207Q00000X,G,C,,,,,\nNOT-A-CODE,G,C,,,,,\n`),
    SyntaxError,
    'invalid code "NOT-A-CODE" on line 3',
  );
});

Deno.test("[taxonomy] the synonym list is long and every code in it exists", () => {
  assert(SPECIALTY_SYNONYMS.length >= 80, `${SPECIALTY_SYNONYMS.length} synonym entries`);
  for (const synonym of SPECIALTY_SYNONYMS) {
    assert(synonym.terms.length > 0);
    assert(synonym.codes.length > 0, synonym.terms[0]);
    for (const term of synonym.terms) {
      assertEquals(term, term.trim().toLowerCase(), `term "${term}" is trimmed lower case`);
    }
    for (const code of synonym.codes) {
      if (code.length === 10) {
        assert(BUILTIN_CODES.has(code), `${synonym.terms[0]}: ${code} exists`);
      } else {
        assertMatch(code, /^[0-9][0-9A-Z]{1,8}$/, `${synonym.terms[0]}: prefix ${code}`);
        assert(withPrefix(code).length > 0, `${synonym.terms[0]}: prefix ${code} matches codes`);
      }
    }
  }
});

Deno.test("[taxonomy] every synonym term resolves to its own entry", () => {
  for (const synonym of SPECIALTY_SYNONYMS) {
    const expected = [
      ...new Set(
        synonym.codes.flatMap((code) => code.length === 10 ? [code] : withPrefix(code)),
      ),
    ].sort();
    for (const term of synonym.terms) {
      const result = resolveSpecialty(INDEX, term);
      assertEquals(
        result,
        { ok: true, codes: expected, matched: synonym.terms[0] ?? "" },
        `"${term}" collides with another entry`,
      );
    }
  }
});

Deno.test("[taxonomy] the known code sets are what names and synonyms resolve to", () => {
  const sets = specialtyCodeSets(INDEX);
  const keys = new Set(sets.map((codes) => codes.join(",")));
  assertEquals(keys.size, sets.length, "each set once");
  for (const codes of sets) assertEquals(codes, [...codes].sort(), "sorted");
  const phrases = [
    ...BUILTIN.flatMap((e) => [e.display, e.classification ?? "", e.specialization ?? ""]),
    ...SPECIALTY_SYNONYMS.flatMap((synonym) => synonym.terms),
  ].filter((phrase) => phrase !== "");
  let whole = 0;
  for (const phrase of phrases) {
    const resolved = resolveSpecialty(INDEX, phrase);
    if (resolved.ok && keys.has(resolved.codes.join(","))) whole++;
  }
  assertEquals(whole, phrases.length, "every name and synonym resolves to a known set");
});

Deno.test("[taxonomy] resolves everyday specialty words", async (t) => {
  await t.step("cardiologist, heart doctor, cardiology, cardiovascular", () => {
    for (const words of ["cardiologist", "Heart Doctor", "cardiology", "cardiovascular"]) {
      assertIncludesAll(codesOf(resolveSpecialty(INDEX, words)), [
        "207RC0000X",
        "207RI0011X",
        "2080P0202X",
      ]);
    }
  });
  await t.step("plurals and word forms", () => {
    const cardiologist = codesOf(resolveSpecialty(INDEX, "cardiologist"));
    assertEquals(codesOf(resolveSpecialty(INDEX, "Cardiologists")), cardiologist);
    assertEquals(
      codesOf(resolveSpecialty(INDEX, "dentists")),
      codesOf(resolveSpecialty(INDEX, "dentistry")),
    );
    assertEquals(
      codesOf(resolveSpecialty(INDEX, "pediatrics")),
      codesOf(resolveSpecialty(INDEX, "Paediatricians")),
    );
    assertEquals(codesOf(resolveSpecialty(INDEX, "NPs")), withPrefix("363L"));
  });
  await t.step("pediatrician and kids doctor", () => {
    assertEquals(codesOf(resolveSpecialty(INDEX, "pediatrician")), withPrefix("2080"));
    assertEquals(codesOf(resolveSpecialty(INDEX, "kids doctor")), withPrefix("2080"));
  });
  await t.step("dentist and dermatologist", () => {
    assertEquals(codesOf(resolveSpecialty(INDEX, "dentist")), withPrefix("1223"));
    assertEquals(codesOf(resolveSpecialty(INDEX, "dermatologist")), withPrefix("207N"));
    assertEquals(codesOf(resolveSpecialty(INDEX, "skin doctor")), withPrefix("207N"));
  });
  await t.step("OB-GYN in every spelling", () => {
    const expected = codesOf(resolveSpecialty(INDEX, "OB-GYN"));
    assertIncludesAll(expected, ["207V00000X", "207VG0400X", "207VX0000X"]);
    for (const words of ["ob gyn", "obgyn", "OB/GYN", "ob-gyns", "Obstetrics & Gynecology"]) {
      assertEquals(codesOf(resolveSpecialty(INDEX, words)), expected, words);
    }
    assertIncludesAll(codesOf(resolveSpecialty(INDEX, "gynecologist")), ["207VG0400X"]);
  });
  await t.step("family doctor and family medicine", () => {
    assertIncludesAll(codesOf(resolveSpecialty(INDEX, "family doctor")), [
      "207Q00000X",
      "207R00000X",
      "208D00000X",
      "363LF0000X",
    ]);
    const familyMedicine = resolveSpecialty(INDEX, "family medicine");
    assertEquals(familyMedicine, {
      ok: true,
      codes: withPrefix("207Q"),
      matched: "Family Medicine",
    });
  });
  await t.step("shrink and eye doctor", () => {
    assertIncludesAll(codesOf(resolveSpecialty(INDEX, "shrink")), [
      "2084P0800X",
      "103T00000X",
      "363LP0808X",
    ]);
    const eye = codesOf(resolveSpecialty(INDEX, "eye doctor"));
    assertEquals(eye, [...withPrefix("152W"), ...withPrefix("207W")]);
  });
  await t.step("NUCC names and words inside them", () => {
    assertEquals(codesOf(resolveSpecialty(INDEX, "Pediatric Cardiologist")), ["2080P0202X"]);
    assertEquals(codesOf(resolveSpecialty(INDEX, "internal medicine")), withPrefix("207R"));
    assertEquals(codesOf(resolveSpecialty(INDEX, "vascular surgeon")), ["2086S0129X"]);
    assertIncludesAll(codesOf(resolveSpecialty(INDEX, "sports medicine doctor")), [
      "207QS0010X",
      "207RS0010X",
    ]);
    assertEquals(codesOf(resolveSpecialty(INDEX, "mental health clinic")), [
      "261QM0801X",
      "261QM0850X",
      "261QM0855X",
    ]);
    assertEquals(codesOf(resolveSpecialty(INDEX, "hospitalist")), ["208M00000X"]);
  });
  await t.step("codes come back sorted without duplicates", () => {
    const codes = codesOf(resolveSpecialty(INDEX, "mental health"));
    assertEquals(codes, [...new Set(codes)].sort());
  });
});

Deno.test("[taxonomy] unknown words give close suggestions", () => {
  const typo = suggestionsOf(resolveSpecialty(INDEX, "cardiolgy"));
  assertEquals(typo[0], "cardiology");
  assert(typo.length <= 5);
  assertEquals(suggestionsOf(resolveSpecialty(INDEX, "dermotologist"))[0], "dermatologist");
  assertEquals(suggestionsOf(resolveSpecialty(INDEX, "opthalmologist"))[0], "ophthalmologist");
  assertEquals(suggestionsOf(resolveSpecialty(INDEX, "pedeatrician"))[0], "pediatrician");
  const partial = suggestionsOf(resolveSpecialty(INDEX, "cardio"));
  assert(partial.includes("cardiologist"), partial.join(", "));
  assertEquals(resolveSpecialty(INDEX, "xyzzy"), { ok: false, suggestions: [] });
  assertEquals(resolveSpecialty(INDEX, "  ?! "), { ok: false, suggestions: [] });
});

Deno.test("[taxonomy] resolving is fast once the index is built", () => {
  const words = ["cardiologist", "family medicine", "OB-GYN", "hand surgeon", "cardiolgy"];
  for (const w of words) resolveSpecialty(INDEX, w);
  const rounds = 200;
  const start = performance.now();
  for (let i = 0; i < rounds; i++) for (const w of words) resolveSpecialty(INDEX, w);
  const perCall = (performance.now() - start) / (rounds * words.length);
  assert(perCall < 1, `${perCall.toFixed(3)} ms per call`);
});

Deno.test("[taxonomy] an index over a NUCC CSV resolves its names", () => {
  const entries = parseNuccCsv(
    NUCC_HEADER + "\n" +
      "207Q00000X,Allopathic & Osteopathic Physicians,Family Medicine,,,,Family Medicine Physician,Individual\n" +
      "207QA0505X,Allopathic & Osteopathic Physicians,Family Medicine,Adult Medicine,,,Adult Medicine Physician,Individual\n" +
      "122300000X,Dental Providers,Dentist,,,,Dentist,Individual\n" +
      "1223X0400X,Dental Providers,Dentist,Orthodontics and Dentofacial Orthopedics,,,Orthodontist,Individual\n",
  );
  const index = buildSpecialtyIndex(entries);
  assertEquals(index.size, 4);
  assertEquals(codesOf(resolveSpecialty(index, "family medicine")), ["207Q00000X", "207QA0505X"]);
  assertEquals(codesOf(resolveSpecialty(index, "dentist")), ["122300000X", "1223X0400X"]);
  assertEquals(codesOf(resolveSpecialty(index, "orthodontics")), ["1223X0400X"]);
  assertEquals(taxonomyEntry(index, "1223X0400X")?.display, "Orthodontist");
  assertEquals(taxonomyEntry(index, "207RC0000X"), undefined);
});

Deno.test("[taxonomy] searchSpecialties ranks exact, then prefix, then substring", async (t) => {
  await t.step("empty q lists entries by code", () => {
    assertEquals(
      searchSpecialties(INDEX, "", 3).map((e) => e.code),
      BUILTIN.slice(0, 3).map((e) => e.code),
    );
    assertEquals(searchSpecialties(INDEX, "  ", 10_000).length, 857);
    assertEquals(searchSpecialties(INDEX, "", 0), []);
  });
  await t.step("an exact name comes first", () => {
    const results = searchSpecialties(INDEX, "Pharmacy", 50).map((e) => e.code);
    assertEquals(results[0], "333600000X");
    const classification = results.filter((code) => code.startsWith("3336"));
    assertEquals(results.slice(0, classification.length), classification);
    const technician = results.indexOf("183700000X"); // "Pharmacy Technician": name prefix
    const dispensing = results.indexOf("332900000X"); // "Non-Pharmacy Dispensing Site": word
    assert(technician > classification.length, `${technician}`);
    assert(dispensing > technician, `${technician} < ${dispensing}`);
    assertEquals(searchSpecialties(INDEX, "family medicine", 1)[0]?.code, "207Q00000X");
  });
  await t.step("a name prefix beats a word prefix", () => {
    const results = searchSpecialties(INDEX, "cardio", 100).map((e) => e.code);
    assertEquals(results[0], "207RC0000X");
    const technician = results.indexOf("246W00000X"); // "Cardiology Technician"
    const pediatric = results.indexOf("2080P0202X"); // "Pediatric Cardiology"
    assert(technician >= 0 && pediatric > technician, `${technician} < ${pediatric}`);
  });
  await t.step("a substring matches last", () => {
    const results = searchSpecialties(INDEX, "dontist", 20);
    assertEquals(results.map((e) => e.code), [
      "1223E0200X",
      "1223P0300X",
      "1223P0700X",
      // Through synonyms: pedodontist, orthodontist, prosthodontist.
      "1223P0221X",
      "1223X0400X",
      "122400000X",
    ]);
  });
  await t.step("synonyms and case", () => {
    const heart = searchSpecialties(INDEX, "HEART DOCTOR", 20).map((e) => e.code);
    assert(heart.includes("207RC0000X"));
    assertEquals(
      searchSpecialties(INDEX, "DENTIST", 5),
      searchSpecialties(INDEX, "dentist", 5),
    );
    assertEquals(searchSpecialties(INDEX, "zzzz", 5), []);
  });
  await t.step("limit caps the list", () => {
    assertEquals(searchSpecialties(INDEX, "nurse", 4).length, 4);
  });
});
