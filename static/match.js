// The "match a roster" page: uploads a CSV to POST /v1/match, shows the answers as they stream in,
// filters them by status and offers them as a CSV download.
import { h, replace } from "./dom.js";

const form = /** @type {HTMLFormElement} */ (document.getElementById("match-form"));
const input = /** @type {HTMLInputElement} */ (document.getElementById("roster"));
const button = /** @type {HTMLButtonElement} */ (document.getElementById("match-button"));
const errorEl = /** @type {HTMLElement} */ (document.getElementById("roster-error"));
const results = /** @type {HTMLElement} */ (document.getElementById("match-results"));
const summaryEl = /** @type {HTMLElement} */ (document.getElementById("match-summary"));
const rowsEl = /** @type {HTMLElement} */ (document.getElementById("match-rows"));
const filtersEl = /** @type {HTMLElement} */ (document.getElementById("status-filters"));
const download = /** @type {HTMLAnchorElement} */ (document.getElementById("match-download"));
const statusEl = /** @type {HTMLElement} */ (document.getElementById("status"));

const STATUSES = ["matched", "review", "unmatched", "invalid"];
/** @type {any[]} */
let answers = [];
let shown = "all";
let downloadUrl = "";

const REASONS = {
  unique_best_evidence: "One candidate has the strongest evidence",
  npi_confirmed: "The NPI given, confirmed by the name",
  ambiguous_tied_evidence: "Several candidates are equally likely",
  ambiguous_contested_candidate: "This NPI was matched to an earlier row",
  nickname_only_evidence: "Nickname first name, weak location",
  fuzzy_only_evidence: "Only a misspelled or partial name agrees",
  weak_location_evidence: "The name agrees but no address, ZIP or phone does",
  address_conflict: "The name agrees but the address differs (moved?)",
  npi_conflict: "The NPI given belongs to someone else",
  npi_name_conflict: "The NPI given does not match the name",
  npi_deactivated: "The NPI given is deactivated",
  candidate_deactivated: "The best candidate's NPI is deactivated",
  suffix_conflict: "The suffix (Jr/Sr) differs",
  credential_conflict: "The credential (MD/DO) differs",
  middle_name_conflict: "The middle name differs",
  no_candidate: "No provider with this name",
  missing_required_name: "No last name or organization name",
  invalid_field: "A value cannot be read",
};

function announce(text) {
  statusEl.textContent = text;
}

function showError(message) {
  errorEl.textContent = message;
  errorEl.hidden = false;
  input.setAttribute("aria-invalid", "true");
}

function csvCell(value) {
  const v = String(value ?? "");
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

const CSV_COLUMNS = [
  "id",
  "row",
  "status",
  "reason",
  "warnings",
  "npi",
  "name",
  "address",
  "city",
  "state",
  "postal_code",
  "evidence_class",
  "score",
];

function toCsv() {
  const lines = [CSV_COLUMNS.join(",")];
  for (const a of answers) {
    const b = a.best;
    lines.push(
      [
        a.id,
        a.row,
        a.status,
        a.reason,
        (a.warnings ?? []).join(" "),
        b?.npi,
        b?.name,
        b?.address?.line1,
        b?.address?.city,
        b?.address?.state,
        b?.address?.postal_code,
        b?.evidence_class,
        b?.score,
      ].map(csvCell).join(","),
    );
  }
  return lines.join("\r\n") + "\r\n";
}

function rowOf(a) {
  const b = a.best;
  const reason = REASONS[a.reason] ?? a.reason;
  const detail = a.errors?.length
    ? a.errors.map((e) => `${e.field}: ${e.message}`).join("; ")
    : (a.warnings ?? []).join(", ");
  return h(
    "tr",
    { "data-status": a.status, hidden: shown !== "all" && shown !== a.status },
    h("td", null, String(a.row)),
    h("td", null, a.id),
    h("td", null, h("span", { class: `tag tag-${a.status}` }, a.status)),
    h("td", null, h("span", { title: a.reason }, reason), detail ? h("small", null, detail) : null),
    h(
      "td",
      null,
      b
        ? [
          h("a", { href: `/?provider=${b.npi}` }, b.name),
          h("small", { class: "npi-cell" }, b.npi),
        ]
        : "—",
    ),
    h(
      "td",
      null,
      b?.address
        ? [b.address.line1, b.address.city, b.address.state].filter(Boolean).join(", ")
        : "",
    ),
  );
}

function renderFilters(counts) {
  replace(
    filtersEl,
    ["all", ...STATUSES].map((status) =>
      h(
        "button",
        {
          type: "button",
          class: "chip",
          "aria-pressed": String(shown === status),
          onclick: () => {
            shown = status;
            for (const tr of rowsEl.querySelectorAll("tr")) {
              tr.hidden = status !== "all" && tr.getAttribute("data-status") !== status;
            }
            renderFilters(counts);
          },
        },
        `${status} (${status === "all" ? answers.length : counts[status] ?? 0})`,
      )
    ),
  );
}

function countsOf() {
  const counts = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

function describe(counts, summary) {
  const parts = STATUSES.map((s) => `${counts[s] ?? 0} ${s}`).join(" · ");
  if (!summary) return `${answers.length} rows so far: ${parts}`;
  const tail = summary.complete ? "" : ` — stopped early: ${summary.error}`;
  return `${summary.summary.rows} rows: ${parts} · dataset ${summary.dataset_release}, matcher ${summary.matcher_version}${tail}`;
}

async function problemText(response) {
  try {
    const body = await response.json();
    const where = (body.errors ?? []).map((e) => `${e.parameter}: ${e.message}`);
    return where.length ? where.join("; ") : body.detail ?? response.statusText;
  } catch {
    return `The server answered ${response.status}`;
  }
}

async function run(file) {
  answers = [];
  shown = "all";
  replace(rowsEl);
  download.hidden = true;
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  results.hidden = false;
  summaryEl.textContent = "Matching…";
  button.disabled = true;
  let response;
  try {
    response = await fetch("/v1/match", {
      method: "POST",
      headers: { "Content-Type": "text/csv", Accept: "application/x-ndjson" },
      body: file,
    });
  } catch {
    button.disabled = false;
    results.hidden = true;
    showError("The server could not be reached: try again");
    return;
  }
  if (!response.ok) {
    button.disabled = false;
    results.hidden = true;
    showError(await problemText(response));
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let carry = "";
  let summary = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    carry += value;
    const lines = carry.split("\n");
    carry = lines.pop() ?? "";
    const fragment = document.createDocumentFragment();
    for (const line of lines) {
      if (!line.trim()) continue;
      const answer = JSON.parse(line);
      if ("summary" in answer) {
        summary = answer;
        continue;
      }
      answers.push(answer);
      fragment.append(rowOf(answer));
    }
    rowsEl.append(fragment);
    summaryEl.textContent = describe(countsOf(), null);
  }
  const counts = countsOf();
  summaryEl.textContent = describe(counts, summary);
  renderFilters(counts);
  downloadUrl = URL.createObjectURL(new Blob([toCsv()], { type: "text/csv" }));
  download.href = downloadUrl;
  download.hidden = false;
  button.disabled = false;
  announce(summaryEl.textContent);
  document.getElementById("match-results-title")?.focus();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  errorEl.hidden = true;
  input.removeAttribute("aria-invalid");
  const file = input.files?.[0];
  if (!file) {
    showError("Choose a CSV file first");
    return;
  }
  run(file);
});
