// MCP through the built CLI against real servers from npm (dev dependencies, started with node
// from node_modules: nothing is downloaded): their tools reach the model as server__tool with
// their schemas, results (text, errors, images as pictures, links, large output) come back, and a server
// that cannot start is reported once without stopping the run.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, runCli, tempDir } from "../support/helpers.ts";
import { pngOf } from "../support/images.ts";
import { outsidePortableSubset } from "../support/portable-subset.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const FILESYSTEM = join(ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
const PICTURES = join(ROOT, "test", "support", "fixtures", "mcp", "pictures-server.mjs");

const serve = fakeServerPerTest();

/** A HARNESS_HOME whose config.json declares the two servers; the project adds a broken one. */
function setup() {
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
        files: { command: process.execPath, args: [FILESYSTEM, cwd] },
        off: { command: "/nonexistent/never-started", disabled: true },
      },
    }),
  );
  writeFileSync(
    join(cwd, ".mcp.json"),
    JSON.stringify({ mcpServers: { broken: { command: "/nonexistent/mcp-server", args: ["--x"] } } }),
  );
  writeFileSync(join(cwd, "notes.txt"), "the notes say hello\n");
  // The first request must list the servers' tools: a loaded machine may start them past a
  // one-shot's 5 s wait (docs/mcp-acp.md), so these tests wait for them (a liveness bound).
  return { cwd, env: cleanEnv({ HARNESS_HOME: home, HARNESS_MCP_STARTUP_WAIT_MS: "60000" }) };
}

const toolResult = (request: RecordedRequest, id: string) =>
  request.body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === id)?.content as string;

test("MCP tools are offered as server__tool with their schemas and their results reach the model", async () => {
  const { cwd, env } = setup();
  const big = "x".repeat(100_000);
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "echo", name: "everything__echo", arguments: { message: "hi there" } },
          { id: "sum", name: "everything__get-sum", arguments: { a: 2, b: 3 } },
          { id: "bad", name: "everything__get-sum", arguments: { a: "two" } },
          { id: "big", name: "everything__echo", arguments: { message: big } },
          { id: "image", name: "everything__get-tiny-image", arguments: {} },
          { id: "links", name: "everything__get-resource-links", arguments: { count: 2 } },
          { id: "file", name: "files__read_text_file", arguments: { path: join(cwd, "notes.txt") } },
        ],
      },
    },
    { reply: { text: "all done" } },
  ]);
  const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "use the MCP tools"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "all done\n");

  const tools = fake.requests[0].body.tools.map(
    (tool: { function: { name: string; parameters: any } }) => tool.function,
  );
  const names = tools.map((tool: { name: string }) => tool.name);
  for (const name of [
    "bash",
    "everything__echo",
    "everything__get-sum",
    "files__read_text_file",
    "files__list_allowed_directories",
  ])
    assert.ok(names.includes(name), `${name} is offered`);
  assert.ok(!names.some((name: string) => name.startsWith("broken__") || name.startsWith("off__")));
  const sum = tools.find((tool: { name: string }) => tool.name === "everything__get-sum");
  assert.equal(sum.parameters.type, "object");
  assert.deepEqual(Object.keys(sum.parameters.properties).sort(), ["a", "b"]);
  assert.equal(sum.parameters.properties.a.type, "number");

  const answers = fake.requests[1];
  assert.equal(toolResult(answers, "echo"), "Echo: hi there");
  assert.equal(toolResult(answers, "sum"), "The sum of 2 and 3 is 5.");
  assert.match(toolResult(answers, "bad"), /a[\s\S]*(number|expected)/i);
  const bigResult = toolResult(answers, "big");
  assert.ok(Buffer.byteLength(bigResult) < 32 * 1024, "a large result is cut");
  assert.match(bigResult, /^Echo: x+\n\[\.\.\. \d+ bytes cut from the middle of this output \.\.\.\]\nx+$/);
  // The picture goes to the model: named in the tool message, sent after the tool messages (chat
  // completions carry images only in user messages).
  assert.equal(
    toolResult(answers, "image"),
    "Here's the image you requested:\n[image: 20x20 PNG]\nThe image above is the MCP logo.",
  );
  const [intro, picture] = answers.body.messages.at(-1).content;
  assert.deepEqual(intro, { type: "text", text: "The image from the everything__get-tiny-image call image:" });
  assert.equal(picture.type, "image_url");
  assert.match(picture.image_url.url, /^data:image\/png;base64,iVBORw0KGgo/);
  assert.match(toolResult(answers, "links"), /\[resource link: .+ <.+>/);
  assert.match(toolResult(answers, "file"), /the notes say hello/);

  assert.equal(result.stderr.match(/MCP server "broken" is not available/g)?.length, 1, result.stderr);
  assert.match(result.stderr, /check that `\/nonexistent\/mcp-server --x` runs/);
});

