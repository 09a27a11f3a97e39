// How failed model calls are told apart and retried, through the built CLI against the fake
// server: the documented table (docs/events.md, "Retries") against the code, clean endings
// without a finish_reason, a retry that voids streamed deltas, and endpoints that are not the API.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { DEFAULT_RETRY } from "../../src/core/call-model.ts";
import { RETRIES_BY_KIND } from "../../src/core/provider.ts";
import { classifyStatus } from "../../src/providers/http-errors.ts";
import { cleanEnv, closedPort, fakeFlags, fakeServerPerTest, ROOT, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const streamJson = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

const sse = (chunks: unknown[], done = true) =>
  chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");
const delta = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

test("the retry table in docs/events.md is what the classifier and RETRIES_BY_KIND do", () => {
  const doc = readFileSync(join(ROOT, "docs", "events.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Retries"), doc.indexOf("## Example"));
  const rows = section.split("\n").filter((line) => /^\| [a-z]/.test(line) && !line.startsWith("| failure"));
  assert.ok(rows.length >= 10, "the table is there");
  const words = (limit: "max" | number) =>
    limit === "max" ? `up to ${DEFAULT_RETRY.maxRetries}` : limit === 1 ? "once" : "no";
  /** The cell's verdict without its note: "no (the conversation is compacted...)" reads "no". */
  const verdict = (cell: string) => cell.replace(/ \(.*\)$/, "");
  let checked = 0;
  for (const row of rows) {
    const [failure, statuses, retried] = row
      .split("|")
      .slice(1, 4)
      .map((cell) => cell.trim());
    if (/refused/.test(failure)) assert.equal(words(RETRIES_BY_KIND.unreachable), verdict(retried), row);
    if (/stream cut/.test(failure)) assert.equal(words(RETRIES_BY_KIND.network), verdict(retried), row);
    if (/not the API/.test(failure)) assert.equal(words(RETRIES_BY_KIND.not_api), verdict(retried), row);
    if (/idle timeout/.test(failure)) assert.equal(words(RETRIES_BY_KIND.timeout), verdict(retried), row);
    if (/reply cap/.test(failure)) assert.equal(words(RETRIES_BY_KIND.too_large), verdict(retried), row);
    for (const status of statuses.match(/\b[1-5]\d\d\b/g) ?? []) {
      if (/not the API/.test(failure)) continue;
      assert.equal(words(RETRIES_BY_KIND[classifyStatus(Number(status))]), verdict(retried), `${status}: ${row}`);
      checked++;
    }
  }
  assert.ok(checked >= 15, `checked ${checked} statuses`);
});

test("[DONE] without any finish_reason is a complete reply: no retry, text shown once", async () => {
  const usage = { choices: [], usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 } };
  const fake = await serve([{ raw: sse([delta("4"), usage]) }]);
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "2+2?"]);
  assert.equal(result.code, 0, result.stderr);
  const events = streamJson(result.stdout);
  assert.equal(events.filter((e) => e.type === "retry").length, 0);
  assert.equal(
    events
      .filter((e) => e.type === "text_delta")
      .map((e) => e.text)
      .join(""),
    "4",
  );
  assert.equal(events.at(-1).answer, "4");
  assert.equal(fake.requests.length, 1);
});

test("a stream cut after some text is retried, and the retry says the shown deltas are void", async () => {
  const fake = await serve([{ raw: sse([delta("Par"), delta("tial")], false) }, { reply: { text: "Whole answer." } }]);
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "go"]);
  assert.equal(result.code, 0, result.stderr);
  const events = streamJson(result.stdout);
  const retryAt = events.findIndex((e) => e.type === "retry");
  assert.equal(events[retryAt].discardPartial, true);
  assert.match(events[retryAt].error, /dropped before the reply was complete/);
  const after = events.slice(retryAt + 1).filter((e) => e.type === "text_delta");
  assert.equal(
    after.map((e) => e.text).join(""),
    "Whole answer.",
    "the new attempt streams the reply from its start, once",
  );
  assert.deepEqual(events.find((e) => e.type === "message" && e.message.role === "assistant").message.content, [
    { type: "text", text: "Whole answer." },
  ]);
});

