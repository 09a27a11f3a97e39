// MCP servers start in the background (issue 50): the chat's prompt is ready while a server is
// still starting and another never answers; a one-shot does not wait out a server's 30 s start
// bound; a call naming a tool of a server still starting waits for it and then runs; a server
// that cannot start is said once, in one line. "Still starting" is made, not timed: the late
// server comes up only when the test creates its `go` file (fixtures/mcp/late-server.mjs).
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const LATE = join(ROOT, "test", "support", "fixtures", "mcp", "late-server.mjs");
const serve = fakeServerPerTest();

/** A home whose config.json declares a server that starts on the test's word, one that never answers, one that cannot start. */
function setup() {
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  const go = join(cwd, "go");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      mcpServers: {
        late: { command: process.execPath, args: [LATE, go] },
        never: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1 << 30)"] },
        broken: { command: "/nonexistent/mcp-server" },
      },
    }),
  );
  return { cwd, home, go };
}

const script = () => [
  { reply: { toolCalls: [{ id: "l1", name: "late__echo", arguments: { message: "from the late server" } }] } },
  { reply: { text: "all done" } },
];

const toolNames = (fake: FakeLLM, request: number) =>
  (fake.requests[request].body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);

/** Once the model's first request is in (its reply calls the late server's tool), the late server may start. */
async function startLateAfterFirstRequest(fake: FakeLLM, go: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (fake.requests.length < 1) {
    if (Date.now() > deadline) throw new Error("the model was never asked");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  writeFileSync(go, "");
}

function assertLateCallWaited(fake: FakeLLM) {
  assert.ok(!toolNames(fake, 0).includes("late__echo"), "the first request went before the late server was up");
  assert.ok(toolNames(fake, 1).includes("late__echo"), "once up, its tools are offered");
  const result = fake.requests[1].body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === "l1");
  assert.match(String(result?.content), /from the late server/, "the call waited for the server, then ran");
}

test("the chat's prompt is ready while MCP servers start; a late server's tool waits for it; a failure is one line", {
  skip: needs("tmux"),
}, async () => {
  const { cwd, home, go } = setup();
  const fake = await serve(script());
  const terminal = TmuxTerminal.start({
    args: ["--trust", ...fakeFlags(fake)],
    cwd,
    // MCP_TIMEOUT: the never-answering server's start bound is past any wait of this test, so
    // "still starting is not a failure" holds however slow the machine (at 30 s it once did not).
    env: {
      ...(cleanEnv({ HARNESS_HOME: home, MCP_TIMEOUT: "600000" }) as Record<string, string>),
      TERM: "xterm-256color",
    },
    columns: 60,
    rows: 20,
  });
  await terminal.waitFor(/^> $/m, "the chat prompt");
  assert.equal(existsSync(go), false, "the prompt came before the late server could be up");
  terminal.type("use the late server");
  await terminal.waitFor(/use the late server/);
  terminal.send(["Enter"]);
  await startLateAfterFirstRequest(fake, go);
  const screen = await terminal.waitFor(/all done/, "the answer after the late call");
  assertLateCallWaited(fake);
  assert.equal(screen.match(/MCP server "broken" is not available/g)?.length, 1, screen);
  assert.doesNotMatch(screen, /"never"/, "a server still starting is not a failure");
});

test("a one-shot answers without waiting out a server that never starts; a late server's tool still runs", async () => {
  const { cwd, home, go } = setup();
  const fake = await serve(script());
  // A bad MCP_TIMEOUT is said once and the default kept (the run ends long before 30 s anyway).
  const run = runCli([...fakeFlags(fake), "-p", "use the late server"], {
    cwd,
    env: cleanEnv({ HARNESS_HOME: home, MCP_TIMEOUT: "soon" }),
  });
  await startLateAfterFirstRequest(fake, go);
  const { code, stdout, stderr } = await run;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /all done/);
  assertLateCallWaited(fake);
  assert.equal(stderr.match(/MCP server "broken" is not available/g)?.length, 1, stderr);
  assert.equal(stderr.match(/MCP_TIMEOUT="soon" is not a number/g)?.length, 1, stderr);
  // The never-answering server's start bound is 30 s: the run ended before it, and its end stopped that start.
  assert.doesNotMatch(stderr, /"never"/, stderr);
});
