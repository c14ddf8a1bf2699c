/**
 * NUCC taxonomy codes the demo data uses, with weights that approximate the
 * primary-taxonomy mix of the NPPES registry, separately for individuals
 * (type 1) and organizations (type 2). Every code is a real NUCC Health Care
 * Provider Taxonomy code.
 *
 * Individuals: relative weights, roughly percentages of type 1 NPIs (nurse
 * practitioners about 10%, registered nurses about 6%, counselors and social
 * workers about 4% each, dentists about 4%, pharmacists about 3%, physician
 * assistants, students in training, physical therapists...). Each entry also
 * carries the profession (for credentials and license numbers), the share of
 * women in it, and a group of related codes from which a provider with several
 * taxonomies draws the others.
 *
 * Organizations: relative weights, roughly percentages of type 2 NPIs, with a
 * naming kind (pharmacy, hospital, clinic...) and, for practices that use an
 * individual specialty code, the word their names use.
 *
 * @module
 */

/** What kind of professional a type 1 taxonomy belongs to. */
export type Profession =
  | "physician"
  | "np"
  | "rn"
  | "lpn"
  | "pa"
  | "dentist"
  | "hygienist"
  | "pharmacist"
  | "pharmtech"
  | "counselor"
  | "socialworker"
  | "psychologist"
  | "mft"
  | "chiropractor"
  | "pt"
  | "pta"
  | "ot"
  | "slp"
  | "audiologist"
  | "massage"
  | "optometrist"
  | "podiatrist"
  | "crna"
  | "midwife"
  | "cns"
  | "dietitian"
  | "student"
  | "respiratory"
  | "paramedic"
  | "behavior"
  | "acupuncturist"
  | "aide"
  | "casemanager"
  | "rbt"
  | "athletic"
  | "ota"
  | "optician"
  | "technologist";

/** One type 1 taxonomy in the demo mix. */
export interface IndividualSpecialty {
  readonly code: string;
  /** Rough percentage of individual NPIs with this primary taxonomy. */
  readonly weight: number;
  readonly profession: Profession;
  /** Share of women. */
  readonly female: number;
  /** Key into {@link RELATED_TAXONOMIES}. */
  readonly group: string;
}

/** How an organization of a taxonomy gets named. */
export type OrgKind =
  | "pharmacy"
  | "hospital"
  | "clinic"
  | "primary"
  | "fqhc"
  | "urgent"
  | "asc"
  | "mental"
  | "substance"
  | "dialysis"
  | "imaging"
  | "homehealth"
  | "hospice"
  | "homecare"
  | "dme"
  | "lab"
  | "ambulance"
  | "transport"
  | "snf"
  | "assisted"
  | "residential"
  | "group"
  | "practice"
  | "dental"
  | "therapy"
  | "agency";

/** One type 2 taxonomy in the demo mix. */
export interface OrgSpecialty {
  readonly code: string;
  /** Rough percentage of organization NPIs with this primary taxonomy. */
  readonly weight: number;
  readonly kind: OrgKind;
  /** The specialty word a practice name uses ("CARDIOLOGY"), when any. */
  readonly label?: string;
}

function ind(
  code: string,
  weight: number,
  profession: Profession,
  female: number,
  group: string,
): IndividualSpecialty {
  return { code, weight, profession, female, group };
}

