// Attaching images through the built CLI: --image (repeatable) and `@shot.png` in -p put the
// pictures in the user message after its text; a file that is no image, or too large, stops the
// run with one line before anything is sent. Image blocks in --input stream-json lines likewise.
import assert from "node:assert/strict";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { jpegOf, pngOf, pngSize, TINY_GIF } from "../support/images.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const env = () => cleanEnv({ OPENAI_API_KEY: "k" });

function dataUrl(type: string, bytes: Buffer) {
  return { type: "image_url", image_url: { url: `data:${type};base64,${bytes.toString("base64")}` } };
}

test("--image, given twice, attaches both pictures after the prompt, each named", async () => {
  const cwd = tempDir();
  const png = pngOf(6, 4);
  const jpeg = jpegOf(8, 8);
  writeFileSync(join(cwd, "a.png"), png);
  writeFileSync(join(cwd, "b.jpeg"), jpeg);
  const server = await serve([{ reply: { text: "two pictures" } }]);
  const result = await runCli([...fakeFlags(server), "--image", "a.png", "--image", "b.jpeg", "-p", "compare them"], {
    cwd,
    env: env(),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(server.requests[0].body.messages.at(-1), {
    role: "user",
    content: [
      { type: "text", text: "compare them" },
      { type: "text", text: `[image ${join(cwd, "a.png")}: 6x4 PNG]` },
      dataUrl("image/png", png),
      { type: "text", text: `[image ${join(cwd, "b.jpeg")}: 8x8 JPEG]` },
      dataUrl("image/jpeg", jpeg),
    ],
  });
});

test("@shot.png in -p attaches the picture; the mention stays in the text", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "shot.gif"), TINY_GIF);
  const server = await serve([{ reply: { text: "a pixel" } }]);
  const result = await runCli([...fakeFlags(server), "-p", "what is @shot.gif?"], { cwd, env: env() });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(server.requests[0].body.messages.at(-1).content, [
    { type: "text", text: "what is @shot.gif?" },
    { type: "text", text: "[image shot.gif: 1x1 GIF]" },
    dataUrl("image/gif", TINY_GIF),
  ]);
});

test("an --image that is no picture, is missing, or is too large ends the run with one line and exit 2, before any request", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.png"), "just text\n");
  // A sparse file past the 20 MB limit: large on paper, nothing to write.
  const fd = openSync(join(cwd, "big.png"), "w");
  writeSync(fd, pngOf(1, 1));
  closeSync(fd);
  const big = openSync(join(cwd, "big.png"), "r+");
  writeSync(big, Buffer.from([0]), 0, 1, 21_000_000);
  closeSync(big);
  const server = await serve([]);
  const cases: Array<[string, RegExp]> = [
    ["notes.png", /^harness: \/.*\/notes\.png is not a PNG, JPEG, GIF or WebP image\n$/],
    ["gone.png", /^harness: \/.*\/gone\.png: no such file\n$/],
    [
      "big.png",
      /^harness: \/.*\/big\.png is an image of 21\.0 MB; images up to 20\.0 MB are taken \(crop or scale it first\)\n$/,
    ],
  ];
  for (const [file, message] of cases) {
    const result = await runCli([...fakeFlags(server), "--image", file, "-p", "look"], { cwd, env: env() });
    assert.equal(result.code, 2, file);
    assert.match(withoutSandboxWarning(result.stderr), message);
  }
  assert.equal(server.requests.length, 0);
});

test("--image without a prompt for one run is a usage error", async () => {
  const result = await runCli(["--image", "a.png", "--input", "stream-json", "--output", "stream-json"], {
    env: env(),
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--image goes with one prompt \(-p or prompt words\), not with --input stream-json/);
});

/** A stream-json input line in Claude Code's shape: text, then pictures as Anthropic image blocks. */
function userLine(text: string, ...images: Array<{ type: string; bytes: Buffer }>): string {
  const blocks = images.map(({ type, bytes }) => ({
    type: "image",
    source: { type: "base64", media_type: type, data: bytes.toString("base64") },
  }));
  return JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }, ...blocks] } });
}

