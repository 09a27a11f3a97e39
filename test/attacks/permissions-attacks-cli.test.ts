// The rule matcher attacked through the built CLI: a model that tries to run more than the
// rules allow, or to run a denied command in disguise. Canary files live in a HOME outside
// /tmp, so the sandbox's private /tmp cannot hide a failure.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();

/** A HOME under /var/tmp with your settings (rules) in it, and a project folder inside. */
function canaryHome(settings: unknown) {
  const home = mkdtempSync("/var/tmp/harness-canary-");
  onTestEnd(() => rmSync(home, { recursive: true, force: true }));
  const harnessHome = join(home, ".harness");
  mkdirSync(harnessHome);
  writeFileSync(join(harnessHome, "settings.json"), JSON.stringify(settings));
  const project = join(home, "project");
  mkdirSync(project);
  return { project, env: cleanEnv({ HOME: home, HARNESS_HOME: harnessHome }) };
}

function toolResult(fake: FakeLLM, id: string): string {
  return fake.requests[1].body.messages.find((message: { tool_call_id?: string }) => message.tool_call_id === id)
    ?.content;
}

// Without bwrap allow rules stop auto-approving commands (permissions-cli.test.ts), so the allowed ones would not run.
test("with only echo, cat and ls allowed, the ANSI-C and heredoc tricks are refused headless, not run", {
  skip: needs("bwrap"),
}, async () => {
  const { project, env } = canaryHome({ permissions: { allow: ["bash(echo)", "bash(cat)", "bash(ls)"] } });
  const attacks = {
    // bash reads `$'\''` as one quote, so `touch` is a command of its own; a naive splitter sees one quoted string.
    ansi: "echo $'\\'' ; touch pwned-ansi ; #'",
    // The quote opens inside the heredoc body, where bash ignores it; a naive splitter reads `touch` as quoted text.
    heredoc: "cat <<EOF\nls '\nEOF\ntouch pwned-heredoc\necho '",
  };
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          ...Object.entries(attacks).map(([id, command]) => ({ id, name: "bash", arguments: { command } })),
          { id: "plain", name: "bash", arguments: { command: "echo fine && ls" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli([...fakeFlags(fake), "-p", "go"], { cwd: project, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(join(project, "pwned-ansi")), false);
  assert.equal(existsSync(join(project, "pwned-heredoc")), false);
  for (const id of Object.keys(attacks))
    assert.match(
      toolResult(fake, id),
      /^The user did not allow this tool call\. The user said: no one was there to approve it/,
      id,
    );
  assert.match(toolResult(fake, "plain"), /^fine\n/, "allowed commands still run");
});

test("a bash(rm) deny rule catches every disguise of rm, even with --yes", async () => {
  const { project, env } = canaryHome({ permissions: { deny: ["bash(rm)"] } });
  writeFileSync(join(project, "victim.txt"), "still here\n");
  const disguises = [
    "/bin/rm victim.txt",
    "{rm,-f,victim.txt}",
    "env -S 'rm victim.txt'",
    "echo victim.txt | xargs rm",
    "bash -c -- 'rm victim.txt'",
    "sudo rm victim.txt",
    "$(echo rm) victim.txt",
    "nice -n 5 timeout 5 command rm victim.txt",
  ];
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          ...disguises.map((command, index) => ({ id: `rm${index}`, name: "bash", arguments: { command } })),
          { id: "cat", name: "bash", arguments: { command: "cat victim.txt" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["--yes", ...fakeFlags(fake), "-p", "go"], { cwd: project, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(project, "victim.txt"), "utf8"), "still here\n");
  for (const [index, command] of disguises.entries()) {
    assert.match(
      toolResult(fake, `rm${index}`),
      /the rule bash\(rm\) in .*settings\.json forbids `(\S*\/)?rm\b/,
      command,
    );
  }
  assert.match(toolResult(fake, "cat"), /^still here\n/, "commands the rule does not name still run");
});

test("a bash(rm) deny rule also stops wrappers, function bodies, trap strings, computed names and shells fed on stdin, with --yes", async () => {
  const { project, env } = canaryHome({ permissions: { deny: ["bash(rm)"] } });
  writeFileSync(join(project, "victim.txt"), "still here\n");
  const forbidden = [
    "flock lock.file rm victim.txt",
    "flock lock.file -c 'rm victim.txt'",
    "taskset 1 rm victim.txt",
    "chrt -o 0 rm victim.txt",
    "unshare rm victim.txt",
    "script -qc 'rm victim.txt' /dev/null",
    "watch -n 1 -g 'rm victim.txt'",
    "f() { rm victim.txt; }; f",
    "trap 'rm victim.txt' EXIT",
  ];
  // What no deny rule can be checked against is refused, naming the rule.
  const uncheckable = [
    "$(which rm) victim.txt",
    "a=rm; $a victim.txt",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${IFS}, written literally
    "rm${IFS}victim.txt",
    "echo rm victim.txt | bash",
    "bash <<< 'rm victim.txt'",
    ". <(echo rm victim.txt)",
  ];
  const calls = [...forbidden, ...uncheckable].map((command, index) => ({
    id: `rm${index}`,
    name: "bash",
    arguments: { command },
  }));
  const fake = await serve([
    { reply: { toolCalls: [...calls, { id: "cat", name: "bash", arguments: { command: "cat victim.txt" } }] } },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["--yes", ...fakeFlags(fake), "-p", "go"], { cwd: project, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(project, "victim.txt"), "utf8"), "still here\n");
  for (const [index, command] of forbidden.entries())
    assert.match(toolResult(fake, `rm${index}`), /the rule bash\(rm\) in .*settings\.json forbids `rm\b/, command);
  for (const [index, command] of uncheckable.entries())
    assert.match(
      toolResult(fake, `rm${forbidden.length + index}`),
      /the rule bash\(rm\) in .*settings\.json forbids what this command may run: harness cannot tell what it runs \((its command name is computed when it runs|bash reads the commands it runs from its input|\. runs a script inside the shell)\); write the command out plainly/,
      command,
    );
  assert.match(toolResult(fake, "cat"), /^still here\n/, "commands the rule does not name still run");
});
