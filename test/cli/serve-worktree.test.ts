// A served session in a worktree of its own: POST /api/sessions with `worktree` makes one as
// `harness -w` does (branch harness/<name>, in <repo>.worktrees/<name>), the session works there
// and its summary names it; a name the CLI would refuse is a 400 naming the rule.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ServeClientError } from "../../src/server/serve-client.ts";
import { committedRepository } from "../support/git-repository.ts";
import { fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { startServe, watchUntil } from "../support/serve.ts";

const serve = fakeServerPerTest();

test("a served session made in a worktree works there; bad names and resume with it are refused", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "w", name: "write_file", arguments: { path: "w.txt", content: "wt\n" } }] } },
    { reply: { text: "wrote it" } },
  ]);
  const { repo, git, worktrees } = committedRepository("harness-serve-worktree-");
  const { client } = await startServe(fake, { args: ["--approve", "edits"] });

  const session = await client.createSession({ cwd: repo, worktree: "feat" });
  const worktree = join(worktrees, "feat");
  assert.equal(session.cwd, worktree);
  assert.deepEqual(session.worktree, { name: "feat", branch: "harness/feat", path: worktree });
  assert.deepEqual((await client.session(session.id)).worktree, session.worktree);
  assert.equal(
    execFileSync("git", ["branch", "--show-current"], { cwd: worktree, encoding: "utf8" }).trim(),
    "harness/feat",
  );
  assert.equal(readFileSync(join(repo, ".git", "worktrees", "feat", "harness-session"), "utf8").trim(), session.id);

  await client.prompt(session.id, "write");
  const events = await watchUntil(client, session.id, (event) => event.type === "done");
  assert.equal((events.at(-1)!.event as { answer: string }).answer, "wrote it");
  assert.equal(readFileSync(join(worktree, "w.txt"), "utf8"), "wt\n");
  assert.equal(existsSync(join(repo, "w.txt")), false, "the main checkout is untouched");
  assert.match(JSON.stringify(fake.requests[0].body.messages[0]), new RegExp(worktree));

  // `true`: a generated name, on its own branch.
  const generated = await client.createSession({ cwd: repo, worktree: true });
  assert.ok(generated.worktree);
  assert.equal(generated.worktree.branch, `harness/${generated.worktree.name}`);
  assert.equal(generated.cwd, join(worktrees, generated.worktree.name));

  // Names the CLI refuses (a way out of <repo>.worktrees among them) are the client's error, saying the rule.
  for (const bad of ["../up", "/etc", "a/b", "x.lock", "-flag"]) {
    await assert.rejects(
      client.createSession({ cwd: repo, worktree: bad }),
      (error: ServeClientError) =>
        error.status === 400 && error.message.includes(`"${bad}" cannot name a worktree: use up to 64 letters`),
      bad,
    );
  }
  // Taken already, outside a repository, or with resume: refused, saying why.
  await assert.rejects(
    client.createSession({ cwd: repo, worktree: "feat" }),
    (error: ServeClientError) => error.status === 400 && /already exists/.test(error.message),
  );
  await assert.rejects(
    client.createSession({ cwd: tempDir(), worktree: "x" }),
    (error: ServeClientError) => error.status === 400 && /git/i.test(error.message),
  );
  await assert.rejects(
    client.createSession({ cwd: worktree, resume: "0000", worktree: "again" }),
    (error: ServeClientError) => error.status === 400 && /resume or worktree, not both/.test(error.message),
  );
  assert.deepEqual(
    git("worktree", "list", "--porcelain")
      .split("\n")
      .filter((line) => line.startsWith("branch "))
      .sort(),
    [
      "branch refs/heads/harness/feat",
      `branch refs/heads/harness/${generated.worktree.name}`,
      "branch refs/heads/main",
    ].sort(),
  );
});
