// A self-signed certificate for `harness serve --allow-remote` without one of the user's: an
// X.509 v3 certificate (RFC 5280) over a new P-256 key, signed with ECDSA-SHA256, naming the
// addresses it serves in subjectAltName. node:crypto makes the key, its SubjectPublicKeyInfo and
// the signature, and parses certificates (X509Certificate) but cannot write one; the DER (X.690)
// of the few fields around them is written here, so no dependency and no openssl is needed.
// Made anew at each start and kept in memory only: the key is never written to disk.
import { generateKeyPairSync, randomBytes, sign, X509Certificate } from "node:crypto";
import { isIP } from "node:net";

export interface SelfSigned {
  cert: string;
  key: string;
  /** SHA-256 of the certificate, as browsers and `openssl x509 -fingerprint -sha256` show it. */
  fingerprint: string;
}

/** Valid from an hour ago (clocks differ) for this long. */
const VALID_DAYS = 30;

export function selfSignedCertificate(names: readonly string[]): SelfSigned {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const serial = randomBytes(16);
  // Positive (RFC 5280 4.1.2.2) and minimally encoded (X.690 8.3.2): a zero first byte before one
  // under 0x80 is refused by OpenSSL's parser, which failed one start in 256 with random bytes.
  serial[0] = (serial[0] & 0x3f) | 0x40;
  const ecdsaWithSha256 = der(0x30, oid("1.2.840.10045.4.3.2"));
  const name = der(0x30, der(0x31, der(0x30, oid("2.5.4.3"), der(0x0c, Buffer.from("harness serve")))));
  const now = Date.now();
  const validity = der(0x30, utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + VALID_DAYS * 86_400_000)));
  const altNames = der(0x30, ...names.map(generalName));
  const extensions = der(0xa3, der(0x30, der(0x30, oid("2.5.29.17"), der(0x04, altNames))));
  const tbs = der(
    0x30,
    der(0xa0, der(0x02, Buffer.from([2]))), // v3
    der(0x02, serial),
    ecdsaWithSha256,
    name,
    validity,
    name,
    publicKey.export({ type: "spki", format: "der" }),
    extensions,
  );
  const signature = sign("sha256", tbs, privateKey); // DER ECDSA-Sig-Value
  const certificate = der(0x30, tbs, ecdsaWithSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const base64 = certificate.toString("base64").replace(/.{64}/g, "$&\n");
  const cert = `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`;
  return {
    cert,
    key: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    fingerprint: new X509Certificate(cert).fingerprint256,
  };
}

/** One DER element: tag, length (X.690 8.1.3, definite form), contents. */
function der(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const length = body.length;
  const head =
    length < 0x80 ? [tag, length] : length < 0x100 ? [tag, 0x81, length] : [tag, 0x82, length >> 8, length & 0xff];
  return Buffer.concat([Buffer.from(head), body]);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const digits = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) digits.unshift((value & 0x7f) | 0x80);
    bytes.push(...digits);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime (YYMMDDHHMMSSZ): RFC 5280 4.1.2.5.1 asks for it through 2049. */
function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, "").slice(2, 14);
  return der(0x17, Buffer.from(`${text}Z`));
}

/** dNSName [2] or iPAddress [7] of GeneralName (RFC 5280 4.2.1.6), tagged implicitly. */
function generalName(name: string): Buffer {
  const version = isIP(name);
  if (version === 4) return der(0x87, Buffer.from(name.split(".").map(Number)));
  if (version === 6) return der(0x87, ipv6Bytes(name));
  return der(0x82, Buffer.from(name, "ascii"));
}

/** An IPv6 address's 16 bytes (hex groups, `::` once; the dotted IPv4 tail form is not taken). */
function ipv6Bytes(address: string): Buffer {
  const [head, tail = ""] = address.split("::");
  const groups = (part: string) => (part ? part.split(":") : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = address.includes("::") ? [...groups(head), ...Array(missing).fill("0"), ...groups(tail)] : groups(head);
  const bytes = Buffer.alloc(16);
  for (const [index, group] of all.entries()) bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2);
  return bytes;
}
