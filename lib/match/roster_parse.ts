/**
 * Reading a roster: CSV with a header row, or NDJSON (one JSON object a
 * line), into {@linkcode RosterRow}s, streaming, with limits on rows and
 * bytes. Structural problems (an unknown column, a line that is not JSON, a
 * quote never closed, too many rows or bytes) throw a {@linkcode RosterError}
 * naming the row and field; a row whose values are merely odd is read as
 * it is and judged later (status `invalid`).
 *
 * @module
 */
import { readCsv } from "../nppes/csv.ts";
import { closest } from "../text/edit_distance.ts";

/** The columns a roster may have; all optional but a name (see the guide). */
export const ROSTER_FIELDS = [
  "id",
  "npi",
  "first_name",
  "middle_name",
  "last_name",
  "suffix",
  "organization_name",
  "credential",
  "address",
  "address_2",
  "city",
  "state",
  "postal_code",
  "phone",
  "taxonomy",
  "specialty",
] as const;

/** One roster column. */
export type RosterField = typeof ROSTER_FIELDS[number];

/** Other spellings of column names people use, mapped to ours. */
const FIELD_ALIASES: Readonly<Record<string, RosterField>> = {
  address_1: "address",
  address1: "address",
  address_line_1: "address",
  address2: "address_2",
  address_line_2: "address_2",
  zip: "postal_code",
  zip_code: "postal_code",
  zipcode: "postal_code",
  postal: "postal_code",
  first: "first_name",
  firstname: "first_name",
  last: "last_name",
  lastname: "last_name",
  middle: "middle_name",
  middlename: "middle_name",
  organization: "organization_name",
  org_name: "organization_name",
  taxonomy_code: "taxonomy",
  telephone: "phone",
  phone_number: "phone",
};

/** The longest value a roster cell may hold, in characters. */
export const MAX_FIELD_LENGTH = 300;

/** One roster row: its position and the values given (trimmed; empty ones absent). */
export interface RosterRow {
  /** 1-based position among the data rows. */
  row: number;
  /** The 1-based line of the input where the row starts. */
  line: number;
  /** The caller's id, or the row number as a string when absent. */
  id: string;
  values: Partial<Record<Exclude<RosterField, "id">, string>>;
}

/** Why a roster cannot be read; `status` is 400 or 413. */
export class RosterError extends Error {
  /**
   * @example
   * ```ts
   * throw new RosterError(400, "has an unknown column 'zipp'", { row: 0, field: "zipp" });
   * ```
   */
  constructor(
    readonly status: 400 | 413,
    message: string,
    readonly where: { row: number; line?: number; field?: string },
  ) {
    super(message);
    this.name = "RosterError";
  }
}

/** Limits on one roster. */
export interface RosterLimits {
  /** Most data rows. */
  maxRows: number;
  /** Most bytes of input. */
  maxBytes: number;
}

/** The formats a roster comes in. */
export type RosterFormat = "csv" | "ndjson";

/**
 * The format of a `Content-Type`, or `null` when it is neither CSV nor NDJSON.
 *
 * @example
 * ```ts
 * rosterFormat("text/csv; charset=utf-8"); // "csv"
 * ```
 */
export function rosterFormat(contentType: string | null): RosterFormat | null {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "text/csv" || type === "application/csv") return "csv";
  if (
    type === "application/x-ndjson" || type === "application/ndjson" ||
    type === "application/jsonl" || type === "application/jsonlines"
  ) return "ndjson";
  return null;
}

/** The column a header name stands for, or `null`. */
export function rosterField(name: string): RosterField | null {
  const key = name.trim().toLowerCase().replace(/[\s-]+/g, "_");
  if ((ROSTER_FIELDS as readonly string[]).includes(key)) return key as RosterField;
  return FIELD_ALIASES[key] ?? null;
}

function unknownColumn(name: string, row: number, line: number): RosterError {
  const hint = closest(name.toLowerCase(), [...ROSTER_FIELDS, ...Object.keys(FIELD_ALIASES)], 3);
  return new RosterError(
    400,
    `Column '${name.slice(0, 60)}' is not a roster column${
      hint ? `: did you mean '${hint}'?` : `: use ${ROSTER_FIELDS.join(", ")}`
    }`,
    { row, line, field: name.slice(0, 60) },
  );
}

/** Counts the bytes passing through; errors with a 413 beyond `maxBytes`. */
function limitBytes(
  source: ReadableStream<Uint8Array>,
  maxBytes: number,
  onBytes?: (bytes: number) => void,
): ReadableStream<Uint8Array> {
  let bytes = 0;
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) {
          controller.error(
            new RosterError(
              413,
              `The roster is over the limit of ${maxBytes} bytes: split it into smaller requests ` +
                "(or use `deno task match` for files of any size)",
              { row: 0 },
            ),
          );
          return;
        }
        onBytes?.(bytes);
        controller.enqueue(chunk);
      },
    }),
  );
}

function tooManyRows(maxRows: number, row: number, line: number): RosterError {
  return new RosterError(
    413,
    `Row ${row} (line ${line}) is over the limit of ${maxRows} rows a request: split the roster ` +
      "(or use `deno task match` for files of any size)",
    { row, line },
  );
}

