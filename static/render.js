// Views: result cards, facets, the provider record, and the message states.
import {
  addressLines,
  formatCount,
  formatDate,
  formatPhone,
  h,
  icon,
  ICONS,
  STATE_NAMES,
  titleCase,
} from "./dom.js";

/** The display name and credential of a provider record. */
export function displayName(provider) {
  const person = provider.individual;
  if (person) {
    const parts = [person.first_name, person.middle_name, person.last_name]
      .filter(Boolean).map(titleCase);
    if (person.suffix) parts.push(titleCase(person.suffix));
    const name = parts.join(" ") || titleCase(provider.name);
    return { name, credential: person.credential ?? "" };
  }
  return { name: titleCase(provider.organization?.name ?? provider.name), credential: "" };
}

/** The primary taxonomy (or the first one) of a provider. */
export function primaryTaxonomy(provider) {
  const list = provider.taxonomies ?? [];
  return list.find((t) => t.primary) ?? list[0] ?? null;
}

/** Text for a taxonomy: its description, else its code. */
function taxonomyLabel(taxonomy) {
  return taxonomy ? (taxonomy.description || taxonomy.code) : "";
}

const ENTITY_LABELS = { individual: "Individual", organization: "Organization" };
const SEX_LABELS = { F: "Female", M: "Male" };

/** One result card. `href` opens the record; `onOpen` handles a plain click. */
export function resultCard(provider, { href, onOpen, unit }) {
  const { name, credential } = displayName(provider);
  const location = provider.practice_location;
  const headingId = `card-${provider.npi}`;
  const phone = location?.phone;
  return h(
    "li",
    null,
    h(
      "article",
      { class: "card", "aria-labelledby": headingId },
      h(
        "div",
        { class: "card-head" },
        h(
          "h3",
          { id: headingId, class: "card-title" },
          h("a", {
            href,
            class: "card-link",
            dataset: { npi: provider.npi },
            onclick: (event) => {
              if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
              event.preventDefault();
              onOpen(provider);
            },
          }, name),
          credential ? h("span", { class: "credential" }, credential) : null,
        ),
        typeof provider.distance === "number"
          ? h("span", { class: "distance" }, `${provider.distance.toFixed(1)} ${unit}`)
          : null,
      ),
      h("p", { class: "card-specialty" }, taxonomyLabel(primaryTaxonomy(provider)) || "—"),
      h(
        "div",
        { class: "card-body" },
        location
          ? h(
            "p",
            { class: "card-line" },
            icon(ICONS.pin),
            h(
              "span",
              null,
              addressLines(location).flatMap((line, i) => i ? [h("br"), line] : [line]),
            ),
          )
          : null,
        phone
          ? h(
            "p",
            { class: "card-line" },
            icon(ICONS.phone),
            h("a", { href: `tel:${phone.replace(/\D/g, "")}`, class: "phone" }, formatPhone(phone)),
          )
          : null,
      ),
      h(
        "div",
        { class: "card-foot" },
        h("span", { class: "tag" }, ENTITY_LABELS[provider.entity_type] ?? "Provider"),
        provider.status === "deactivated"
          ? h("span", { class: "tag tag-warn" }, "Deactivated")
          : null,
        h("span", { class: "npi" }, `NPI ${provider.npi}`),
      ),
    ),
  );
}

/** Loading placeholders shaped like cards. */
export function skeletonCards(count = 4) {
  return h(
    "ol",
    { class: "cards", "aria-hidden": "true" },
    Array.from({ length: count }, () =>
      h(
        "li",
        null,
        h(
          "div",
          { class: "card skeleton" },
          h("span", { class: "bone bone-title" }),
          h("span", { class: "bone bone-line" }),
          h("span", { class: "bone bone-short" }),
        ),
      )),
  );
}

const FACET_TITLES = {
  state: "State",
  taxonomy: "Specialty",
  entity_type: "Type",
  sex: "Sex",
  city: "City",
};

/** The label of a facet value. */
export function facetLabel(param, value, names) {
  if (param === "taxonomy") return names.get(value) ?? value;
  if (param === "entity_type") return ENTITY_LABELS[value] ?? value;
  if (param === "sex") return SEX_LABELS[value] ?? value;
  if (param === "state") return STATE_NAMES[value] ? `${STATE_NAMES[value]} (${value})` : value;
  if (param === "city") return titleCase(value);
  return value;
}

/**
 * The facet panel: one group per facet, each value a toggle button.
 * @param {Record<string, {value: string, count: number}[]>} facets
 * @param {{ names: Map<string,string>, isSelected: (p: string, v: string) => boolean,
 *   onPick: (p: string, v: string) => void }} options
 */
