// Undo through the real CLI against the fake model: a turn changes files with edit_file, sed and
// rm; `harness undo` puts all three back and takes the turn out of the conversation; the user's
// own .git is left exactly as it was; a folder that is not a repository works the same; and a run
// killed with SIGKILL in the middle of a turn still leaves a snapshot to go back to.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readSession } from "../../src/session/session-reader.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, signalOnceFileExists, tempDir } from "../support/helpers.ts";
import { CHANGING_TURN, git, readIfThere as read } from "../support/undo-helpers.ts";

const serve = fakeServerPerTest();

/** The messages the model was sent in request `index`, without the system prompt. */
function sent(fake: { requests: Array<{ body: any }> }, index: number): Array<{ role: string; content: unknown }> {
  return fake.requests[index].body.messages
    .filter((m: any) => m.role !== "system")
    .map((m: any) => ({ role: m.role, content: m.content }));
}

test("a turn that edits, seds and deletes is undone by `harness undo`: all three files and the conversation; the user's .git untouched", async () => {
  const fake = await serve([{ reply: { text: "hi there" } }, ...CHANGING_TURN, { reply: { text: "next answer" } }]);
  const env = cleanEnv();
  const cwd = tempDir("harness-undo-repo-");
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  writeFileSync(join(cwd, "b.txt"), "beta\n");
  writeFileSync(join(cwd, "c.txt"), "gamma\n");
  git(cwd, "init", "-q");
  git(cwd, "add", ".");
  git(cwd, "commit", "-qm", "start");
  git(cwd, "branch", "side");
  writeFileSync(join(cwd, "a.txt"), "alpha stashed\n");
  git(cwd, "stash", "-q");
  writeFileSync(join(cwd, "b.txt"), "beta\n");
  git(cwd, "add", "b.txt");
  const gitState = () => ({
    refs: git(cwd, "for-each-ref"),
    stash: git(cwd, "stash", "list"),
    index: createHash("sha256")
      .update(readFileSync(join(cwd, ".git/index")))
      .digest("hex"),
    head: read(cwd, ".git/HEAD"),
  });
  const before = gitState();

  const first = await runCli([...fakeFlags(fake), "-p", "hello"], { env, cwd });
  assert.equal(first.code, 0, first.stderr);
  const second = await runCli([...fakeFlags(fake), "-c", "-y", "-p", "change the three files"], { env, cwd });
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(
    [read(cwd, "a.txt"), read(cwd, "b.txt"), read(cwd, "c.txt")],
    ["ALPHA\n", "BETA\n", undefined],
    "the turn changed all three",
  );

  const undo = await runCli(["undo"], { env, cwd });
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual([read(cwd, "a.txt"), read(cwd, "b.txt"), read(cwd, "c.txt")], ["alpha\n", "beta\n", "gamma\n"]);
  assert.match(undo.stdout, /^undid the last turn of session \S+: files in .*:\n/);
  for (const line of ["changed   a.txt", "changed   b.txt", "restored  c.txt"])
    assert.ok(undo.stdout.includes(line), `${line} in:\n${undo.stdout}`);
  assert.deepEqual(gitState(), before);

  // The undone turn has left the conversation: the next run continues from the first turn.
  const next = await runCli([...fakeFlags(fake), "-c", "-p", "and now?"], { env, cwd });
  assert.equal(next.code, 0, next.stderr);
  assert.deepEqual(sent(fake, 4), [
    { role: "user", content: "hello" },
    { role: "assistant", content: "hi there" },
    { role: "user", content: "and now?" },
  ]);
});

