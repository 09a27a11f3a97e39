// The self-signed certificate harness serve makes off loopback: node's own X.509 parser reads
// it, its signature verifies, it names the addresses given, and a real TLS handshake that trusts
// only it succeeds (the one a client that pins the printed fingerprint makes).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { connect } from "node:tls";
import { selfSignedCertificate } from "../../src/shared/self-signed.ts";

test("a self-signed certificate node parses and verifies, naming the addresses, good for TLS", async () => {
  const made = selfSignedCertificate(["127.0.0.1", "::1", "fe80::1:2", "build-box", "localhost"]);
  const certificate = new X509Certificate(made.cert);
  assert.equal(certificate.subject, "CN=harness serve");
  assert.equal(certificate.issuer, certificate.subject);
  assert.equal(certificate.verify(certificate.publicKey), true);
  assert.equal(certificate.checkIP("127.0.0.1"), "127.0.0.1");
  assert.equal(certificate.checkIP("::1"), "::1");
  assert.equal(certificate.checkIP("fe80::1:2"), "fe80::1:2");
  assert.equal(certificate.checkHost("build-box"), "build-box");
  assert.equal(certificate.checkIP("10.0.0.1"), undefined);
  assert.ok(Date.parse(certificate.validFrom) <= Date.now() && Date.now() < Date.parse(certificate.validTo));
  assert.equal(made.fingerprint, certificate.fingerprint256);
  assert.notEqual(selfSignedCertificate(["localhost"]).fingerprint, made.fingerprint, "a new key each time");
  // The serial is 16 bytes, positive and minimally encoded every time: a random first byte of zero
  // once made one certificate in 256 unparseable (OpenSSL refuses a non-minimal INTEGER).
  for (let made = 0; made < 20; made++)
    assert.match(new X509Certificate(selfSignedCertificate(["localhost"]).cert).serialNumber, /^[4-7][0-9A-F]{31}$/);

  const server = createServer({ cert: made.cert, key: made.key }, (_, response) => response.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const met = await new Promise<{ authorized: boolean; fingerprint: string }>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port, ca: made.cert }, () => {
        resolve({ authorized: socket.authorized, fingerprint: socket.getPeerCertificate().fingerprint256 });
        socket.end();
      });
      socket.on("error", reject);
    });
    assert.deepEqual(met, { authorized: true, fingerprint: made.fingerprint });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
