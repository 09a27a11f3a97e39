// ACP's session modes are harness's approval modes: `harness acp` lists ask, edits and plan with
// each session (the project's `permissionMode: "plan"` chooses plan), switches on
// `session/set_mode`, tells the editor with `current_mode_update`, and refuses a mode it lacks.
// In plan mode an editor's session changes nothing and asks nothing: the edit is refused, the
// command runs in the read-only sandbox. The model is reminded of plan mode only while in it.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import { cleanEnv, fakeServerPerTest, tempDir, toolResultOf as toolResult } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

/** `harness acp`'s environment: a home of its own and the fake as an OpenAI endpoint. */
const editorEnv = (baseUrl: string) =>
  cleanEnv({
    HARNESS_HOME: tempDir("harness-home-"),
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });

test("an editor lists, switches and hears the approval modes; in plan mode nothing changes and nothing is asked", {
  skip: needs("bwrap"),
}, async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "w", name: "write_file", arguments: { path: "out.txt", content: "x" } },
          { id: "sh", name: "bash", arguments: { command: "echo x > made.txt" } },
        ],
      },
    },
    { reply: { text: "planned" } },
  ]);
  const cwd = tempDir();
  const planned = tempDir();
  mkdirSync(join(planned, ".harness"));
  writeFileSync(join(planned, ".harness", "settings.json"), '{"permissionMode": "plan"}\n');
  const widened = tempDir();
  mkdirSync(join(widened, ".harness"));
  writeFileSync(join(widened, ".harness", "settings.json"), '{"permissionMode": "all"}\n');
  const env = editorEnv(fake.baseUrl);
  const seen: Record<string, unknown> = {};
  const log = await withEditor({ env, cwd, answer: () => "allow_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const session = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    seen.modes = session.modes;
    await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "plan" });
    await ctx.request(methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "plan it" }],
    });
    seen.unknown = await ctx
      .request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "all" })
      .catch((error: Error) => error.message);
    await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "edits" });
    seen.planned = (await ctx.request(methods.agent.session.new, { cwd: planned, mcpServers: [] })).modes;
    seen.widened = (await ctx.request(methods.agent.session.new, { cwd: widened, mcpServers: [] })).modes;
  });
  assert.equal(log.code, 0, log.stderr);
  const modes = seen.modes as { currentModeId: string; availableModes: { id: string }[] };
  assert.equal(modes.currentModeId, "ask");
  assert.deepEqual(
    modes.availableModes.map((mode) => mode.id),
    ["ask", "edits", "plan"],
  );
  assert.match(String(seen.unknown), /no mode "all"; the modes are ask, edits, plan/);
  assert.deepEqual(
    log.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "current_mode_update"),
    [
      { sessionUpdate: "current_mode_update", currentModeId: "plan" },
      { sessionUpdate: "current_mode_update", currentModeId: "edits" },
    ],
  );
  assert.deepEqual(log.permissions, [], "plan mode asks nothing here: the edit is refused, the command sandboxed");
  assert.match(toolResult(fake, 1, "w"), /plan mode: nothing may change/);
  assert.match(toolResult(fake, 1, "sh"), /Read-only file system/);
  assert.equal(existsSync(join(cwd, "out.txt")), false);
  assert.equal(existsSync(join(cwd, "made.txt")), false);
  assert.equal((seen.planned as { currentModeId: string }).currentModeId, "plan");
  assert.equal((seen.widened as { currentModeId: string }).currentModeId, "ask");
  assert.match(log.stderr, /permissionMode all is ignored \(a project's file may choose only plan/);
});

test("over ACP a plan reaches the editor as the call's content, and carrying it out goes on in the mode before plan", async () => {
  const plan = "# Write hi.txt\n\n1. **Create** `hi.txt`";
  const fake = await serve([
    { reply: { toolCalls: [{ id: "p1", name: "exit_plan_mode", arguments: { plan } }] } },
    // Carried out in the same prompt turn, in edits mode: the edit runs without a question.
    { reply: { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "hi.txt", content: "hi\n" } }] } },
    { reply: { text: "carried out" } },
    { reply: { toolCalls: [{ id: "p2", name: "exit_plan_mode", arguments: { plan: "# Again" } }] } },
  ]);
  const cwd = tempDir();
  const env = editorEnv(fake.baseUrl);
  const stops: unknown[] = [];
  const answers = ["carry_out", "keep_planning"];
  const log = await withEditor({ env, cwd, answer: () => answers.shift() ?? "reject_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    await ctx.request(methods.agent.session.setMode, { sessionId, modeId: "edits" });
    await ctx.request(methods.agent.session.setMode, { sessionId, modeId: "plan" });
    for (const text of ["plan it", "plan more"])
      stops.push(
        (await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] })).stopReason,
      );
  });
  assert.equal(log.code, 0, log.stderr);
  assert.deepEqual(stops, ["end_turn", "end_turn"]);
  // The plan call is a mode switch whose content is the plan, as the editor renders Markdown.
  const updates = log.updates.map((n) => n.update) as Record<string, unknown>[];
  const planStart = updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "p1");
  assert.equal(planStart?.kind, "switch_mode");
  const planEnd = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "p1");
  assert.deepEqual(planEnd?.content, [{ type: "content", content: { type: "text", text: plan } }]);
  // The two plans were put to the editor, with the mode a plan is carried out in; nothing else was asked.
  assert.deepEqual(
    log.permissions.map((p) => [
      p.toolCall.toolCallId,
      p.toolCall.kind,
      p.options.map((o) => `${o.optionId}: ${o.name}`),
    ]),
    [
      ["p1", "switch_mode", ["carry_out: Yes, carry it out (edits mode)", "keep_planning: No, keep planning"]],
      ["p2", "switch_mode", ["carry_out: Yes, carry it out (edits mode)", "keep_planning: No, keep planning"]],
    ],
  );
  assert.deepEqual(log.permissions[0].toolCall.content, [{ type: "content", content: { type: "text", text: plan } }]);
  assert.deepEqual(
    updates.filter((u) => u.sessionUpdate === "current_mode_update").map((u) => u.currentModeId),
    ["edits", "plan", "edits"],
  );
  assert.equal(readFileSync(join(cwd, "hi.txt"), "utf8"), "hi\n");
  const carried = fake.requests[1].body.messages.at(-1);
  assert.deepEqual([carried.role, carried.content], ["user", "The plan is approved. Carry it out now."]);
  assert.equal(fake.requests.length, 4, "keep planning ran nothing more");
  // The plan-mode reminder went with the call made in plan mode only, and was not kept after the switch.
  const reminded = fake.requests.map((r) => JSON.stringify(r.body.messages).split("Plan mode is on").length - 1);
  assert.deepEqual(reminded, [1, 0, 0, 0]);
});
