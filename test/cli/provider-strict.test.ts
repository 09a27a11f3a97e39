// Every provider preset and compatible server on its strict fake (fake-llm/personas.ts), through
// the built CLI: a tool loop of three model calls with thinking on where the model has it, then
// the session continued with `-c` on the same provider, and a loop that reads a picture and stops at
// its turn limit, then goes on with `-c`, must never send what that service refuses.
// And each persona is shown to refuse, with its real error body, what its service refuses.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PERSONAS, type PersonaName } from "../support/fake-llm/personas.ts";
import { fakeServerPerTest, ROOT } from "../support/helpers.ts";
import { pngOf } from "../support/images.ts";
import { replyOf, runOn, TARGETS, toolLoop, workspace } from "../support/provider-targets.ts";

const serve = fakeServerPerTest();

for (const [key, target] of Object.entries(TARGETS)) {
  test(`${target.label}: a three-call tool loop and a -c turn, every request one the service accepts`, async () => {
    const fake = await serve([...toolLoop(target, "loop done"), replyOf(target, { text: "second turn done" })]);
    const place = workspace();
    const first = await runOn(target, fake, place, ["-p", "read a.txt and b.txt"]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), "loop done");
    const again = await runOn(target, fake, place, ["-c", "-p", "and once more"]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.trim(), "second turn done");
    assert.equal(fake.requests.length, 4, `${key}: one request per model call`);
  });

  // The "Done when" (41): images in a tool loop, and a max-turns stop continued, on every
  // target. A picture read comes back to a text-only model as a line, to others as the API takes
  // it (Mistral: after the assistant message that bridges tools and user); `--max-turns 1` leaves
  // the conversation ending in tool results, which the next `-c` follows with a user message.
  test(`${target.label}: a picture read in a tool loop, a max-turns stop, then -c: every request accepted`, async () => {
    const readPicture = { id: target.id(1), name: "read_file", arguments: { path: "dot.png" } };
    const readText = { id: target.id(2), name: "read_file", arguments: { path: "a.txt" } };
    const fake = await serve([
      replyOf(target, { toolCalls: [readPicture] }),
      replyOf(target, { toolCalls: [readText] }),
      replyOf(target, { text: "went on after the stop" }),
    ]);
    const place = workspace();
    writeFileSync(join(place.cwd, "dot.png"), pngOf(4, 4));
    const stopped = await runOn(target, fake, place, ["--max-turns", "2", "-p", "look at dot.png, then a.txt"]);
    assert.notEqual(stopped.code, 0, `${key}: the run stops at its turn limit`);
    assert.match(stopped.stderr, /turn/i, `${key}: says why it stopped`);
    const again = await runOn(target, fake, place, ["-c", "-p", "go on"]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.trim(), "went on after the stop");
    assert.equal(fake.requests.length, 3, `${key}: one request per model call`);
    const last = JSON.stringify(fake.requests[2].body);
    assert.ok(last.includes("go on"), `${key}: the new prompt follows the stopped loop`);
  });
}

