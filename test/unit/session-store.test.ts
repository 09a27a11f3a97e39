// The session store on a real temporary folder: writing, reading back, torn lines, repair, lookups, history.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { AssistantMessage, Message } from "../../src/core/messages.ts";
import { appendInputHistory, HISTORY_LINES, loadInputHistory } from "../../src/session/input-history-file.ts";
import { renderMarkdown } from "../../src/session/markdown-html.ts";
import { repairTranscript, UNFINISHED_TOOL_RESULT } from "../../src/session/repair-transcript.ts";
import { SESSION_FORMAT_VERSION, type SessionHeader } from "../../src/session/session-entry.ts";
import { newSessionId, SESSION_ID_PATTERN } from "../../src/session/session-id.ts";
import { findLatestSession, findSessionByPrefix, SessionLookupError } from "../../src/session/session-list.ts";
import { lockAndReadSession } from "../../src/session/session-lock.ts";
import { readSession } from "../../src/session/session-reader.ts";
import { SessionRecorder } from "../../src/session/session-recorder.ts";
import { SessionWriter } from "../../src/session/session-store.ts";
import { tempDir } from "../support/helpers.ts";

function header(id: string, cwd = "/work/project"): SessionHeader {
  return {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id,
    cwd,
    provider: "openai",
    model: "m1",
    baseUrl: "http://x/v1",
    startedAt: "2025-01-01T00:00:00.000Z",
    harnessVersion: "test",
  };
}

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const callingReply: AssistantMessage = {
  role: "assistant",
  content: [
    { type: "text", text: "Looking." },
    { type: "tool_call", id: "c1", name: "bash", arguments: '{"command":"ls"}' },
    { type: "tool_call", id: "c2", name: "read_file", arguments: '{"path":"a"}' },
  ],
  stopReason: "tool_use",
};

test("session ids are short, unique and sort by creation time", () => {
  const ids = Array.from({ length: 200 }, (_, i) => newSessionId(1_700_000_000_000 + Math.floor(i / 4)));
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual(
    [...ids].sort((a, b) => (a < b ? -1 : 1)).map((id) => id.slice(0, 8)),
    ids.map((id) => id.slice(0, 8)),
  );
  for (const id of ids) assert.match(id, SESSION_ID_PATTERN);
  assert.ok(newSessionId().length <= 13);
});

test("round trip: the recorder writes events as lines and the reader rebuilds the conversation", () => {
  const dir = tempDir();
  const recorder = new SessionRecorder(SessionWriter.create(dir, header("mabcdefg-0001")));
  const reply: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "Hi." }], stopReason: "stop" };
  const usage = { input: 7, output: 3, cacheRead: 2, cacheWrite: 0 };
  recorder.record({ type: "start", schemaVersion: 1, provider: "openai", model: "m1", sessionId: "mabcdefg-0001" });
  recorder.record({ type: "message", message: user("hello") });
  recorder.record({ type: "turn_start", turn: 1 });
  recorder.record({ type: "text_delta", text: "Hi." });
  recorder.record({ type: "message", message: reply });
  recorder.record({ type: "usage", usage, total: usage });
  recorder.recordModelChange("openai", "m2", "http://x/v1", "responses");
  recorder.record({ type: "done", reason: "aborted", answer: "", turns: 1, usage });
  recorder.close();

  const path = join(dir, "mabcdefg-0001.jsonl");
  const lines = readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    lines.map((line) => line.type),
    ["session", "turn", "message", "message", "usage", "model_change", "interrupted"],
  );
  assert.deepEqual(lines[0], header("mabcdefg-0001"));

  const session = readSession(path);
  assert.deepEqual(session.messages, [user("hello"), reply]);
  assert.deepEqual(session.usage, usage);
  assert.equal(session.model, "m2");
  assert.equal(session.api, "responses");
  assert.deepEqual(session.notices, []);
});

