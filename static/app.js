// Find a provider: the page's controller. The URL is the state: its query
// string mirrors the parameters of /v1/providers/search (plus `provider` for
// an open record), history.state keeps the stack of previous page cursors.
import { ApiError, getJson, isAbort, NetworkError } from "./api.js";
import { combobox } from "./combobox.js";
import { formatCount, formatDate, h, icon, ICONS, plural, replace, STATE_NAMES } from "./dom.js";
import {
  displayName,
  facetGroups,
  facetLabel,
  messagePanel,
  primaryTaxonomy,
  providerDetail,
  resultCard,
  skeletonCards,
} from "./render.js";

const FACETS = "state,taxonomy,entity_type,sex";
/** Parameters shown as removable chips, with their titles. */
const CHIP_PARAMS = {
  specialty: "Specialty",
  taxonomy: "Specialty",
  state: "State",
  city: "City",
  postal_code: "ZIP",
  entity_type: "Type",
  sex: "Sex",
  first_name: "First name",
  last_name: "Last name",
  organization_name: "Organization",
  npi: "NPI",
  include_deactivated: "Include deactivated",
};
/** Which form field shows the errors of a parameter. */
const FIELD_OF = {
  q: "q",
  specialty: "specialty",
  taxonomy: "specialty",
  near: "near",
  radius: "radius",
  unit: "radius",
  entity_type: "entity_type",
  sex: "sex",
  sort: "sort",
};

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const form = /** @type {HTMLFormElement} */ ($("search-form"));
const fields = {
  q: /** @type {HTMLInputElement} */ ($("q")),
  specialty: /** @type {HTMLInputElement} */ ($("specialty")),
  near: /** @type {HTMLInputElement} */ ($("near")),
  radius: /** @type {HTMLSelectElement} */ ($("radius")),
  entity_type: /** @type {HTMLSelectElement} */ ($("entity_type")),
  sex: /** @type {HTMLSelectElement} */ ($("sex")),
  sort: /** @type {HTMLSelectElement} */ ($("sort")),
};
const view = $("view");
const facetsEl = $("facets");
const chipsEl = $("active-filters");
const statusEl = $("status");
const banner = $("dataset-banner");
const locateButton = /** @type {HTMLButtonElement} */ ($("locate"));
const nearHint = $("near-hint");

/** Taxonomy code → name, learned from results, suggestions and the full list. */
const names = new Map();
/** Recent search responses by API query string (back/forward are instant). */
const cache = new Map();
const CACHE_SIZE = 30;

let renderSeq = 0;
/** @type {AbortController | null} */
let inflight = null;
let retryTimer = 0;
/** What to focus after the next render. */
let pendingFocus = "none";
/** The record shown before the current view, to return focus to its card. */
let lastProvider = null;
/** @type {any} */
let dataset = null;

// ---------------------------------------------------------------- URL state

function current() {
  const params = new URLSearchParams(location.search);
  const provider = params.get("provider");
  params.delete("provider");
  const state = history.state ?? {};
  const stack = Array.isArray(state.stack) ? state.stack.filter((c) => typeof c === "string") : [];
  return { params, provider, stack };
}

function urlFor(params, provider) {
  const query = new URLSearchParams(params);
  if (provider) query.set("provider", provider);
  const text = query.toString();
  return text ? `/?${text}` : "/";
}

/**
 * Goes to a new search (or record): pushes a history entry and renders it.
 * @param {URLSearchParams} params
 * @param {{ provider?: string | null, stack?: string[], focus?: string, replace?: boolean }} [options]
 */
function navigate(params, options = {}) {
  const { provider = null, stack = [], focus = "none", replace: replaceEntry = false } = options;
  history.replaceState({ ...(history.state ?? {}), scrollY: globalThis.scrollY }, "");
  const url = urlFor(params, provider);
  // A record opened from a results page: its back link can use history.back().
  const fromResults = Boolean(provider) && !current().provider &&
    view.querySelector(".cards") !== null;
  const state = { stack, scrollY: 0, fromResults };
  if (replaceEntry || url === location.pathname + location.search) {
    history.replaceState(state, "", url);
  } else {
    history.pushState(state, "", url);
  }
  pendingFocus = focus;
  render("navigate");
}

function searchHref(params) {
  return urlFor(params, null);
}

// ------------------------------------------------------------------ rendering

