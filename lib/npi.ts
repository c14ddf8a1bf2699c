/**
 * National Provider Identifier (NPI) check digit.
 *
 * An NPI is 10 digits; the 10th is a Luhn check digit computed over the
 * first nine digits with the card-issuer prefix `80840` in front of them
 * (the prefix contributes a constant 24 to the Luhn sum).
 *
 * @module
 */

const DIGITS_9 = /^[0-9]{9}$/;
const NPI_SHAPE = /^[12][0-9]{9}$/;

/**
 * Computes the check digit of an NPI from its first nine digits.
 *
 * Throws a `TypeError` when `first9` is not exactly nine digits.
 *
 * @example
 * ```ts
 * npiCheckDigit("100300012"); // "6"
 * npiCheckDigit("123456789"); // "3"
 * ```
 */
export function npiCheckDigit(first9: string): string {
  if (!DIGITS_9.test(first9)) {
    throw new TypeError(`Cannot compute an NPI check digit of '${first9}': need 9 digits`);
  }
  // Luhn over "80840" + first9 + check: the prefix adds 24 to the sum.
  let sum = 24;
  for (let i = 0; i < 9; i++) {
    let d = first9.charCodeAt(8 - i) - 48;
    // Rightmost payload digit (i = 0) sits next to the check digit: doubled.
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/**
 * Tells whether `npi` is a well-formed NPI: 10 digits, starting with 1 or 2,
 * whose last digit is the right Luhn check digit.
 *
 * @example
 * ```ts
 * isValidNpi("1003000126"); // true
 * isValidNpi("1234567893"); // true
 * isValidNpi("1234567890"); // false
 * ```
 */
export function isValidNpi(npi: string): boolean {
  if (!NPI_SHAPE.test(npi)) return false;
  return npiCheckDigit(npi.slice(0, 9)) === npi.charAt(9);
}
