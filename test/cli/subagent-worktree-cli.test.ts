// Subagents in worktrees through the built CLI against the fake server, with real git: a task call
// with isolation "worktree" and a named agent with `isolation: worktree` (Claude Code's key) each
// work in a worktree of their own, so two children started together edit the same file; each
// result names its branch and a diff summary, leftovers are committed on the branch, the main
// checkout is untouched, and a child that changed nothing leaves no worktree and no branch.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { byConversation } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, toolResultOf } from "../support/helpers.ts";
import { taskCall, text } from "../support/subagent-steps.ts";

const serve = fakeServerPerTest();

test("isolation worktree: parallel children edit one file on their own branches; an idle one leaves nothing", async () => {
  const repo = join(tempDir("harness-subagent-worktree-"), "repo");
  mkdirSync(join(repo, ".claude", "agents"), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: repo,
      encoding: "utf8",
    });
  writeFileSync(join(repo, "shared.txt"), "base\n");
  writeFileSync(
    join(repo, ".claude", "agents", "looker.md"),
    "---\nname: looker\ndescription: Looks around\ntools: Read, Glob\nisolation: worktree\n---\nLook only.\n",
  );
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "first");
  const bash = (id: string, command: string) => ({
    reply: { toolCalls: [{ id, name: "bash", arguments: { command } }] },
  });
  const fake = await serve(
    byConversation({
      "PARENT:": [
        {
          reply: {
            toolCalls: [
              taskCall("call_a", { prompt: "ALPHA: edit", tools: ["bash"], isolation: "worktree" }),
              taskCall("call_b", { prompt: "BETA: edit and commit", tools: ["bash"], isolation: "worktree" }),
              taskCall("call_c", { prompt: "GAMMA: look", agent: "looker" }),
            ],
          },
        },
        text("all three done"),
      ],
      "ALPHA:": [bash("a1", "pwd; echo alpha > shared.txt"), text("alpha edited")],
      "BETA:": [bash("b1", "echo beta > shared.txt && git commit -qam beta && echo committed"), text("beta committed")],
      "GAMMA:": [text("nothing to change")],
    }),
  );
  const env = cleanEnv();
  const run = await runCli(["-y", ...fakeFlags(fake), "-p", "PARENT: go"], { env, cwd: repo });
  assert.equal(run.code, 0, run.stderr);
  const last = fake.requests.findIndex((request) => JSON.stringify(request.body.messages).includes("beta committed"));
  const parentLast = fake.requests.length - 1;
  assert.ok(last >= 0);
  const worktrees = join(realpathSync(join(repo, "..")), "repo.worktrees");
  const branchOf = (said: string) => /\[worktree: branch (harness\/agent-[\w.-]+) \(/.exec(said)?.[1] ?? "";

  // Each editing child's result names its branch, the size of its change and where it is.
  const alphaSaid = toolResultOf(fake, parentLast, "call_a");
  const betaSaid = toolResultOf(fake, parentLast, "call_b");
  for (const said of [alphaSaid, betaSaid])
    assert.match(
      said,
      new RegExp(`\\(1 file \\+1 -1 since [0-9a-f]{12}\\) in ${worktrees}/agent-[\\w.-]+; merge it with git merge`),
    );
  const [alpha, beta] = [branchOf(alphaSaid), branchOf(betaSaid)];
  assert.notEqual(alpha, beta);
  // Its commands ran in its worktree; what it left uncommitted is a commit on its branch.
  const alphaRequests = fake.requests.filter((request) => JSON.stringify(request.body.messages).includes("ALPHA:"));
  assert.match(JSON.stringify(alphaRequests[1].body.messages), new RegExp(`${worktrees}/${alpha.slice(8)}`));
  assert.match(JSON.stringify(alphaRequests[0].body.messages[0]), new RegExp(`${worktrees}/${alpha.slice(8)}`));
  assert.equal(git("show", `${alpha}:shared.txt`), "alpha\n");
  assert.match(git("log", "-1", "--format=%s", alpha), /^harness subagent agent-/);
  assert.equal(git("show", `${beta}:shared.txt`), "beta\n");
  assert.equal(git("log", "-1", "--format=%s", beta).trim(), "beta");
  // The main checkout and its branch are untouched.
  assert.equal(readFileSync(join(repo, "shared.txt"), "utf8"), "base\n");
  assert.equal(git("status", "--porcelain"), "");
  assert.equal(git("log", "--format=%s", "main").trim(), "first");

  // The named agent changed nothing: its worktree and branch are gone.
  assert.match(
    toolResultOf(fake, parentLast, "call_c"),
    /\[worktree: nothing changed; its worktree and branch were removed\]/,
  );
  assert.deepEqual(
    git("branch", "--list", "harness/*", "--format=%(refname:short)").trim().split("\n").sort(),
    [alpha, beta].sort(),
  );

  // `harness worktrees` lists the two, each with the child session that worked there; merge takes one.
  const listed = await runCli(["worktrees"], { env, cwd: repo });
  assert.equal(listed.code, 0, listed.stderr);
  for (const branch of [alpha, beta])
    assert.match(listed.stdout, new RegExp(`${branch}\\s+1 ahead, 0 behind, clean\\s+session [0-9a-z-]+`));
  const merged = await runCli(["worktrees", "merge", alpha.slice(8)], { env, cwd: repo });
  assert.equal(merged.code, 0, merged.stderr);
  assert.equal(readFileSync(join(repo, "shared.txt"), "utf8"), "alpha\n");
});