function announce(text) {
  statusEl.textContent = "";
  // A fresh text node makes screen readers repeat identical announcements.
  requestAnimationFrame(() => statusEl.textContent = text);
}

function setBusy(busy) {
  view.setAttribute("aria-busy", busy ? "true" : "false");
  document.body.classList.toggle("is-loading", busy);
}

function clearFieldErrors() {
  for (const id of Object.keys(fields)) {
    const error = $(`${id}-error`);
    error.hidden = true;
    error.textContent = "";
    fields[id].removeAttribute("aria-invalid");
  }
}

function showFieldError(id, message) {
  const error = $(`${id}-error`);
  if (!error) return;
  error.textContent = error.textContent ? `${error.textContent} ${message}` : message;
  error.hidden = false;
  fields[id]?.setAttribute("aria-invalid", "true");
  if (id !== "q") setFiltersOpen(true);
}

/** Shows or hides the filters (a toggle on narrow screens only). */
function setFiltersOpen(open) {
  form.classList.toggle("filters-open", open);
  $("filters-toggle").setAttribute("aria-expanded", String(open));
}

function specialtyLabel(taxonomy) {
  return taxonomy.split(",").map((code) => names.get(code) ?? code).join(", ");
}

/** Puts the URL's values into the form. */
function syncForm(params) {
  fields.q.value = params.get("q") ?? "";
  const specialty = params.get("specialty");
  const taxonomy = params.get("taxonomy");
  if (specialty) {
    fields.specialty.value = specialty;
    delete fields.specialty.dataset.taxonomy;
  } else if (taxonomy) {
    fields.specialty.value = specialtyLabel(taxonomy);
    fields.specialty.dataset.taxonomy = taxonomy;
    fields.specialty.dataset.label = fields.specialty.value;
  } else {
    fields.specialty.value = "";
    delete fields.specialty.dataset.taxonomy;
  }
  fields.near.value = params.get("near") ?? "";
  const radius = params.get("radius") ?? "25";
  if (![...fields.radius.options].some((o) => o.value === radius)) {
    fields.radius.append(h("option", { value: radius }, `${radius} miles`));
  }
  fields.radius.value = radius;
  const entity = (params.get("entity_type") ?? "").toLowerCase();
  fields.entity_type.value = entity === "npi-1"
    ? "individual"
    : entity === "npi-2"
    ? "organization"
    : entity;
  fields.sex.value = (params.get("sex") ?? "").toUpperCase();
  if (fields.entity_type.selectedIndex < 0) fields.entity_type.value = "";
  if (fields.sex.selectedIndex < 0) fields.sex.value = "";
  const active =
    [fields.specialty.value, fields.near.value, fields.entity_type.value, fields.sex.value]
      .filter(Boolean).length;
  $("filters-toggle").lastElementChild.textContent = active ? `Filters (${active})` : "Filters";
  updateDependentControls();
  // The select shows the sort in effect; only a sort the user picked goes into the URL.
  fields.sort.dataset.explicit = params.has("sort") ? "true" : "false";
  fields.sort.value = params.get("sort") ?? defaultSort(fields.q.value, fields.near.value);
  if (fields.sort.selectedIndex < 0) {
    fields.sort.value = defaultSort(fields.q.value, fields.near.value);
  }
}

/** The sort the API applies when none is given. */
function defaultSort(q, near) {
  return q.trim() ? "relevance" : near.trim() ? "distance" : "name";
}

/** Radius needs a location; sorting by relevance needs words, by distance a location. */
function updateDependentControls() {
  const hasNear = fields.near.value.trim() !== "";
  const hasQ = fields.q.value.trim() !== "";
  fields.radius.disabled = !hasNear;
  for (const option of fields.sort.options) {
    if (option.value === "distance") option.disabled = !hasNear;
    if (option.value === "relevance") option.disabled = !hasQ;
  }
  const selected = fields.sort.selectedOptions[0];
  if (selected?.disabled || fields.sort.dataset.explicit !== "true") {
    fields.sort.value = defaultSort(fields.q.value, fields.near.value);
  }
}

function setOrDelete(params, name, value) {
  if (value) params.set(name, value);
  else params.delete(name);
}