/** A request each service refuses, and the words of its refusal. */
const REFUSED: Array<{ persona: PersonaName; path: string; body: unknown; status: number; says: RegExp }> = [
  {
    persona: "openai",
    path: "/v1/chat/completions",
    body: {
      model: "gpt-5-mini",
      messages: [],
      tools: Array.from({ length: 129 }, (_, i) => ({ type: "function", function: { name: `t${i}` } })),
    },
    status: 400,
    says: /array too long\. Expected an array with maximum length 128/,
  },
  {
    persona: "anthropic",
    path: "/v1/messages",
    body: {
      model: "claude-sonnet-4-5",
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "functions.bash:0", name: "bash", input: {} }] },
      ],
    },
    status: 400,
    says: /tool_use\.id: String should match pattern '\^\[a-zA-Z0-9_-\]\+\$'/,
  },
  {
    persona: "anthropic",
    path: "/v1/messages",
    body: {
      model: "claude-opus-4-1",
      messages: [
        { role: "assistant", content: [{ type: "thinking", thinking: "x", signature: "sig-from-another-model" }] },
      ],
    },
    status: 400,
    says: /Invalid `signature` in `thinking` block/,
  },
  {
    persona: "openai",
    path: "/v1/responses",
    body: {
      model: "gpt-5",
      input: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAfromgpt5miniQQ==" }],
    },
    status: 400,
    says: /The encrypted content gAAA\.\.\.QQ== could not be verified\./,
  },
  {
    persona: "deepseek",
    path: "/v1/chat/completions",
    body: {
      model: "deepseek-reasoner",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
      ],
    },
    status: 400,
    says: /Missing `reasoning_content` field in the assistant message at message index 1/,
  },
  {
    persona: "kimi",
    path: "/v1/chat/completions",
    body: {
      model: "kimi-k2-thinking",
      messages: [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
      ],
    },
    status: 400,
    says: /thinking is enabled but reasoning_content is missing in assistant tool call message at index 0/,
  },
  {
    persona: "mistral",
    path: "/v1/chat/completions",
    body: { model: "mistral-small-latest", messages: [{ role: "tool", tool_call_id: "call_0fypS1hVX", content: "x" }] },
    status: 400,
    says: /Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9\./,
  },
  {
    persona: "mistral",
    path: "/v1/chat/completions",
    body: { model: "mistral-small-latest", messages: [{ role: "assistant", content: "x", reasoning_details: [] }] },
    status: 422,
    says: /Extra inputs are not permitted/,
  },
  {
    persona: "groq",
    path: "/v1/chat/completions",
    body: {
      model: "openai/gpt-oss-120b",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "x", reasoning_content: "r" },
      ],
    },
    status: 400,
    says: /property 'reasoning_content' is unsupported/,
  },
  {
    persona: "gemini-openai",
    path: "/v1/chat/completions",
    body: {
      model: "gemini-3-pro-preview",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", tool_calls: [{ id: "", type: "function", function: { name: "bash", arguments: "{}" } }] },
      ],
    },
    status: 400,
    says: /Function call is missing a thought_signature in functionCall parts/,
  },
  {
    persona: "openrouter",
    path: "/v1/chat/completions",
    body: {
      model: "google/gemini-3-pro-preview",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", tool_calls: [{ id: "t", type: "function", function: { name: "bash", arguments: "{}" } }] },
      ],
    },
    status: 400,
    says: /missing a thought_signature/,
  },
  {
    persona: "gemini",
    path: "/v1beta/models/gemini-3-pro-preview:streamGenerateContent",
    body: {
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      tools: [{ functionDeclarations: [{ name: "todo", parameters: { type: "object", properties: {} } }] }],
    },
    status: 400,
    says: /parameters\.properties: should be non-empty for OBJECT type/,
  },
  {
    persona: "gemini",
    path: "/v1beta/models/gemini-3-pro-preview:streamGenerateContent",
    body: {
      contents: [
        { role: "user", parts: [{ text: "hi" }] },
        { role: "model", parts: [{ functionCall: { name: "bash", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "bash", response: {} } }] },
      ],
    },
    status: 400,
    says: /missing a thought_signature/,
  },
];

test("each persona refuses what its service refuses, with the service's error body", async () => {
  for (const refused of REFUSED) {
    const fake = await serve([]);
    fake.persona = PERSONAS[refused.persona]();
    const response = await fetch(`${fake.url}${refused.path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stream: true, ...(refused.body as object) }),
    });
    assert.equal(response.status, refused.status, `${refused.persona}: ${refused.says}`);
    assert.match(await response.text(), refused.says);
    assert.equal(fake.errors.filter((error) => error.includes("refuses it")).length, 1, refused.persona);
    fake.errors.length = 0; // these bodies break the formats' own checks too, on purpose; every other test asserts none
  }
});

/** Recorded replies (test/support/fixtures/wire, origins in its MANIFEST.md) whose reasoning the service wants back. */
const RECORDED: Array<{ target: string; file: string; reasoning: RegExp }> = [
  // vercel/ai packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.chunks.txt (api.deepseek.com, deepseek-reasoner)
  {
    target: "deepseek",
    file: "openai-chat--deepseek--reasoning-content-tool-call.sse",
    reasoning: /^The user is asking for the weather in San Francisco/,
  },
  // charmbracelet/fantasy TestOpenAICompatibleThinking/avian-kimi (moonshotai/kimi-k2.5)
  {
    target: "kimi",
    file: "openai-chat--avian--kimi-reasoning-content-and-details.sse",
    reasoning: /^I need to get the weather information for Florence/,
  },
];

for (const { target: key, file, reasoning } of RECORDED) {
  test(`a recorded ${key} tool call goes back with the recorded reasoning as reasoning_content`, async () => {
    const raw = readFileSync(join(ROOT, "test", "support", "fixtures", "wire", file), "utf8");
    const fake = await serve([{ raw }, { reply: { text: "done" } }]);
    const result = await runOn(TARGETS[key], fake, workspace(), ["-p", "what is the weather"]);
    assert.equal(result.code, 0, result.stderr);
    const assistant = fake.requests[1].body.messages.find((message: any) => message.role === "assistant");
    assert.match(assistant.reasoning_content, reasoning);
    assert.equal(assistant.tool_calls.length, 1);
  });
}
