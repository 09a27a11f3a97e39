// Claude Code's `permissions.ask`, from the side of the person who wrote `ask: ["Bash(git push:*)"]`
// beside `allow: ["Bash"]` and believes every push asks first. Through the built CLI against the
// fake server: headless, each push (however it is wrapped) is refused naming the rule and its
// file, `--yes` and `--approve edits` included; in a chat and in an editor the call is asked,
// "once" only, and asked again the next time; a typo in an ask rule stops a headless run.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import {
  cleanEnv,
  fakeFlags,
  fakeServerPerTest,
  runCli,
  tempDir,
  toolResultOf as toolResult,
  writeJson,
} from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { openTrustedChat } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

const bash = (id: string, command: string) => ({ id, name: "bash", arguments: { command } });

/** A project whose Claude settings allow every command but ask before a push (and deny a force push). */
function pushGuardedProject() {
  const cwd = tempDir("claude-ask-");
  mkdirSync(join(cwd, "sub"));
  const settings = join(cwd, ".claude", "settings.json");
  writeJson(settings, {
    permissions: {
      allow: ["Bash"],
      ask: ["Bash(git push:*)", "Bash(npm publish *)", "WebFetch(domain:127.0.0.1)"],
      deny: ["Bash(git push --force:*)"],
    },
  });
  return { cwd, settings };
}

