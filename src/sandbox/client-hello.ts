// The server name a TLS client asks for (SNI), read from its first bytes: the proxy compares it
// with the CONNECT request's host, so a tunnel opened to an allowed name cannot carry a TLS
// session to another (domain fronting by SNI). Formats: RFC 8446 §5.1 (records: type 22
// handshake, a ClientHello may span several) and §4.1.2 (ClientHello), RFC 6066 §3
// (server_name, extension 0, host_name type 0).

/** What the first bytes of a tunnel are. */
type HelloReading = { kind: "more" } | { kind: "tls"; serverName?: string } | { kind: "not-tls"; why: string };

/** Most bytes read while waiting for a whole ClientHello (post-quantum key shares make them ~2 KB). */
export const MAX_HELLO_BYTES = 64 * 1024;

/** Reads the ClientHello from the bytes received so far; `more` when they end before it does. */
export function readClientHello(bytes: Buffer): HelloReading {
  const handshake: Buffer[] = [];
  let offset = 0;
  let wanted: number | undefined;
  let gathered = 0;
  while (wanted === undefined || gathered < wanted) {
    if (bytes.length < offset + 5) return { kind: "more" };
    if (bytes[offset] !== 22) return { kind: "not-tls", why: "the tunnel's first bytes are not a TLS handshake" };
    const length = bytes.readUInt16BE(offset + 3);
    if (bytes.length < offset + 5 + length) return { kind: "more" };
    const fragment = bytes.subarray(offset + 5, offset + 5 + length);
    handshake.push(fragment);
    gathered += fragment.length;
    offset += 5 + length;
    if (wanted === undefined) {
      const head = Buffer.concat(handshake);
      if (head.length < 4) continue;
      if (head[0] !== 1) return { kind: "not-tls", why: "the tunnel's first TLS message is not a ClientHello" };
      wanted = 4 + head.readUIntBE(1, 3);
    }
    if (offset > MAX_HELLO_BYTES) return { kind: "not-tls", why: "the ClientHello is too large" };
  }
  try {
    return { kind: "tls", serverName: serverNameOf(Buffer.concat(handshake).subarray(4, wanted)) };
  } catch {
    return { kind: "not-tls", why: "the ClientHello is malformed" };
  }
}

/** The host_name of the server_name extension of a ClientHello body; throws on a truncated one. */
function serverNameOf(hello: Buffer): string | undefined {
  let at = 2 + 32; // legacy_version, random
  const need = (bytes: number) => {
    if (at + bytes > hello.length) throw new RangeError("truncated");
  };
  need(1);
  at += 1 + hello[at]; // legacy_session_id
  need(2);
  at += 2 + hello.readUInt16BE(at); // cipher_suites
  need(1);
  at += 1 + hello[at]; // legacy_compression_methods
  if (at === hello.length) return undefined; // no extensions
  need(2);
  const end = at + 2 + hello.readUInt16BE(at);
  at += 2;
  while (at + 4 <= end) {
    const type = hello.readUInt16BE(at);
    const length = hello.readUInt16BE(at + 2);
    at += 4;
    need(length);
    if (type === 0) {
      let item = at + 2;
      const listEnd = at + 2 + hello.readUInt16BE(at);
      while (item + 3 <= listEnd) {
        const nameLength = hello.readUInt16BE(item + 1);
        if (hello[item] === 0) return hello.subarray(item + 3, item + 3 + nameLength).toString("latin1");
        item += 3 + nameLength;
      }
      return undefined;
    }
    at += length;
  }
  return undefined;
}
