// A reply that asks for hundreds of tool calls at once: they run at most 8 at a time, every one
// gets its result, and a call whose process cannot start gets an error result of its own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_CONCURRENT_TOOL_CALLS } from "../../src/core/run-tools.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const CALLS = 200;

test(`${CALLS} bash calls in one reply run at most ${MAX_CONCURRENT_TOOL_CALLS} at a time and all get their results`, async () => {
  const cwd = tempDir();
  // Each call counts the calls running beside it (a marker file each), then leaves.
  const command = (i: number) =>
    `mkdir -p running; touch running/${i}; ls running | wc -l >> counts; sleep 0.05; rm running/${i}; echo done-${i}`;
  const toolCalls = Array.from({ length: CALLS }, (_, i) => ({
    id: `call_${i}`,
    name: "bash",
    arguments: { command: command(i) },
  }));
  // One call's command is longer than the kernel takes for one argument: its spawn fails (E2BIG).
  toolCalls.push({ id: "call_huge", name: "bash", arguments: { command: `echo ${"x".repeat(200_000)}` } });
  const fake = await serve([{ reply: { toolCalls } }, { reply: { text: "all ran" } }]);
  const result = await runCli(["-y", "--sandbox", "off", ...fakeFlags(fake), "-p", "run them all"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "all ran\n");
  const counts = readFileSync(join(cwd, "counts"), "utf8").trim().split("\n").map(Number);
  assert.equal(counts.length, CALLS);
  assert.ok(Math.max(...counts) <= MAX_CONCURRENT_TOOL_CALLS, `up to ${Math.max(...counts)} ran at once`);
  const results = fake.requests[1].body.messages.filter((m: { role: string }) => m.role === "tool");
  assert.equal(results.length, CALLS + 1);
  // (Under heavy load a command's last line can miss the 200 ms pipe drain after its exit; its status cannot.)
  for (let i = 0; i < CALLS; i++) {
    assert.equal(results[i].tool_call_id, `call_${i}`);
    assert.match(results[i].content, new RegExp(`^(done-${i}\\n)?\\[exit code: 0\\]$`));
  }
  assert.match(results[CALLS].content, /^Error: bash failed: spawn E2BIG|failed to start bash: .*E2BIG/);
});