export function facetGroups(facets, { names, isSelected, onPick }) {
  const groups = [];
  for (const param of ["taxonomy", "state", "entity_type", "sex", "city"]) {
    const values = facets[param];
    if (!values || values.length === 0) continue;
    const titleId = `facet-${param}`;
    groups.push(h(
      "section",
      { class: "facet-group", "aria-labelledby": titleId },
      h("h3", { id: titleId }, FACET_TITLES[param]),
      h(
        "ul",
        null,
        values.map(({ value, count }) => {
          const selected = isSelected(param, value);
          const label = facetLabel(param, value, names);
          return h(
            "li",
            null,
            h(
              "button",
              {
                type: "button",
                class: "facet",
                "aria-pressed": selected ? "true" : "false",

                dataset: { param, value },
                onclick: () => onPick(param, value),
              },
              h("span", { class: "facet-label", title: label }, label),
              " ",
              h(
                "span",
                { class: "facet-count" },
                formatCount(count),
                h("span", { class: "visually-hidden" }, count === 1 ? " provider" : " providers"),
              ),
            ),
          );
        }),
      ),
    ));
  }
  return groups;
}

function section(title, ...content) {
  const id = `detail-${title.toLowerCase().replace(/[^a-z]+/g, "-")}`;
  return h(
    "section",
    { class: "detail-section", "aria-labelledby": id },
    h("h3", { id }, title),
    ...content,
  );
}

function definitionList(entries) {
  const rows = entries.filter(([, value]) => value !== null && value !== undefined && value !== "");
  return h(
    "dl",
    { class: "facts" },
    rows.map(([term, value]) => [h("dt", null, term), h("dd", null, value)]),
  );
}

function addressBlock(address, { withPhone = true } = {}) {
  if (!address) return h("p", { class: "muted" }, "Not reported");
  const lines = addressLines(address);
  return h(
    "div",
    { class: "address-block" },
    h("address", null, lines.flatMap((line, i) => i ? [h("br"), line] : [line])),
    withPhone && address.phone
      ? h(
        "p",
        { class: "card-line" },
        icon(ICONS.phone),
        h("a", { href: `tel:${address.phone.replace(/\D/g, "")}` }, formatPhone(address.phone)),
        address.phone_extension ? ` ext. ${address.phone_extension}` : null,
      )
      : null,
    address.fax ? h("p", { class: "muted small" }, `Fax ${formatPhone(address.fax)}`) : null,
  );
}

function table(caption, headers, rows) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      null,
      h("caption", { class: "visually-hidden" }, caption),
      h("thead", null, h("tr", null, headers.map((x) => h("th", { scope: "col" }, x)))),
      h(
        "tbody",
        null,
        rows.map((row) => h("tr", null, row.map((cell) => h("td", null, cell ?? "—")))),
      ),
    ),
  );
}

const OTHER_NAME_TYPES = {
  former_name: "Former name",
  professional_name: "Professional name",
  doing_business_as: "Doing business as",
  former_legal_business_name: "Former legal business name",
  other_name: "Other name",
};

