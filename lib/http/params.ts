/**
 * Declarative query parameters: one definition per parameter gives the
 * parser, the 400 messages and the OpenAPI parameter object, so the three
 * cannot disagree.
 *
 * @module
 */
import { type ParameterError, ValidationError } from "./errors.ts";
import { closest } from "../text/edit_distance.ts";

/** A JSON Schema fragment, as used in the OpenAPI document. */
export type JsonSchema = Record<string, unknown>;

/** Thrown by a parameter's parser; the message becomes the 400's entry. */
export class ParamIssue extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ParamIssue";
  }
}

/** The definition of one query parameter of type `T`. */
export interface ParamDef<T> {
  /** What the parameter means, for the OpenAPI document. */
  readonly description: string;
  /** Its JSON Schema, for the OpenAPI document. */
  readonly schema: JsonSchema;
  /** An example value, for the OpenAPI document. */
  readonly example?: string;
  /** Turns the raw text into a value, or throws a {@linkcode ParamIssue}. */
  readonly parse: (raw: string) => T;
  /** The value used when the parameter is absent. */
  readonly default?: T;
}

/** Marks a definition whose options carry a default as always having a value. */
export type Defaulted<O, T> = O extends { default: T } ? { readonly default: T } : unknown;

interface Common {
  description: string;
  example?: string;
}

/**
 * A text parameter with length bounds and an optional pattern.
 *
 * @example
 * ```ts
 * const q = text({ description: "Free text", minLength: 1, maxLength: 200 });
 * q.parse("smith"); // "smith"
 * ```
 */
export function text(
  options: Common & {
    minLength?: number;
    maxLength: number;
    pattern?: RegExp;
    patternHint?: string;
  },
): ParamDef<string> {
  const { minLength = 1, maxLength, pattern, patternHint } = options;
  const schema: JsonSchema = { type: "string", minLength, maxLength };
  if (pattern) schema.pattern = pattern.source;
  return {
    description: options.description,
    example: options.example,
    schema,
    parse(raw) {
      const length = [...raw].length;
      if (length < minLength) {
        throw new ParamIssue(
          minLength === 1 ? "must not be empty" : `must be at least ${minLength} characters`,
        );
      }
      if (length > maxLength) throw new ParamIssue(`must be at most ${maxLength} characters`);
      if (pattern && !pattern.test(raw)) {
        throw new ParamIssue(patternHint ?? `must match ${pattern.source}`);
      }
      return raw;
    },
  };
}

/**
 * An integer parameter within `[min, max]`.
 *
 * @example
 * ```ts
 * integer({ description: "Page size", min: 1, max: 100, default: 10 }).parse("25"); // 25
 * ```
 */
export function integer<const O extends Common & { min: number; max: number; default?: number }>(
  options: O,
): ParamDef<number> & Defaulted<O, number> {
  const { min, max } = options;
  const schema: JsonSchema = { type: "integer", minimum: min, maximum: max };
  if (options.default !== undefined) schema.default = options.default;
  const def: ParamDef<number> = {
    description: options.description,
    example: options.example,
    schema,
    default: options.default,
    parse(raw) {
      if (!/^[+-]?\d{1,16}$/.test(raw)) {
        throw new ParamIssue(`must be an integer from ${min} to ${max}, got '${clip(raw)}'`);
      }
      const value = Number(raw);
      if (value < min || value > max) {
        throw new ParamIssue(`must be an integer from ${min} to ${max}, got ${value}`);
      }
      return value;
    },
  };
  return def as ParamDef<number> & Defaulted<O, number>;
}

/**
 * A decimal number parameter; `exclusiveMin` makes the lower bound strict.
 *
 * @example
 * ```ts
 * decimal({ description: "Radius", min: 0, exclusiveMin: true, max: 500 }).parse("2.5"); // 2.5
 * ```
 */
export function decimal<
  const O extends Common & { min: number; max: number; exclusiveMin?: boolean; default?: number },
>(
  options: O,
): ParamDef<number> & Defaulted<O, number> {
  const { min, max, exclusiveMin = false } = options;
  const schema: JsonSchema = { type: "number", maximum: max };
  schema[exclusiveMin ? "exclusiveMinimum" : "minimum"] = min;
  if (options.default !== undefined) schema.default = options.default;
  const range = `${exclusiveMin ? "greater than" : "at least"} ${min} and at most ${max}`;
  const def: ParamDef<number> = {
    description: options.description,
    example: options.example,
    schema,
    default: options.default,
    parse(raw) {
      if (!/^[+-]?(\d{1,12}(\.\d{0,12})?|\.\d{1,12})$/.test(raw)) {
        throw new ParamIssue(`must be a number ${range}, got '${clip(raw)}'`);
      }
      const value = Number(raw);
      if (value > max || value < min || (exclusiveMin && value === min)) {
        throw new ParamIssue(`must be a number ${range}, got ${value}`);
      }
      return value;
    },
  };
  return def as ParamDef<number> & Defaulted<O, number>;
}

/**
 * A boolean parameter: exactly `true` or `false`.
 *
 * @example
 * ```ts
 * boolean({ description: "Include deactivated", default: false }).parse("true"); // true
 * ```
 */
export function boolean<const O extends Common & { default?: boolean }>(
  options: O,
): ParamDef<boolean> & Defaulted<O, boolean> {
  const schema: JsonSchema = { type: "boolean" };
  if (options.default !== undefined) schema.default = options.default;
  const def: ParamDef<boolean> = {
    description: options.description,
    example: options.example,
    schema,
    default: options.default,
    parse(raw) {
      if (raw === "true") return true;
      if (raw === "false") return false;
      throw new ParamIssue(`must be 'true' or 'false', got '${clip(raw)}'`);
    },
  };
  return def as ParamDef<boolean> & Defaulted<O, boolean>;
}

