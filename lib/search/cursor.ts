/**
 * Opaque paging cursors. A cursor carries where the next page starts (the
 * last sort key and the absolute offset) and the dataset release that
 * answered, bound to the query it came from by a checksum: a cursor of
 * another query is refused as invalid, one of this query issued on another
 * release as gone (the walk must start again, never mix releases).
 *
 * @module
 */
import type { CursorPosition } from "./query.ts";

/** 53-bit FNV-1a style hash of a string, as a base-36 string. */
function checksum(text: string): string {
  let h1 = 0x811c9dc5, h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return ((h1 >>> 0) * 2 ** 21 + (h2 >>> 11)).toString(36);
}

function toBase64Url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string {
  return atob(text.replaceAll("-", "+").replaceAll("_", "/"));
}

/** What a cursor is bound to: the query's fingerprint and the dataset release that answered it. */
export interface CursorScope {
  /** The query's identity (every parameter but the paging ones). */
  query: string;
  /** The release id of the dataset that answered. */
  release: string;
}

/**
 * Encodes a position for `scope`. The release id travels in the cursor, so
 * that a cursor from another release is told apart from a foreign one.
 *
 * @example
 * ```ts
 * const scope = { query: "q=smith", release: "nppes-20260810-20260811T101512345Z" };
 * const cursor = encodeCursor({ offset: 10, after: [3, 1042] }, scope);
 * decodeCursor(cursor, scope); // { offset: 10, after: [3, 1042] }
 * ```
 */
export function encodeCursor(position: CursorPosition, scope: CursorScope): string {
  const payload = JSON.stringify([position.offset, position.after, scope.release]);
  return toBase64Url(`${payload}.${checksum(`${scope.query}\u0000${payload}`)}`);
}

/** Why a cursor was refused. */
export class CursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CursorError";
  }
}

/**
 * A cursor issued for this very query on another dataset release: its
 * positions mean nothing in this one, and the walk must start again.
 */
export class CursorReleaseError extends CursorError {
  /**
   * @param cursorRelease The release the cursor was issued on.
   * @param currentRelease The release served now.
   */
  constructor(readonly cursorRelease: string, readonly currentRelease: string) {
    super(
      `The cursor was issued on dataset release '${cursorRelease}', and this server now serves ` +
        `release '${currentRelease}': the pages would mix two releases. Start again without ` +
        `cursor (the dataset is updated in place; see GET /v1/dataset)`,
    );
    this.name = "CursorReleaseError";
  }
}

/**
 * Decodes a cursor issued for `scope`. Throws {@linkcode CursorReleaseError}
 * for a cursor of the same query issued on another release, and
 * {@linkcode CursorError} for anything else that is not a cursor of this
 * query.
 *
 * @example
 * ```ts
 * const position = decodeCursor(cursor, { query: fingerprint, release: dataset.release().id });
 * ```
 */
export function decodeCursor(cursor: string, scope: CursorScope): CursorPosition {
  const foreign = () =>
    new CursorError("is not a cursor this server issued: pass next_cursor as it was given");
  let text: string;
  try {
    text = fromBase64Url(cursor);
  } catch {
    throw foreign();
  }
  const dot = text.lastIndexOf(".");
  const payload = text.slice(0, dot);
  if (dot < 0 || text.slice(dot + 1) !== checksum(`${scope.query}\u0000${payload}`)) {
    throw new CursorError(
      "was not issued for this query: repeat the query that returned it, or start again without cursor",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    throw foreign();
  }
  if (
    !Array.isArray(value) || value.length !== 3 || !Number.isInteger(value[0]) ||
    !Array.isArray(value[1]) ||
    !value[1].every((n: unknown) => typeof n === "number" && Number.isFinite(n)) ||
    typeof value[2] !== "string"
  ) {
    throw foreign();
  }
  if (value[2] !== scope.release) throw new CursorReleaseError(value[2], scope.release);
  return { offset: value[0], after: value[1] };
}
