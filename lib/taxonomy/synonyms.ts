/**
 * How people name the kind of provider they look for, mapped to NUCC
 * taxonomy codes. The resolver in `resolve.ts` folds case, punctuation,
 * plurals and the -ist/-ology/-ician word forms, so each way of saying a
 * thing is listed once ("cardiologists" and "cardiology" both find
 * "cardiologist"). NUCC's own names (classifications, specializations,
 * display names) are matched separately and need no entry here.
 *
 * @module
 */

/**
 * One way of naming a specialty, with the codes it stands for.
 *
 * @example
 * ```ts
 * const dentist: SpecialtySynonym = { terms: ["dentist", "tooth doctor"], codes: ["1223"] };
 * ```
 */
export interface SpecialtySynonym {
  /** Phrases people use, lower case; the first is the label reported back. */
  readonly terms: readonly string[];
  /**
   * NUCC codes (10 characters) or code prefixes (2 to 9 characters), a
   * prefix standing for every code that starts with it: `1223` is every
   * dentist, `207RC0000X` is cardiovascular disease alone.
   */
  readonly codes: readonly string[];
}

const CARDIOLOGY = [
  "207RC0000X", // cardiovascular disease
  "207RC0001X", // clinical cardiac electrophysiology
  "207RI0011X", // interventional cardiology
  "207RA0001X", // advanced heart failure and transplant cardiology
  "207RA0002X", // adult congenital heart disease
  "207UN0901X", // nuclear cardiology
  "2080P0202X", // pediatric cardiology
];

const PSYCHIATRY = [
  "2084P0800X", // psychiatry
  "2084P0802X", // addiction psychiatry
  "2084P0804X", // child & adolescent psychiatry
  "2084P0805X", // geriatric psychiatry
  "2084F0202X", // forensic psychiatry
  "2084P0015X", // psychosomatic medicine
  "2084B0040X", // behavioral neurology & neuropsychiatry
];

const HOSPICE_PHYSICIANS = [
  "207LH0002X",
  "207PH0002X",
  "207QH0002X",
  "207RH0002X",
  "207VH0002X",
  "2080H0002X",
  "2081H0002X",
  "2084H0002X",
  "2085H0002X",
  "2086H0002X",
];

const ADDICTION = [
  "101YA0400X",
  "103TA0400X",
  "163WA0400X",
  "207LA0401X",
  "207QA0401X",
  "207RA0401X",
  "2083A0300X",
  "2084A0401X",
  "2084P0802X",
  "261QR0405X",
  "261QM2800X",
  "276400000X",
  "324500000X",
  "3245S0500X",
];

const OBESITY = [
  "207QB0002X",
  "207RB0002X",
  "207VB0002X",
  "2080B0002X",
  "2083B0002X",
  "2084B0002X",
  "133VN1201X",
];

const SLEEP = [
  "207QS1201X",
  "207RS0012X",
  "207YS0012X",
  "2080S0012X",
  "2084S0012X",
  "173F00000X",
  "261QS1200X",
];

const PAIN = [
  "208VP0000X",
  "208VP0014X",
  "207LP2900X",
  "2081P2900X",
  "2084P2900X",
  "261QP3300X",
];

/**
 * The synonym list: everyday words, abbreviations and slang for
 * specialties, each with the NUCC codes or code prefixes it means.
 *
 * @example
 * ```ts
 * const heart = SPECIALTY_SYNONYMS.find((s) => s.terms.includes("heart doctor"));
 * heart?.codes.includes("207RC0000X"); // true
 * ```
 */
