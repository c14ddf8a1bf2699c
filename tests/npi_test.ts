import { assert, assertEquals, assertFalse, assertThrows } from "@std/assert";
import { isValidNpi, npiCheckDigit } from "../lib/npi.ts";

Deno.test("[npi] real NPIs pass the check digit", () => {
  assert(isValidNpi("1003000126"));
  assert(isValidNpi("1234567893"));
  assertEquals(npiCheckDigit("100300012"), "6");
  assertEquals(npiCheckDigit("123456789"), "3");
});

Deno.test("[npi] a wrong check digit fails", () => {
  assertFalse(isValidNpi("1234567890"));
  assertFalse(isValidNpi("1003000127"));
});

Deno.test("[npi] malformed values fail", () => {
  for (const bad of ["", "123456789", "12345678931", "123456789X", "3234567893", " 1234567893"]) {
    assertFalse(isValidNpi(bad), bad);
  }
});

Deno.test("[npi] npiCheckDigit rejects anything but nine digits", () => {
  assertThrows(() => npiCheckDigit("12345678"), TypeError);
  assertThrows(() => npiCheckDigit("12345678a"), TypeError);
});

Deno.test("[npi] exactly one check digit is right for any stem", () => {
  for (const stem of ["100000000", "199999999", "200000000", "299999999", "154321987"]) {
    const right = npiCheckDigit(stem);
    for (let d = 0; d <= 9; d++) {
      assertEquals(isValidNpi(stem + d), String(d) === right, stem + d);
    }
  }
});
