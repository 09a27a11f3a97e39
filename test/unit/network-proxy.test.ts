// The proxy in-process: a client that hangs up anywhere (mid-request, mid-tunnel, before its
// ClientHello) or a server that resets never takes the harness down, and the proxy keeps
// answering; each connection is recorded once, allowed or refused.
import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { type ConnectionRecord, startNetworkProxy } from "../../src/sandbox/network-proxy.ts";
import { tempDir } from "../support/helpers.ts";

test("hang-ups and resets on either side leave the proxy answering", async () => {
  const resetting = net.createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => resetting.listen(0, "127.0.0.2", resolve));
  const port = (resetting.address() as AddressInfo).port;
  const records: ConnectionRecord[] = [];
  const proxy = startNetworkProxy({
    socketPath: join(tempDir(), "proxy.sock"),
    judge: (host) =>
      host === "reset.example" ? { allowed: true, grant: "name" } : { allowed: false, why: "not listed" },
    record: (entry) => records.push(entry),
    resolve: async () => ["127.0.0.2"],
    fakeInternet: ["127.0.0.2"],
  });
  const send = async (text: string, hangUp: boolean) => {
    const socket = net.connect(proxy.socketPath);
    socket.on("error", () => {});
    socket.write(text);
    if (hangUp) return socket.destroy();
    socket.resume();
    await once(socket, "close");
  };
  await send(
    `GET http://reset.example:${port}/ HTTP/1.1\r\nHost: reset.example:${port}\r\nContent-Length: 100\r\n\r\nabc`,
    true,
  );
  await send(`CONNECT reset.example:${port} HTTP/1.1\r\n\r\n\x16\x03\x01`, true);
  await send(
    `GET http://reset.example:${port}/ HTTP/1.1\r\nHost: reset.example:${port}\r\nConnection: close\r\n\r\n`,
    false,
  );
  await send("\x00\xff garbage \r\n\r\n", false);
  await send("CONNECT nothing HTTP/1.1\r\n\r\n", false);
  const status = await new Promise<number | undefined>((resolve, reject) =>
    http
      .get(
        { socketPath: proxy.socketPath, path: "http://denied.example/", headers: { host: "denied.example" } },
        (reply) => {
          reply.resume();
          resolve(reply.statusCode);
        },
      )
      .on("error", reject),
  );
  assert.equal(status, 403, "still answering");
  assert.ok(records.some((entry) => entry.host === "denied.example" && !entry.allowed));
  proxy.close();
  resetting.close();
});