/** The search the form describes, keeping URL filters the form does not show (state, city...). */
function formParams() {
  const { params } = current();
  const next = new URLSearchParams(params);
  next.delete("cursor");
  next.delete("offset");
  setOrDelete(next, "q", fields.q.value.trim());
  const specialty = fields.specialty.value.trim();
  if (!specialty) {
    next.delete("specialty");
    next.delete("taxonomy");
  } else if (fields.specialty.dataset.taxonomy && specialty === fields.specialty.dataset.label) {
    next.set("taxonomy", fields.specialty.dataset.taxonomy);
    next.delete("specialty");
  } else {
    next.set("specialty", specialty);
    next.delete("taxonomy");
  }
  const near = fields.near.value.trim().replace(/\s+/g, "");
  setOrDelete(next, "near", near);
  if (near) next.set("radius", fields.radius.value);
  else {
    next.delete("radius");
    next.delete("unit");
  }
  setOrDelete(next, "entity_type", fields.entity_type.value);
  setOrDelete(next, "sex", fields.sex.value);
  const q = next.get("q") ?? "";
  const sort = fields.sort.value;
  const usable = !(sort === "distance" && !near) && !(sort === "relevance" && !q);
  const explicit = fields.sort.dataset.explicit === "true";
  setOrDelete(next, "sort", explicit && usable && sort !== defaultSort(q, near) ? sort : "");
  return next;
}

function renderChips(params) {
  const chips = [];
  for (const [name, value] of params) {
    const title = CHIP_PARAMS[name];
    if (!title) continue;
    const label = name === "taxonomy"
      ? specialtyLabel(value)
      : name === "state"
      ? (STATE_NAMES[value.toUpperCase()] ?? value)
      : facetLabel(name, value, names);
    chips.push(h(
      "button",
      {
        type: "button",
        class: "chip",
        "aria-label": `Remove filter ${title}: ${label}`,
        onclick: () => {
          const next = new URLSearchParams(params);
          next.delete(name);
          next.delete("cursor");
          next.delete("offset");
          navigate(next, { focus: "results" });
        },
      },
      h("span", { class: "chip-title" }, `${title}:`),
      ` ${label}`,
      icon(ICONS.close, "icon chip-x"),
    ));
  }
  if (chips.length === 0) {
    chipsEl.hidden = true;
    chipsEl.replaceChildren();
    return;
  }
  chipsEl.hidden = false;
  replace(
    chipsEl,
    h("span", { class: "chips-label" }, "Filters:"),
    chips,
    chips.length > 1
      ? h("button", {
        type: "button",
        class: "link-button",
        onclick: () => {
          const next = new URLSearchParams(params);
          for (const name of Object.keys(CHIP_PARAMS)) next.delete(name);
          next.delete("cursor");
          next.delete("offset");
          navigate(next, { focus: "results" });
        },
      }, "Clear all")
      : null,
  );
}

async function render(cause) {
  const seq = ++renderSeq;
  inflight?.abort();
  inflight = null;
  clearTimeout(retryTimer);
  qBox.cancel();
  specialtyBox.cancel();
  clearFieldErrors();
  const { params, provider, stack } = current();
  syncForm(params);
  renderChips(params);
  const hasSearch = [...params.keys()].length > 0;
  document.body.classList.toggle("searching", hasSearch || Boolean(provider));
  if (provider) {
    await showProvider(seq, provider, params, hasSearch, stack);
  } else if (!hasSearch) {
    showWelcome();
  } else {
    await showSearch(seq, params, stack);
  }
  if (seq !== renderSeq) return;
  if (cause === "popstate") globalThis.scrollTo(0, history.state?.scrollY ?? 0);
  applyFocus(provider);
}

/** Scrolls the window so the top of the view is visible (after paging or opening a record). */
function revealView() {
  const top = view.getBoundingClientRect().top;
  if (top < 0 || top > globalThis.innerHeight * 0.6) {
    globalThis.scrollTo(0, globalThis.scrollY + top - 12);
  }
}

function applyFocus(provider) {
  const focus = pendingFocus;
  pendingFocus = "none";
  const previous = lastProvider;
  lastProvider = provider;
  const heading = view.querySelector("#detail-title, #results-title, .message-title");
  if (focus === "back") {
    const link = !provider && previous
      ? view.querySelector(`a.card-link[data-npi="${previous}"]`)
      : null;
    const target = link ?? heading;
    if (target instanceof HTMLElement) target.focus({ preventScroll: true });
  } else if (focus === "detail" || focus === "results") {
    if (heading instanceof HTMLElement) heading.focus({ preventScroll: true });
    revealView();
  } else if (focus.startsWith("facet:")) {
    const [, param, value] = focus.split(":");
    const button = [...facetsEl.querySelectorAll("button.facet")].find((b) =>
      b instanceof HTMLElement && b.dataset.param === param && b.dataset.value === value
    );
    if (button instanceof HTMLElement) button.focus();
    else $("results-title")?.focus();
  }
}

