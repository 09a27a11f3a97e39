// `--provider local` through the real code path: node-llama-cpp loads tiny GGUF models made here
// (test/support/gguf), whose weights are set so that they say a known script after any prompt.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { runAgent } from "../../src/core/agent.ts";
import type { AgentEvent, RunResult } from "../../src/core/events.ts";
import { type AssistantMessage, type Message, userMessage } from "../../src/core/messages.ts";
import { type ModelEvent, type ModelRequest, ProviderError } from "../../src/core/provider.ts";
import { toToolSpec } from "../../src/core/tool.ts";
import { createLocalProvider, type LocalProvider } from "../../src/providers/local/local-llama.ts";
import { readFile } from "../../src/tools/read-file.ts";
import { TINY_CONTEXT_LENGTH, type TinyModelScript, tinyModelGguf } from "../support/gguf/tiny-model.ts";
import { tempDir } from "../support/helpers.ts";

const models = tempDir("harness-local-");
const providers: LocalProvider[] = [];
after(async () => {
  for (const provider of providers) await provider.dispose();
});

/** The tool call node-llama-cpp derives from the model's template, spelled out as the script's pieces. */
const READ_NOTES: TinyModelScript = {
  reply: ["Let me look.", '<tool_call>\n{"name": "', "read_file"],
  // node-llama-cpp writes `", "arguments": ` itself, then the model the arguments (every property:
  // the grammar wants the optional ones as null); it closes the call with `}\n</tool_call>`, after
  // which the model ends its turn.
  continuations: [
    { after: " ", reply: ['{"path": "notes.txt", "offset": null, "limit": null}'] },
    { after: ">", reply: [] },
  ],
};

function modelFile(name: string, script: TinyModelScript): string {
  const path = join(models, `${name}.gguf`);
  writeFileSync(path, tinyModelGguf(script));
  return path;
}

function provider(model: string): LocalProvider {
  const created = createLocalProvider({
    name: "local",
    api: "local",
    model,
    baseUrl: "",
    modelsDir: join(models, "downloads"),
  });
  providers.push(created);
  return created;
}

const ask = (text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  system: "You are a test.",
  messages: [userMessage(text)],
  tools: [],
  ...extra,
});

async function collect(
  stream: AsyncIterable<ModelEvent>,
): Promise<{ events: ModelEvent[]; message: AssistantMessage }> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  const done = events.at(-1);
  assert.equal(done?.type, "done");
  return { events, message: (done as Extract<ModelEvent, { type: "done" }>).message };
}

const hello = provider(modelFile("hello", { reply: ["Hello", " from", " a", " tiny", " model."] }));

test("a local model streams its reply as text deltas and ends with one complete message with usage", async () => {
  const { events, message } = await collect(hello.stream(ask("Say hello."), new AbortController().signal));
  assert.deepEqual(
    events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text),
    ["Hello", " from", " a", " tiny", " model."],
  );
  assert.deepEqual(message.content, [{ type: "text", text: "Hello from a tiny model." }]);
  assert.equal(message.stopReason, "stop");
  assert.equal(message.api, "local");
  assert.ok(message.usage && message.usage.input > 10, `the prompt was counted: ${JSON.stringify(message.usage)}`);
  assert.equal(message.usage?.output, 6, "five pieces and the end-of-turn token");
});

test("the context window comes from the model's metadata", async () => {
  assert.equal(await hello.contextWindow(), TINY_CONTEXT_LENGTH);
});

test("a second call with a longer conversation reuses the evaluated prompt and counts it as cached", async () => {
  const first = await collect(hello.stream(ask("Say hello."), new AbortController().signal));
  const messages: Message[] = [userMessage("Say hello."), first.message, userMessage("Again.")];
  const second = await collect(
    hello.stream({ system: "You are a test.", messages, tools: [] }, new AbortController().signal),
  );
  assert.equal(
    second.message.content[0]?.type === "text" && second.message.content[0].text,
    "Hello from a tiny model.",
  );
  const usage = second.message.usage!;
  assert.ok(usage.cacheRead > usage.input, `most of the prompt came from the cache: ${JSON.stringify(usage)}`);
});

test("the output cap stops a reply with stop reason length", async () => {
  const { message } = await collect(hello.stream(ask("Say hello.", { maxTokens: 2 }), new AbortController().signal));
  assert.deepEqual(message.content, [{ type: "text", text: "Hello from" }]);
  assert.equal(message.stopReason, "length");
});

const readsNotes = provider(modelFile("reads-notes", READ_NOTES));

