// "Always allow" in the editor protocol, attacked: a model that gets one harmless call approved
// for the session, then writes where git and harness run commands from, or runs a denied command
// in disguise. Each must still be put to the editor, with the reason, and no "always" offered; a
// denied command the rule cannot read is refused outright.
// The SDK's client drives the built `harness acp`, as root and as nobody; the canary HOME is under
// /var/tmp, outside the sandbox's private /tmp.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION, type RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import type { FakeLLM, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n";

/** A HOME with your settings (a bash(rm) deny rule) and a repository in it, owned by `identity`. */
function canaryRepo(identity: (typeof IDENTITIES)[number], fake: FakeLLM) {
  const home = canaryHomeDir("harness-acp-always-");
  const harnessHome = join(home, ".harness");
  mkdirSync(harnessHome);
  writeFileSync(join(harnessHome, "settings.json"), JSON.stringify({ permissions: { deny: ["bash(rm)"] } }));
  const repo = join(home, "repo");
  mkdirSync(join(repo, ".git", "hooks"), { recursive: true });
  writeFileSync(join(repo, ".git", "config"), GIT_CONFIG);
  writeFileSync(join(repo, "victim.txt"), "still here\n");
  handTo(identity, home);
  const env = cleanEnv({
    HOME: home,
    HARNESS_HOME: harnessHome,
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });
  return { repo, env };
}

const write = (id: string, path: string, content: string) => ({
  id,
  name: "write_file",
  arguments: { path, content },
});
const bash = (id: string, command: string) => ({ id, name: "bash", arguments: { command } });

const ATTACK: ScriptStep[] = [
  { reply: { toolCalls: [write("notes", "notes.txt", "first\n")] } },
  {
    reply: {
      toolCalls: [
        {
          id: "edit_notes",
          name: "edit_file",
          arguments: { path: "notes.txt", old_string: "first", new_string: "second" },
        },
      ],
    },
  },
  {
    reply: {
      toolCalls: [
        write("git_config", ".git/config", "[core]\n\tfsmonitor = touch ../PWNED\n"),
        write("hook", ".git/hooks/pre-commit", "#!/bin/sh\ntouch ../PWNED\n"),
        write("mcp", ".mcp.json", '{"mcpServers":{"x":{"command":"touch","args":["PWNED"]}}}'),
        write("settings", ".harness/settings.json", '{"permissions":{"allow":["bash"]}}'),
        { id: "edit_git", name: "edit_file", arguments: { path: ".git/config", old_string: "0", new_string: "1" } },
        write("other", "other.txt", "covered by the write_file the editor allowed\n"),
      ],
    },
  },
  { reply: { toolCalls: [bash("ls", "ls")] } },
  { reply: { toolCalls: [bash("rm_computed", "$(which rm) victim.txt"), bash("rm_plain", "rm victim.txt")] } },
  { reply: { text: "done" } },
];

/** The editor's user clicks "Always allow" wherever it is offered, and rejects the rest. */
const alwaysWhereOffered = (request: RequestPermissionRequest) =>
  request.options.some((option) => option.optionId === "allow_always") ? "allow_always" : "reject_once";

