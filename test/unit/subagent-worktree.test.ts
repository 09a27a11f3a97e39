// Subagents in worktrees, in-process: a named agent's `isolation` front matter (Claude Code's key)
// is read, a value harness lacks leaves the agent out with a warning, and a worktree asked for
// outside a repository is an error for the model, with no place built.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { findAgents } from "../../src/prompts/agents.ts";
import { isolateChild } from "../../src/wiring/subagent-worktree.ts";
import { tempDir } from "../support/helpers.ts";

test("an agent's isolation: worktree is read; another value leaves the agent out, said", () => {
  const dir = tempDir("harness-agent-isolation-");
  const agents = join(dir, ".claude", "agents");
  mkdirSync(agents, { recursive: true });
  const agent = (name: string, isolation: string) =>
    writeFileSync(join(agents, `${name}.md`), `---\ndescription: d\nisolation: ${isolation}\n---\nbody\n`);
  agent("apart", "worktree");
  agent("remote", "container");
  const warnings: string[] = [];
  const found = findAgents({ cwd: dir, harnessHome: join(dir, "h"), home: join(dir, "home") }, (w) => warnings.push(w));
  assert.deepEqual(
    found.map((one) => [one.name, one.isolation]),
    [["apart", "worktree"]],
  );
  assert.match(
    warnings.join("\n"),
    /remote\.md left out: its isolation "container" is not one harness has \(worktree\)/,
  );
});

test("isolation worktree outside a git repository: an error for the model, and no place is built", () => {
  const dir = tempDir("harness-no-repo-");
  let built = 0;
  const made = isolateChild(dir, () => {
    built++;
    throw new Error("never");
  });
  assert.ok("error" in made);
  assert.match(made.error, /^isolation "worktree": .* is not in a git repository/);
  assert.equal(built, 0);
});