test("a tool call written through the chat template becomes a tool_call part with an id and JSON arguments", async () => {
  const { events, message } = await collect(
    readsNotes.stream(ask("Read notes.txt.", { tools: [toToolSpec(readFile)] }), new AbortController().signal),
  );
  assert.deepEqual(
    events.filter((e) => e.type === "tool_call_delta"),
    [{ type: "tool_call_delta", index: 0, name: "read_file" }],
  );
  assert.equal(message.stopReason, "tool_use");
  const [text, call] = message.content;
  assert.deepEqual(text, { type: "text", text: "Let me look." });
  assert.ok(call?.type === "tool_call");
  assert.match(call.id, /^call_[0-9a-f]{24}$/);
  assert.deepEqual(
    { name: call.name, arguments: JSON.parse(call.arguments) },
    { name: "read_file", arguments: { path: "notes.txt" } },
  );
});

test("the loop runs the local model's tool calls itself and sends the results back", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "buy milk\n");
  const messages: Message[] = [];
  const events: AgentEvent[] = [];
  const run = runAgent({
    provider: readsNotes,
    tools: [readFile],
    system: "You are a test.",
    cwd,
    messages,
    prompt: "Read notes.txt.",
    maxTurns: 2,
  });
  let result: RunResult;
  for (let next = await run.next(); ; next = await run.next()) {
    if (next.done) {
      result = next.value;
      break;
    }
    events.push(next.value);
  }
  // This model asks for the file on every turn, so the turn limit ends the run.
  assert.equal(result.reason, "max_turns");
  const ends = events.filter((e): e is Extract<AgentEvent, { type: "tool_end" }> => e.type === "tool_end");
  assert.equal(ends.length, 2);
  assert.match(ends[0].content, /buy milk/);
  assert.equal(ends[0].isError, false);
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "tool", "assistant", "tool"],
  );
  // The second reply continues after the tool result: only its own text, not the first reply's again.
  const second = messages[3] as AssistantMessage;
  assert.deepEqual(second.content[0], { type: "text", text: "Let me look." });
  assert.equal(second.content[1]?.type, "tool_call");
  assert.ok(result.usage.output > 0 && result.usage.input > 0);
});

test("an abort stops a generation that would never end, as an aborted ProviderError", async () => {
  const ticking = provider(modelFile("ticking", { reply: ["tick", " tock "], repeat: true }));
  const controller = new AbortController();
  const texts: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const event of ticking.stream(ask("Count.", { maxTokens: 100_000 }), controller.signal)) {
        if (event.type === "text_delta") texts.push(event.text);
        if (texts.length === 6) controller.abort();
      }
    })(),
    (error: unknown) => error instanceof ProviderError && error.kind === "aborted",
  );
  assert.deepEqual(texts.slice(0, 6), ["tick", " tock ", "tick", " tock ", "tick", " tock "]);

  // The loop turns it into an aborted run that keeps the text so far.
  const loopController = new AbortController();
  let streamed = 0;
  const run = runAgent({
    provider: ticking,
    tools: [],
    system: "",
    cwd: tempDir(),
    messages: [],
    prompt: "Count.",
    signal: loopController.signal,
    maxTokens: 100_000,
  });
  let result: RunResult | undefined;
  for (let next = await run.next(); !result; next = await run.next()) {
    if (next.done) result = next.value;
    else if (next.value.type === "text_delta" && ++streamed === 4) loopController.abort();
  }
  assert.equal(result.reason, "aborted");
  assert.match(result.answer, /^(tick tock )+/);

  // The provider still works after an interrupted generation.
  const { message } = await collect(ticking.stream(ask("Count.", { maxTokens: 3 }), new AbortController().signal));
  assert.deepEqual(message.content, [{ type: "text", text: "tick tock tick" }]);
});

async function loadError(model: string): Promise<ProviderError> {
  const error = await collect(provider(model).stream(ask("hi"), new AbortController().signal)).then(
    () => assert.fail("the load should fail"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ProviderError, String(error));
  assert.equal(error.retryable, false);
  return error;
}

test("a missing model file is reported with what --model takes", async () => {
  const error = await loadError(join(models, "absent.gguf"));
  assert.equal(error.kind, "not_found");
  assert.equal(
    error.message,
    `no model file at ${join(models, "absent.gguf")}: give --model a path to a .gguf file, or a reference such as hf:<user>/<repo>/<file>.gguf to download one`,
  );
});

test("a file that is not a GGUF model is named as such", async () => {
  const path = join(models, "notes.gguf");
  writeFileSync(path, "these are not weights\n");
  const error = await loadError(path);
  assert.equal(
    error.message,
    `${path} is not a GGUF model file (it does not start with "GGUF"): give --model a .gguf file`,
  );
});

test("a truncated model file fails to load with a message that says so", async () => {
  const whole = tinyModelGguf({ reply: ["Hi"] });
  const path = join(models, "truncated.gguf");
  writeFileSync(path, whole.subarray(0, Math.floor(whole.length * 0.6)));
  const error = await loadError(path);
  assert.equal(error.kind, "bad_request");
  // llama.cpp's reason ("... data is not within the file bounds ...") when its log line arrives in time.
  assert.ok(error.message.startsWith(`could not load the model ${path} (`), error.message);
  assert.ok(error.message.endsWith("); the file may be truncated or damaged: get a fresh copy"), error.message);
});
