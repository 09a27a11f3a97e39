// ACP's session modes are harness's approval modes: `harness acp` lists ask, edits and plan with
// each session (the project's `permissionMode: "plan"` chooses plan), switches on
// `session/set_mode`, tells the editor with `current_mode_update`, and refuses a mode it lacks.
// In plan mode an editor's session changes nothing and asks nothing: the edit is refused, the
// command runs in the read-only sandbox.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import { cleanEnv, fakeServerPerTest, tempDir, toolResultOf as toolResult } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

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
  const env = cleanEnv({
    HARNESS_HOME: tempDir("harness-home-"),
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });
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
