// Which addresses web_fetch may connect to: public ones, plus those the user allows. Checked on
// the address the name resolves to (a public name can point at 127.0.0.1), at connect time.
//
// "Public" follows IANA's special-purpose address registries, the "Globally Reachable" column
// (https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/, as of 2024). IPv6 is judged by
// class, not by spelling: an address that carries an IPv4 address (IPv4-mapped, NAT64's
// well-known prefix, 6to4, Teredo) is judged by the IPv4 inside, so `2002:7f00:1::1` is
// 127.0.0.1 and `64:ff9b::a9fe:a9fe` is 169.254.169.254; anything outside global unicast
// (2000::/3) is refused, whether the registry names it (discard-only 100::/64, unique-local,
// link-local, multicast), deprecates it (site-local fec0::/10, IPv4-compatible ::a.b.c.d) or has
// not assigned it yet; inside 2000::/3 the registry's blocks that are not globally reachable are
// refused (IETF protocol assignments 2001::/23 but for its global carve-outs, documentation).
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/** IPv4 blocks not globally reachable, with what they are. */
const PRIVATE_V4: [string, number, string][] = [
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay anycast (deprecated)"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved or broadcast"],
];
const V4_LISTS = PRIVATE_V4.map(([prefix, bits, name]) => {
  const list = new BlockList();
  list.addSubnet(prefix, bits, "ipv4");
  return { list, name };
});

/** IPv6 blocks refused by name (outside 2000::/3 everything is refused; these name why). */
const PRIVATE_V6: [string, number, string][] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::", 96, "IPv4-compatible (deprecated)"],
  ["::ffff:0:0:0", 96, "IPv4-translated"],
  ["64:ff9b:1::", 48, "local-use IPv4/IPv6 translation"],
  ["100::", 64, "discard-only"],
  ["100:0:0:1::", 64, "dummy prefix"],
  ["200::", 7, "OSI NSAP-mapped (deprecated)"],
  ["2001::", 23, "IETF protocol assignments"],
  ["2001:db8::", 32, "documentation"],
  ["3fff::", 20, "documentation"],
  ["5f00::", 16, "segment routing"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local (deprecated)"],
  ["ff00::", 8, "multicast"],
];
/** Blocks inside 2001::/23 the registry marks globally reachable (anycast services, AMT, AS112, ORCHIDv2, drone IDs). */
const GLOBAL_V6: [string, number][] = [
  ["2001:1::1", 128],
  ["2001:1::2", 128],
  ["2001:1::3", 128],
  ["2001:3::", 32],
  ["2001:4:112::", 48],
  ["2001:20::", 28],
  ["2001:30::", 28],
];

/**
 * IPv6 forms that carry IPv4 addresses, and where (byte offsets; Teredo's client address is
 * stored inverted). The IPv4 inside decides: it is where the packet goes.
 */
const EMBEDDING: { prefix: string; bits: number; name: string; at: number[]; inverted?: boolean }[] = [
  { prefix: "::ffff:0:0", bits: 96, name: "IPv4-mapped", at: [12] },
  { prefix: "64:ff9b::", bits: 96, name: "NAT64", at: [12] },
  { prefix: "2002::", bits: 16, name: "6to4", at: [2] },
  { prefix: "2001::", bits: 32, name: "Teredo", at: [4, 12], inverted: true },
];

/** Why an IP address is not on the public internet (`loopback`, `6to4 of 127.0.0.1: loopback`), or undefined when it is. */
export function whyNotPublic(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return V4_LISTS.find(({ list }) => list.check(address, "ipv4"))?.name;
  const bytes = family === 6 ? ipv6Bytes(address) : undefined;
  if (!bytes) return "not an address that can be judged";
  return whyNotPublicV6(bytes);
}

function whyNotPublicV6(bytes: Uint8Array): string | undefined {
  const embedding = EMBEDDING.find((form) => inPrefix(bytes, form.prefix, form.bits));
  if (embedding) {
    for (const [index, offset] of embedding.at.entries()) {
      const octets = [...bytes.subarray(offset, offset + 4)].map((byte) =>
        embedding.inverted && index > 0 ? byte ^ 0xff : byte,
      );
      const ipv4 = octets.join(".");
      const why = whyNotPublic(ipv4);
      if (why) return `${embedding.name} of ${ipv4}: ${why}`;
    }
    return undefined;
  }
  if (GLOBAL_V6.some(([prefix, bits]) => inPrefix(bytes, prefix, bits))) return undefined;
  // The most specific named block says why; outside 2000::/3 with no name, it is unassigned space.
  const named = PRIVATE_V6.filter(([prefix, bits]) => inPrefix(bytes, prefix, bits)).sort((a, b) => b[1] - a[1])[0];
  if (named) return named[2];
  return inPrefix(bytes, "2000::", 3) ? undefined : "outside global unicast (2000::/3)";
}

/** Whether the first `bits` bits of an address are those of `prefix`. */
function inPrefix(bytes: Uint8Array, prefix: string, bits: number): boolean {
  const base = ipv6Bytes(prefix)!;
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if ((bytes[bit / 8] & mask) !== (base[bit / 8] & mask)) return false;
  }
  return true;
}

/** The 16 bytes of an IPv6 address in any spelling (`::`, a dotted IPv4 tail, a `%zone`); undefined when it is not one. */
function ipv6Bytes(address: string): Uint8Array | undefined {
  let text = address.replace(/%.*$/, "").toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (isIP(dotted[1]) !== 4) return undefined;
    const [a, b, c, d] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!all.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/** Why `address` may not be used, or undefined. `allowed` lists private addresses the user opened. */
export function whyRefused(address: string, allowed: string[]): string | undefined {
  const why = whyNotPublic(address);
  if (why === undefined || allowed.includes(address)) return undefined;
  return `${address} is a private or loopback address (${why}); web_fetch only reaches public addresses (the user can allow one in HARNESS_WEB_FETCH_ALLOW)`;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves the name and refuses a private answer, so the
 * address checked is the address connected to (no second resolution to rebind).
 */
export function guardedLookup(allowed: string[]) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "");
      const refused = addresses.map((entry) => whyRefused(entry.address, allowed)).find(Boolean);
      if (refused) return callback(Object.assign(new Error(refused), { code: "EREFUSED_PRIVATE" }), "");
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
