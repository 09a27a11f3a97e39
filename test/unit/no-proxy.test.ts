// NO_PROXY read as curl reads it (https://curl.se/docs/manpage.html#--noproxy and the
// NO_PROXY environment variable): a bare IPv6 such as `::1` is an address, not host `:` port 1.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bypasses } from "../../src/shared/proxy.ts";

const cases: Array<[string, string, boolean]> = [
  ["::1", "http://[::1]:8080/", true],
  ["::1", "http://[::2]/", false],
  ["[::1]", "https://[::1]/", true],
  ["[::1]:8080", "http://[::1]:8080/", true],
  ["[::1]:8080", "http://[::1]:9090/", false],
  ["0:0::1", "http://[::1]/", true],
  ["fd00::/8", "http://[fd12::5]/", true],
  ["fd00::/8", "http://[fe80::1]/", false],
  ["10.0.0.0/8", "http://10.2.3.4/", true],
  ["10.0.0.0/8", "http://11.2.3.4/", false],
  ["127.0.0.1", "http://127.0.0.1:3000/", true],
  ["127.0.0.1", "http://[::1]/", false],
  ["localhost", "http://localhost:1234/", true],
  [".example.com", "https://api.example.com/", true],
  ["*.example.com", "https://example.com/", true],
  ["example.com:443", "https://example.com/", true],
  ["example.com:8443", "https://example.com/", false],
  ["example.com", "https://notexample.com/", false],
  ["example.com", "http://1.2.3.4/", false],
  ["*", "https://anything.test/", true],
  ["a.test, ::1 b.test", "http://[::1]/", true],
  ["10.0.0.0/33", "http://10.0.0.1/", false],
];

test("NO_PROXY entries match as curl matches them, IPv6 addresses and ranges included", () => {
  for (const [noProxy, target, expected] of cases)
    assert.equal(bypasses(noProxy, new URL(target)), expected, `NO_PROXY=${noProxy} for ${target}`);
});
