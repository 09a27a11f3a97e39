// Nothing harness sends or stores holds a lone surrogate (issue 33), whatever brought it: a
// model's streamed text and its tool call's arguments (`\ud83c` alone), a command printing invalid
// UTF-8, an MCP server's result. The strict fake refuses a request carrying one, as strict servers
// do (anthropics/claude-code#3277), so each run below going on to its next request is the proof;
// the session file and the stream-json output are checked for any too. A file holding the six
// characters `\ud83c` is text, and goes as it is.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, jsonLines, ROOT, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const HALF_SERVER = join(ROOT, "test", "support", "fixtures", "mcp", "half-emoji-server.mjs");

/** A lone surrogate, raw or as a JSON escape (one whose backslash starts an escape, not an escaped backslash's text). */
const LONE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|(?<=(?:^|[^\\])(?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/i;

function hasLone(text: string): boolean {
  // A pair written as two escapes is fine: take those out first.
  return LONE.test(text.replace(/\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}/gi, ""));
}

const providers = [
  { name: "chat completions", flags: fakeFlags },
  {
    // Anthropic's API takes a call's arguments parsed (`input`), so an escape in them becomes a lone surrogate on the wire.
    name: "anthropic",
    flags: (fake: { url: string }) => [
      "--provider",
      "anthropic",
      "--base-url",
      fake.url,
      "--model",
      "claude-sonnet-4-5",
    ],
  },
];

for (const provider of providers)
  test(`${provider.name}: half an emoji from the model, a command, an MCP server or a file never reaches the server or the session`, async () => {
    const cwd = tempDir();
    const home = tempDir("harness-home-");
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ mcpServers: { half: { command: process.execPath, args: [HALF_SERVER] } } }),
    );
    writeFileSync(join(cwd, "escaped.json"), String.raw`{"note": "\ud83c"}`);
    const fake = await serve([
      {
        reply: {
          // Seven characters a piece: 🎉 comes split between two deltas, each half alone.
          text: "smile \ud83c and  🎉 too",
          chunkSize: 7,
          toolCalls: [
            // The arguments as the model wrote them: JSON text with the escape of a high surrogate alone.
            {
              id: "b1",
              name: "bash",
              arguments: String.raw`{"command":"echo 'half \ud83c'; printf 'bytes \\xff\\xfe\\xed\\xa0\\x80 end\\n'"}`,
            },
            { id: "m1", name: "half__half", arguments: {} },
            { id: "r1", name: "read_file", arguments: { path: "escaped.json" } },
          ],
        },
      },
      { reply: { text: "all \ud83c seen" } },
      { reply: { text: "again" } },
    ]);
    const env = cleanEnv({ HARNESS_HOME: home });
    const flags = [...provider.flags(fake), "-y", "--sandbox", "off"];
    const first = await runCli([...flags, "--output", "stream-json", "-p", "go"], { env, cwd });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(fake.errors, [], "the server accepted every request");
    assert.equal(fake.requests.length, 2);
    assert.ok(!hasLone(first.stdout), `stream-json holds a lone surrogate:\n${first.stdout}`);
    const events = jsonLines(first.stdout);
    const firstReply = events.slice(
      0,
      events.findIndex((event) => event.type === "tool_start"),
    );
    const deltas = firstReply.filter((event) => event.type === "text_delta").map((event) => event.text);
    assert.ok(deltas.length > 2, JSON.stringify(deltas));
    assert.equal(
      deltas.join(""),
      "smile \uFFFD and  🎉 too",
      "the lone half is U+FFFD; the pair split between two deltas is joined",
    );

    const sent = JSON.stringify(fake.requests[1].body);
    assert.match(sent, /half \\ufffd|half \uFFFD/, "the command ran with U+FFFD for the half");
    assert.match(sent, /bytes \\ufffd|bytes \uFFFD/, "invalid UTF-8 became U+FFFD");
    assert.match(sent, /party \\ufffd!|party \uFFFD!/, "the MCP result's half became U+FFFD");
    assert.ok(sent.includes(String.raw`\\ud83c`), "the file's six characters went as text");

    const [name] = readdirSync(join(home, "sessions")).filter((file) => file.endsWith(".jsonl"));
    const stored = readFileSync(join(home, "sessions", name), "utf8");
    assert.ok(!hasLone(stored), `the session file holds a lone surrogate:\n${stored}`);

    // And the session goes on: the next request, with all of it in the history, is accepted.
    const second = await runCli([...flags, "-c", "-p", "more"], { env, cwd });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(fake.errors, []);
    assert.equal(fake.requests.length, 3);
  });

test("--input stream-json: a prompt line carrying half an emoji is sent and stored with U+FFFD in its place", async () => {
  const fake = await serve([{ reply: { text: "one" } }, { reply: { text: "two" } }]);
  const home = tempDir("harness-home-");
  // JSON.stringify writes the lone half as the escape \ud83c: a script cutting a string mid-pair sends this.
  const input = [
    JSON.stringify({ type: "user", text: "smile \ud83c" }),
    JSON.stringify({ type: "user", text: "again" }),
  ].join("\n");
  const run = await runCli([...fakeFlags(fake), "--input", "stream-json", "--output", "stream-json"], {
    env: cleanEnv({ HARNESS_HOME: home }),
    input: `${input}\n`,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(fake.errors, [], "both requests were accepted");
  assert.equal(fake.requests.length, 2);
  assert.equal(fake.requests[1].body.messages[1].content, "smile \uFFFD");
  assert.ok(!hasLone(run.stdout), run.stdout);
  const [name] = readdirSync(join(home, "sessions")).filter((file) => file.endsWith(".jsonl"));
  assert.ok(!hasLone(readFileSync(join(home, "sessions", name), "utf8")));
});
