import { assert, assertEquals, assertThrows } from "@std/assert";
import { compileNicknameCsv, nicknames, NicknameTable } from "../lib/names/nicknames.ts";
import { NICKNAME_LINES } from "../lib/names/_nicknames_data.ts";
import { nicknameModule } from "../scripts/vendor_nicknames.ts";

Deno.test("nickname table: both directions, one hop, case-folded", () => {
  const table = nicknames();
  assert(table.size > 1500, `only ${table.size} names`);
  for (const nick of ["bob", "rob", "robby", "bobby"]) {
    assert(table.nicknamesOf("Robert").includes(nick), nick);
  }
  assert(table.formalNamesOf("peggy").includes("margaret"));
  assert(table.areNicknames("William", "BILL"));
  assert(table.areNicknames("bill", "william"));
  assert(!table.areNicknames("william", "william"), "a name is not its own nickname");
  assert(
    !table.areNicknames("albert", "alfred"),
    "siblings through a shared nickname are not aliases",
  );
  const aliases = table.aliasesOf("Bob");
  assertEquals(aliases[0], "bob");
  assert(aliases.includes("robert"));
  assertEquals(table.aliasesOf("Zzyzx"), ["zzyzx"]);
});

Deno.test("nickname CSV: compiles upstream rows, refuses what it does not understand", () => {
  const lines = compileNicknameCsv(
    "name1,relationship,name2\r\nrobert,has_nickname,rob\r\nabel,has_nickname,ab\r\nrobert,has_nickname,bob\r\n",
  );
  assertEquals(lines, ["abel:ab", "robert:rob bob"]);
  assertEquals(new NicknameTable(lines).formalNamesOf("bob"), ["robert"]);
  assertThrows(() => compileNicknameCsv("a,b\n"), Error, "header");
  assertThrows(
    () => compileNicknameCsv("name1,relationship,name2\nrobert,is_twin_of,bob\n"),
    Error,
    "row 2",
  );
});

Deno.test("nickname table: the compiled module matches the vendored CSV", async () => {
  const csv = await Deno.readTextFile(new URL("../vendor/nicknames/names.csv", import.meta.url));
  const compiled = compileNicknameCsv(csv);
  assertEquals(
    compiled.length,
    NICKNAME_LINES.length,
    "regenerate with scripts/vendor_nicknames.ts",
  );
  assert(compiled.every((line, i) => line === NICKNAME_LINES[i]), "regenerate the module");
  assert(nicknameModule(compiled).includes(JSON.stringify(compiled[0])));
});
