import { assertEquals, assertMatch, assertThrows } from "@std/assert";
import { loadConfig } from "../lib/config.ts";

Deno.test("[config] defaults", () => {
  const config = loadConfig({});
  assertEquals(config.port, 7860);
  assertEquals(config.host, "0.0.0.0");
  assertEquals(config.databasePath, "data/providers.db");
  assertEquals(config.requestTimeoutMs, 10000);
  assertEquals(config.rateLimitPerMinute, 0);
  assertEquals(config.trustProxyHeader, null);
});

Deno.test("[config] every invalid variable is named in one error", () => {
  const error: TypeError = assertThrows(
    () => loadConfig({ PORT: "http", REQUEST_TIMEOUT_MS: "-1", TRUST_PROXY_HEADER: "a b" }),
    TypeError,
  );
  assertMatch(error.message, /PORT must be an integer from 0 to 65535, got 'http'/);
  assertMatch(error.message, /REQUEST_TIMEOUT_MS/);
  assertMatch(error.message, /TRUST_PROXY_HEADER/);
});

Deno.test("[config] PIN_DATA_FILES is 0 (default) or 1", () => {
  assertEquals(loadConfig({}).pinDataFiles, false);
  assertEquals(loadConfig({ PIN_DATA_FILES: "1" }).pinDataFiles, true);
  assertEquals(loadConfig({ PIN_DATA_FILES: "0" }).pinDataFiles, false);
  const error: TypeError = assertThrows(() => loadConfig({ PIN_DATA_FILES: "yes" }), TypeError);
  assertMatch(error.message, /PIN_DATA_FILES must be an integer from 0 to 1, got 'yes'/);
});

Deno.test("[config] HOLD_RECORDS is 1 (default) or 0", () => {
  assertEquals(loadConfig({}).holdRecords, true);
  assertEquals(loadConfig({ HOLD_RECORDS: "0" }).holdRecords, false);
  const error: TypeError = assertThrows(() => loadConfig({ HOLD_RECORDS: "2" }), TypeError);
  assertMatch(error.message, /HOLD_RECORDS must be an integer from 0 to 1, got '2'/);
});