export const SPECIALTY_SYNONYMS: readonly SpecialtySynonym[] = [
  // Physicians, by organ or field.
  {
    terms: [
      "cardiologist",
      "heart doctor",
      "heart specialist",
      "heart",
      "cardiac",
      "cardiovascular",
    ],
    codes: CARDIOLOGY,
  },
  {
    terms: [
      "pediatrician",
      "kids doctor",
      "children's doctor",
      "child doctor",
      "baby doctor",
      "peds",
    ],
    codes: ["2080"],
  },
  {
    terms: [
      "primary care",
      "family doctor",
      "family physician",
      "family practice",
      "gp",
      "general practitioner",
      "pcp",
      "primary care doctor",
      "primary care provider",
      "general doctor",
      "regular doctor",
    ],
    codes: ["207Q", "207R00000X", "208D00000X", "363LF0000X", "363LP2300X", "261QP2300X"],
  },
  { terms: ["internist", "internal medicine doctor"], codes: ["207R00000X"] },
  {
    terms: ["dermatologist", "skin doctor", "skin specialist", "skin"],
    codes: ["207N"],
  },
  {
    terms: [
      "ob-gyn",
      "obgyn",
      "obstetrician gynecologist",
      "women's doctor",
      "lady doctor",
      "womens health",
    ],
    codes: ["207V", "363LW0102X", "363LX0001X"],
  },
  {
    terms: ["obstetrician", "ob", "pregnancy doctor", "prenatal care"],
    codes: ["207V00000X", "207VX0000X", "207VM0101X"],
  },
  { terms: ["gynecologist", "gyn"], codes: ["207V00000X", "207VG0400X"] },
  {
    terms: ["high risk pregnancy", "perinatologist"],
    codes: ["207VM0101X"],
  },
  {
    terms: ["fertility doctor", "fertility", "infertility", "ivf"],
    codes: ["207VE0102X", "261QA0006X", "163WR1000X"],
  },
  {
    terms: ["ophthalmologist", "eye surgeon"],
    codes: ["207W"],
  },
  {
    terms: ["eye doctor", "eye care", "eye", "vision", "eye exam"],
    codes: ["207W", "152W"],
  },
  { terms: ["optometrist", "od"], codes: ["152W"] },
  { terms: ["optician", "glasses", "eyeglasses"], codes: ["156FX1800X", "332H00000X"] },
  {
    terms: ["contact lenses", "contacts"],
    codes: ["152WC0802X", "156FC0800X", "156FC0801X"],
  },
  {
    terms: ["ent", "ear nose and throat", "ear nose throat", "ear doctor", "otolaryngologist"],
    codes: ["207Y"],
  },
  {
    terms: ["allergist", "allergy doctor", "immunologist", "asthma doctor"],
    codes: ["207K", "207RA0201X", "2080P0201X", "207YX0602X"],
  },
  {
    terms: ["oncologist", "cancer doctor", "cancer specialist", "cancer", "oncology"],
    codes: ["207RX0202X", "207RH0003X", "2080P0207X", "207VX0201X", "2086X0206X", "2085R0001X"],
  },
  {
    terms: ["hematologist", "blood doctor"],
    codes: ["207RH0000X", "207RH0003X", "2080P0207X"],
  },
  {
    terms: ["neurologist", "nerve doctor", "brain doctor", "neurology"],
    codes: ["2084N0400X", "2084N0402X", "2084V0102X", "2084N0600X", "2084B0040X", "2084N0008X"],
  },
  {
    terms: ["neurosurgeon", "brain surgeon"],
    codes: ["207T00000X"],
  },
  {
    terms: ["spine surgeon", "back surgeon", "spine doctor", "back doctor"],
    codes: ["207T00000X", "207XS0117X"],
  },
  {
    terms: ["surgeon", "general surgeon", "general surgery"],
    codes: ["2086"],
  },
  {
    terms: ["orthopedist", "bone doctor", "orthopedic surgeon", "orthopedics", "ortho"],
    codes: ["207X"],
  },
  {
    terms: ["plastic surgeon", "cosmetic surgeon", "cosmetic surgery"],
    codes: ["2082", "2086S0122X", "207YS0123X"],
  },
  {
    terms: ["heart surgeon", "cardiac surgeon", "cardiothoracic surgeon", "thoracic surgeon"],
    codes: ["208G00000X"],
  },
  {
    terms: ["colorectal surgeon", "proctologist", "colon doctor"],
    codes: ["208C00000X"],
  },
  {
    terms: ["vein doctor", "vein specialist", "phlebologist"],
    codes: ["202K00000X", "2086S0129X"],
  },
  { terms: ["urologist", "urology"], codes: ["2088"] },
  {
    terms: ["gastroenterologist", "gi", "gi doctor", "stomach doctor", "digestive", "gastro"],
    codes: ["207RG0100X", "2080P0206X"],
  },
  {
    terms: ["hepatologist", "liver doctor", "liver specialist"],
    codes: ["207RI0008X", "207RT0003X", "2080T0004X"],
  },
  {
    terms: [
      "endocrinologist",
      "diabetes doctor",
      "thyroid doctor",
      "hormone doctor",
      "endocrinology",
      "diabetes",
    ],
    codes: ["207RE0101X", "2080P0205X"],
  },
  {
    terms: ["rheumatologist", "arthritis doctor", "lupus doctor"],
    codes: ["207RR0500X", "2080P0216X"],
  },
  {
    terms: ["nephrologist", "kidney doctor", "kidney specialist"],
    codes: ["207RN0300X", "2080P0210X"],
  },
  {
    terms: ["pulmonologist", "lung doctor", "lung specialist", "pulmonology", "breathing doctor"],
    codes: ["207RP1001X", "2080P0214X"],
  },
  {
    terms: ["infectious disease doctor", "id doctor", "infection doctor"],
    codes: ["207RI0200X", "2080P0208X"],
  },
  { terms: ["radiologist", "radiology"], codes: ["2085"] },
  {
    terms: ["anesthesiologist", "anesthesia", "anesthesia doctor"],
    codes: ["207L", "1223D0004X"],
  },
  {
    terms: ["nurse anesthetist", "crna"],
    codes: ["367500000X"],
  },
  { terms: ["pathologist"], codes: ["207Z"] },
  {
    terms: ["geneticist", "genetics", "genetic testing"],
    codes: ["207S", "170100000X", "170300000X", "261QG0250X"],
  },
  { terms: ["genetic counselor"], codes: ["170300000X"] },
  {
    terms: ["geriatrician", "elderly care", "senior care", "aging"],
    codes: ["207QG0300X", "207RG0300X", "2084P0805X", "363LG0600X"],
  },
  {
    terms: ["neonatologist", "newborn doctor", "nicu doctor"],
    codes: ["2080N0001X"],
  },
  {
    terms: ["emergency room", "er", "emergency", "er doctor", "emergency doctor"],
    codes: ["207P", "261QE0002X", "282N00000X"],
  },
  {
    terms: ["urgent care", "walk in clinic", "walk in", "immediate care"],
    codes: ["261QU0200X"],
  },
  {
    terms: ["physiatrist", "pm&r", "pmr", "rehab doctor"],
    codes: ["2081"],
  },
  {
    terms: ["sports doctor", "sports medicine doctor"],
    codes: [
      "207QS0010X",
      "207RS0010X",
      "207PS0010X",
      "2081S0010X",
      "2083S0010X",
      "2084S0010X",
      "207XX0005X",
      "204C00000X",
      "2080S0010X",
    ],
  },
  {
    terms: ["pain doctor", "pain management", "pain specialist", "pain clinic", "pain"],
    codes: PAIN,
  },
  {
    terms: ["sleep doctor", "sleep specialist", "sleep clinic", "sleep study", "sleep apnea"],
    codes: SLEEP,
  },
  {
    terms: ["weight loss doctor", "weight loss", "bariatric", "obesity doctor"],
    codes: OBESITY,
  },
  {
    terms: ["hospice", "hospice care", "palliative care", "end of life care"],
    codes: ["251G00000X", "315D00000X", "163WH1000X", ...HOSPICE_PHYSICIANS],
  },
  {
    terms: ["addiction", "substance abuse", "drug rehab", "alcohol treatment", "addiction doctor"],
    codes: ADDICTION,
  },
  { terms: ["methadone clinic", "methadone"], codes: ["261QM2800X"] },
  {
    terms: ["occupational medicine doctor", "work injury doctor", "workers comp doctor"],
    codes: ["2083X0100X", "261QX0100X"],
  },
  { terms: ["integrative medicine", "holistic doctor"], codes: ["202D00000X"] },

  // Mental health.
  {
    terms: ["psychiatrist", "psychiatry"],
    codes: PSYCHIATRY,
  },
  {
    terms: ["child psychiatrist", "kids psychiatrist", "adolescent psychiatrist"],
    codes: ["2084P0804X"],
  },
  {
    terms: ["shrink", "mental health", "mental health provider", "behavioral health"],
    codes: [
      ...PSYCHIATRY,
      "103T",
      "101YM0800X",
      "101YP2500X",
      "1041C0700X",
      "106H00000X",
      "363LP0808X",
      "261QM0801X",
    ],
  },
  {
    terms: ["psychologist", "psychology"],
    codes: ["103T", "103G00000X"],
  },
  {
    terms: ["therapist", "psychotherapist", "talk therapy", "psychotherapy"],
    codes: ["101YM0800X", "101YP2500X", "103T00000X", "103TC0700X", "1041C0700X", "106H00000X"],
  },
  {
    terms: ["counselor", "counseling", "counsellor", "lpc", "lmhc"],
    codes: ["101Y"],
  },
  {
    terms: ["marriage counselor", "family therapist", "couples therapist", "lmft", "mft"],
    codes: ["106H00000X"],
  },
  {
    terms: ["social worker", "lcsw", "msw"],
    codes: ["1041"],
  },
  {
    terms: ["psychiatric nurse practitioner", "pmhnp", "psych np"],
    codes: ["363LP0808X"],
  },
  {
    terms: ["behavior analyst", "bcba", "aba therapy", "aba", "autism therapy"],
    codes: ["103K00000X", "106E00000X", "106S00000X"],
  },
  { terms: ["peer support", "peer specialist"], codes: ["175T00000X"] },

  // Dental.
  {
    terms: ["dentist", "dental", "teeth", "tooth doctor", "dentistry", "dental care"],
    codes: ["1223"],
  },
  { terms: ["orthodontist", "braces", "orthodontics"], codes: ["1223X0400X"] },
  { terms: ["periodontist", "gum doctor", "gum specialist"], codes: ["1223P0300X"] },
  { terms: ["endodontist", "root canal"], codes: ["1223E0200X"] },
  {
    terms: ["oral surgeon", "wisdom teeth", "oral surgery", "maxillofacial surgeon"],
    codes: ["1223S0112X", "204E00000X"],
  },
  {
    terms: ["kids dentist", "children's dentist", "pediatric dentist", "pedodontist"],
    codes: ["1223P0221X"],
  },
  {
    terms: ["prosthodontist", "dentures", "denture", "denturist"],
    codes: ["1223P0700X", "122400000X"],
  },
  { terms: ["dental hygienist", "teeth cleaning", "hygienist"], codes: ["124Q00000X"] },

  // Nursing and advanced practice.
  {
    terms: ["nurse practitioner", "np", "aprn", "arnp"],
    codes: ["363L"],
  },
  { terms: ["family nurse practitioner", "fnp"], codes: ["363LF0000X"] },
  {
    terms: ["nurse", "rn", "registered nurse"],
    codes: ["163W"],
  },
  {
    terms: ["lpn", "lvn", "practical nurse", "vocational nurse"],
    codes: ["164W00000X", "164X00000X"],
  },
  { terms: ["physician assistant", "pa", "pa-c", "physician associate"], codes: ["363A"] },
  {
    terms: ["clinical nurse specialist", "cns"],
    codes: ["364S"],
  },
  {
    terms: ["midwife", "midwives", "midwifery", "nurse midwife", "cnm", "birth center"],
    codes: ["367A00000X", "176B00000X", "175M00000X", "261QB0400X"],
  },
  { terms: ["doula", "birth doula"], codes: ["374J00000X"] },
  {
    terms: ["lactation consultant", "breastfeeding", "ibclc"],
    codes: ["174N00000X", "163WL0100X"],
  },

  // Feet, joints, muscles and rehabilitation.
  {
    terms: ["podiatrist", "foot doctor", "foot specialist", "foot and ankle", "feet"],
    codes: ["213E"],
  },
  { terms: ["chiropractor", "chiro", "chiropractic", "back cracker"], codes: ["111N"] },
  {
    terms: ["physical therapist", "pt", "physiotherapist", "physio", "dpt"],
    codes: ["2251", "225200000X", "261QP2000X"],
  },
  { terms: ["occupational therapist", "ot", "otr"], codes: ["225X", "224Z"] },
  {
    terms: ["speech therapist", "speech pathologist", "slp", "speech therapy"],
    codes: ["235Z00000X", "2355S0801X"],
  },
  {
    terms: ["audiologist", "hearing doctor", "hearing test", "hearing"],
    codes: ["231H", "237600000X", "2355A2700X"],
  },
  {
    terms: ["hearing aids", "hearing aid"],
    codes: ["237600000X", "237700000X", "332S00000X"],
  },
  {
    terms: ["respiratory therapist", "rt"],
    codes: ["2278", "2279"],
  },
  { terms: ["massage therapist", "massage", "lmt"], codes: ["225700000X", "163WM1400X"] },
  { terms: ["athletic trainer"], codes: ["2255A2300X"] },
  {
    terms: ["prosthetics", "orthotics", "prosthetist", "orthotist", "artificial limb"],
    codes: ["224P00000X", "222Z00000X", "335E00000X"],
  },

  // Other practitioners.
  {
    terms: ["dietitian", "dietician", "nutritionist", "nutrition", "diet"],
    codes: ["133V", "133N"],
  },
  { terms: ["acupuncturist", "acupuncture"], codes: ["171100000X"] },
  { terms: ["naturopath", "naturopathic doctor", "nd"], codes: ["175F00000X"] },
  { terms: ["homeopath", "homeopathy"], codes: ["175L00000X"] },
  { terms: ["veterinarian", "vet", "animal doctor"], codes: ["174M"] },
  { terms: ["health coach", "wellness coach"], codes: ["171400000X"] },
  { terms: ["interpreter", "translator"], codes: ["171R00000X"] },
  {
    terms: ["case manager", "care coordinator", "care manager"],
    codes: ["171M00000X", "251B00000X"],
  },
  { terms: ["community health worker", "chw", "promotora"], codes: ["172V00000X"] },
  {
    terms: ["paramedic", "emt", "emergency medical technician"],
    codes: ["146L00000X", "146M00000X", "146N00000X"],
  },
  { terms: ["phlebotomist", "blood draw"], codes: ["246RP1900X"] },

  // Pharmacies and suppliers.
  {
    terms: ["pharmacy", "pharmacist", "drugstore", "drug store", "chemist", "prescriptions"],
    codes: ["3336", "332000000X", "332100000X", "332800000X", "1835"],
  },
  {
    terms: ["medical equipment", "dme", "durable medical equipment", "wheelchair", "oxygen"],
    codes: ["332B"],
  },

  // Facilities and organizations.
  { terms: ["hospital", "medical center"], codes: ["28"] },
  { terms: ["children's hospital", "kids hospital"], codes: ["282NC2000X", "283XC2000X"] },
  { terms: ["psych hospital", "mental hospital"], codes: ["283Q00000X", "273R00000X"] },
  {
    terms: ["rehab", "rehabilitation", "rehab center", "rehab hospital"],
    codes: ["283X00000X", "283XC2000X", "273Y00000X", "261QR0400X", "261QR0401X"],
  },
  { terms: ["clinic", "health center"], codes: ["261Q"] },
  {
    terms: ["community health center", "fqhc", "free clinic", "sliding scale clinic"],
    codes: ["261QF0400X", "261QC1500X"],
  },
  {
    terms: ["surgery center", "surgical center", "asc", "outpatient surgery"],
    codes: ["261QA1903X"],
  },
  {
    terms: ["imaging center", "x-ray", "imaging", "mri", "ct scan"],
    codes: ["261QR0200X", "261QM1200X", "261QR0208X", "335V00000X"],
  },
  {
    terms: ["mammogram", "mammography", "breast imaging"],
    codes: ["261QR0206X", "261QR0207X", "2471M2300X"],
  },
  {
    terms: ["dialysis", "dialysis center", "kidney dialysis"],
    codes: ["261QE0700X", "2472R0900X", "163WH0500X", "163WD1100X"],
  },
  {
    terms: ["lab", "laboratory", "blood test", "lab test", "medical lab"],
    codes: ["291U00000X", "291900000X", "293D00000X"],
  },
  {
    terms: ["nursing home", "skilled nursing", "snf", "long term care"],
    codes: ["314000000X", "3140N1450X", "313M00000X", "282E00000X"],
  },
  { terms: ["assisted living", "senior living"], codes: ["3104"] },
  {
    terms: ["memory care", "dementia care", "alzheimer's care"],
    codes: ["311500000X"],
  },
  {
    terms: ["home health", "home care", "home health care", "home nurse", "visiting nurse"],
    codes: ["251E00000X", "163WH0200X", "364SH0200X", "374U00000X"],
  },
  {
    terms: ["home health aide", "caregiver", "personal care aide", "cna", "nurse aide"],
    codes: ["374U00000X", "3747A0650X", "3747P1801X", "376K00000X"],
  },
  { terms: ["home infusion", "infusion"], codes: ["251F00000X", "261QI0500X", "3336H0001X"] },
  {
    terms: ["ambulance", "ems", "ambulance service"],
    codes: ["3416", "3418"],
  },
  {
    terms: ["medical transport", "nemt", "medical transportation", "wheelchair van"],
    codes: ["343900000X", "343800000X", "347E00000X"],
  },
  { terms: ["respite care", "respite"], codes: ["385H"] },
  { terms: ["hmo"], codes: ["302R00000X"] },
  { terms: ["ppo"], codes: ["305R00000X"] },
  { terms: ["group practice", "multispecialty group", "medical group"], codes: ["193200000X"] },
];