test("undo and redo lines: undone turns leave the conversation, redo brings them back, a new turn ends redo", () => {
  const dir = tempDir();
  const recorder = new SessionRecorder(SessionWriter.create(dir, header("mabcdefg-0003")));
  const start = { type: "start", schemaVersion: 1, provider: "openai", model: "m1" } as const;
  const reply = (text: string): AssistantMessage => ({
    role: "assistant",
    content: [{ type: "text", text }],
    stopReason: "stop",
  });
  for (const [prompt, answer] of [
    ["one", "1"],
    ["two", "2"],
    ["three", "3"],
  ]) {
    recorder.record(start);
    if (prompt === "two") recorder.recordSnapshot("snap-two");
    recorder.record({ type: "message", message: user(prompt) });
    // A turn's first snapshot is taken before its changes; a later one is its end (wiring/undo-redo.ts afterTurn).
    if (prompt !== "one") recorder.recordSnapshot(`late-${prompt}`);
    recorder.record({ type: "message", message: reply(answer) });
  }
  const path = join(dir, "mabcdefg-0003.jsonl");
  const at = "2026-01-01T00:00:00.000Z";
  assert.deepEqual(readSession(path).turns, [
    {},
    { snapshot: "snap-two", after: "late-two" },
    { snapshot: "late-three" },
  ]);

  recorder.recordUndo({ type: "undo", at, turns: 2, restored: "snap-two", saved: "before-undo" });
  let session = readSession(path);
  assert.deepEqual(session.messages, [user("one"), reply("1")]);
  assert.deepEqual(session.turns, [{}]);
  assert.deepEqual(session.redo, { turns: 2, saved: "before-undo", restored: "snap-two" });

  recorder.recordUndo({ type: "redo", at });
  session = readSession(path);
  assert.equal(session.messages.length, 6);
  assert.equal(session.turns.length, 3);
  assert.equal(session.redo, undefined);

  recorder.recordUndo({ type: "undo", at, turns: 1 });
  recorder.record(start);
  recorder.record({ type: "message", message: user("four") });
  recorder.close();
  session = readSession(path);
  assert.deepEqual(session.messages.slice(-2), [reply("2"), user("four")]);
  assert.equal(session.redo, undefined, "a turn after an undo: nothing to redo");
});

test("a chat opened and closed without a prompt leaves no file", () => {
  const dir = tempDir();
  new SessionRecorder(SessionWriter.create(dir, header("mabcdefg-0002"))).close();
  assert.throws(() => readFileSync(join(dir, "mabcdefg-0002.jsonl")), /ENOENT/);
});

test("a torn last line is skipped with one notice, and cut off before the session is continued", () => {
  const dir = tempDir();
  const writer = SessionWriter.create(dir, header("mabcdefg-0003"));
  writer.append({ type: "message", at: "t", message: user("kept") });
  writer.close();
  appendFileSync(writer.path, '{"type":"message","at":"t","message":{"role":"assis');

  const torn = lockAndReadSession(writer.path);
  assert.deepEqual(torn.messages, [user("kept")]);
  assert.equal(torn.notices.length, 1);
  assert.match(torn.notices[0], /skipped a torn last line/);

  const resumed = SessionWriter.resume(writer.path, torn.header, torn.lock);
  resumed.append({ type: "message", at: "t", message: user("next") });
  resumed.close();
  const again = readSession(writer.path);
  assert.deepEqual(again.messages, [user("kept"), user("next")]);
  assert.deepEqual(again.notices, [], "the torn line was dropped, so it is reported only once");
});

test("repair: a tool call without a result gets one saying the harness stopped; the input is left alone", () => {
  const partial: Message[] = [
    user("go"),
    callingReply,
    { role: "tool", toolCallId: "c1", toolName: "bash", content: "a b", isError: false },
  ];
  const repaired = repairTranscript(partial);
  assert.deepEqual(repaired, [
    ...partial,
    { role: "tool", toolCallId: "c2", toolName: "read_file", content: UNFINISHED_TOOL_RESULT, isError: true },
  ]);
  assert.equal(partial.length, 3);
  // Missing results in the middle go right after their call, before the next prompt.
  const middle = repairTranscript([user("go"), callingReply, user("again")]);
  assert.deepEqual(
    middle.map((m) => m.role),
    ["user", "assistant", "tool", "tool", "user"],
  );
  // A complete transcript is unchanged.
  const complete = repairTranscript(repaired);
  assert.deepEqual(complete, repaired);
});

