// DOM and formatting helpers. Text is always set as text (never parsed as HTML).

/**
 * Creates an element: `h("a", { href: "/", class: "x" }, "text", child)`.
 * Props starting with `on` add listeners; `true` sets a boolean attribute;
 * `false`, `null` and `undefined` are skipped. Children may be nested arrays.
 * @param {string} tag
 * @param {Record<string, unknown> | null} [props]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

/** Creates an SVG icon from a path. */
export function icon(path, className = "icon") {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", className);
  const p = document.createElementNS(ns, "path");
  p.setAttribute("d", path);
  svg.append(p);
  return svg;
}

/** Icon paths (20×20). */
export const ICONS = {
  pin:
    "M10 1.5a6 6 0 0 1 6 6c0 4.2-5 10-5.6 10.7a.5.5 0 0 1-.8 0C9 17.5 4 11.7 4 7.5a6 6 0 0 1 6-6zm0 3.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z",
  phone:
    "M6.6 2.2 8.4 5.8a1 1 0 0 1-.2 1.2L7 8.1a9.6 9.6 0 0 0 4.9 4.9l1.1-1.2a1 1 0 0 1 1.2-.2l3.6 1.8a1 1 0 0 1 .5 1.2l-.6 2a2 2 0 0 1-2 1.4C8.9 17.6 2.4 11.1 2 4.3a2 2 0 0 1 1.4-2l2-.6a1 1 0 0 1 1.2.5z",
  arrowLeft: "M8.3 4.3 9.7 5.7 6.4 9H17v2H6.4l3.3 3.3-1.4 1.4L2.6 10z",
  close: "M5.4 4 10 8.6 14.6 4 16 5.4 11.4 10l4.6 4.6-1.4 1.4-4.6-4.6L5.4 16 4 14.6 8.6 10 4 5.4z",
  info:
    "M10 2a8 8 0 1 1 0 16 8 8 0 0 1 0-16zm-.9 7v6h1.8V9zm.9-3.5a1.1 1.1 0 1 0 0 2.2 1.1 1.1 0 0 0 0-2.2z",
  alert:
    "M10 2a8 8 0 1 1 0 16 8 8 0 0 1 0-16zm-.9 3.5v6h1.8v-6zm.9 7.5a1.1 1.1 0 1 0 0 2.2 1.1 1.1 0 0 0 0-2.2z",
};

/** Appends children (strings, nodes, nested arrays; null/false skipped). */
export function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

const KEEP_UPPER = new Set([
  "LLC",
  "PLLC",
  "LLP",
  "LP",
  "PC",
  "PA",
  "PS",
  "SC",
  "MD",
  "DO",
  "DDS",
  "DMD",
  "OD",
  "DPM",
  "NP",
  "PT",
  "OT",
  "RN",
  "LPN",
  "PHD",
  "USA",
  "US",
  "II",
  "III",
  "IV",
  "NE",
  "NW",
  "SE",
  "SW",
  "PO",
  "HMO",
  "PPO",
  "ACO",
  "DME",
  "ENT",
  "ICU",
  "CVS",
  "YMCA",
  "HCA",
  "UPMC",
  "NYU",
  "UCLA",
  "MRI",
  "RX",
  "LCSW",
  "CRNA",
  "FNP",
  "APRN",
  "PSYD",
  "DC",
  "DPT",
  "PAC",
  "CNM",
  "AUD",
]);
const LOWER = new Set(["of", "and", "the", "for", "at", "in", "on", "de", "la", "del"]);

/**
 * Title-cases an all-caps registry value ("NEW YORK" → "New York"), keeping
 * acronyms and business suffixes ("LLC", "PLLC", "NE") in capitals. Values
 * already in mixed case are left as they are.
 * @param {string | null | undefined} text
 */