/** The type 1 taxonomy mix. */
export const INDIVIDUAL_SPECIALTIES: readonly IndividualSpecialty[] = [
  // Nurse practitioners (~10%)
  ind("363LF0000X", 4.7, "np", 0.9, "np"),
  ind("363L00000X", 1.5, "np", 0.88, "np"),
  ind("363LA2200X", 0.7, "np", 0.88, "np"),
  ind("363LP0808X", 0.9, "np", 0.82, "np"),
  ind("363LA2100X", 0.35, "np", 0.85, "np"),
  ind("363LP0200X", 0.3, "np", 0.96, "np"),
  ind("363LW0102X", 0.2, "np", 0.99, "np"),
  ind("363LG0600X", 0.15, "np", 0.9, "np"),
  ind("363LP2300X", 0.15, "np", 0.88, "np"),
  // Nursing
  ind("163W00000X", 7.0, "rn", 0.9, "rn"),
  ind("163WP0808X", 0.2, "rn", 0.8, "rn"),
  ind("163WC0400X", 0.15, "rn", 0.93, "rn"),
  ind("163WE0003X", 0.1, "rn", 0.85, "rn"),
  ind("164W00000X", 1.3, "lpn", 0.9, "lpn"),
  ind("367500000X", 0.8, "crna", 0.58, "crna"),
  ind("367A00000X", 0.15, "midwife", 0.98, "midwife"),
  ind("364S00000X", 0.15, "cns", 0.92, "cns"),
  // Behavioral health
  ind("101YP2500X", 2.6, "counselor", 0.75, "counselor"),
  ind("101YM0800X", 1.4, "counselor", 0.76, "counselor"),
  ind("101YA0400X", 0.5, "counselor", 0.62, "counselor"),
  ind("101Y00000X", 0.8, "counselor", 0.74, "counselor"),
  ind("1041C0700X", 3.6, "socialworker", 0.86, "socialworker"),
  ind("104100000X", 0.8, "socialworker", 0.87, "socialworker"),
  ind("103T00000X", 1.3, "psychologist", 0.68, "psychologist"),
  ind("103TC0700X", 0.8, "psychologist", 0.66, "psychologist"),
  ind("106H00000X", 0.9, "mft", 0.78, "counselor"),
  ind("103K00000X", 0.4, "behavior", 0.86, "behavior"),
  // Dental (~4.3%)
  ind("1223G0001X", 1.9, "dentist", 0.37, "dentist"),
  ind("122300000X", 1.05, "dentist", 0.36, "dentist"),
  ind("1223X0400X", 0.2, "dentist", 0.3, "dentist"),
  ind("1223P0221X", 0.15, "dentist", 0.55, "dentist"),
  ind("1223S0112X", 0.1, "dentist", 0.12, "dentist"),
  ind("1223E0200X", 0.1, "dentist", 0.25, "dentist"),
  ind("1223P0300X", 0.08, "dentist", 0.3, "dentist"),
  ind("124Q00000X", 0.6, "hygienist", 0.96, "hygienist"),
  // Pharmacy
  ind("183500000X", 3.7, "pharmacist", 0.6, "pharmacist"),
  ind("1835P1200X", 0.1, "pharmacist", 0.62, "pharmacist"),
  ind("183700000X", 0.3, "pharmtech", 0.75, "pharmtech"),
  // Physician assistants
  ind("363A00000X", 2.0, "pa", 0.68, "pa"),
  ind("363AM0700X", 0.6, "pa", 0.7, "pa"),
  ind("363AS0400X", 0.3, "pa", 0.62, "pa"),
  // Students, residents
  ind("390200000X", 4.2, "student", 0.5, "student"),
  // Physicians
  ind("207Q00000X", 2.9, "physician", 0.45, "familymed"),
  ind("207R00000X", 3.4, "physician", 0.4, "internalmed"),
  ind("208M00000X", 0.42, "physician", 0.38, "internalmed"),
  ind("208D00000X", 0.3, "physician", 0.3, "familymed"),
  ind("208000000X", 1.08, "physician", 0.65, "pediatrics"),
  ind("207V00000X", 0.66, "physician", 0.6, "obgyn"),
  ind("2084P0800X", 0.66, "physician", 0.45, "psychiatry"),
  ind("2084P0804X", 0.12, "physician", 0.55, "psychiatry"),
  ind("207P00000X", 1.02, "physician", 0.3, "emergency"),
  ind("207L00000X", 0.78, "physician", 0.27, "anesthesia"),
  ind("2085R0202X", 0.54, "physician", 0.27, "radiology"),
  ind("207RC0000X", 0.36, "physician", 0.15, "cardiology"),
  ind("207RI0011X", 0.06, "physician", 0.08, "cardiology"),
  ind("207N00000X", 0.216, "physician", 0.55, "dermatology"),
  ind("207X00000X", 0.42, "physician", 0.07, "ortho"),
  ind("207W00000X", 0.24, "physician", 0.28, "ophthalmology"),
  ind("208600000X", 0.54, "physician", 0.22, "surgery"),
  ind("2084N0400X", 0.24, "physician", 0.35, "neurology"),
  ind("207RG0100X", 0.24, "physician", 0.18, "internalmed"),
  ind("207RP1001X", 0.144, "physician", 0.25, "internalmed"),
  ind("207RN0300X", 0.12, "physician", 0.3, "internalmed"),
  ind("207RE0101X", 0.096, "physician", 0.55, "internalmed"),
  ind("207RH0003X", 0.144, "physician", 0.35, "internalmed"),
  ind("207RI0200X", 0.084, "physician", 0.45, "internalmed"),
  ind("207RR0500X", 0.06, "physician", 0.55, "internalmed"),
  ind("208800000X", 0.144, "physician", 0.1, "surgery"),
  ind("207Y00000X", 0.144, "physician", 0.18, "surgery"),
  ind("207ZP0102X", 0.216, "physician", 0.4, "pathology"),
  ind("208100000X", 0.144, "physician", 0.35, "pmr"),
  ind("2085R0001X", 0.072, "physician", 0.3, "radiology"),
  ind("208200000X", 0.084, "physician", 0.18, "surgery"),
  ind("207T00000X", 0.06, "physician", 0.08, "surgery"),
  ind("2086S0129X", 0.048, "physician", 0.15, "surgery"),
  ind("208VP0014X", 0.048, "physician", 0.15, "pmr"),
  // Other clinicians
  ind("152W00000X", 0.85, "optometrist", 0.48, "optometrist"),
  ind("213E00000X", 0.25, "podiatrist", 0.2, "podiatrist"),
  ind("111N00000X", 1.2, "chiropractor", 0.28, "chiropractor"),
  ind("225100000X", 3.0, "pt", 0.66, "pt"),
  ind("225200000X", 0.8, "pta", 0.68, "pt"),
  ind("225X00000X", 1.5, "ot", 0.88, "ot"),
  ind("235Z00000X", 1.8, "slp", 0.96, "slp"),
  ind("231H00000X", 0.2, "audiologist", 0.8, "slp"),
  ind("225700000X", 1.3, "massage", 0.8, "massage"),
  ind("133V00000X", 0.8, "dietitian", 0.92, "dietitian"),
  ind("227800000X", 0.1, "respiratory", 0.6, "respiratory"),
  ind("146L00000X", 0.15, "paramedic", 0.25, "paramedic"),
  ind("171100000X", 0.25, "acupuncturist", 0.6, "massage"),
  ind("171M00000X", 0.15, "casemanager", 0.85, "casemanager"),
  ind("3747P1801X", 2.5, "aide", 0.85, "aide"),
  ind("374U00000X", 0.5, "aide", 0.9, "aide"),
  // Long tail of the workforce
  ind("106S00000X", 2.6, "rbt", 0.85, "behavior"),
  ind("376K00000X", 0.4, "aide", 0.9, "aide"),
  ind("172V00000X", 0.35, "casemanager", 0.8, "casemanager"),
  ind("175T00000X", 0.5, "casemanager", 0.6, "casemanager"),
  ind("374J00000X", 0.15, "aide", 0.99, "aide"),
  ind("146N00000X", 0.35, "paramedic", 0.3, "paramedic"),
  ind("2255A2300X", 0.35, "athletic", 0.55, "pt"),
  ind("224Z00000X", 0.45, "ota", 0.88, "ot"),
  ind("156FX1800X", 0.2, "optician", 0.6, "optometrist"),
  ind("247100000X", 0.25, "technologist", 0.7, "technologist"),
  ind("174400000X", 0.2, "technologist", 0.6, "technologist"),
  ind("171R00000X", 0.1, "aide", 0.75, "aide"),
  ind("172A00000X", 0.15, "aide", 0.3, "aide"),
  ind("126800000X", 0.1, "hygienist", 0.95, "hygienist"),
  ind("164X00000X", 0.3, "lpn", 0.88, "lpn"),
  ind("133N00000X", 0.1, "dietitian", 0.88, "dietitian"),
  ind("227900000X", 0.25, "respiratory", 0.6, "respiratory"),
  // More physician specialties
  ind("2084P0802X", 0.04, "physician", 0.4, "psychiatry"),
  ind("207RG0300X", 0.06, "physician", 0.5, "internalmed"),
  ind("2085R0204X", 0.06, "physician", 0.12, "radiology"),
  ind("207RC0001X", 0.04, "physician", 0.1, "cardiology"),
  ind("2080P0202X", 0.04, "physician", 0.35, "pediatrics"),
  ind("2080N0001X", 0.09, "physician", 0.55, "pediatrics"),
  ind("207XS0117X", 0.04, "physician", 0.05, "ortho"),
  ind("208G00000X", 0.06, "physician", 0.08, "surgery"),
  ind("207K00000X", 0.07, "physician", 0.45, "internalmed"),
  ind("2083P0500X", 0.06, "physician", 0.3, "familymed"),
  ind("2084N0402X", 0.04, "physician", 0.55, "neurology"),
  ind("207LP2900X", 0.06, "physician", 0.2, "anesthesia"),
];

