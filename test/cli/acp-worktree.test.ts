// An editor's session in a worktree of its own: session/new with `_meta: {"harness/worktree":
// name}` makes one (as `harness -w`) and the session works there; the answer's `_meta` names it,
// `harness worktrees` shows its session, and a name that cannot be one is an error for the editor.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import { committedRepository } from "../support/git-repository.ts";
import { cleanEnv, fakeServerPerTest } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test("session/new with _meta harness/worktree works in a new worktree and names it", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "w", name: "write_file", arguments: { path: "e.txt", content: "ed\n" } }] } },
    { reply: { text: "wrote it" } },
  ]);
  const { repo, worktrees } = committedRepository("harness-acp-worktree-");
  const env = cleanEnv({
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });
  const seen: Record<string, unknown> = {};
  const log = await withEditor({ env, cwd: repo, answer: () => "allow_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const session = await ctx.request(methods.agent.session.new, {
      cwd: repo,
      mcpServers: [],
      _meta: { "harness/worktree": "ed" },
    });
    seen.session = session;
    await ctx.request(methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    seen.bad = await ctx
      .request(methods.agent.session.new, { cwd: repo, mcpServers: [], _meta: { "harness/worktree": "../up" } })
      .catch((error: Error) => error.message);
  });
  assert.equal(log.code, 0, log.stderr);
  const worktree = join(worktrees, "ed");
  const session = seen.session as { sessionId: string; _meta: Record<string, unknown> };
  assert.deepEqual(session._meta["harness/worktree"], { name: "ed", branch: "harness/ed", path: worktree });
  assert.equal(readFileSync(join(worktree, "e.txt"), "utf8"), "ed\n");
  assert.equal(existsSync(join(repo, "e.txt")), false, "the editor's checkout is untouched");
  assert.match(JSON.stringify(fake.requests[0].body.messages[0]), new RegExp(worktree));
  assert.equal(
    readFileSync(join(repo, ".git", "worktrees", "ed", "harness-session"), "utf8").trim(),
    session.sessionId,
  );
  assert.match(String(seen.bad), /"\.\.\/up" cannot name a worktree/);
});
