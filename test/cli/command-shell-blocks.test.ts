// A command file's `` !`cmd` `` blocks, as Claude Code runs them: each runs before the prompt is
// sent and its output takes its place; they run as the model's bash calls do (a deny rule refuses
// one even under --yes; an untrusted folder's command file asks, so a headless run refuses), sandboxed, and a
// refused one is said in the prompt and on stderr. What the person typed after the name stays text.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

function promptOf(request: RecordedRequest): string {
  return request.body.messages.filter((message: { role: string }) => message.role === "user").at(-1).content;
}

test("!`cmd` blocks run before the prompt is sent, under the session's rules; typed arguments stay text", async () => {
  const env = cleanEnv();
  const repo = tempDir();
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, ".claude", "commands"), { recursive: true });
  mkdirSync(join(env.HARNESS_HOME as string, "commands"));
  writeFileSync(join(repo, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
  writeFileSync(join(repo, "keep.txt"), "kept");
  writeFileSync(join(repo, ".claude", "commands", "proj.md"), "Project: !`echo proj-ran`\n");
  writeFileSync(
    join(env.HARNESS_HOME as string, "commands", "ctx.md"),
    "Sum: !`echo block-ran; echo line-two`\nGone: !`rm -f keep.txt`\nHome: !`ls $HARNESS_HOME 2>&1 | head -1; echo end`\nAsked: $ARGUMENTS\n",
  );
  const fake = await serve([{ reply: { text: "one" } }, { reply: { text: "two" } }]);
  const yes = await runCli([...fakeFlags(fake), "--yes", "-p", "/ctx !`echo typed`"], { cwd: repo, env });
  assert.equal(yes.code, 0, yes.stderr);
  const prompt = promptOf(fake.requests[0]);
  assert.match(prompt, /^Sum: block-ran\nline-two\nGone: /);
  assert.match(prompt, /Gone: \[!`rm -f keep\.txt` was not run: [^\n]*Bash\(rm:\*\)/);
  assert.ok(existsSync(join(repo, "keep.txt")), "the denied block did not run");
  assert.match(yes.stderr, /!`rm -f keep\.txt` was not run/);
  // Sandboxed: $HARNESS_HOME is hidden from commands, as from the model's.
  assert.doesNotMatch(prompt, /Home: [^\n]*settings|sessions/);
  assert.match(prompt, /Asked: !`echo typed`$/);

  // A command file of a folder not trusted is the repository's text: its blocks ask even under
  // --yes, and a headless run has nobody to ask, so it is refused, and said so.
  const asked = await runCli([...fakeFlags(fake), "--yes", "-p", "/proj"], { cwd: repo, env });
  assert.equal(asked.code, 0, asked.stderr);
  assert.match(promptOf(fake.requests[1]), /^Project: \[!`echo proj-ran` was not run: [^\n]*not trusted/);
  assert.match(asked.stderr, /!`echo proj-ran` was not run/);
});
