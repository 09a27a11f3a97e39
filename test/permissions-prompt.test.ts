// The terminal's approval question: what it shows, and how answers are read.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTerminalAsk, type AskFn } from "../src/ui/approval.ts";
import { paletteFor } from "../src/ui/colors.ts";

const colors = paletteFor({ isTTY: false } as NodeJS.WriteStream, {});

function scripted(answers: Array<string | undefined>, columns = 80) {
  const questions: string[] = [];
  const ask: AskFn = async (question) => {
    questions.push(question);
    return answers.shift();
  };
  return { questions, ask: createTerminalAsk({ ask, colors, columns }) };
}

test("the question shows the call, why it asks, the diff and the rule `always` would add", async () => {
  const { questions, ask } = scripted(["a"]);
  const answer = await ask(
    {
      summary: "edit src/a.ts",
      why: "/etc/a is outside the workspace",
      diff: "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-old\n+new\n",
      remember: ["edit_file"],
    },
    new AbortController().signal,
  );
  assert.deepEqual(answer, { type: "always" });
  assert.equal(
    questions[0],
    "allow? edit src/a.ts\n  (/etc/a is outside the workspace)\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n1 -old\n1 +new\n  [y]es  [n]o  [r]efuse, saying why  [a]lways allow edit_file this session > ",
  );
});

test("answers: yes, no, a reason, an empty line (no), closed input, and always where nothing can be remembered", async () => {
  const { questions, ask } = scripted(["Y", "n", "no, use pnpm, not npm", "", undefined, "always"]);
  const question = (remember: string[]) => ask({ summary: "bash> npm i", remember }, new AbortController().signal);
  assert.deepEqual(await question(["bash(npm i)"]), { type: "yes" });
  assert.deepEqual(await question(["bash(npm i)"]), { type: "no" });
  assert.deepEqual(await question(["bash(npm i)"]), { type: "no", reason: "use pnpm, not npm" });
  assert.deepEqual(await question(["bash(npm i)"]), { type: "no" });
  assert.equal(await question(["bash(npm i)"]), undefined);
  assert.deepEqual(await question([]), { type: "yes" }, "always with nothing to remember allows this call only");
  assert.equal(questions[5], "allow? bash> npm i\n  [y]es  [n]o  [r]efuse, saying why > ");
});

test("on a narrow terminal the rule `always` would add gets its own line, so the answer line never wraps", async () => {
  const { questions, ask } = scripted(["a"], 50);
  const answer = await ask({ summary: "bash> npm test", remember: ["bash(npm test:*)"] }, new AbortController().signal);
  assert.deepEqual(answer, { type: "always" });
  assert.equal(
    questions[0],
    "allow? bash> npm test\n  [a]lways allow bash(npm test:*) this session\n  [y]es  [n]o  [r]efuse, saying why  [a]lways > ",
  );
  for (const line of questions[0].split("\n").slice(1)) assert.ok(line.length <= 50, line);
});

test("answers cannot be misread: yes-words run the call, r asks for the reason, anything else is asked again (three times at most)", async () => {
  const question = (ask: ReturnType<typeof scripted>["ask"]) =>
    ask({ summary: "bash> npm i", remember: ["bash(npm i)"] }, new AbortController().signal);
  for (const word of ["ok", "OK.", "sure", "go", "yes please", "Go ahead!", "yep"]) {
    const { ask } = scripted([word]);
    assert.deepEqual(await question(ask), { type: "yes" }, word);
  }
  const withReason = scripted(["r", "  use pnpm  "]);
  assert.deepEqual(await question(withReason.ask), { type: "no", reason: "use pnpm" });
  assert.equal(withReason.questions[1], "  why not? (the model is told; Enter for no reason) > ");
  const unclear = scripted(["hmm", "maybe later", "y"]);
  assert.deepEqual(await question(unclear.ask), { type: "yes" });
  assert.equal(
    unclear.questions[1],
    '  "hmm" is not one of the answers\n  [y]es  [n]o  [r]efuse, saying why  [a]lways allow bash(npm i) this session > ',
  );
  const never = scripted(["hmm", "what", "eh", "y"]);
  assert.deepEqual(await question(never.ask), { type: "no" }, "three answers that are none: a no");
});