function showWelcome() {
  setBusy(false);
  facetsEl.hidden = true;
  document.title = "Find a provider";
  const examples = [
    ["Family medicine near 10001", "specialty=family+medicine&near=10001&radius=10"],
    ["Dentists in California", "specialty=dentist&state=CA"],
    ["Pediatrics near Chicago", "specialty=pediatrics&near=60601&radius=10"],
    ["Pharmacies", "q=pharmacy&entity_type=organization"],
    ["Name: Smith", "q=smith"],
  ];
  const count = dataset ? formatCount(dataset.records) : "";
  replace(
    view,
    h(
      "div",
      { class: "welcome" },
      h(
        "h2",
        { class: "message-title", tabindex: "-1" },
        count ? `Search ${count} providers` : "Search providers",
      ),
      h(
        "p",
        null,
        "Type a name or a specialty, add a ZIP code or use your location, then narrow the results by state, specialty or type.",
      ),
      h("p", { class: "examples-label" }, "Try:"),
      h(
        "ul",
        { class: "examples" },
        examples.map(([label, query]) =>
          h(
            "li",
            null,
            h("a", {
              href: `/?${query}`,
              class: "example",
              onclick: (event) => {
                event.preventDefault();
                navigate(new URLSearchParams(query), { focus: "results" });
              },
            }, label),
          )
        ),
      ),
    ),
  );
}

function remember(key, value) {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
}

function learnNames(results) {
  for (const provider of results) {
    for (const t of provider.taxonomies ?? []) {
      if (t.description && !names.has(t.code)) names.set(t.code, t.description);
    }
  }
}

/** @type {Promise<void> | null} */
let allNames = null;
/** Loads every taxonomy name once (for facet labels the results did not name). */
function loadAllNames() {
  allNames ??= getJson("/v1/specialties", { limit: "1000" }).then((list) => {
    for (const s of list) names.set(s.code, s.description);
  }).catch(() => {
    allNames = null;
  });
  return allNames;
}

async function showSearch(seq, params, stack) {
  const apiParams = new URLSearchParams(params);
  if (!apiParams.has("facets")) apiParams.set("facets", FACETS);
  const key = apiParams.toString();
  let data = cache.get(key);
  if (!data) {
    if (!view.querySelector(".cards")) {
      replace(view, h("p", { class: "results-summary muted" }, "Searching…"), skeletonCards());
    }
    setBusy(true);
    inflight = new AbortController();
    try {
      data = await getJson("/v1/providers/search", apiParams, inflight.signal);
      remember(key, data);
    } catch (error) {
      if (isAbort(error) || seq !== renderSeq) return;
      setBusy(false);
      showError(error, seq);
      return;
    }
    if (seq !== renderSeq) return;
    setBusy(false);
  }
  learnNames(data.results);
  renderResults(data, params, stack);
  renderFacets(data.facets ?? {}, params);
  const missing = (data.facets?.taxonomy ?? []).some((f) => !names.has(f.value)) ||
    (params.get("taxonomy") ?? "").split(",").some((c) => c && !names.has(c));
  if (missing) {
    loadAllNames().then(() => {
      if (seq !== renderSeq) return;
      renderFacets(data.facets ?? {}, params);
      const taxonomy = params.get("taxonomy");
      if (taxonomy && fields.specialty.dataset.taxonomy === taxonomy) {
        const stale = fields.specialty.value === fields.specialty.dataset.label;
        fields.specialty.dataset.label = specialtyLabel(taxonomy);
        if (stale) fields.specialty.value = fields.specialty.dataset.label;
      }
      renderChips(params);
    });
  }
}

function describeSearch(params) {
  const parts = [];
  const q = params.get("q");
  if (q) parts.push(`matching “${q}”`);
  const near = params.get("near");
  if (near) {
    const unit = params.get("unit") === "km" ? "km" : "mi";
    const where = /^\d{5}$/.test(near) ? near : "your location";
    parts.push(`within ${params.get("radius") ?? "25"} ${unit} of ${where}`);
  }
  return parts.join(" ");
}

