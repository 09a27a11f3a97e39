// The plan tool through the built CLI: `-p --approve plan` prints the plan the model proposes
// and exits 0 with no further model call; `--output json` carries it as `plan`; the plan is kept
// beside the session, `harness sessions` shows it, and a resumed session's model still has it.
// Claude Code's ExitPlanMode name matches it in a hook. Each model call in plan mode carries the
// plan-mode reminder, on the newest message only; the saved conversation and a run in ask mode have none.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PLAN_MODE_REMINDER } from "../../src/permissions/plan-mode.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, writeJson } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const PLAN = "# Add rate limiting\n\n1. Read `src/server.js`.\n2. Add a token bucket.\n3. Test it.\n";

test("-p --approve plan prints the plan and exits 0; json carries it; it is kept beside the session and resumed", async () => {
  const fake = await serve([
    {
      reply: {
        text: "I studied the code.",
        toolCalls: [{ id: "p", name: "exit_plan_mode", arguments: { plan: PLAN } }],
      },
    },
    { reply: { toolCalls: [{ id: "r", name: "read_file", arguments: { path: "notes.txt" } }] } },
    { reply: { toolCalls: [{ id: "p2", name: "exit_plan_mode", arguments: { plan: "# Second\n" } }] } },
    { reply: { text: "carrying it out" } },
  ]);
  const home = tempDir("harness-home-");
  const env = cleanEnv({ HARNESS_HOME: home });
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "notes\n");
  const marker = join(cwd, "hook-saw.txt");
  // Claude Code's name in a hook matcher matches the plan tool.
  writeJson(join(home, "settings.json"), {
    hooks: { PreToolUse: [{ matcher: "ExitPlanMode", hooks: [{ type: "command", command: `cat > ${marker}` }] }] },
  });
  const text = await runCli(["--approve", "plan", ...fakeFlags(fake), "-p", "plan rate limiting"], { env, cwd });
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, PLAN);
  assert.equal(fake.requests.length, 1, "the turn ends at the plan: no further model call");
  assert.deepEqual(reminded(fake.requests[0].body), [1], "the reminder goes with the prompt");
  assert.match(readFileSync(marker, "utf8"), /"tool_name":"exit_plan_mode","tool_input":\{"plan":"# Add rate/);

  const json = await runCli(["--approve", "plan", ...fakeFlags(fake), "--output", "json", "-p", "again"], {
    env,
    cwd,
  });
  assert.equal(json.code, 0, json.stderr);
  const done = JSON.parse(json.stdout);
  assert.equal(done.type, "done");
  assert.equal(done.plan, "# Second\n");
  // After a tool's result the reminder is a user message of its own; the earlier call's is not kept.
  assert.deepEqual(reminded(fake.requests[1].body), [1]);
  assert.deepEqual(reminded(fake.requests[2].body), [4]);
  assert.deepEqual(fake.requests[2].body.messages.at(-1), { role: "user", content: PLAN_MODE_REMINDER });
  const planFile = join(home, "sessions", done.sessionId, "plan.md");
  assert.equal(readFileSync(planFile, "utf8"), "# Second\n");
  assert.equal(statSync(planFile).mode & 0o777, 0o600);

  const listed = await runCli(["sessions"], { env, cwd });
  assert.match(listed.stdout, new RegExp(`${done.sessionId}.*\\(plan: ${planFile.replaceAll("/", "\\/")}\\)`));

  // Carried on (-r): the model's conversation still holds the plan it proposed.
  const resumed = await runCli(["-r", done.sessionId, "-p", "go ahead"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "carrying it out\n");
  const sent = JSON.stringify(fake.requests[3].body.messages);
  assert.ok(sent.includes(JSON.stringify(JSON.stringify({ plan: "# Second\n" })).slice(1, -1)), sent);
  // In ask mode (no --approve) no reminder, and the resumed conversation held none.
  assert.deepEqual(reminded(fake.requests[3].body), []);
  for (const file of readdirSync(join(home, "sessions")).filter((name) => name.endsWith(".jsonl")))
    assert.ok(!readFileSync(join(home, "sessions", file), "utf8").includes("Plan mode is on"), file);
});

/** The indexes of the messages of a chat-completions body that hold the plan-mode reminder. */
function reminded(body: { messages: unknown[] }): number[] {
  const holds = (message: unknown) => JSON.stringify(message).includes("Plan mode is on");
  return body.messages.flatMap((message, index) => (holds(message) ? [index] : []));
}