/**
 * Groups of related codes: a provider with two or three taxonomies takes the
 * extra ones from the group of the primary.
 */
export const RELATED_TAXONOMIES: Readonly<Record<string, readonly string[]>> = {
  np: [
    "363LF0000X",
    "363L00000X",
    "363LA2200X",
    "363LP0808X",
    "363LA2100X",
    "363LG0600X",
    "363LP2300X",
  ],
  rn: [
    "163W00000X",
    "163WP0808X",
    "163WC0400X",
    "163WE0003X",
    "163WG0600X",
    "163WH0200X",
    "163WX0200X",
  ],
  lpn: ["164W00000X", "164X00000X", "374U00000X"],
  crna: ["367500000X", "163W00000X"],
  midwife: ["367A00000X", "163W00000X", "363LW0102X"],
  cns: ["364S00000X", "163W00000X", "364SP0808X"],
  counselor: ["101YP2500X", "101YM0800X", "101YA0400X", "101Y00000X", "106H00000X"],
  socialworker: ["1041C0700X", "104100000X", "101YM0800X"],
  psychologist: ["103T00000X", "103TC0700X", "103TC2200X", "103TB0200X"],
  behavior: ["103K00000X", "106E00000X", "106S00000X"],
  technologist: ["247100000X", "2471C3402X", "2471M1202X", "174400000X"],
  dentist: ["122300000X", "1223G0001X", "1223X0400X", "1223P0221X", "1223S0112X"],
  hygienist: ["124Q00000X", "126800000X"],
  pharmacist: ["183500000X", "1835P1200X", "1835P2201X", "1835G0303X"],
  pharmtech: ["183700000X", "3747P1801X"],
  pa: ["363A00000X", "363AM0700X", "363AS0400X"],
  student: ["390200000X", "207R00000X", "207Q00000X", "208000000X"],
  familymed: ["207Q00000X", "207QA0505X", "207QS0010X", "207QG0300X", "207QH0002X", "208D00000X"],
  internalmed: ["207R00000X", "208M00000X", "207RC0200X", "207RG0300X", "207RH0002X"],
  pediatrics: ["208000000X", "2080P0204X", "2080N0001X"],
  obgyn: ["207V00000X", "207VG0400X", "207VX0000X", "207VM0101X"],
  psychiatry: ["2084P0800X", "2084P0804X", "2084P0802X", "2084P0805X"],
  emergency: ["207P00000X", "207PE0004X", "207PP0204X", "207PS0010X"],
  anesthesia: ["207L00000X", "207LP2900X", "207LC0200X"],
  radiology: ["2085R0202X", "2085R0204X", "2085N0700X", "2085B0100X"],
  cardiology: ["207RC0000X", "207RI0011X", "207RC0001X", "207R00000X"],
  dermatology: ["207N00000X", "207ND0101X", "207ND0900X"],
  ortho: ["207X00000X", "207XS0114X", "207XX0005X", "207XS0117X", "207XS0106X"],
  ophthalmology: ["207W00000X", "207WX0107X", "207WX0009X", "207WX0200X"],
  surgery: ["208600000X", "2086S0127X", "2086S0102X", "2086X0206X"],
  neurology: ["2084N0400X", "2084N0600X", "2084V0102X"],
  pathology: ["207ZP0102X", "207ZP0101X", "207ZC0500X"],
  pmr: ["208100000X", "2081P2900X", "208VP0014X"],
  optometrist: ["152W00000X", "152WC0802X", "152WP0200X"],
  podiatrist: ["213E00000X", "213ES0103X", "213EP1101X"],
  chiropractor: ["111N00000X", "111NX0800X", "111NS0005X", "111NR0400X"],
  pt: ["225100000X", "2251X0800X", "2251S0007X", "2251G0304X", "225200000X"],
  ot: ["225X00000X", "225XH1200X", "225XP0200X"],
  slp: ["235Z00000X", "231H00000X"],
  massage: ["225700000X", "171100000X"],
  dietitian: ["133V00000X", "133VN1005X", "133N00000X"],
  respiratory: ["227800000X", "227900000X"],
  paramedic: ["146L00000X", "146N00000X"],
  casemanager: ["171M00000X", "172V00000X"],
  aide: ["3747P1801X", "374U00000X", "376K00000X"],
};