function rowFrom(
  row: number,
  line: number,
  pairs: Iterable<[RosterField, string]>,
): RosterRow {
  const values: RosterRow["values"] = {};
  let id = "";
  for (const [field, raw] of pairs) {
    const value = raw.trim();
    if (value === "") continue;
    if (value.length > MAX_FIELD_LENGTH) {
      throw new RosterError(
        400,
        `Row ${row} (line ${line}), field '${field}': ${value.length} characters, over the limit of ${MAX_FIELD_LENGTH}`,
        { row, line, field },
      );
    }
    if (field === "id") id = value;
    else values[field] = value;
  }
  return { row, line, id: id || String(row), values };
}

async function* csvRows(
  source: ReadableStream<Uint8Array>,
  limits: RosterLimits,
): AsyncGenerator<RosterRow> {
  let header: (RosterField | null)[] | null = null;
  let row = 0;
  for await (const batch of readCsv(source, { maxRecordBytes: 64 * 1024 })) {
    for (const item of batch) {
      if ("error" in item) {
        throw new RosterError(
          400,
          `Row ${header ? row + 1 : 0} (line ${item.line}) is not valid CSV: ${item.error}`,
          { row: header ? row + 1 : 0, line: item.line },
        );
      }
      if (!header) {
        const fields = item.fields.map((name, i) => i === 0 ? name.replace(/^\uFEFF/, "") : name);
        const seen = new Set<RosterField>();
        header = fields.map((name) => {
          if (name.trim() === "") return null;
          const field = rosterField(name);
          if (!field) throw unknownColumn(name, 0, item.line);
          if (seen.has(field)) {
            throw new RosterError(400, `Column '${name}' appears twice in the header`, {
              row: 0,
              line: item.line,
              field: name,
            });
          }
          seen.add(field);
          return field;
        });
        if (!header.some((f) => f !== null && f !== "id")) {
          throw new RosterError(
            400,
            `The header row names no roster column: give a header such as ${
              ROSTER_FIELDS.join(",")
            }`,
            { row: 0, line: item.line },
          );
        }
        continue;
      }
      if (item.fields.length === 1 && item.fields[0] === "") continue; // A blank line.
      row++;
      if (row > limits.maxRows) throw tooManyRows(limits.maxRows, row, item.line);
      if (item.fields.length > header.length) {
        throw new RosterError(
          400,
          `Row ${row} (line ${item.line}) has ${item.fields.length} fields, the header ${header.length}`,
          { row, line: item.line },
        );
      }
      const cols = header;
      const pairs: [RosterField, string][] = [];
      item.fields.forEach((value, i) => {
        const field = cols[i];
        if (field) pairs.push([field, value]);
      });
      yield rowFrom(row, item.line, pairs);
    }
  }
  if (!header) {
    throw new RosterError(400, "The roster is empty: send a header row and rows", { row: 0 });
  }
}

async function* ndjsonRows(
  source: ReadableStream<Uint8Array>,
  limits: RosterLimits,
): AsyncGenerator<RosterRow> {
  let carry = "";
  let line = 0;
  let row = 0;
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const parse = (text: string): RosterRow | null => {
    line++;
    const trimmed = text.trim();
    if (trimmed === "") return null;
    row++;
    if (row > limits.maxRows) throw tooManyRows(limits.maxRows, row, line);
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new RosterError(
        400,
        `Row ${row} (line ${line}) is not JSON: ${error instanceof Error ? error.message : error}`,
        { row, line },
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new RosterError(400, `Row ${row} (line ${line}) is not a JSON object`, { row, line });
    }
    const pairs: [RosterField, string][] = [];
    for (const [name, raw] of Object.entries(value)) {
      const field = rosterField(name);
      if (!field) throw unknownColumn(name, row, line);
      if (raw === null || raw === undefined) continue;
      if (typeof raw !== "string" && typeof raw !== "number") {
        throw new RosterError(
          400,
          `Row ${row} (line ${line}), field '${name}': must be a string or a number`,
          { row, line, field: name },
        );
      }
      pairs.push([field, String(raw)]);
    }
    return rowFrom(row, line, pairs);
  };
  for await (const chunk of source) {
    carry += decoder.decode(chunk, { stream: true });
    let nl = carry.indexOf("\n");
    while (nl >= 0) {
      const parsed = parse(carry.slice(0, nl));
      if (parsed) yield parsed;
      carry = carry.slice(nl + 1);
      nl = carry.indexOf("\n");
    }
    if (carry.length > 64 * 1024) {
      throw new RosterError(400, `Line ${line + 1} is longer than 64 KB`, { row: row + 1 });
    }
  }
  carry += decoder.decode();
  if (carry.trim() !== "") {
    const parsed = parse(carry);
    if (parsed) yield parsed;
  }
}

/**
 * Reads roster rows from a byte stream, in input order. Throws
 * {@linkcode RosterError} (400: malformed, 413: over a limit) at the row
 * where the problem is.
 *
 * @example
 * ```ts
 * const body = new Blob(["id,last_name\nr1,Smith\n"]).stream();
 * for await (const row of readRoster(body, "csv", { maxRows: 100, maxBytes: 1e6 })) {
 *   console.log(row.id, row.values.last_name); // r1 Smith
 * }
 * ```
 */
export function readRoster(
  source: ReadableStream<Uint8Array>,
  format: RosterFormat,
  limits: RosterLimits,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<RosterRow> {
  const limited = limitBytes(source, limits.maxBytes, onBytes);
  return format === "csv" ? csvRows(limited, limits) : ndjsonRows(limited, limits);
}
