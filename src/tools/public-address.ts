// Which addresses web_fetch may connect to: public ones, plus those the user allows. Checked on
// the address the name resolves to (a public name can point at 127.0.0.1), at connect time.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/** Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast and reserved ranges. */
const PRIVATE = new BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const)
  PRIVATE.addSubnet(prefix, bits, "ipv4");
for (const [prefix, bits] of [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ["::ffff:0:0:0", 96], // IPv4-translated
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
  ["2001:db8::", 32],
] as const)
  PRIVATE.addSubnet(prefix, bits, "ipv6");

/** Whether an IP address is not on the public internet. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 inside. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPrivateAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return true; // not an address we can judge: refuse
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Why `address` may not be used, or undefined. `allowed` lists private addresses the user opened. */
export function whyRefused(address: string, allowed: string[]): string | undefined {
  if (!isPrivateAddress(address) || allowed.includes(address)) return undefined;
  return `${address} is a private or loopback address; web_fetch only reaches public addresses (the user can allow one in HARNESS_WEB_FETCH_ALLOW)`;
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
