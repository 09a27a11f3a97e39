// One thinking control (`--thinking`, config.json `thinking`) mapped onto each API, checked in the
// request body the built CLI sends to the fake server; a level an API cannot take is left out
// with one notice; thinking text reaches stream-json.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, runCli, withoutSandboxWarning } from "../support/helpers.ts";

const serve = fakeServerPerTest();

/** The request body each run sends, one run per flag set, all against one server. */
async function bodiesFor(
  target: (fake: FakeLLM) => string[],
  runs: string[][],
  env = cleanEnv(),
): Promise<{ bodies: any[]; stderrs: string[] }> {
  const fake = await serve(runs.map(() => ({ reply: { text: "ok" } })));
  const stderrs: string[] = [];
  for (const flags of runs) {
    const result = await runCli([...target(fake), ...flags, "-p", "hi"], { env });
    assert.equal(result.code, 0, result.stderr);
    stderrs.push(withoutSandboxWarning(result.stderr));
  }
  return { bodies: fake.requests.map((request) => request.body), stderrs };
}

const chatTarget = (model: string) => (fake: FakeLLM) => [
  "--provider",
  "openai",
  "--base-url",
  fake.baseUrl,
  "--model",
  model,
];

test("OpenAI chat: reasoning_effort; off is minimal on gpt-5 and none on gpt-5.1; a model that does not reason gets nothing, and one notice", async () => {
  const gpt5 = await bodiesFor(chatTarget("gpt-5-mini"), [["--thinking", "high"], ["--thinking", "off"], []]);
  assert.deepEqual(
    gpt5.bodies.map((body) => body.reasoning_effort),
    ["high", "minimal", undefined],
  );
  const gpt51 = await bodiesFor(chatTarget("gpt-5.1"), [["--thinking", "off"]]);
  assert.equal(gpt51.bodies[0].reasoning_effort, "none");
  const gpt41 = await bodiesFor(chatTarget("gpt-4.1"), [
    ["--thinking", "high"],
    ["--thinking", "4096"],
  ]);
  for (const body of gpt41.bodies) assert.equal(body.reasoning_effort, undefined);
  assert.deepEqual(gpt41.stderrs, [
    "harness: --thinking high is left out for openai · gpt-4.1: gpt-4.1 does not reason\n",
    "harness: --thinking 4096 tokens is left out for openai · gpt-4.1: gpt-4.1 does not reason\n",
  ]);
});

test("Responses: reasoning.effort with a summary asked for, and the summary streams as thinking", async () => {
  const fake = await serve([{ reply: { reasoning: "Weighing it.", text: "ok" } }]);
  const result = await runCli([
    "--provider",
    "openai",
    "--api",
    "responses",
    "--base-url",
    fake.baseUrl,
    "--model",
    "gpt-5",
    "--thinking",
    "medium",
    "--output",
    "stream-json",
    "-p",
    "hi",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(fake.requests[0].body.reasoning, { effort: "medium", summary: "auto" });
  const thinking = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === "thinking_delta");
  assert.equal(thinking.map((event) => event.text).join(""), "Weighing it.");
});

test("Anthropic: a budget per level under max_tokens, a number as the budget, off as no thinking", async () => {
  const anthropic = (fake: FakeLLM) => [
    "--provider",
    "anthropic",
    "--base-url",
    fake.url,
    "--model",
    "claude-sonnet-4-5",
  ];
  const { bodies } = await bodiesFor(anthropic, [
    ["--thinking", "low"],
    ["--thinking", "high", "--max-tokens", "8000"],
    ["--thinking", "3000"],
    ["--thinking", "off"],
  ]);
  assert.deepEqual(
    bodies.map((body) => body.thinking),
    [
      { type: "enabled", budget_tokens: 2048 },
      { type: "enabled", budget_tokens: 6976 },
      { type: "enabled", budget_tokens: 3000 },
      undefined,
    ],
  );
  assert.equal(bodies[1].max_tokens, 8000);
});

test("OpenRouter: reasoning.effort, a number as reasoning.max_tokens, off as reasoning disabled", async () => {
  const openrouter = (fake: FakeLLM) => [
    "--provider",
    "openrouter",
    "--base-url",
    fake.baseUrl,
    "--model",
    "anthropic/claude-sonnet-4.5",
  ];
  const { bodies } = await bodiesFor(openrouter, [
    ["--thinking", "medium"],
    ["--thinking", "5000"],
    ["--thinking", "off"],
  ]);
  assert.deepEqual(
    bodies.map((body) => body.reasoning),
    [{ effort: "medium" }, { max_tokens: 5000 }, { enabled: false }],
  );
});

test("a Qwen3 on a server of one's own: chat_template_kwargs.enable_thinking; a budget is left out with a notice", async () => {
  const { bodies, stderrs } = await bodiesFor(chatTarget("Qwen/Qwen3-8B"), [
    ["--thinking", "off"],
    ["--thinking", "high"],
    ["--thinking", "2048"],
  ]);
  assert.deepEqual(
    bodies.map((body) => body.chat_template_kwargs),
    [{ enable_thinking: false }, { enable_thinking: true }, undefined],
  );
  assert.equal(
    stderrs[2],
    "harness: --thinking 2048 tokens is left out for openai · Qwen/Qwen3-8B: Qwen3's template switches thinking on or off; it takes no budget\n",
  );
});

test("an unknown combination (Ollama) is left out, never sent blind: no field, one notice", async () => {
  const ollama = (fake: FakeLLM) => ["--provider", "ollama", "--base-url", fake.baseUrl, "--model", "qwen3"];
  const { bodies, stderrs } = await bodiesFor(ollama, [["--thinking", "high"]]);
  const sent = Object.keys(bodies[0]).filter((key) => /reason|think|template/.test(key));
  assert.deepEqual(sent, []);
  assert.equal(
    stderrs[0],
    "harness: --thinking high is left out for ollama · qwen3: no thinking control is known for this server\n",
  );
});

test("config.json thinking is the default, and --thinking wins over it", async () => {
  const env = cleanEnv();
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify({ thinking: "low" }));
  const { bodies } = await bodiesFor(chatTarget("o4-mini"), [[], ["--thinking", "high"]], env);
  assert.deepEqual(
    bodies.map((body) => body.reasoning_effort),
    ["low", "high"],
  );
});