function renderResults(data, params, stack) {
  const q = params.get("q");
  const near = params.get("near");
  const unit = params.get("unit") === "km" ? "km" : "mi";
  // A shared link with a cursor has no stack: its page number is unknown.
  const knownPage = !(params.has("cursor") && stack.length === 0);
  const page = stack.length + 1;
  const first = params.has("cursor") ? (page - 1) * data.limit + 1 : data.offset + 1;
  const last = first + data.results.length - 1;
  const title = data.total === 0 ? "No providers found" : plural(data.total, "provider");
  document.title = `${q ? `${q} – ` : ""}${title} – Find a provider`;

  if (data.total === 0 || data.results.length === 0) {
    const chips = [...params.keys()].some((k) => CHIP_PARAMS[k]);
    replace(
      view,
      messagePanel({
        kind: "empty",
        title: data.total === 0 ? "No providers match this search" : "No more results",
        body: [
          h(
            "p",
            null,
            data.total === 0
              ? `Nothing ${describeSearch(params) || "matches"}. Check the spelling, ${
                near ? "widen the radius, " : ""
              }${chips ? "remove a filter, " : ""}or search for a broader specialty.`
              : "This page is past the end of the results.",
          ),
        ],
      }),
    );
    announce(data.total === 0 ? "No providers found" : "No more results");
    return;
  }

  const summary = describeSearch(params);
  const sort = params.get("sort") ?? (q ? "relevance" : near ? "distance" : "name");
  const sortText = { relevance: "best match", distance: "distance", name: "name" }[sort] ?? sort;
  const hasPrev = stack.length > 0 || params.has("cursor");

  replace(
    view,
    h(
      "div",
      { class: "results-header" },
      h("h2", { id: "results-title", tabindex: "-1" }, title),
      h(
        "p",
        { class: "results-summary" },
        summary ? `${summary} · ` : "",
        `sorted by ${sortText}`,
        knownPage ? ` · showing ${formatCount(first)}–${formatCount(last)}` : "",
      ),
      h(
        "a",
        {
          class: "button download-link",
          id: "download-csv",
          href: exportHref(params),
          download: "",
          title: `Download all ${formatCount(data.total)} results as CSV`,
        },
        "Download CSV",
      ),
    ),
    h(
      "ol",
      { class: "cards", start: String(first), "aria-labelledby": "results-title" },
      data.results.map((provider) =>
        resultCard(provider, {
          href: urlFor(params, provider.npi),
          unit,
          onOpen: (p) => {
            const { stack: currentStack } = current();
            navigate(params, { provider: p.npi, stack: currentStack, focus: "detail" });
          },
        })
      ),
    ),
    h(
      "nav",
      { class: "pager", "aria-label": "Result pages" },
      h(
        "button",
        {
          type: "button",
          class: "button",
          id: "prev-page",
          disabled: !hasPrev,
          onclick: () => previousPage(params, stack),
        },
        icon(ICONS.arrowLeft),
        "Previous",
      ),
      h(
        "span",
        { class: "pager-info" },
        knownPage
          ? `Page ${formatCount(page)} of ${formatCount(Math.ceil(data.total / data.limit))}`
          : "More results",
      ),
      h(
        "button",
        {
          type: "button",
          class: "button",
          id: "next-page",
          disabled: !data.next_cursor,
          onclick: () => {
            const next = new URLSearchParams(params);
            next.delete("offset");
            next.set("cursor", data.next_cursor);
            navigate(next, { stack: [...stack, params.get("cursor") ?? ""], focus: "results" });
          },
        },
        "Next",
        icon(ICONS.arrowLeft, "icon flip"),
      ),
    ),
  );
  announce(knownPage ? `${title}. Showing ${first} to ${last}.` : title);
}

/** The export of the whole result set of `params`, as CSV (paging parameters dropped). */
function exportHref(params) {
  const query = new URLSearchParams(params);
  for (const name of ["cursor", "offset", "limit", "facets", "provider"]) query.delete(name);
  query.set("format", "csv");
  return `/v1/providers/export?${query}`;
}