test("an MCP picture that is no image is noted in words, and pictures past the bound per result are not sent", async () => {
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  const png = pngOf(2, 2).toString("base64");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ mcpServers: { pictures: { command: process.execPath, args: [PICTURES, png] } } }),
  );
  const fake = await serve([
    { reply: { toolCalls: [{ id: "many", name: "pictures__pictures", arguments: { count: 9 } }] } },
    { reply: { text: "seen" } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "show me"], {
    cwd,
    env: cleanEnv({ HARNESS_HOME: home, HARNESS_MCP_STARTUP_WAIT_MS: "60000" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const messages = fake.requests[1].body.messages;
  assert.equal(
    toolResult(fake.requests[1], "many"),
    [
      "[image: image/png, 13 bytes, not sent: the image is not a PNG, JPEG, GIF or WebP image]",
      ...Array(8).fill("[image: 2x2 PNG]"),
      `[image: image/png, ${Buffer.from(png, "base64").length} bytes, not sent: 8 images per result are sent]`,
    ].join("\n"),
  );
  const sent = messages.at(-1).content.filter((part: { type: string }) => part.type === "image_url");
  assert.equal(sent.length, 8);
  assert.equal(sent[0].image_url.url, `data:image/png;base64,${png}`);
});

test("every tool on the wire, built-in and MCP, is inside the portable subset, on both wire APIs", async () => {
  const { cwd, env } = setup();
  const fake = await serve([{ reply: { text: "ok" } }, { reply: { text: "ok" } }]);
  const chat = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd, env });
  assert.equal(chat.code, 0, chat.stderr);
  const messages = await runCli(
    ["--provider", "anthropic", "--base-url", fake.url, "--model", "claude-sonnet-4-5", "-p", "hi"],
    { cwd, env: { ...env, HARNESS_API_KEY: "k" } },
  );
  assert.equal(messages.code, 0, messages.stderr);

  const offered: [string, unknown][] = [
    ...fake.requests[0].body.tools.map((tool: { function: { name: string; parameters: unknown } }) => [
      `chat ${tool.function.name}`,
      tool.function.parameters,
    ]),
    ...fake.requests[1].body.tools.map((tool: { name: string; input_schema: unknown }) => [
      `anthropic ${tool.name}`,
      tool.input_schema,
    ]),
  ];
  const names = offered.map(([name]) => name);
  for (const api of ["chat", "anthropic"]) {
    for (const tool of [
      "bash",
      "read_file",
      "everything__echo",
      "everything__get-sum",
      "files__read_text_file",
      "files__edit_file",
    ])
      assert.ok(names.includes(`${api} ${tool}`), `${api} ${tool} is offered`);
  }
  for (const [name, schema] of offered) assert.deepEqual(outsidePortableSubset(schema, name), []);
  const wire = JSON.stringify([fake.requests[0].body.tools, fake.requests[1].body.tools]);
  assert.doesNotMatch(
    wire,
    /"(exclusiveMinimum|exclusiveMaximum|\$schema|additionalProperties|\$ref|oneOf|allOf|const)":/,
  );
  assert.doesNotMatch(wire, /9007199254740991/);
});

test("a tool error from the server is an error result the model sees, and stream-json shows isError", async () => {
  const { cwd, env } = setup();
  const fake = await serve([
    {
      reply: {
        toolCalls: [{ id: "bad", name: "files__read_text_file", arguments: { path: "/etc/not-allowed-here" } }],
      },
    },
    { reply: { text: "could not read it" } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "--output", "stream-json", "-p", "read it"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  const end = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line))
    .find((e) => e.type === "tool_end");
  assert.equal(end.isError, true);
  assert.match(end.content, /denied|outside|not allowed|allowed directories/i);
  assert.equal(toolResult(fake.requests[1], "bad"), end.content);
});

test("harness mcp list shows each server's tools and failures, exit 1 when one failed; a project's servers only with trust", async () => {
  const { cwd, env } = setup();
  const result = await runCli(["mcp", "list", "--trust"], { cwd, env });
  assert.equal(result.code, 1);
  assert.match(result.stdout, /^everything: \d+ tools$/m);
  assert.match(result.stdout, /^ {2}everything__echo {2}Echoes back the input string$/m);
  assert.match(result.stdout, /^files: \d+ tools$/m);
  assert.match(result.stdout, /^ {2}files__read_text_file /m);
  assert.match(result.stdout, /^broken: failed: .*ENOENT/m);
  assert.doesNotMatch(result.stdout, /^off/m);
  const untrusted = await runCli(["mcp", "list"], { cwd, env });
  assert.equal(untrusted.code, 0, "the project's broken server is not started in an untrusted folder");
  assert.doesNotMatch(untrusted.stdout, /^broken/m);
  assert.match(
    untrusted.stderr,
    /^harness mcp: this folder's project settings are not trusted: ignoring 1 MCP server from \.mcp\.json; run harness here to review them, or pass --trust$/m,
  );
  const none = await runCli(["mcp", "list"], { cwd: tempDir() });
  assert.equal(none.code, 0);
  assert.match(none.stdout, /no MCP servers configured/);
});

test("harness mcp list reads config.json as a run does: a broken one stops it (exit 2) naming the file and the field", async () => {
  const env = cleanEnv();
  writeFileSync(
    join(env.HARNESS_HOME!, "config.json"),
    JSON.stringify({ provders: {}, mcpServers: { x: { command: "true" } } }),
  );
  const result = await runCli(["mcp", "list"], { cwd: tempDir(), env });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^harness mcp: .*config\.json: unknown key "provders" \(did you mean "providers"\?\)$/m);
  assert.equal(result.stdout, "", "no server was started");
});
