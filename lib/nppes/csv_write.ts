/**
 * Writes rows the way CMS writes the NPPES files: every value in double
 * quotes, empty ones too, and a double quote inside a value replaced by a
 * single quote (the files never carry `""` escapes).
 *
 * @module
 */

/** The line ending the writer uses. */
export const NPPES_EOL = "\r\n";

/**
 * Formats one row as an NPPES CSV line, line ending included.
 *
 * @example
 * ```ts
 * formatNppesRow(["1003000126", 'sam"ple']); // "\"1003000126\",\"sam'ple\"\r\n"
 * ```
 */
export function formatNppesRow(fields: readonly string[]): string {
  let line = "";
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) line += ",";
    const value = fields[i]!;
    line += '"' + (value.includes('"') ? value.replaceAll('"', "'") : value) + '"';
  }
  return line + NPPES_EOL;
}
