// The loop's side of "typing while the agent works": queued lines join the conversation only
// between a batch of tool results and the next model call.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runAgent } from "../../src/core/agent.ts";
import type { Message } from "../../src/core/messages.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { startFakeLLM } from "../support/fake-llm/server.ts";
import { drain, fakeOpenAIProvider, tempDir } from "../support/helpers.ts";

test("a queued message is sent after the tool results, and the queue is asked only at step boundaries", async () => {
  const server = await startFakeLLM([
    {
      reply: {
        toolCalls: [
          { name: "bash", arguments: { command: "echo one" } },
          { name: "bash", arguments: { command: "echo two" } },
        ],
      },
    },
    { reply: { text: "done, and noted" } },
  ]);
  const queue = [["also run the linter"], []];
  let asked = 0;
  const messages: Message[] = [];
  try {
    const { result, events } = await drain(
      runAgent({
        provider: fakeOpenAIProvider(server),
        tools: [bash],
        system: "test",
        cwd: tempDir(),
        messages,
        prompt: "start",
        takeQueuedMessages: () => {
          asked++;
          return queue.shift() ?? [];
        },
      }),
    );
    assert.equal(result.reason, "stop");
    assert.equal(asked, 1, "asked once: after the one tool batch, not before the first call nor after the answer");
    const sent = server.requests[1].body.messages
      .slice(-3)
      .map((message: any) => [message.role, message.content.split("\n")[0]]);
    assert.deepEqual(sent, [
      ["tool", "one"],
      ["tool", "two"],
      ["user", "also run the linter"],
    ]);
    assert.deepEqual(messages[4], { role: "user", content: [{ type: "text", text: "also run the linter" }] });
    assert.ok(
      events.some((event) => event.type === "message" && event.message === messages[4]),
      "the queued message is an event too (the session writer saves it)",
    );
    assert.deepEqual(server.errors, []);
  } finally {
    await server.close();
  }
});