function previousPage(params, stack) {
  const next = new URLSearchParams(params);
  const previous = stack.at(-1);
  if (previous) next.set("cursor", previous);
  else next.delete("cursor");
  navigate(next, { stack: stack.slice(0, -1), focus: "results" });
}

function isSelected(params, param, value) {
  const current = params.get(param);
  if (current === null) return false;
  if (param === "state" || param === "sex") return current.toUpperCase() === value;
  if (param === "entity_type") {
    const v = current.toLowerCase();
    return v === value || (v === "npi-1" && value === "individual") ||
      (v === "npi-2" && value === "organization");
  }
  return current.split(",").includes(value);
}

function renderFacets(facets, params) {
  const groups = facetGroups(facets, {
    names,
    isSelected: (param, value) => isSelected(params, param, value),
    onPick: (param, value) => {
      const next = new URLSearchParams(params);
      next.delete("cursor");
      next.delete("offset");
      if (isSelected(params, param, value)) next.delete(param);
      else next.set(param, value);
      navigate(next, { focus: `facet:${param}:${value}` });
    },
  });
  facetsEl.hidden = groups.length === 0;
  replace(facetsEl, h("h2", { class: "facets-title" }, "Refine"), groups);
}

/** Shows a failed request: problem detail, per-parameter errors, and retries for 503/429. */
function showError(error, seq) {
  facetsEl.hidden = true;
  if (error instanceof ApiError && (error.status === 503 || error.status === 429)) {
    const seconds = Math.min(Math.max(error.retryAfter ?? 5, 1), 60);
    const loading = error.status === 503 && /loading/.test(error.problem.type ?? "");
    const title = error.status === 429
      ? "Too many searches at once"
      : loading
      ? "The provider data is still loading"
      : "The service is busy";
    const countdown = h("span", null, String(seconds));
    replace(
      view,
      messagePanel({
        kind: "wait",
        title,
        role: "status",
        body: [
          h(
            "p",
            null,
            loading
              ? "The server is preparing the provider data. This search will run by itself as soon as it is ready."
              : error.problem.detail ?? "Please wait a moment.",
          ),
          h("p", { class: "muted" }, "Retrying in ", countdown, " s…"),
        ],
      }),
    );
    let left = seconds;
    const tick = () => {
      if (seq !== renderSeq) return;
      left -= 1;
      if (left <= 0) {
        render("retry");
        return;
      }
      countdown.textContent = String(left);
      retryTimer = setTimeout(tick, 1000);
    };
    retryTimer = setTimeout(tick, 1000);
    announce(`${title}. Retrying in ${seconds} seconds.`);
    return;
  }
  if (error instanceof ApiError) {
    const problem = error.problem;
    const errors = Array.isArray(problem.errors) ? problem.errors : [];
    for (const e of errors) {
      const field = FIELD_OF[e.parameter];
      if (field) showFieldError(field, e.message);
    }
    const suggestions = errors
      .filter((e) => e.parameter === "specialty" && /did you mean/.test(e.message))
      .flatMap((e) =>
        [...e.message.split("did you mean")[1].matchAll(/'([^']+)'/g)].map((m) => m[1])
      );
    const title = error.status === 400
      ? "Please check the search"
      : error.status === 404
      ? "Not found"
      : "Something went wrong";
    replace(
      view,
      messagePanel({
        kind: "error",
        title,
        role: "alert",
        body: [
          h("p", null, problem.detail ?? error.message),
          errors.length > 0
            ? h(
              "ul",
              { class: "error-list" },
              errors.map((e) => h("li", null, h("code", null, e.parameter), ": ", e.message)),
            )
            : null,
          suggestions.length > 0
            ? h(
              "p",
              { class: "suggestions" },
              "Search for: ",
              suggestions.map((s) =>
                h("button", {
                  type: "button",
                  class: "chip",
                  onclick: () => {
                    const next = new URLSearchParams(current().params);
                    next.set("specialty", s);
                    next.delete("taxonomy");
                    navigate(next, { focus: "results" });
                  },
                }, s)
              ),
            )
            : null,
          problem.request_id
            ? h("p", { class: "muted small" }, `Request id: ${problem.request_id}`)
            : null,
        ],
        actions: error.status >= 500
          ? [
            h("button", {
              type: "button",
              class: "button",
              onclick: () => render("retry"),
            }, "Try again"),
          ]
          : [],
      }),
    );
    announce(`${title}. ${problem.detail ?? ""}`);
    return;
  }
  const offline = error instanceof NetworkError;
  replace(
    view,
    messagePanel({
      kind: "error",
      title: offline ? "The server could not be reached" : "Something went wrong",
      role: "alert",
      body: [
        h(
          "p",
          null,
          offline ? "Check your connection, then try again." : String(error?.message ?? error),
        ),
      ],
      actions: [
        h(
          "button",
          { type: "button", class: "button", onclick: () => render("retry") },
          "Try again",
        ),
      ],
    }),
  );
}

