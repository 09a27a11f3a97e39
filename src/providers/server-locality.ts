// Whether a base URL names a server on the user's own machine or network: only such a server may
// be llama.cpp or Ollama, whose context-window endpoints (context-window.ts) are worth asking.
// A cloud API has neither: asking it cost two requests a run (a 500-task batch made 1,000).
import { isIP } from "node:net";

/**
 * Ports local model servers listen on by default: Ollama 11434, llama.cpp's server 8080, LM
 * Studio 1234, vLLM 8000. A server on one of them is asked even under a public name (a
 * self-hosted box behind a domain), where a probe costs a round trip at worst.
 */
const LOCAL_SERVER_PORTS = new Set(["11434", "8080", "1234", "8000"]);

/**
 * Names that resolve only on a local network: mDNS (`.local`, RFC 6762), `.localhost` (RFC 6761),
 * the home network (`.home.arpa`, RFC 8375), the private-use `.internal`, and the common `.lan`.
 */
const LOCAL_SUFFIX = /(^|\.)(localhost|local|home\.arpa|internal|lan)$/;

/**
 * Loopback, a private or link-local address, a local-only name, a one-label name (a machine on
 * the LAN, a container's service name such as `ollama`), or a known local server port. Anything
 * else (an `api.` host on the internet) is not asked; config.json's `"local": true` on the
 * provider overrides this either way (`false` too).
 */
export function looksLocal(baseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  if (LOCAL_SERVER_PORTS.has(url.port)) return true;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const family = isIP(host);
  if (family === 4) return isLocalIPv4(host);
  if (family === 6) return isLocalIPv6(host);
  return !host.includes(".") || LOCAL_SUFFIX.test(host.replace(/\.$/, ""));
}

/** 127/8 loopback, 10/8, 172.16/12 and 192.168/16 private (RFC 1918), 169.254/16 link-local, 100.64/10 shared (RFC 6598, Tailscale). */
function isLocalIPv4(host: string): boolean {
  const [a, b] = host.split(".").map(Number);
  return (
    a === 127 ||
    a === 10 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) ||
    (a === 100 && b >= 64 && b <= 127) ||
    a === 0
  );
}

/** ::1 loopback, fc00::/7 unique local, fe80::/10 link-local, and IPv4-mapped addresses by their IPv4 part. */
function isLocalIPv6(host: string): boolean {
  if (host === "::1") return true;
  // URL writes an IPv4-mapped address in hex: [::ffff:127.0.0.1] is ::ffff:7f00:1.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const [high, low] = [Number.parseInt(mapped[1], 16), Number.parseInt(mapped[2], 16)];
    return isLocalIPv4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  const first = Number.parseInt(host.split(":")[0] || "0", 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}
