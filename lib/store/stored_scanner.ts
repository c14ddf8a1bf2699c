/**
 * Reading a record's stored form (JSON without white space, as
 * `JSON.stringify` writes it: `encodeProvider` in `codec.ts`) token by
 * token, for the writers that turn it into text without building the
 * record object (`record_text.ts`, the Registry API's `registry_text.ts`).
 * A stored form of another shape throws {@linkcode UNEXPECTED}, and the
 * writer renders that record the slow way.
 *
 * @module
 */

/** Thrown inside the scanner when a stored form is not of the expected shape. */
export class Unexpected extends Error {}
export const UNEXPECTED = new Unexpected("stored form of another shape");

/**
 * Reads a stored form (JSON without white space) token by token. Scalars
 * come back as their JSON text, in the form `JSON.stringify` writes them.
 */
export class Scanner {
  s = "";
  i = 0;
  /** Where the next backslash is (-1: none left). */
  slash = -1;

  reset(text: string): this {
    this.s = text;
    this.i = 0;
    this.slash = text.indexOf("\\");
    return this;
  }

  /** `[` (true) or `null` (false). */
  openOrNull(): boolean {
    const c = this.s.charCodeAt(this.i);
    if (c === 91) {
      this.i++;
      return true;
    }
    if (c === 110 && this.s.startsWith("null", this.i)) {
      this.i += 4;
      return false;
    }
    throw UNEXPECTED;
  }

  open(): void {
    if (this.s.charCodeAt(this.i) !== 91) throw UNEXPECTED;
    this.i++;
  }

  /** After an element: `,` (true: another follows) or `]` (false: the list ended). */
  more(): boolean {
    const c = this.s.charCodeAt(this.i++);
    if (c === 44) return true;
    if (c === 93) return false;
    throw UNEXPECTED;
  }

  /** At the start of a list: whether it is empty (its `]` is then read). */
  empty(): boolean {
    if (this.s.charCodeAt(this.i) !== 93) return false;
    this.i++;
    return true;
  }

  /** `,` between elements of a list of known length. */
  comma(): void {
    if (this.s.charCodeAt(this.i++) !== 44) throw UNEXPECTED;
  }

  /** `]` ending a list of known length. */
  close(): void {
    if (this.s.charCodeAt(this.i++) !== 93) throw UNEXPECTED;
  }

  /** A string, number, boolean or null, as JSON text. */
  scalar(): string {
    const s = this.s;
    const start = this.i;
    const c = s.charCodeAt(start);
    if (c === 34) {
      const end = s.indexOf('"', start + 1);
      if (end < 0) throw UNEXPECTED;
      if (this.slash < 0 || this.slash > end) {
        this.i = end + 1;
        return s.slice(start, end + 1);
      }
      return this.#escaped(start, end);
    }
    if (c === 110) return this.#literal("null");
    if (c === 116) return this.#literal("true");
    if (c === 102) return this.#literal("false");
    let end = start;
    let plain = c !== 48 || !(s.charCodeAt(start + 1) >= 48 && s.charCodeAt(start + 1) <= 57);
    for (;;) {
      const d = s.charCodeAt(end);
      if (d >= 48 && d <= 57) end++;
      else if (d === 44 || d === 93 || d !== d) break;
      else {
        // A sign, a point or an exponent: written again as JSON.stringify writes the number.
        plain = false;
        end++;
      }
    }
    this.i = end;
    const token = s.slice(start, end);
    if (plain && token.length > 0 && token.length < 16) return token;
    const n = Number(token);
    if (token === "" || !Number.isFinite(n)) throw UNEXPECTED;
    return JSON.stringify(n);
  }

  #literal(word: string): string {
    if (!this.s.startsWith(word, this.i)) throw UNEXPECTED;
    this.i += word.length;
    return word;
  }

  /** A string with escapes: found to its unescaped quote, written as JSON.stringify writes it. */
  #escaped(start: number, first: number): string {
    const s = this.s;
    let end = first;
    for (;;) {
      if (end < 0) throw UNEXPECTED;
      let back = 0;
      while (s.charCodeAt(end - 1 - back) === 92) back++;
      if (back % 2 === 0) break;
      end = s.indexOf('"', end + 1);
    }
    this.i = end + 1;
    this.slash = s.indexOf("\\", end + 1);
    let value: unknown;
    try {
      value = JSON.parse(s.slice(start, end + 1));
    } catch {
      throw UNEXPECTED;
    }
    return JSON.stringify(value);
  }

  /** The next scalar, read after a `,`. */
  next(): string {
    this.comma();
    return this.scalar();
  }

  /** The end of the text: nothing may follow. */
  end(): void {
    if (this.i !== this.s.length) throw UNEXPECTED;
  }
}

/** A scalar's value as an export cell: `null` is empty, a string unquoted, others as written. */
export function cellText(json: string): string {
  if (json === "null") return "";
  if (json.charCodeAt(0) !== 34) return json;
  return json.indexOf("\\") < 0 ? json.slice(1, -1) : JSON.parse(json) as string;
}
