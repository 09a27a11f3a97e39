// read_file on a picture, through the built CLI: the image reaches the model on each wire API
// (checked in the request body; on the Responses API inside the function_call_output), big ones
// are downscaled, ones too large to decode are refused.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { jpegOf, pngHeaderClaiming, pngOf, pngSize, TINY_GIF } from "../support/images.ts";

const serve = fakeServerPerTest();

function readCall(path: string) {
  return { reply: { toolCalls: [{ id: "call_1", name: "read_file", arguments: { path } }] } };
}

function anthropicFlags(server: FakeLLM): string[] {
  return ["--provider", "anthropic", "--base-url", server.url, "--model", "claude-sonnet-4-5"];
}

test("read_file on a PNG: chat completions get the text in the tool message and the image in a user message naming the call", async () => {
  const cwd = tempDir();
  const png = pngOf(3, 2);
  writeFileSync(join(cwd, "shot.png"), png);
  const server = await serve([readCall("shot.png"), { reply: { text: "a gradient" } }]);
  const result = await runCli([...fakeFlags(server), "-y", "-p", "what is in shot.png?"], {
    cwd,
    env: cleanEnv({ OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), "a gradient");
  const messages = server.requests[1].body.messages;
  assert.deepEqual(messages.slice(-2), [
    { role: "tool", tool_call_id: "call_1", content: "[image shot.png: 3x2 PNG]" },
    {
      role: "user",
      content: [
        { type: "text", text: "The image from the read_file call call_1:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } },
      ],
    },
  ]);
});

test("two images read in one reply follow both tool messages, in one user message", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "a.gif"), TINY_GIF);
  const jpeg = jpegOf(4, 4);
  writeFileSync(join(cwd, "b.jpg"), jpeg);
  const server = await serve([
    {
      reply: {
        toolCalls: [
          { id: "call_a", name: "read_file", arguments: { path: "a.gif" } },
          { id: "call_b", name: "read_file", arguments: { path: "b.jpg" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli([...fakeFlags(server), "-y", "-p", "look"], {
    cwd,
    env: cleanEnv({ OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const messages = server.requests[1].body.messages;
  assert.deepEqual(
    messages.slice(-3).map((message: { role: string }) => message.role),
    ["tool", "tool", "user"],
  );
  assert.deepEqual(messages.at(-1).content, [
    { type: "text", text: "The image from the read_file call call_a:" },
    { type: "image_url", image_url: { url: `data:image/gif;base64,${TINY_GIF.toString("base64")}` } },
    { type: "text", text: "The image from the read_file call call_b:" },
    { type: "image_url", image_url: { url: `data:image/jpeg;base64,${jpeg.toString("base64")}` } },
  ]);
  assert.equal(messages.at(-2).content, "[image b.jpg: 4x4 JPEG]");
});

test("read_file on an image with Anthropic: an image block inside the tool_result", async () => {
  const cwd = tempDir();
  const png = pngOf(5, 5);
  writeFileSync(join(cwd, "shot.png"), png);
  const server = await serve([readCall("shot.png"), { reply: { text: "seen" } }]);
  const result = await runCli([...anthropicFlags(server), "-y", "-p", "look"], {
    cwd,
    env: cleanEnv({ ANTHROPIC_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const last = server.requests[1].body.messages.at(-1);
  assert.deepEqual(last, {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "call_1",
        cache_control: { type: "ephemeral" },
        content: [
          { type: "text", text: "[image shot.png: 5x5 PNG]" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } },
        ],
      },
    ],
  });
});

test("read_file on an image with the Responses API: the function_call_output is a list of input_text and input_image", async () => {
  const cwd = tempDir();
  const png = pngOf(4, 3);
  writeFileSync(join(cwd, "shot.png"), png);
  const server = await serve([readCall("shot.png"), { reply: { text: "seen" } }]);
  const result = await runCli([...fakeFlags(server), "--api", "responses", "-y", "-p", "look"], {
    cwd,
    env: cleanEnv({ OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(server.requests[1].path, "/v1/responses");
  assert.deepEqual(server.requests[1].body.input.at(-1), {
    type: "function_call_output",
    call_id: "call_1",
    output: [
      { type: "input_text", text: "[image shot.png: 4x3 PNG]" },
      { type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}` },
    ],
  });
});

test("a text-only tool result on the Responses API stays a plain string output", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "note.txt"), "hello\n");
  const server = await serve([readCall("note.txt"), { reply: { text: "ok" } }]);
  const result = await runCli([...fakeFlags(server), "--api", "responses", "-y", "-p", "look"], {
    cwd,
    env: cleanEnv({ OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const output = server.requests[1].body.input.at(-1).output;
  assert.equal(typeof output, "string");
  assert.match(output, /hello/);
});

test("an image wider than 2000 pixels is downscaled before it is sent, and the result says from what", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "wide.png"), pngOf(2400, 12));
  const server = await serve([readCall("wide.png"), { reply: { text: "ok" } }]);
  const result = await runCli([...anthropicFlags(server), "-y", "-p", "look"], {
    cwd,
    env: cleanEnv({ ANTHROPIC_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const [text, image] = server.requests[1].body.messages.at(-1).content[0].content;
  assert.equal(text.text, "[image wide.png: 2000x10 PNG (downscaled from 2400x12)]");
  assert.deepEqual(pngSize(Buffer.from(image.source.data, "base64")), { width: 2000, height: 10 });
});

test("an image too large to decode is refused with one line to the model, and the run goes on", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "huge.png"), pngHeaderClaiming(10_000, 10_000));
  const server = await serve([readCall("huge.png"), { reply: { text: "too big" } }]);
  const result = await runCli([...fakeFlags(server), "-y", "-p", "look"], {
    cwd,
    env: cleanEnv({ OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const messages = server.requests[1].body.messages;
  assert.deepEqual(messages.at(-1), {
    role: "tool",
    tool_call_id: "call_1",
    content:
      "Error: huge.png is 10000x10000 pixels; images up to 40 million pixels are taken (crop or scale it first).",
  });
});
