/**
 * Opaque paging cursors. A cursor carries where the next page starts (the
 * last sort key and the absolute offset), bound to the query it came from
 * and the dataset that answered it by a checksum, so a cursor from another
 * query, another dataset or another server is refused.
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

/**
 * Encodes a position for `scope` (the query's fingerprint and the dataset's
 * identity).
 *
 * @example
 * ```ts
 * const cursor = encodeCursor({ offset: 10, after: [3, 1042] }, "q=smith|2026-08-10");
 * decodeCursor(cursor, "q=smith|2026-08-10"); // { offset: 10, after: [3, 1042] }
 * ```
 */
export function encodeCursor(position: CursorPosition, scope: string): string {
  const payload = JSON.stringify([position.offset, position.after]);
  return toBase64Url(`${payload}.${checksum(`${scope}\u0000${payload}`)}`);
}

/** Why a cursor was refused. */
export class CursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CursorError";
  }
}

/**
 * Decodes a cursor issued for `scope`; throws {@linkcode CursorError} for
 * anything else.
 */
export function decodeCursor(cursor: string, scope: string): CursorPosition {
  let text: string;
  try {
    text = fromBase64Url(cursor);
  } catch {
    throw new CursorError("is not a cursor this server issued: pass next_cursor as it was given");
  }
  const dot = text.lastIndexOf(".");
  const payload = text.slice(0, dot);
  if (dot < 0 || text.slice(dot + 1) !== checksum(`${scope}\u0000${payload}`)) {
    throw new CursorError(
      "was not issued for this query and dataset: repeat the query that returned it, or start again without cursor",
    );
  }
  const value: unknown = JSON.parse(payload);
  if (
    !Array.isArray(value) || !Number.isInteger(value[0]) || !Array.isArray(value[1]) ||
    !value[1].every((n: unknown) => typeof n === "number" && Number.isFinite(n))
  ) {
    throw new CursorError("is not a cursor this server issued: pass next_cursor as it was given");
  }
  return { offset: value[0], after: value[1] };
}
