// The server's own bounds, in-process over a real socket: a client that reads nothing holds one
// batch in the server's buffers however much the session says, and is disconnected once it falls
// behind what the log keeps; the log keeps its bound; a reconnect is told what it missed; the
// guard's pieces (token compare, host names, the failure limit) do what request-guard.ts says.
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { test } from "node:test";
import { EventLog } from "../../src/server/event-log.ts";
import { streamLog } from "../../src/server/event-stream.ts";
import { FailureLimit, hostNamesFor, isToken } from "../../src/server/request-guard.ts";

const bigEvent = (n: number) => ({ type: "text_delta" as const, text: `${n}:${"x".repeat(10_000)}` });

test("a client that reads nothing: the server's buffer stays under a batch, then the client is let go", async () => {
  const log = new EventLog({ maxEvents: 1_000, maxBytes: 1_000_000 });
  let response: ServerResponse | undefined;
  let closed = false;
  const server = createServer((_request, res) => {
    response = res;
    res.on("close", () => (closed = true));
    streamLog(res, log, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const stalled = connect(port, "127.0.0.1");
  stalled.pause();
  stalled.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  while (!response) await new Promise((resolve) => setTimeout(resolve, 10));
  let mostBuffered = 0;
  // 50 MB said, 10 KB at a time, with turns of the event loop for the socket to fill.
  for (let n = 0; n < 5_000 && !closed; n++) {
    log.append(bigEvent(n));
    mostBuffered = Math.max(mostBuffered, response.writableLength);
    if (n % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  assert.ok(mostBuffered < 200_000, `the server buffered ${mostBuffered} bytes for a client that reads nothing`);
  assert.ok(closed, "the client that fell behind the log was disconnected");
  const kept = log.since(0);
  assert.equal(kept.complete, false);
  assert.ok(kept.entries.reduce((sum, entry) => sum + entry.json.length, 0) <= 1_000_000);
  stalled.destroy();
  await new Promise((resolve) => server.close(resolve));
});

test("the log: ids count up, a read from an id gets what followed, one from a dropped id says so", () => {
  const log = new EventLog({ maxEvents: 3, maxBytes: 1_000_000 });
  for (let n = 0; n < 5; n++) log.append({ type: "turn_start", turn: n + 1 });
  assert.equal(log.lastId, 5);
  assert.deepEqual(
    log.since(3).entries.map((entry) => entry.id),
    [4, 5],
  );
  assert.equal(log.since(2).complete, true);
  const gone = log.since(0);
  assert.equal(gone.complete, false);
  assert.deepEqual(
    gone.entries.map((entry) => entry.id),
    [3, 4, 5],
  );
  assert.deepEqual(log.since(5), { entries: [], complete: true });
});

test("a log restarted above its old ids: 0 reads all, an old server's id (below or above) is told so", () => {
  const log = new EventLog({ maxEvents: 10, maxBytes: 1_000_000 }, 1_000);
  assert.deepEqual(log.since(0), { entries: [], complete: true });
  for (let n = 0; n < 3; n++) log.append({ type: "turn_start", turn: n + 1 });
  assert.deepEqual(
    log.since(0).entries.map((entry) => entry.id),
    [1_000, 1_001, 1_002],
  );
  assert.equal(log.since(0).complete, true);
  assert.equal(log.since(1_000).entries.length, 2);
  for (const foreign of [57, 5_000]) {
    const told = log.since(foreign);
    assert.equal(told.complete, false, `id ${foreign}`);
    assert.equal(told.entries.length, 3);
  }
});

test("the guard's pieces: the token compare, the server's host names, the failure limit and its window", () => {
  assert.equal(isToken("abc", "abc"), true);
  assert.equal(isToken("abd", "abc"), false);
  assert.equal(isToken("", "abc"), false);
  assert.deepEqual([...hostNamesFor("127.0.0.1", 7433)].sort(), ["127.0.0.1:7433", "[::1]:7433", "localhost:7433"]);
  assert.deepEqual([...hostNamesFor("10.0.0.5", 443)].sort(), ["10.0.0.5", "10.0.0.5:443"]);
  let now = 0;
  const limit = new FailureLimit(3, 1_000, () => now);
  for (let n = 0; n < 3; n++) limit.fail("a");
  assert.equal(limit.waitFor("a"), 1_000);
  assert.equal(limit.waitFor("b"), 0);
  now = 999;
  assert.equal(limit.waitFor("a"), 1);
  now = 1_000;
  assert.equal(limit.waitFor("a"), 0);
});