test("a server that hangs up in the middle of a streamed reply: retried, and the retry says so in one line", async () => {
  // delayMs lets the headers and the first events reach the client before the socket is destroyed.
  const fake = await serve([
    { cut: { text: "A partial answer, cut.", delayMs: 20 }, afterEvents: 3 },
    { reply: { text: "Whole answer." } },
  ]);
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "go"]);
  assert.equal(result.code, 0, result.stderr);
  const retry = streamJson(result.stdout).find((e) => e.type === "retry");
  assert.match(retry.error, /: the connection closed in the middle of the reply \(ECONNRESET\)$/);
  assert.equal(streamJson(result.stdout).at(-1).answer, "Whole answer.");
  assert.equal(fake.requests.length, 2);
});

test("a retry before anything streamed does not void anything", async () => {
  const fake = await serve([{ status: 503 }, { reply: { text: "ok" } }]);
  const events = streamJson((await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "go"])).stdout);
  const retry = events.find((e) => e.type === "retry");
  assert.equal(retry.discardPartial, undefined);
});

test("an error event in a stream with a numeric 400 is not retried", async () => {
  const groq = `data: ${JSON.stringify(delta("maybe"))}\n\nevent: error\ndata: {"error":{"message":"Tool choice is required, but model did not call a tool","type":"invalid_request_error","code":"tool_use_failed","status_code":400}}\n\n`;
  const fake = await serve([{ raw: groq }]);
  const result = await runCli([...fakeFlags(fake), "-p", "go"]);
  assert.equal(result.code, 1);
  assert.equal(fake.requests.length, 1, "a 400 is final");
  assert.match(result.stderr, /^error: 400 .*Tool choice is required/m);
});

for (const status of [408, 409]) {
  test(`an error event in a stream with a numeric ${status} is retried`, async () => {
    const fake = await serve([
      { raw: `data: {"error":{"message":"try again","code":${status}}}\n\n` },
      { reply: { text: "fine" } },
    ]);
    const result = await runCli([...fakeFlags(fake), "-p", "go"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "fine\n");
    assert.equal(fake.requests.length, 2);
  });
}

test("a refused connection names its cause and is retried once, not four times", async () => {
  const port = await closedPort();
  const result = await runCli(
    [
      "--provider",
      "openai",
      "--base-url",
      `http://127.0.0.1:${port}/v1`,
      "--model",
      "m",
      "--output",
      "stream-json",
      "-p",
      "go",
    ],
    { env: cleanEnv({ OPENAI_API_KEY: "k" }) },
  );
  assert.equal(result.code, 1);
  const events = streamJson(result.stdout);
  assert.equal(events.filter((e) => e.type === "retry").length, 1);
  assert.match(events.at(-1).error, /connection refused \(ECONNREFUSED\)/);
});

test("a server that is not an LLM API: its HTML error page in one line, said to be the wrong API, not retried", async () => {
  const page = `<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n${"<p>padding</p>\n".repeat(50)}</body></html>\n`;
  const fake = await serve([{ raw: page, status: 404, contentType: "text/html" }]);
  // --sandbox off: the one stderr line counted below must not be the missing-bwrap warning on a machine without it.
  const result = await runCli([...fakeFlags(fake), "--sandbox", "off", "-p", "go"]);
  assert.equal(result.code, 1);
  assert.equal(fake.requests.length, 1);
  assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  assert.match(
    result.stderr,
    /answered 404: an HTML page \("404 Not Found"\); it does not speak the OpenAI chat completions API \(check --base-url\)/,
  );
});

test("a 200 text/plain reply that is not an event stream is reported as such, not as a dropped connection", async () => {
  const fake = await serve([{ raw: "Hello! This server says hi to everyone.\n", contentType: "text/plain" }]);
  const result = await runCli([...fakeFlags(fake), "-p", "go"]);
  assert.equal(result.code, 1);
  assert.equal(fake.requests.length, 1, "not retried");
  assert.match(
    result.stderr,
    /answered 200 \(text\/plain\) but no event stream: "Hello! This server says hi to everyone."; it does not speak the OpenAI chat completions API/,
  );
  assert.doesNotMatch(result.stderr, /dropped/);
});