/** "medicaid" → "Medicaid", "other_id" → "Other id". */
function sentenceCase(text) {
  const words = String(text ?? "").replaceAll("_", " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function endpointValue(endpoint) {
  const text = endpoint.endpoint;
  if (/^https?:\/\//i.test(text)) {
    return h("a", { href: text, rel: "noopener noreferrer nofollow", class: "break" }, text);
  }
  return h("span", { class: "break" }, text);
}

/**
 * The full record of a provider.
 * @param {any} provider
 * @param {{ back: HTMLElement }} options
 */
export function providerDetail(provider, { back }) {
  const { name, credential } = displayName(provider);
  const primary = primaryTaxonomy(provider);
  const person = provider.individual;
  const org = provider.organization;
  const official = org?.authorized_official;

  const facts = definitionList([
    ["NPI", provider.npi],
    ["Registered name", provider.name],
    ["Type", ENTITY_LABELS[provider.entity_type] ?? "—"],
    ["Status", provider.status === "deactivated" ? "Deactivated" : "Active"],
    ["Sex", person ? SEX_LABELS[person.sex] : null],
    [
      "Sole proprietor",
      person?.sole_proprietor === null || !person ? null : (person.sole_proprietor ? "Yes" : "No"),
    ],
    ["Organization subpart", org?.subpart ? "Yes" : null],
    ["Parent organization", org?.parent_name ? titleCase(org.parent_name) : null],
    ["Enumerated", formatDate(provider.enumeration_date)],
    ["Last updated", formatDate(provider.last_updated)],
    ["Certified", formatDate(provider.certification_date)],
    ["Deactivated", formatDate(provider.deactivation_date)],
    ["Reactivated", formatDate(provider.reactivation_date)],
    ["Replacement NPI", provider.replacement_npi],
  ]);

  const taxonomies = provider.taxonomies ?? [];
  const otherLocations = provider.other_locations ?? [];
  const identifiers = provider.identifiers ?? [];
  const endpoints = provider.endpoints ?? [];
  const otherNames = provider.other_names ?? [];

  return h(
    "article",
    { class: "detail", "aria-labelledby": "detail-title" },
    back,
    h(
      "header",
      { class: "detail-header" },
      h(
        "h2",
        { id: "detail-title", tabindex: "-1" },
        name,
        credential ? h("span", { class: "credential" }, credential) : null,
      ),
      h("p", { class: "detail-specialty" }, taxonomyLabel(primary)),
      h(
        "p",
        { class: "detail-tags" },
        h("span", { class: "tag" }, ENTITY_LABELS[provider.entity_type] ?? "Provider"),
        provider.status === "deactivated"
          ? h(
            "span",
            { class: "tag tag-warn" },
            `Deactivated ${formatDate(provider.deactivation_date)}`,
          )
          : h("span", { class: "tag tag-ok" }, "Active"),
        h("span", { class: "npi" }, `NPI ${provider.npi}`),
      ),
    ),
    h(
      "div",
      { class: "detail-grid" },
      section("Practice location", addressBlock(provider.practice_location)),
      section("Mailing address", addressBlock(provider.mailing_address)),
      section("Record", facts),
      official
        ? section(
          "Authorized official",
          definitionList([
            [
              "Name",
              titleCase(
                [
                  official.prefix,
                  official.first_name,
                  official.middle_name,
                  official.last_name,
                  official.suffix,
                ].filter(Boolean).join(" "),
              ),
            ],
            ["Credential", official.credential],
            ["Title", titleCase(official.title)],
            ["Phone", formatPhone(official.phone)],
          ]),
        )
        : null,
    ),
    section(
      `Specialties (${taxonomies.length})`,
      taxonomies.length === 0 ? h("p", { class: "muted" }, "None reported") : table(
        "Specialties",
        ["Specialty", "Code", "Primary", "License", "State"],
        taxonomies.map((
          t,
        ) => [
          t.description ?? "—",
          h("code", null, t.code),
          t.primary ? "Primary" : "",
          t.license,
          t.state,
        ]),
      ),
    ),
    otherLocations.length > 0
      ? section(
        `Other practice locations (${otherLocations.length})`,
        h(
          "ul",
          { class: "location-list" },
          otherLocations.map((l) => h("li", null, addressBlock(l))),
        ),
      )
      : null,
    otherNames.length > 0
      ? section(
        `Other names (${otherNames.length})`,
        h(
          "ul",
          { class: "plain-list" },
          otherNames.map((n) =>
            h(
              "li",
              null,
              h("span", { class: "muted" }, `${OTHER_NAME_TYPES[n.type] ?? n.type}: `),
              titleCase(n.name),
            )
          ),
        ),
      )
      : null,
    identifiers.length > 0
      ? section(
        `Other identifiers (${identifiers.length})`,
        table(
          "Other identifiers",
          ["Type", "Identifier", "State", "Issuer"],
          identifiers.map((i) => [
            sentenceCase(i.type),
            i.identifier,
            i.state,
            titleCase(i.issuer),
          ]),
        ),
      )
      : null,
    endpoints.length > 0
      ? section(
        `Endpoints (${endpoints.length})`,
        h(
          "ul",
          { class: "plain-list endpoint-list" },
          endpoints.map((e) =>
            h(
              "li",
              null,
              h("strong", null, e.type_description || e.type || "Endpoint"),
              " ",
              endpointValue(e),
              e.description
                ? h("span", { class: "muted small block" }, titleCase(e.description))
                : null,
              e.affiliation_name
                ? h(
                  "span",
                  { class: "muted small block" },
                  `Affiliation: ${titleCase(e.affiliation_name)}`,
                )
                : null,
            )
          ),
        ),
      )
      : null,
  );
}

/**
 * A message panel (welcome, empty, error, loading...).
 * @param {{ kind: string, title: string, body?: unknown[], role?: string, actions?: unknown[] }} options
 */
export function messagePanel({ kind, title, body = [], role, actions = [] }) {
  return h(
    "div",
    { class: `message message-${kind}`, role },
    h("div", { class: "message-icon" }, icon(kind === "error" ? ICONS.alert : ICONS.info)),
    h(
      "div",
      { class: "message-text" },
      h("h2", { class: "message-title", tabindex: "-1" }, title),
      ...body,
      actions.length > 0 ? h("p", { class: "message-actions" }, actions) : null,
    ),
  );
}