export function titleCase(text) {
  if (!text) return "";
  if (text !== text.toUpperCase()) return text;
  let first = true;
  return text.replace(/[A-Z0-9'’.&]+/g, (word) => {
    const bare = word.replace(/[.,]/g, "");
    const isFirst = first;
    first = false;
    if (KEEP_UPPER.has(bare)) return word;
    if (/^\d+(ST|ND|RD|TH)$/.test(word)) return word.toLowerCase();
    if (/\d/.test(word)) return word;
    const lower = word.toLowerCase();
    if (!isFirst && LOWER.has(lower)) return lower;
    return lower.replace(/^[a-z]/, (c) => c.toUpperCase())
      .replace(/^([A-Z]['’])([a-z])/, (_, p, c) => p + c.toUpperCase())
      .replace(/^(Mc)([a-z])/, (_, p, c) => p + c.toUpperCase());
  });
}

/** Formats a 10-digit US phone number as (555) 123-4567. */
export function formatPhone(phone) {
  if (!phone) return "";
  const digits = phone.replace(/\D/g, "");
  if (digits.length === 10) {
    return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
  }
  return phone;
}

/** Formats a ZIP+4 as 12345-6789. */
export function formatZip(zip) {
  if (!zip) return "";
  return /^\d{9}$/.test(zip) ? `${zip.slice(0, 5)}-${zip.slice(5)}` : zip;
}

const DATE_FORMAT = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "short",
  day: "numeric",
  timeZone: "UTC",
});

/** Formats an ISO date (or date-time) as "Aug 31, 2007". */
export function formatDate(iso) {
  if (!iso) return "";
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_FORMAT.format(date);
}

const NUMBER_FORMAT = new Intl.NumberFormat("en-US");

/** Formats a count with thousands separators. */
export function formatCount(n) {
  return NUMBER_FORMAT.format(n);
}

/** "1 provider" / "2 providers". */
export function plural(n, one, many = `${one}s`) {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** Address lines of a location: ["6410 Rockledge Dr Ste 304", "Bethesda, MD 20817-1841"]. */
export function addressLines(address) {
  if (!address) return [];
  const street = [address.line1, address.line2].filter(Boolean).map(titleCase).join(", ");
  const cityState = [titleCase(address.city), address.state].filter(Boolean).join(", ");
  const last = [cityState, formatZip(address.postal_code)].filter(Boolean).join(" ");
  const lines = [street, last].filter(Boolean);
  if (address.country_code && address.country_code !== "US") lines.push(address.country_code);
  return lines;
}

/** US states and territories by USPS code. */
export const STATE_NAMES = {
  AL: "Alabama",
  AK: "Alaska",
  AZ: "Arizona",
  AR: "Arkansas",
  CA: "California",
  CO: "Colorado",
  CT: "Connecticut",
  DE: "Delaware",
  DC: "District of Columbia",
  FL: "Florida",
  GA: "Georgia",
  HI: "Hawaii",
  ID: "Idaho",
  IL: "Illinois",
  IN: "Indiana",
  IA: "Iowa",
  KS: "Kansas",
  KY: "Kentucky",
  LA: "Louisiana",
  ME: "Maine",
  MD: "Maryland",
  MA: "Massachusetts",
  MI: "Michigan",
  MN: "Minnesota",
  MS: "Mississippi",
  MO: "Missouri",
  MT: "Montana",
  NE: "Nebraska",
  NV: "Nevada",
  NH: "New Hampshire",
  NJ: "New Jersey",
  NM: "New Mexico",
  NY: "New York",
  NC: "North Carolina",
  ND: "North Dakota",
  OH: "Ohio",
  OK: "Oklahoma",
  OR: "Oregon",
  PA: "Pennsylvania",
  RI: "Rhode Island",
  SC: "South Carolina",
  SD: "South Dakota",
  TN: "Tennessee",
  TX: "Texas",
  UT: "Utah",
  VT: "Vermont",
  VA: "Virginia",
  WA: "Washington",
  WV: "West Virginia",
  WI: "Wisconsin",
  WY: "Wyoming",
  PR: "Puerto Rico",
  VI: "Virgin Islands",
  GU: "Guam",
  AS: "American Samoa",
  MP: "Northern Mariana Islands",
  AA: "Armed Forces Americas",
  AE: "Armed Forces Europe",
  AP: "Armed Forces Pacific",
  FM: "Micronesia",
  MH: "Marshall Islands",
  PW: "Palau",
  ZZ: "Outside the US",
};