test("lookups: by id prefix, ambiguous prefix, latest session of this directory", () => {
  const dir = tempDir();
  const make = (id: string, cwd: string, mtime: number) => {
    const writer = SessionWriter.create(dir, header(id, cwd));
    writer.append({ type: "message", at: "t", message: user(id) });
    writer.close();
    utimesSync(writer.path, mtime, mtime);
  };
  make("maaaaaaa-0001", "/here", 1000);
  make("maaaaaab-0001", "/elsewhere", 3000);
  make("mbbbbbbb-0001", "/here", 2000);
  mkdirSync(join(dir, "mbbbbbbb-0001")); // a spill folder is not a session
  writeFileSync(join(dir, "notes.txt"), "not a session");

  assert.equal(findSessionByPrefix(dir, "mb").id, "mbbbbbbb-0001");
  assert.equal(findSessionByPrefix(dir, "MAAAAAAB").id, "maaaaaab-0001");
  assert.throws(
    () => findSessionByPrefix(dir, "maaaaaa"),
    (error: Error) =>
      error instanceof SessionLookupError &&
      error.message ===
        'session id "maaaaaa" is ambiguous: it matches maaaaaab-0001, maaaaaaa-0001; give more characters',
  );
  assert.throws(() => findSessionByPrefix(dir, "zz"), /no session with id "zz"/);
  assert.equal(
    findLatestSession(dir, "/here").id,
    "mbbbbbbb-0001",
    "the newest of this directory, not the newest overall",
  );
  assert.throws(() => findLatestSession(dir, "/nowhere"), /no session to continue in \/nowhere/);
});

test("input history: kept across runs, repeats skipped, bounded", () => {
  const path = join(tempDir(), "deeper", "history");
  assert.deepEqual(loadInputHistory(path), []);
  appendInputHistory(path, "first");
  appendInputHistory(path, "first");
  appendInputHistory(path, "two\nlines");
  assert.deepEqual(loadInputHistory(path), ["first", "two lines"]);
  for (let i = 0; i < 2 * HISTORY_LINES + 5; i++) appendInputHistory(path, `line ${i}`);
  const lines = loadInputHistory(path);
  assert.equal(lines.length, HISTORY_LINES);
  assert.equal(lines.at(-1), `line ${2 * HISTORY_LINES + 4}`);
  assert.ok(
    readFileSync(path, "utf8").split("\n").length <= 2 * HISTORY_LINES + 1,
    "the file is trimmed, not just the list",
  );
});

test("markdown renderer: the common constructs, and nothing raw gets through", () => {
  const html = renderMarkdown(
    [
      "# Title <b>",
      "",
      "Some **bold**, *em*, `a < b` and [a link](https://example.com/?a=1&b=2).",
      "",
      "- one",
      "- two with `code`",
      "",
      "1. first",
      "2. second",
      "",
      "```ts",
      "const x = '<script>';",
      "```",
      "",
      '<img src=x onerror="alert(1)"> and [bad](javascript:alert(1))',
    ].join("\n"),
  );
  assert.equal(
    html,
    [
      "<h1>Title &lt;b&gt;</h1>",
      '<p>Some <strong>bold</strong>, <em>em</em>, <code>a &lt; b</code> and <a href="https://example.com/?a=1&amp;b=2" rel="noopener noreferrer">a link</a>.</p>',
      "<ul>\n<li>one</li>\n<li>two with <code>code</code></li>\n</ul>",
      "<ol>\n<li>first</li>\n<li>second</li>\n</ol>",
      '<pre><code class="language-ts">const x = &#39;&lt;script&gt;&#39;;</code></pre>',
      "<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt; and bad (javascript:alert(1))</p>",
    ].join("\n"),
  );
});
