/**
 * Row numbers grouped by a small integer value (a counting sort), the
 * shape the FHIR column searches read: the rows of value `v` are
 * `rows[offsets[v]..offsets[v + 1])`, ascending, and a run of values is one
 * range.
 *
 * @module
 */

/** Row numbers grouped by value: `rows[offsets[v]..offsets[v + 1])`, ascending. */
export interface Groups {
  offsets: Uint32Array;
  rows: Uint32Array;
}

/**
 * Groups row numbers `0..values.length` by their value (each at most `max`).
 *
 * @example
 * ```ts
 * const g = group([2, 0, 2], 2);
 * g.rows.subarray(g.offsets[2], g.offsets[3]); // [0, 2]
 * ```
 */
export function group(values: ArrayLike<number>, max: number): Groups {
  const offsets = new Uint32Array(max + 2);
  for (let k = 0; k < values.length; k++) offsets[values[k]! + 1]!++;
  for (let v = 1; v < offsets.length; v++) offsets[v]! += offsets[v - 1]!;
  const rows = new Uint32Array(values.length);
  const next = offsets.slice(0, max + 1);
  for (let k = 0; k < values.length; k++) rows[next[values[k]!]!++] = k;
  return { offsets, rows };
}