function org(code: string, weight: number, kind: OrgKind, label?: string): OrgSpecialty {
  return label === undefined ? { code, weight, kind } : { code, weight, kind, label };
}

/** The type 2 taxonomy mix. */
export const ORGANIZATION_SPECIALTIES: readonly OrgSpecialty[] = [
  // Pharmacies
  org("3336C0003X", 6.5, "pharmacy"),
  org("333600000X", 1.0, "pharmacy"),
  org("3336L0003X", 0.4, "pharmacy"),
  org("3336S0011X", 0.4, "pharmacy"),
  org("3336H0001X", 0.3, "pharmacy"),
  org("3336M0002X", 0.2, "pharmacy"),
  org("3336C0004X", 0.2, "pharmacy"),
  // Clinics and centers
  org("261QP2300X", 2.5, "primary"),
  org("261Q00000X", 2.0, "clinic"),
  org("261QM0801X", 2.5, "mental"),
  org("261QF0400X", 0.8, "fqhc"),
  org("261QR1300X", 0.6, "primary"),
  org("261QU0200X", 0.8, "urgent"),
  org("261QA1903X", 0.8, "asc"),
  org("261QP2000X", 0.8, "therapy", "PHYSICAL THERAPY"),
  org("261QR0200X", 0.6, "imaging"),
  org("261QD0000X", 0.6, "dental"),
  org("261QE0700X", 0.5, "dialysis"),
  org("261QM1300X", 0.6, "clinic"),
  org("261QR0405X", 0.5, "substance"),
  org("261QE0800X", 0.2, "asc"),
  org("261QH0100X", 0.4, "clinic"),
  org("261QR0400X", 0.4, "therapy", "REHABILITATION"),
  org("261QX0200X", 0.2, "clinic"),
  // Agencies
  org("251E00000X", 3.0, "homehealth"),
  org("251G00000X", 0.8, "hospice"),
  org("253Z00000X", 1.5, "homecare"),
  org("251S00000X", 1.0, "mental"),
  org("251J00000X", 0.3, "homecare"),
  org("251K00000X", 0.3, "agency"),
  org("251B00000X", 0.3, "agency"),
  // Suppliers and labs
  org("332B00000X", 4.0, "dme"),
  org("335E00000X", 0.8, "dme"),
  org("332BX2000X", 0.2, "dme"),
  org("332H00000X", 0.2, "dme"),
  org("332S00000X", 0.3, "dme"),
  org("291U00000X", 2.5, "lab"),
  org("293D00000X", 0.2, "lab"),
  // Transport
  org("341600000X", 1.0, "ambulance"),
  org("3416L0300X", 0.8, "ambulance"),
  org("3416A0800X", 0.1, "ambulance"),
  org("343900000X", 1.0, "transport"),
  // Hospitals
  org("282N00000X", 1.2, "hospital"),
  org("282NC0060X", 0.2, "hospital"),
  org("283Q00000X", 0.2, "hospital"),
  org("283X00000X", 0.15, "hospital"),
  org("282NC2000X", 0.05, "hospital"),
  // Residential care
  org("314000000X", 1.2, "snf"),
  org("313M00000X", 0.4, "snf"),
  org("310400000X", 0.8, "assisted"),
  org("311Z00000X", 0.2, "assisted"),
  org("315P00000X", 0.3, "residential"),
  org("320800000X", 0.3, "residential"),
  org("324500000X", 0.5, "substance"),
  // Group practices
  org("193200000X", 2.5, "group"),
  org("193400000X", 4.0, "group"),
  // Practices billing under an individual specialty code
  org("207Q00000X", 3.5, "practice", "FAMILY MEDICINE"),
  org("207R00000X", 2.5, "practice", "INTERNAL MEDICINE"),
  org("208000000X", 1.0, "practice", "PEDIATRICS"),
  org("207V00000X", 0.5, "practice", "OB-GYN"),
  org("2084P0800X", 0.5, "practice", "PSYCHIATRY"),
  org("207X00000X", 0.4, "practice", "ORTHOPAEDICS"),
  org("207RC0000X", 0.4, "practice", "CARDIOLOGY"),
  org("207N00000X", 0.3, "practice", "DERMATOLOGY"),
  org("207W00000X", 0.3, "practice", "EYE"),
  org("208600000X", 0.3, "practice", "SURGICAL"),
  org("207P00000X", 0.7, "practice", "EMERGENCY PHYSICIANS"),
  org("207L00000X", 0.5, "practice", "ANESTHESIA"),
  org("2085R0202X", 0.5, "practice", "RADIOLOGY"),
  org("363LF0000X", 0.8, "practice", "FAMILY HEALTH"),
  org("122300000X", 3.5, "dental"),
  org("1223G0001X", 2.5, "dental"),
  org("225100000X", 2.5, "therapy", "PHYSICAL THERAPY"),
  org("235Z00000X", 0.6, "therapy", "SPEECH THERAPY"),
  org("225X00000X", 0.4, "therapy", "OCCUPATIONAL THERAPY"),
  org("111N00000X", 2.0, "practice", "CHIROPRACTIC"),
  org("152W00000X", 1.2, "practice", "EYE CARE"),
  org("213E00000X", 0.5, "practice", "FOOT AND ANKLE"),
  org("1041C0700X", 1.5, "mental"),
  org("101YP2500X", 1.5, "mental"),
  org("103T00000X", 0.8, "mental"),
  org("106H00000X", 0.3, "mental"),
  org("103K00000X", 0.6, "mental"),
  org("225700000X", 0.3, "therapy", "MASSAGE THERAPY"),
  org("171100000X", 0.2, "therapy", "ACUPUNCTURE"),
];

/** Taxonomy codes an organization of a kind may list besides its primary. */
export const RELATED_ORG_TAXONOMIES: Readonly<Partial<Record<OrgKind, readonly string[]>>> = {
  pharmacy: ["3336C0003X", "333600000X", "3336L0003X", "3336H0001X", "332B00000X"],
  hospital: ["282N00000X", "273R00000X", "273Y00000X", "275N00000X"],
  homehealth: ["251E00000X", "251G00000X", "253Z00000X"],
  dme: ["332B00000X", "335E00000X", "332BX2000X"],
  clinic: ["261Q00000X", "261QP2300X", "261QM1300X"],
  primary: ["261QP2300X", "261Q00000X", "207Q00000X"],
  mental: ["261QM0801X", "251S00000X", "101YP2500X", "1041C0700X"],
  group: ["193200000X", "193400000X"],
  snf: ["314000000X", "313M00000X"],
  ambulance: ["341600000X", "3416L0300X", "343900000X"],
};