/**
 * One of a fixed set of values (case-insensitive); `aliases` map other
 * spellings onto them.
 *
 * @example
 * ```ts
 * choice({ description: "Unit", values: ["mi", "km"], default: "mi" }).parse("KM"); // "km"
 * ```
 */
export function choice<
  const V extends string,
  const O extends Common & { values: readonly V[]; aliases?: Record<string, V>; default?: V } =
    & Common
    & {
      values: readonly V[];
    },
>(
  options: O & { values: readonly V[] },
): ParamDef<V> & Defaulted<O, V> {
  const { values, aliases = {} } = options;
  const lookup = new Map<string, V>();
  for (const v of values) lookup.set(v.toLowerCase(), v);
  for (const [alias, v] of Object.entries(aliases)) lookup.set(alias.toLowerCase(), v);
  const schema: JsonSchema = { type: "string", enum: [...values, ...Object.keys(aliases)] };
  if (options.default !== undefined) schema.default = options.default;
  const def: ParamDef<V> = {
    description: options.description,
    example: options.example,
    schema,
    default: options.default,
    parse(raw) {
      const value = lookup.get(raw.toLowerCase());
      if (value === undefined) {
        const allowed = values.map((v) => `'${v}'`).join(", ");
        throw new ParamIssue(`must be one of ${allowed}, got '${clip(raw)}'`);
      }
      return value;
    },
  };
  return def as ParamDef<V> & Defaulted<O, V>;
}

/**
 * A comma-separated list whose items each parse with `item`.
 *
 * @example
 * ```ts
 * list(choice({ description: "Facet", values: ["state", "sex"] }), { maxItems: 5 }).parse("state,sex");
 * // ["state", "sex"]
 * ```
 */
export function list<T>(
  item: ParamDef<T>,
  options: { maxItems: number; description?: string; example?: string },
): ParamDef<T[]> {
  return {
    description: options.description ?? item.description,
    example: options.example ?? item.example,
    schema: { type: "array", items: item.schema, minItems: 1, maxItems: options.maxItems },
    parse(raw) {
      const parts = raw.split(",").map((p) => p.trim());
      if (parts.length > options.maxItems) {
        throw new ParamIssue(`must list at most ${options.maxItems} values, got ${parts.length}`);
      }
      const values: T[] = [];
      for (const [i, part] of parts.entries()) {
        if (part === "") throw new ParamIssue(`item ${i + 1} of the list is empty`);
        try {
          values.push(item.parse(part));
        } catch (error) {
          if (error instanceof ParamIssue && parts.length > 1) {
            throw new ParamIssue(`item ${i + 1} ('${clip(part)}') ${error.message}`);
          }
          throw error;
        }
      }
      return values;
    },
  };
}

/**
 * A parameter with a parser of its own; `schema` describes it.
 *
 * @example
 * ```ts
 * custom({ description: "Opaque", schema: { type: "string" }, parse: (raw) => raw });
 * ```
 */
export function custom<T>(
  options: Common & { schema: JsonSchema; parse: (raw: string) => T; default?: T },
): ParamDef<T> {
  return { ...options };
}

/** The parsed value of each parameter: the value, its default, or `undefined`. */
export type ParsedQuery<S extends Record<string, ParamDef<unknown>>> = {
  [K in keyof S]: S[K] extends { default: infer D }
    ? (D extends undefined ? ReturnType<S[K]["parse"]> | undefined : ReturnType<S[K]["parse"]>)
    : ReturnType<S[K]["parse"]> | undefined;
};

/** A route's query parameters, parsed and documented from one definition. */
export interface QuerySchema<S extends Record<string, ParamDef<unknown>>> {
  /** The definitions, by parameter name. */
  readonly params: S;
  /**
   * Parses a query string; throws one {@linkcode ValidationError} listing
   * every bad parameter (unknown, repeated, or malformed).
   */
  parse(query: URLSearchParams): ParsedQuery<S>;
}

/**
 * Defines a route's query parameters.
 *
 * @example
 * ```ts
 * const schema = defineQuery({ limit: integer({ description: "Page size", min: 1, max: 100, default: 10 }) });
 * schema.parse(new URLSearchParams("limit=5")).limit; // 5
 * ```
 */
export function defineQuery<S extends Record<string, ParamDef<unknown>>>(
  params: S,
): QuerySchema<S> {
  const names = Object.keys(params);
  return {
    params,
    parse(query) {
      const errors: ParameterError[] = [];
      const seen = new Set<string>();
      const out: Record<string, unknown> = {};
      for (const [name, raw] of query) {
        const def = Object.hasOwn(params, name) ? params[name] : undefined;
        if (!def) {
          const hint = closest(name, names, Math.max(1, Math.min(3, Math.floor(name.length / 3))));
          errors.push({
            parameter: clip(name),
            message: hint
              ? `Unknown parameter: did you mean '${hint}'?`
              : `Unknown parameter: allowed are ${names.join(", ")}`,
          });
          continue;
        }
        if (seen.has(name)) {
          errors.push({ parameter: name, message: "is given more than once: give it once" });
          continue;
        }
        seen.add(name);
        try {
          out[name] = def.parse(raw);
        } catch (error) {
          if (!(error instanceof ParamIssue)) throw error;
          errors.push({ parameter: name, message: error.message });
        }
      }
      if (errors.length > 0) throw new ValidationError(errors);
      for (const name of names) {
        if (!(name in out) && params[name]!.default !== undefined) {
          out[name] = params[name]!.default;
        }
      }
      return out as ParsedQuery<S>;
    },
  };
}

/** Shortens a raw value for an error message. */
function clip(raw: string): string {
  return raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
}
