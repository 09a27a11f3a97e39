// The one judgement of workspaces (src/wiring/home-workspace.ts) on the shapes a folder can take
// that the attack tests do not all reach: a folder not made yet below a symlink, a hidden folder
// deeper than home's own, Claude Code's settings folder elsewhere, a home of "/". Real folders
// and symlinks on disk.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { judgeWorkspace, taskFolder } from "../../src/wiring/home-workspace.ts";
import { tempDir } from "../support/helpers.ts";

function home() {
  const dir = tempDir("harness-judge-home-");
  for (const folder of [".aws", ".config/myproj", "projects/app/.venv", "claude-elsewhere", "state"])
    mkdirSync(join(dir, folder), { recursive: true });
  symlinkSync(join(dir, ".aws"), join(dir, "projects", "aws-link"));
  const env = { HOME: dir, HARNESS_HOME: join(dir, "state"), CLAUDE_CONFIG_DIR: join(dir, "claude-elsewhere") };
  return { dir, env };
}

test("a folder not made yet is judged where mkdir would make it: below a symlink to ~/.aws is ~/.aws", () => {
  const { dir, env } = home();
  const verdict = judgeWorkspace(join(dir, "projects", "aws-link", "work", "copies"), env);
  assert.deepEqual(verdict, {
    kind: "refused",
    folder: join(dir, ".aws", "work", "copies"),
    why: `is inside ${join(dir, ".aws")}, where credentials live`,
  });
});

test("a settings folder harness reads is refused wherever it lives ($HARNESS_HOME, CLAUDE_CONFIG_DIR)", () => {
  const { dir, env } = home();
  for (const folder of ["state", "claude-elsewhere"]) {
    assert.match(
      JSON.stringify(judgeWorkspace(join(dir, folder), env)),
      /"kind":"refused".*harness's state and settings/,
      folder,
    );
  }
});

test("a hidden folder of home takes the choice; a hidden folder inside a project does not", () => {
  const { dir, env } = home();
  assert.equal(judgeWorkspace(join(dir, ".config", "myproj"), env).kind, "choice");
  assert.deepEqual(judgeWorkspace(join(dir, "projects", "app", ".venv"), env), {
    kind: "ok",
    folder: join(dir, "projects", "app", ".venv"),
  });
  assert.deepEqual(taskFolder(join(dir, ".config", "myproj"), env), {
    refused: `${join(dir, ".config", "myproj")} is inside ${join(dir, ".config")}, a hidden folder of your home where programs keep their settings and state`,
  });
});

test("inside a .git folder anywhere is refused; a home of / makes only / itself hold it", () => {
  const { dir, env } = home();
  mkdirSync(join(dir, "projects", "app", ".git", "hooks"), { recursive: true });
  assert.match(
    JSON.stringify(judgeWorkspace(join(dir, "projects", "app", ".git", "hooks"), env)),
    /"kind":"refused".*which holds what git or harness runs outside the sandbox/,
  );
  const rootHome = { ...env, HOME: "/" };
  assert.equal(judgeWorkspace("/", rootHome).kind, "choice");
  assert.equal(judgeWorkspace(join(dir, "projects"), rootHome).kind, "ok");
});