async function showProvider(seq, npi, params, hasSearch, stack) {
  facetsEl.hidden = true;
  const back = h(
    "a",
    {
      href: hasSearch ? searchHref(params) : "/",
      class: "back-link",
      onclick: (event) => {
        event.preventDefault();
        if (history.state?.fromResults) history.back();
        else navigate(params, { stack, focus: "back" });
      },
    },
    icon(ICONS.arrowLeft),
    hasSearch ? "Back to results" : "New search",
  );
  replace(view, h("div", { class: "detail-loading" }, back, skeletonCards(1)));
  setBusy(true);
  inflight = new AbortController();
  let provider;
  try {
    if (!/^\d{10}$/.test(npi)) {
      throw new ApiError(400, { detail: `'${npi}' is not an NPI: an NPI has 10 digits` }, null);
    }
    provider = await getJson(`/v1/providers/${npi}`, undefined, inflight.signal);
  } catch (error) {
    if (isAbort(error) || seq !== renderSeq) return;
    setBusy(false);
    showError(error, seq);
    view.prepend(back);
    return;
  }
  if (seq !== renderSeq) return;
  setBusy(false);
  learnNames([provider]);
  const { name } = displayName(provider);
  document.title = `${name} – Find a provider`;
  replace(view, providerDetail(provider, { back }));
  const specialty = primaryTaxonomy(provider)?.description ?? "";
  announce(`${name}${specialty ? `, ${specialty}` : ""}`);
}

// ----------------------------------------------------------------- dataset

async function loadDataset() {
  try {
    dataset = await getJson("/v1/dataset");
  } catch (error) {
    if (error instanceof ApiError && error.status === 503) {
      banner.hidden = false;
      banner.className = "dataset-banner banner-wait";
      replace(
        banner,
        h(
          "div",
          { class: "container" },
          icon(ICONS.info),
          h("span", null, "Preparing the provider data… the page updates when it is ready."),
        ),
      );
      setTimeout(loadDataset, Math.min(Math.max(error.retryAfter ?? 5, 1), 30) * 1000);
    }
    return;
  }
  const built = formatDate(dataset.built_at);
  const records = formatCount(dataset.records);
  banner.hidden = false;
  if (dataset.synthetic) {
    banner.className = "dataset-banner banner-demo";
    replace(
      banner,
      h(
        "div",
        { class: "container" },
        icon(ICONS.info),
        h(
          "span",
          null,
          h("strong", null, "Demo data: "),
          `every provider here is synthetic (generated, not real). ${records} records · built ${built}.`,
        ),
      ),
    );
  } else {
    banner.className = "dataset-banner banner-real";
    replace(
      banner,
      h(
        "div",
        { class: "container" },
        icon(ICONS.info),
        h(
          "span",
          null,
          `NPPES registry · ${records} records (${
            formatCount(dataset.active)
          } active) · built ${built}`,
        ),
      ),
    );
  }
  if (!current().provider && [...current().params.keys()].length === 0) showWelcome();
}

// -------------------------------------------------------------- autocomplete

function placeOf(provider) {
  const l = provider.practice_location;
  if (!l) return "";
  return [l.city ? l.city.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase()) : "", l.state]
    .filter(Boolean).join(", ");
}