// bwrap: without a sandbox every command asks, so the allow rule would not show (README "Sandbox").
test("headless, with allow Bash and --yes, every push asks and is refused naming the rule and file; deny still wins", {
  skip: needs("bwrap"),
}, async () => {
  const { cwd, settings } = pushGuardedProject();
  const pushes = {
    plain: "git push origin main",
    cd: "cd sub && git push",
    env: "env X=1 git push",
    shell: "bash -c 'git push'",
    path: "/usr/bin/git push",
    timeout: "timeout 5 git push",
  };
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          ...Object.entries(pushes).map(([id, command]) => bash(id, `${command}; touch pushed-${id}`)),
          bash("status", "touch status-ran"),
          bash("force", "git push --force"),
          // Its name is computed: it may be the force push the deny rule forbids, so it is refused.
          bash("substitution", "$(echo git) push; touch pushed-substitution"),
          bash("publish", "npm publish; touch published"),
          bash("publish_tag", "npm publish --tag next"),
          { id: "fetch", name: "web_fetch", arguments: { url: "http://127.0.0.1:9/" } },
        ],
      },
    },
    { reply: { text: "refused" } },
  ]);
  const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "push"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  for (const id of Object.keys(pushes)) {
    assert.match(
      toolResult(fake, 1, id),
      new RegExp(`no one was there to approve it .*the ask rule Bash\\(git push:\\*\\) in ${settings} asks before \``),
      id,
    );
    assert.equal(existsSync(join(cwd, `pushed-${id}`)), false, id);
  }
  assert.equal(existsSync(join(cwd, "status-ran")), true, "what only the allow rule covers runs unasked");
  assert.match(toolResult(fake, 1, "force"), /the rule Bash\(git push --force:\*\) in .* forbids/);
  assert.match(
    toolResult(fake, 1, "substitution"),
    /the rule Bash\(git push --force:\*\) in .* forbids what this command may run: harness cannot tell what it runs/,
  );
  assert.equal(existsSync(join(cwd, "pushed-substitution")), false);
  // Claude Code's newer spelling: a trailing ` *` covers the bare command too.
  for (const id of ["publish", "publish_tag"])
    assert.match(toolResult(fake, 1, id), /the ask rule Bash\(npm publish \*\) in .* asks before `npm publish/, id);
  assert.equal(existsSync(join(cwd, "published")), false);
  assert.match(toolResult(fake, 1, "fetch"), /the ask rule WebFetch\(domain:127\.0\.0\.1\) in .* fetching from 127/);
  assert.doesNotMatch(result.stderr, /permissions\.ask|not applied/, "ask is no longer reported as unused");

  // A command no rule can be checked against asks too, naming the ask rule (no deny rule here).
  writeJson(settings, { permissions: { allow: ["Bash"], ask: ["Bash(git push:*)"] } });
  const computed = await serve([
    { reply: { toolCalls: [bash("computed", "G=git; $G push; touch pushed-computed")] } },
    { reply: { text: "refused" } },
  ]);
  const second = await runCli(["-y", "--trust", ...fakeFlags(computed), "-p", "push"], { cwd });
  assert.equal(second.code, 0, second.stderr);
  assert.match(
    toolResult(computed, 1, "computed"),
    new RegExp(
      `the ask rule Bash\\(git push:\\*\\) in ${settings} asks before what this command may run: harness cannot tell what it runs \\(its command name is computed when it runs\\); write the command out plainly`,
    ),
  );
  assert.equal(existsSync(join(cwd, "pushed-computed")), false);
});

test("--approve edits: an ask rule on Edit(/docs/**) in Claude's file and on write_file in harness's own file ask; other edits run", async () => {
  const cwd = tempDir("claude-ask-");
  const harnessHome = tempDir("harness-home-");
  mkdirSync(join(cwd, "docs"));
  writeFileSync(join(cwd, "docs", "b.md"), "old\n");
  writeJson(join(cwd, ".claude", "settings.json"), { permissions: { ask: ["Edit(/docs/**)"] } });
  writeJson(join(harnessHome, "settings.json"), { permissions: { ask: ["write_file(plan.md)"] } });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "new_doc", name: "write_file", arguments: { path: "docs/a.md", content: "x" } },
          { id: "edit_doc", name: "edit_file", arguments: { path: "docs/b.md", old_string: "old", new_string: "new" } },
          { id: "plan", name: "write_file", arguments: { path: "plan.md", content: "x" } },
          { id: "free", name: "write_file", arguments: { path: "free.txt", content: "x" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["--approve", "edits", ...fakeFlags(fake), "-p", "edit"], {
    cwd,
    env: cleanEnv({ HARNESS_HOME: harnessHome }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake, 1, "new_doc"), /the ask rule Edit\(\/docs\/\*\*\) in .*\.claude\/settings\.json asks/);
  assert.match(toolResult(fake, 1, "edit_doc"), /the ask rule Edit\(\/docs\/\*\*\) in .* asks/);
  assert.match(toolResult(fake, 1, "plan"), new RegExp(`the ask rule write_file\\(plan\\.md\\) in ${harnessHome}`));
  assert.equal(existsSync(join(cwd, "docs", "a.md")), false);
  assert.equal(readFileSync(join(cwd, "docs", "b.md"), "utf8"), "old\n");
  assert.equal(existsSync(join(cwd, "plan.md")), false);
  assert.equal(readFileSync(join(cwd, "free.txt"), "utf8"), "x");
});

test("an ask rule on reading a file: read_file asks (headless: refused), and a grep over its folder does not show it unasked", async () => {
  const cwd = tempDir("claude-ask-");
  mkdirSync(join(cwd, "secrets"));
  writeFileSync(join(cwd, "secrets", "token.txt"), "canary-token-5521\n");
  writeFileSync(join(cwd, "notes.md"), "canary-free notes\n");
  writeJson(join(cwd, ".claude", "settings.json"), { permissions: { ask: ["Read(./secrets/token.txt)"] } });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "read", name: "read_file", arguments: { path: "secrets/token.txt" } },
          { id: "grep", name: "grep", arguments: { pattern: "canary", path: "." } },
          { id: "notes", name: "read_file", arguments: { path: "notes.md" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "read"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake, 1, "read"), /the ask rule Read\(\.\/secrets\/token\.txt\) in .* asks before/);
  assert.match(toolResult(fake, 1, "grep"), /notes\.md/);
  assert.doesNotMatch(JSON.stringify(fake.requests[1].body), /canary-token-5521/);
  assert.match(toolResult(fake, 1, "notes"), /canary-free notes/);
});

test("headless, a typo or an unmatchable pattern in an ask rule stops the run with exit 2 before any model call", async () => {
  for (const [rule, said] of [
    ["Bahs(git push:*)", /the ask rule Bahs\(git push:\*\) names no tool \(did you mean bash\?\)/i],
    ["TodoWrite(x)", /the ask rule TodoWrite\(x\) has a pattern harness cannot match/],
  ] as const) {
    const cwd = tempDir();
    writeJson(join(cwd, ".claude", "settings.json"), { permissions: { ask: [rule] } });
    const fake = await serve([{ reply: { text: "should not get here" } }]);
    const result = await runCli(["-y", ...fakeFlags(fake), "-p", "go"], { cwd });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, said);
    assert.match(result.stderr, /\.claude\/settings\.json/);
    assert.equal(fake.requests.length, 0, "no model call");
  }
  const cwd = tempDir();
  writeJson(join(cwd, ".claude", "settings.json"), { permissions: { ask: ["Bash(git push"] } });
  const fake = await serve([{ reply: { text: "should not get here" } }]);
  const malformed = await runCli([...fakeFlags(fake), "-p", "go"], { cwd });
  assert.equal(malformed.code, 2, malformed.stderr);
  assert.match(malformed.stderr, /settings\.json: permissions\.ask\[0\]: "Bash\(git push" is not a rule/);
});

test("in a chat under --yes, a push is asked with the rule, offers no 'always', and an 'a' answer allows it this once only", {
  skip: needs("tmux"),
}, async () => {
  const { cwd } = pushGuardedProject();
  const fake = await serve([
    { reply: { toolCalls: [bash("first", "git push; touch pushed-once")] } },
    { reply: { toolCalls: [bash("second", "git push; touch pushed-twice")] } },
    { reply: { text: "Both asked." } },
  ]);
  const terminal = await openTrustedChat(fake, cwd, ["-y"]);
  terminal.type("push it");
  terminal.send(["Enter"]);
  const first = await terminal.waitFor(/the ask rule Bash\(git push:\*\) in .* asks before `git push`\)\n.*> $/m, "q1");
  assert.match(first, /allow\? bash> git push; touch pushed-once/);
  assert.doesNotMatch(first, /\[a\]lways/);
  terminal.type("a");
  terminal.send(["Enter"]);
  const second = await terminal.waitFor(/allow\? bash> git push; touch pushed-twice\n.*\n.*> $/m, "q2");
  assert.doesNotMatch(second, /\[a\]lways/);
  assert.equal(existsSync(join(cwd, "pushed-once")), true, "the answered push ran");
  terminal.type("n");
  terminal.send(["Enter"]);
  await terminal.waitFor(/Both asked\./, "the reply");
  assert.equal(existsSync(join(cwd, "pushed-twice")), false);
  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(/\[exit 0\]/, "the end of the chat");
});

test("in an editor (ACP), an ask rule's call offers only 'allow once' and 'reject', with the rule as the reason", async () => {
  const { cwd, settings } = pushGuardedProject();
  const fake = await serve([
    { reply: { toolCalls: [bash("push", "git push; touch pushed")] } },
    { reply: { toolCalls: [bash("again", "git push; touch pushed-again")] } },
    { reply: { text: "done" } },
  ]);
  const env = cleanEnv({
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });
  const log = await withEditor({ env, cwd, args: ["--trust"], answer: () => "allow_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "push" }] });
  });
  assert.equal(log.code, 0, log.stderr);
  assert.deepEqual(
    log.permissions.map((request) => request.toolCall.toolCallId),
    ["push", "again"],
    "asked each time: an allowed push is not remembered",
  );
  for (const request of log.permissions) {
    assert.deepEqual(
      request.options.map((option) => option.optionId),
      ["allow_once", "reject_once"],
    );
    const meta = (request as any)._meta.harness;
    assert.equal(meta.explicit, true);
    assert.equal(meta.why, `the ask rule Bash(git push:*) in ${settings} asks before \`git push\``);
  }
  assert.equal(existsSync(join(cwd, "pushed")), true);
});
