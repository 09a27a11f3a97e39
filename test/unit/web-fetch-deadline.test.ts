// web_fetch's cap on the whole fetch against the garbage collector: on Node 20 the timer behind
// AbortSignal.timeout could be collected while fetch waited on a signal combined from it, so a
// page that trickles bytes forever held the run past every cap. The tool in this process, with
// the collector run over and over (exposed at run time, as --expose-gc would) while it fetches.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { webFetch } from "../../src/tools/web-fetch.ts";
import { tempDir } from "../support/helpers.ts";
import { onTestEnd } from "../support/teardown.ts";
import { callTool } from "../support/tools-helpers.ts";

/** Far above the 1 s cap: only a lost cap reaches it. */
const LIVENESS_MS = 60_000;

test("a page that trickles forever is cut at the fetch's time cap even while the garbage collector runs", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    const timer = setInterval(() => response.write("."), 50);
    response.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestEnd(() => new Promise<void>((resolve) => server.close(() => resolve())));
  onTestEnd(() => server.closeAllConnections());
  const collecting = setInterval(gc, 20);
  onTestEnd(() => clearInterval(collecting));
  process.env.HARNESS_WEB_FETCH_ALLOW = "127.0.0.1";
  process.env.HARNESS_WEB_FETCH_TIMEOUT = "1";
  onTestEnd(() => {
    delete process.env.HARNESS_WEB_FETCH_ALLOW;
    delete process.env.HARNESS_WEB_FETCH_TIMEOUT;
  });
  let liveness: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    callTool(webFetch, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }, tempDir()),
    new Promise<"hung">((resolve) => (liveness = setTimeout(() => resolve("hung"), LIVENESS_MS))),
  ]);
  clearTimeout(liveness);
  assert.deepEqual(result, {
    content: "Not fetched: no complete answer within 1 s.",
    isError: true,
    summary: "failed",
  });
});