test("undo in a folder that is not a git repository, two turns at once; more turns than there are is refused", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "one", name: "bash", arguments: { command: "echo first > notes.txt" } }] } },
    { reply: { text: "wrote notes" } },
    {
      reply: {
        toolCalls: [{ id: "two", name: "bash", arguments: { command: "echo second >> notes.txt && rm keep.txt" } }],
      },
    },
    { reply: { text: "appended" } },
  ]);
  const env = cleanEnv();
  const cwd = tempDir("harness-undo-plain-");
  writeFileSync(join(cwd, "keep.txt"), "kept\n");
  for (const prompt of ["write notes", "append"]) {
    const result = await runCli([...fakeFlags(fake), ...(prompt === "append" ? ["-c"] : []), "-y", "-p", prompt], {
      env,
      cwd,
    });
    assert.equal(result.code, 0, result.stderr);
  }
  assert.equal(read(cwd, "notes.txt"), "first\nsecond\n");

  const tooMany = await runCli(["undo", "--turns", "3"], { env, cwd });
  assert.equal(tooMany.code, 2);
  assert.equal(tooMany.stderr, "harness: this session has only 2 turns to undo\n");

  const undo = await runCli(["undo", "--turns", "2"], { env, cwd });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(read(cwd, "notes.txt"), undefined);
  assert.equal(read(cwd, "keep.txt"), "kept\n");
  assert.equal(existsSync(join(cwd, ".git")), false, "no repository was made in the workspace");
  const session = readSession(
    join(env.HARNESS_HOME as string, "sessions", `${/session (\S+):/.exec(undo.stdout)?.[1]}.jsonl`),
  );
  assert.deepEqual(session.messages, []);
  assert.deepEqual(session.turns, []);

  const nothing = await runCli(["undo"], { env, cwd });
  assert.equal(nothing.code, 1);
  assert.equal(nothing.stderr, "harness: nothing to undo: this session has no turns left to take back\n");
});

test("killed with SIGKILL in the middle of a turn: `harness undo` restores the files from the snapshot taken before it", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          {
            id: "slow",
            name: "bash",
            arguments: { command: "echo ruined > a.txt; rm b.txt; echo $$ > started; sleep 30" },
          },
        ],
      },
    },
  ]);
  const env = cleanEnv();
  const cwd = tempDir("harness-undo-crash-");
  writeFileSync(join(cwd, "a.txt"), "intact\n");
  writeFileSync(join(cwd, "b.txt"), "here\n");
  const killed = await runCli([...fakeFlags(fake), "-y", "-p", "do the slow thing"], {
    env,
    cwd,
    onSpawn: signalOnceFileExists(join(cwd, "started"), "SIGKILL"),
  });
  assert.equal(killed.signal, "SIGKILL", `code ${killed.code}: ${killed.stderr}`);
  try {
    process.kill(-Number(read(cwd, "started")), "SIGKILL"); // the orphaned sleep has its own process group
  } catch {
    // already gone
  }
  assert.equal(read(cwd, "a.txt"), "ruined\n");

  const undo = await runCli(["undo"], { env, cwd });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(read(cwd, "a.txt"), "intact\n");
  assert.equal(read(cwd, "b.txt"), "here\n");
  assert.equal(read(cwd, "started"), undefined, "made during the turn: gone");
});

test("in the home folder no snapshot is taken (said once); the turn still runs and undo takes back the conversation only", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "w", name: "bash", arguments: { command: "echo made > notes/made.txt" } }] } },
    { reply: { text: "made it" } },
  ]);
  const home = tempDir("harness-undo-home-");
  // The top of the home folder is read-only to commands (nothing new beside the dotfiles): a folder in it is not.
  mkdirSync(join(home, "notes"));
  const env = cleanEnv({ HOME: home });
  const run = await runCli([...fakeFlags(fake), "--allow-home", "-y", "-p", "make a file"], { env, cwd: home });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(read(home, "notes/made.txt"), "made\n");
  assert.match(
    run.stderr,
    /^harness: warning: no snapshot of the workspace before this turn, so its file changes cannot be undone: the workspace is your home folder \(or \/\)/m,
  );

  const undo = await runCli(["undo"], { env, cwd: home });
  assert.equal(undo.code, 0, undo.stderr);
  assert.match(undo.stdout, /: the conversation only \(no snapshot of the files was taken/);
  assert.equal(read(home, "notes/made.txt"), "made\n", "without a snapshot the files stay as they are");
});
