// web_fetch's judgement of an address, by class and not by spelling: every IPv6 form that carries
// an internal IPv4 address (6to4, NAT64 in both prefixes, Teredo, IPv4-mapped in hex), the
// registry's blocks that are not globally reachable, and deprecated ones, against public
// controls that must stay allowed. The function directly, then one spelling through the built
// CLI's web_fetch, whose refusal comes before any connection (a page server on loopback sees nothing).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { whyNotPublic } from "../../src/shared/public-address.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { onTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();

/** Each address, and the reason it is refused (undefined: public, allowed). */
const CASES: [string, string | undefined][] = [
  // 6to4 (2002::/16): the IPv4 address in bits 16-47 decides.
  ["2002:7f00:1::1", "6to4 of 127.0.0.1: loopback"],
  ["2002:a9fe:a9fe::1", "6to4 of 169.254.169.254: link-local (cloud metadata)"],
  ["2002:0a00:0001::", "6to4 of 10.0.0.1: private"],
  ["2002:c0a8:0101:1::5", "6to4 of 192.168.1.1: private"],
  ["2002:808:808::1", undefined],
  // NAT64, the well-known prefix (64:ff9b::/96): the last 32 bits, in hex or dotted.
  ["64:ff9b::7f00:1", "NAT64 of 127.0.0.1: loopback"],
  ["64:ff9b::169.254.169.254", "NAT64 of 169.254.169.254: link-local (cloud metadata)"],
  ["64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254: link-local (cloud metadata)"],
  ["64:ff9b::808:808", undefined],
  // NAT64 for local use (64:ff9b:1::/48): not globally reachable at all.
  ["64:ff9b:1::a9fe:a9fe", "local-use IPv4/IPv6 translation"],
  ["64:ff9b:1:ffff::808:808", "local-use IPv4/IPv6 translation"],
  // Teredo (2001::/32): the server's IPv4 in bits 32-63, the client's inverted in the last 32.
  ["2001:0:7f00:1::", "Teredo of 127.0.0.1: loopback"],
  ["2001:0:808:808::80ff:fffe", "Teredo of 127.0.0.1: loopback"],
  ["2001:0000:0808:0808:0000:0000:5601:5601", "Teredo of 169.254.169.254: link-local (cloud metadata)"],
  ["2001:0:808:808::f7f7:f7f7", undefined],
  // IPv4-mapped, dotted and hex, and IPv4-compatible (deprecated).
  ["::ffff:127.0.0.1", "IPv4-mapped of 127.0.0.1: loopback"],
  ["::ffff:7f00:1", "IPv4-mapped of 127.0.0.1: loopback"],
  ["0:0:0:0:0:ffff:a9fe:a9fe", "IPv4-mapped of 169.254.169.254: link-local (cloud metadata)"],
  ["::ffff:8.8.8.8", undefined],
  ["::127.0.0.1", "IPv4-compatible (deprecated)"],
  ["::8.8.8.8", "IPv4-compatible (deprecated)"],
  ["::ffff:0:7f00:1", "IPv4-translated"],
  // The registry's other blocks that are not globally reachable, and deprecated ones.
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["100::1", "discard-only"],
  ["100::", "discard-only"],
  ["fec0::1", "site-local (deprecated)"],
  ["feff:ffff::1", "site-local (deprecated)"],
  ["fe80::1%eth0", "link-local"],
  ["fd00::1", "unique-local"],
  ["ff02::1", "multicast"],
  ["2001:2::1", "IETF protocol assignments"],
  ["2001:10::1", "IETF protocol assignments"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["5f00::1", "segment routing"],
  ["4000::1", "outside global unicast (2000::/3)"],
  ["::2", "IPv4-compatible (deprecated)"],
  // Inside 2001::/23, the registry's globally reachable blocks stay public.
  ["2001:1::1", undefined],
  ["2001:3::1", undefined],
  ["2001:4:112::1", undefined],
  ["2001:20::1", undefined],
  // Ordinary public addresses, both families.
  ["2606:4700:4700::1111", undefined],
  ["2a00:1450:4001:80b::200e", undefined],
  ["8.8.8.8", undefined],
  // IPv4 blocks.
  ["127.0.0.1", "loopback"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["100.64.0.1", "carrier-grade NAT"],
  ["192.0.2.1", "documentation"],
  ["255.255.255.255", "reserved or broadcast"],
  ["example.com", "not an address that can be judged"],
];

test("every spelling of an internal address is refused with its class; public ones are not", () => {
  const wrong = CASES.filter(([address, why]) => whyNotPublic(address) !== why).map(
    ([address, why]) => `${address}: expected ${why ?? "public"}, got ${whyNotPublic(address) ?? "public"}`,
  );
  assert.deepEqual(wrong, []);
});

test("web_fetch of 6to4 and local-use NAT64 spellings is refused before any connection", async () => {
  const seen: string[] = [];
  const pages: Server = createServer((request, response) => {
    seen.push(request.url ?? "");
    response.end("page");
  });
  await new Promise<void>((resolve) => pages.listen(0, "::", resolve));
  onTestEnd(() => new Promise<void>((resolve) => pages.close(() => resolve())));
  const { port } = pages.address() as AddressInfo;
  const urls = [`http://[2002:7f00:1::1]:${port}/page`, `http://[64:ff9b:1::a9fe:a9fe]:${port}/page`];
  const fake = await serve([
    {
      reply: {
        toolCalls: urls.map((url, n) => ({ id: `f${n}`, name: "web_fetch", arguments: { url } })),
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], { env: cleanEnv() });
  assert.equal(result.code, 0, result.stderr);
  const results = (fake.requests[1].body.messages as { role: string; content: string }[])
    .filter((message) => message.role === "tool")
    .map((message) => message.content);
  assert.deepEqual(results, [
    "Not fetched: 2002:7f00:1::1 is a private or loopback address (6to4 of 127.0.0.1: loopback); web_fetch only reaches public addresses (the user can allow one in HARNESS_WEB_FETCH_ALLOW).",
    "Not fetched: 64:ff9b:1::a9fe:a9fe is a private or loopback address (local-use IPv4/IPv6 translation); web_fetch only reaches public addresses (the user can allow one in HARNESS_WEB_FETCH_ALLOW).",
  ]);
  assert.deepEqual(seen, [], "no request reached the page server");
});