const qBox = combobox({
  input: fields.q,
  listbox: $("q-listbox"),
  async source(text, signal) {
    const [specialties, providers] = await Promise.allSettled([
      getJson("/v1/specialties", { q: text, limit: "5" }, signal),
      getJson("/v1/providers/search", { q: text, limit: "5" }, signal),
    ]);
    if (signal.aborted) throw new DOMException("Superseded", "AbortError");
    const groups = [];
    if (specialties.status === "fulfilled") {
      for (const s of specialties.value) names.set(s.code, s.description);
      groups.push({
        label: "Specialties",
        options: specialties.value.map((s) => ({
          kind: "specialty",
          label: s.description,
          detail: s.grouping ?? "",
          value: s,
        })),
      });
    }
    if (providers.status === "fulfilled") {
      groups.push({
        label: "Providers",
        options: providers.value.results.map((p) => {
          const { name, credential } = displayName(p);
          const specialty = primaryTaxonomy(p)?.description ?? "";
          return {
            kind: "provider",
            label: credential ? `${name}, ${credential}` : name,
            detail: [specialty, placeOf(p)].filter(Boolean).join(" · "),
            value: p,
          };
        }),
      });
    }
    return groups;
  },
  onSelect(option) {
    if (option.kind === "specialty") {
      fields.q.value = "";
      chooseSpecialty(option.value);
      navigate(formParams(), { focus: "none" });
    } else {
      const { params, stack } = current();
      navigate(params, { provider: option.value.npi, stack, focus: "detail" });
    }
  },
});

function chooseSpecialty(specialty) {
  names.set(specialty.code, specialty.description);
  fields.specialty.value = specialty.description;
  fields.specialty.dataset.taxonomy = specialty.code;
  fields.specialty.dataset.label = specialty.description;
}

const specialtyBox = combobox({
  input: fields.specialty,
  listbox: $("specialty-listbox"),
  async source(text, signal) {
    const list = await getJson("/v1/specialties", { q: text, limit: "8" }, signal);
    for (const s of list) names.set(s.code, s.description);
    return [{
      label: "Specialties",
      options: list.map((s) => ({
        kind: "specialty",
        label: s.description,
        detail: s.grouping ?? "",
        value: s,
      })),
    }];
  },
  onSelect(option) {
    chooseSpecialty(option.value);
    navigate(formParams(), { focus: "none" });
  },
});

// ------------------------------------------------------------------ events

form.addEventListener("submit", (event) => {
  event.preventDefault();
  qBox.cancel();
  specialtyBox.cancel();
  navigate(formParams(), { focus: "none" });
});

fields.sort.addEventListener("change", () => fields.sort.dataset.explicit = "true");
for (const select of [fields.radius, fields.entity_type, fields.sex, fields.sort]) {
  select.addEventListener("change", () => navigate(formParams(), { focus: "none" }));
}
const NEAR_HINT = nearHint.textContent;
fields.near.addEventListener("input", () => {
  nearHint.textContent = NEAR_HINT;
  updateDependentControls();
});
fields.q.addEventListener("input", updateDependentControls);

locateButton.addEventListener("click", () => {
  clearFieldErrors();
  if (!("geolocation" in navigator)) {
    showFieldError("near", "This browser cannot share its location: enter a ZIP code instead.");
    return;
  }
  if (!globalThis.isSecureContext) {
    showFieldError(
      "near",
      "Browsers share your location over HTTPS only: enter a ZIP code instead.",
    );
    return;
  }
  locateButton.disabled = true;
  locateButton.classList.add("busy");
  nearHint.textContent = "Finding your location…";
  navigator.geolocation.getCurrentPosition(
    (position) => {
      locateButton.disabled = false;
      locateButton.classList.remove("busy");
      nearHint.textContent = "Using your location";
      const { latitude, longitude } = position.coords;
      fields.near.value = `${latitude.toFixed(4)},${longitude.toFixed(4)}`;
      updateDependentControls();
      navigate(formParams(), { focus: "none" });
    },
    (error) => {
      locateButton.disabled = false;
      locateButton.classList.remove("busy");
      nearHint.textContent = NEAR_HINT;
      showFieldError(
        "near",
        error.code === error.PERMISSION_DENIED
          ? "Location access was denied: enter a ZIP code instead."
          : "Your location could not be found: enter a ZIP code instead.",
      );
    },
    { enableHighAccuracy: false, timeout: 10000, maximumAge: 600000 },
  );
});

$("filters-toggle").addEventListener("click", () => {
  const open = !form.classList.contains("filters-open");
  setFiltersOpen(open);
  if (open) fields.specialty.focus();
});

$("home-link").addEventListener("click", (event) => {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(new URLSearchParams(), { focus: "none" });
  fields.q.focus();
});

globalThis.addEventListener("popstate", () => {
  pendingFocus = "back";
  render("popstate");
});

history.scrollRestoration = "manual";
loadDataset();
render("load");
