import { assertEquals } from "@std/assert";
import { digitsValue } from "../lib/text/digits.ts";

Deno.test("[digits] reads ASCII digits in a range, -1 for anything else", () => {
  assertEquals(digitsValue("90210-1234", 0, 5), 90210);
  assertEquals(digitsValue("00501", 0, 5), 501);
  assertEquals(digitsValue("08/31/2007", 6, 10), 2007);
  assertEquals(digitsValue("9021A", 0, 5), -1);
  assertEquals(digitsValue("9021", 0, 5), -1); // runs past the end
  assertEquals(digitsValue("12", 1, 1), -1); // empty
  assertEquals(digitsValue("１２", 0, 2), -1); // not ASCII digits
});