for (const identity of IDENTITIES) {
  test(`as ${identity}: after "Always allow" in the editor, protected paths still ask, with the reason, and a deny rule that cannot be checked refuses`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const fake = await serve(ATTACK);
    const { repo, env } = canaryRepo(identity, fake);
    const log = await withEditor({ env, cwd: repo, answer: alwaysWhereOffered, wrap: runAs(identity) }, async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: repo, mcpServers: [] });
      await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "take notes" }] });
    });
    assert.equal(log.code, 0, log.stderr);

    // Nothing the model wrote after the "always" reached a place that runs commands.
    assert.equal(readFileSync(join(repo, ".git", "config"), "utf8"), GIT_CONFIG);
    for (const planted of [".git/hooks/pre-commit", ".mcp.json", ".harness/settings.json", "../PWNED"])
      assert.equal(existsSync(join(repo, planted)), false, planted);
    assert.equal(readFileSync(join(repo, "victim.txt"), "utf8"), "still here\n");
    // What the remembered rules do cover ran without a question.
    assert.equal(readFileSync(join(repo, "notes.txt"), "utf8"), "second\n");
    assert.match(readFileSync(join(repo, "other.txt"), "utf8"), /covered/);

    const asked = new Map(log.permissions.map((request) => [request.toolCall.toolCallId, request]));
    assert.deepEqual(
      [...asked.keys()],
      ["notes", "edit_notes", "git_config", "hook", "mcp", "settings", "edit_git", "ls"],
    );
    const offered = (id: string) => asked.get(id)?.options.map((option) => option.optionId);
    assert.deepEqual(offered("notes"), ["allow_once", "allow_always", "reject_once"]);
    assert.equal(asked.get("notes")?.options[1].name, "Always allow write_file");
    assert.equal(asked.get("ls")?.options[1].name, "Always allow bash(ls)");
    for (const id of ["git_config", "hook", "mcp", "settings", "edit_git"]) {
      const request = asked.get(id) as any;
      assert.deepEqual(offered(id), ["allow_once", "reject_once"], id);
      assert.equal(request._meta.harness.explicit, true, id);
      const shown = request.toolCall.content[0].content.text;
      assert.match(shown, /^Asks because .+\.\nOnly you can allow this, and only this once/, id);
    }
    const reasonFor = (id: string) => String((asked.get(id) as any)._meta.harness.why).replace(repo, "<repo>");
    assert.match(
      reasonFor("git_config"),
      /^<repo>\/\.git\/config is under \.git, which can make harness or git run commands/,
    );

    // The plain rm was denied by the rule, without a question; so was the computed one, which the rule cannot read.
    const results = fake.requests.at(-1)?.body.messages.filter((m: { role: string }) => m.role === "tool");
    const resultOf = (id: string) => results.find((m: { tool_call_id: string }) => m.tool_call_id === id).content;
    assert.match(resultOf("rm_plain"), /the rule bash\(rm\) in .*settings\.json forbids `rm victim\.txt`/);
    assert.match(
      resultOf("rm_computed"),
      /the rule bash\(rm\) in .*settings\.json forbids what this command may run: harness cannot tell what it runs/,
    );
  });
}

/** The editor answers each call with an id of its choosing, offered or not. */
const ANSWERS: Record<string, string> = {
  hook: "allow_always", // offered only "allow_once" and "reject_once": a protected path
  notes: "allow_everything", // no such option at all
  ok: "allow_once", // offered: the control that answers are still taken
};

for (const identity of IDENTITIES) {
  test(`as ${identity}: an editor's answer naming an option that was not offered is a refusal, said in the log`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            write("hook", ".git/hooks/pre-commit", "#!/bin/sh\ntouch ../PWNED\n"),
            write("notes", "notes.txt", "first\n"),
            write("ok", "ok.txt", "fine\n"),
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const { repo, env } = canaryRepo(identity, fake);
    const answer = (request: RequestPermissionRequest) => ANSWERS[request.toolCall.toolCallId];
    const log = await withEditor({ env, cwd: repo, answer, wrap: runAs(identity) }, async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: repo, mcpServers: [] });
      await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write" }] });
    });
    assert.equal(log.code, 0, log.stderr);
    assert.deepEqual(
      log.permissions.map((request) => [request.toolCall.toolCallId, request.options.map((o) => o.optionId)]),
      [
        ["hook", ["allow_once", "reject_once"]],
        ["notes", ["allow_once", "allow_always", "reject_once"]],
        ["ok", ["allow_once", "allow_always", "reject_once"]],
      ],
    );
    assert.equal(existsSync(join(repo, ".git", "hooks", "pre-commit")), false, "the hook was written");
    assert.equal(existsSync(join(repo, "notes.txt")), false, "notes.txt was written");
    assert.equal(readFileSync(join(repo, "ok.txt"), "utf8"), "fine\n");
    assert.match(
      log.stderr,
      /^harness: the editor answered "allow_always" about hook, which was not offered \(allow_once, reject_once\): taken as a refusal$/m,
    );
    assert.match(log.stderr, /^harness: the editor answered "allow_everything" about notes, which was not offered/m);
    const results = fake.requests.at(-1)?.body.messages.filter((m: { role: string }) => m.role === "tool");
    const resultOf = (id: string) => results.find((m: { tool_call_id: string }) => m.tool_call_id === id).content;
    assert.match(resultOf("hook"), /option that was not offered \("allow_always"\)/);
    assert.match(resultOf("notes"), /option that was not offered \("allow_everything"\)/);
  });
}