test("--input stream-json: image blocks in a user line reach the model, a mislabelled one with its real type, a big one downscaled", async () => {
  const png = pngOf(3, 3);
  const jpeg = jpegOf(4, 4);
  const server = await serve([{ reply: { text: "seen" } }]);
  const input = `${userLine("what are these?", { type: "image/png", bytes: png }, { type: "image/png", bytes: jpeg }, { type: "image/png", bytes: pngOf(2400, 12) })}\n`;
  const result = await runCli([...fakeFlags(server), "--input", "stream-json", "--output", "stream-json"], {
    input,
    env: env(),
  });
  assert.equal(result.code, 0, result.stderr);
  const [text, first, second, big] = server.requests[0].body.messages.at(-1).content;
  assert.deepEqual(
    [text, first, second],
    [{ type: "text", text: "what are these?" }, dataUrl("image/png", png), dataUrl("image/jpeg", jpeg)],
  );
  const bigBytes = Buffer.from(big.image_url.url.replace(/^data:image\/png;base64,/, ""), "base64");
  assert.deepEqual(pngSize(bigBytes), { width: 2000, height: 10 });
});

test("--input stream-json: a line whose image is no picture, or not base64, stops with one line and exit 2 after the lines before it", async () => {
  const server = await serve([{ reply: { text: "first" } }]);
  const input = [
    userLine("one", { type: "image/png", bytes: pngOf(2, 2) }),
    userLine("two", { type: "image/png", bytes: Buffer.from("not a picture at all") }),
  ].join("\n");
  const result = await runCli([...fakeFlags(server), "--input", "stream-json", "--output", "stream-json"], {
    input: `${input}\n`,
    env: env(),
  });
  assert.equal(result.code, 2);
  assert.equal(
    withoutSandboxWarning(result.stderr),
    "harness: stdin line 2: image 1 is not a PNG, JPEG, GIF or WebP image\n",
  );
  assert.equal(server.requests.length, 1);
  const url = JSON.stringify({
    type: "user",
    message: { role: "user", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] },
  });
  const byUrl = await runCli([...fakeFlags(server), "--input", "stream-json", "--output", "stream-json"], {
    input: `${url}\n`,
    env: env(),
  });
  assert.equal(byUrl.code, 2);
  assert.match(byUrl.stderr, /stdin line 1 has an image that is not base64 data/);
  assert.equal(server.requests.length, 1, "nothing more was sent");
});

test("chat: a pasted path to an image attaches it; one that is no image is refused on screen and nothing is sent", {
  skip: needs("tmux"),
}, async () => {
  const folder = join(tempDir(), "my shots");
  mkdirSync(folder);
  const png = pngOf(2, 2);
  writeFileSync(join(folder, "shot.png"), png);
  writeFileSync(join(folder, "fake.png"), "not a picture\n");
  const server = await serve([{ reply: { text: "a tiny square" } }]);
  const term = TmuxTerminal.start({
    args: fakeFlags(server),
    cwd: tempDir(),
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-"), OPENAI_API_KEY: "k" },
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.paste(`'${join(folder, "fake.png")}'`);
  term.send(["Enter"]);
  await term.waitFor(/^error: .*fake\.png is not a PNG, JPEG, GIF or WebP image; nothing was sent/m);
  term.type("what is this? ");
  term.paste(join(folder, "shot.png").replace(/ /g, "\\ "));
  term.send(["Enter"]);
  await term.waitFor(/a tiny square/);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(server.requests[0].body.messages.at(-1).content.slice(1), [
    { type: "text", text: `[image ${join(folder, "shot.png")}: 2x2 PNG]` },
    dataUrl("image/png", png),
  ]);
});

test("a model that takes no images: the server's refusal becomes one line saying so, and it is not retried", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "shot.png"), pngOf(2, 2));
  // What OpenAI answers when a text-only model gets an image_url part.
  const refusal = {
    error: {
      message: "Invalid content type. image_url is only supported by certain models.",
      type: "invalid_request_error",
      param: "messages.[0].content.[1].type",
      code: null,
    },
  };
  const server = await serve([{ status: 400, body: refusal }]);
  const result = await runCli([...fakeFlags(server), "--output", "json", "-p", "what is @shot.png?"], {
    cwd,
    env: env(),
  });
  assert.equal(result.code, 1);
  assert.equal(server.requests.length, 1, "not retried");
  assert.deepEqual(withoutSandboxWarning(result.stderr).trim().split("\n"), [
    `error: 400 fake-model at openai (${server.baseUrl}) cannot take images: Invalid content type. image_url is only supported by certain models. (use a model with vision, or leave the image out: /clear in chat)`,
  ]);
});
