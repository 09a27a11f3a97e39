// One session moved between sign-in plans and an API-key provider (issue 43's "Done when"): a
// tool loop on Copilot, `-c` on Anthropic (a key), `-c` on the ChatGPT plan, `-c` back on
// Copilot. Every service is its strict fake (the personas, and the sign-in checks of
// fake-sign-in/server.ts), so every request carries the others' replies converted for it; no
// token of the store reaches the outputs, the session file or the key provider.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import type { FakeLLM, RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { type CliResult, cleanEnv, fakeServerPerTest, runCli, stateFiles, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

type Check = (request: RecordedRequest) => ScriptStep | undefined;

/** Three model calls (two reads at once, one more, the answer), each refused first if `check` refuses it. */
function toolLoop(check: Check, id: (n: number) => string, answer: string, reasoning: boolean): ScriptStep[] {
  const read = (n: number, path: string) => ({ id: id(n), name: "read_file", arguments: { path } });
  const think = reasoning ? { reasoning: `thinking about ${answer}` } : {};
  return [{ toolCalls: [read(1, "a.txt"), read(2, "b.txt")] }, { toolCalls: [read(3, "a.txt")] }, { text: answer }].map(
    (reply) => (request: RecordedRequest) => check(request) ?? { reply: { ...think, ...reply } },
  );
}

test("a session goes copilot → anthropic (a key) → chatgpt → copilot with -c, every request accepted, no token out", async () => {
  const signIn = await startSignIn();
  const plans: FakeLLM = await serve([
    ...toolLoop(
      (r) => signIn.copilotRefusal(r),
      (n) => `call_copilot${n}`,
      "copilot done",
      false,
    ),
    ...toolLoop(
      (r) => signIn.chatgptRefusal(r),
      (n) => `call_plan${n}`,
      "chatgpt done",
      true,
    ),
    ...toolLoop(
      (r) => signIn.copilotRefusal(r),
      (n) => `call_back${n}`,
      "copilot again",
      false,
    ),
  ]);
  plans.persona = PERSONAS.openai();
  const anthropic = await serve(
    toolLoop(
      () => undefined,
      (n) => `toolu_0${n}ABC`,
      "claude done",
      true,
    ),
  );
  anthropic.persona = PERSONAS.anthropic();
  const env = cleanEnv({ ...signIn.env(plans.url), ANTHROPIC_API_KEY: "sk-ant-test-key" });
  const home = env.HARNESS_HOME as string;
  const cwd = tempDir();
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  writeFileSync(join(cwd, "b.txt"), "beta\n");
  const runs: CliResult[] = [];
  for (const login of [
    ["login", "copilot"],
    ["login", "chatgpt", "--device"],
  ]) {
    runs.push(await runCli(login, { env }));
    assert.equal(runs.at(-1)?.code, 0, runs.at(-1)?.stderr);
  }
  const turns = [
    { flags: ["--provider", "copilot", "--model", "gpt-4.1"], answer: "copilot done" },
    {
      flags: [
        "--provider",
        "anthropic",
        "--base-url",
        anthropic.url,
        "--model",
        "claude-sonnet-4-5",
        "--thinking",
        "low",
      ],
      answer: "claude done",
    },
    { flags: ["--provider", "chatgpt", "--model", "gpt-5.1-codex", "--thinking", "low"], answer: "chatgpt done" },
    { flags: ["--provider", "copilot", "--model", "gpt-4.1"], answer: "copilot again" },
  ];
  for (const [step, turn] of turns.entries()) {
    const args = [...turn.flags, "-y", ...(step > 0 ? ["-c"] : []), "--output", "stream-json", "-p", `turn ${step}`];
    const run = await runCli(args, { env, cwd });
    runs.push(run);
    assert.equal(run.code, 0, `turn ${step}: ${run.stderr}`);
    assert.match(run.stdout, new RegExp(`"${turn.answer}"`));
  }
  assert.deepEqual([...plans.errors, ...anthropic.errors], [], "every request accepted");
  assert.equal(plans.requests.length, 9);
  assert.equal(anthropic.requests.length, 3);
  // The history came along, converted: Claude saw Copilot's calls; ChatGPT saw Claude's; Copilot saw both.
  assert.match(JSON.stringify(anthropic.requests[0].body.messages), /call_copilot1.*copilot done/s);
  const chatgpt = plans.requests[3];
  assert.equal(chatgpt.path, "/backend-api/codex/responses");
  assert.match(JSON.stringify(chatgpt.body.input), /toolu_01ABC.*claude done/s);
  const back = plans.requests[6];
  assert.equal(back.path, "/chat/completions");
  assert.match(JSON.stringify(back.body.messages), /call_copilot1.*toolu_01ABC.*call_plan1.*chatgpt done/s);
  // The key provider got its key and no sign-in token; no token anywhere but the store.
  for (const request of anthropic.requests) assert.equal(request.headers["x-api-key"], "sk-ant-test-key");
  const store = JSON.parse(readFileSync(join(home, "credentials.json"), "utf8")).signIns;
  const tokens = [
    ...Object.values(store).flatMap((entry) =>
      Object.entries(entry as Record<string, unknown>)
        .filter(([key, value]) => /token/i.test(key) && typeof value === "string")
        .map(([, value]) => value as string),
    ),
    ...plans.requests.map((request) => String(request.headers.authorization).replace(/^Bearer /, "")),
  ];
  assert.ok(new Set(tokens).size >= 4, "the tokens to look for");
  const written = [
    { path: "the runs' output", text: runs.map((run) => run.stdout + run.stderr).join("\n") },
    { path: "the Anthropic requests", text: JSON.stringify(anthropic.requests) },
    ...stateFiles(home).filter((file) => !file.path.endsWith("credentials.json")),
  ];
  assert.ok(
    written.some((file) => file.path.endsWith(".jsonl")),
    "the session file",
  );
  for (const token of new Set(tokens))
    for (const file of written) assert.ok(!file.text.includes(token), `${file.path} holds a token`);
});
