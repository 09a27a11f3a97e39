// `--fallback-model` and config.json `fallbackModels`: a chain across three vendors' APIs on fakes,
// each failing as the real service fails, with its real error body. The run goes on with the next
// entry after a rate limit past its retries (Gemini), an outage (a closed port), used-up quota
// (OpenAI); an auth error never falls back; the next run starts on the first model again.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import { cleanEnv, closedPort, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

/**
 * Gemini's rate limit: 429 with status RESOURCE_EXHAUSTED, "retry with exponential backoff"
 * (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes); the body's shape is
 * Google's error object (https://cloud.google.com/apis/design/errors#http_mapping).
 */
const GEMINI_RATE_LIMIT = {
  status: 429,
  body: {
    error: {
      code: 429,
      message: "Resource has been exhausted (e.g. check quota).",
      status: "RESOURCE_EXHAUSTED",
    },
  },
};

/**
 * OpenAI's used-up quota: 429 with type and code insufficient_quota
 * (https://platform.openai.com/docs/guides/error-codes/api-errors; the same body is recorded in
 * test/support/fixtures/wire/openai-responses--openai--error-event-insufficient-quota.sse).
 */
const OPENAI_QUOTA = {
  status: 429,
  body: {
    error: {
      message:
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    },
  },
};

/**
 * Gemini overloaded: 503 with status UNAVAILABLE ("The service may be temporarily overloaded or
 * down", https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes); the body as Gemini
 * sends it, reported in google-gemini/gemini-cli#4360 and #5191.
 */
const GEMINI_OVERLOADED = {
  status: 503,
  body: { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } },
};

/** A 503 that says no more than its status (a proxy's page): a server error, judged by no type or code. */
const BARE_503 = { status: 503, body: { error: { message: "Service Unavailable" } } };

/** Anthropic's 401 (https://docs.claude.com/en/api/errors). */
const ANTHROPIC_AUTH = {
  status: 401,
  body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
};

test("Gemini rate-limited past its retries → Anthropic down → OpenAI out of quota → Anthropic answers; next run starts on Gemini", async () => {
  const limit = Array.from({ length: 5 }, () => GEMINI_RATE_LIMIT); // the first try and its 4 retries
  const gemini = await serve([
    { reply: { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] } },
    ...limit,
    { reply: { text: "gemini again" } },
  ]);
  const openai = await serve([OPENAI_QUOTA]);
  const anthropic = await serve([{ reply: { text: "claude finished" } }]);
  const down = await closedPort();
  const cwd = tempDir();
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  const env = cleanEnv();
  const config = {
    provider: "google",
    model: "gemini-3-pro-preview",
    fallbackModels: ["down:claude-sonnet-4-5", "quota:gpt-5-mini", "claude:claude-sonnet-4-5"],
    providers: {
      google: { api: "gemini", baseUrl: `${gemini.url}/v1beta` },
      down: { api: "anthropic", baseUrl: `http://127.0.0.1:${down}` },
      quota: { api: "chat", baseUrl: openai.baseUrl },
      claude: { api: "anthropic", baseUrl: anthropic.url },
    },
  };
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify(config));

  const result = await runCli(["-y", "--output", "json", "-p", "read a.txt"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).answer, "claude finished");
  const lines = result.stderr.split("\n").filter((line) => line.includes("going on with"));
  assert.deepEqual(
    lines.map((line) => /going on with (\S+)/.exec(line)?.[1]),
    ["down:claude-sonnet-4-5", "quota:gpt-5-mini", "claude:claude-sonnet-4-5"],
  );
  assert.match(lines[0], /google:gemini-3-pro-preview failed \(429 .*Resource has been exhausted/);
  assert.match(lines[1], /down:claude-sonnet-4-5 failed \(cannot reach .*ECONNREFUSED/);
  assert.match(lines[2], /quota:gpt-5-mini failed \(429 .*exceeded your current quota/);
  assert.ok(lines.every((line) => /prompt cache starts cold/.test(line)));
  assert.equal(gemini.requests.length, 6, "the rate limit was retried 4 times before falling back");
  assert.equal(openai.requests.length, 1, "used-up quota is not retried");
  // The conversation went on converted for Anthropic: Gemini's tool call and its result are in it.
  const sent = JSON.stringify(anthropic.requests[0].body.messages);
  assert.match(sent, /"type":"tool_use"/);
  assert.match(sent, /alpha/);
  // The session records each switch, as /model's are recorded.
  const sessionId = JSON.parse(result.stdout).sessionId;
  const file = readFileSync(join(env.HARNESS_HOME as string, "sessions", `${sessionId}.jsonl`), "utf8");
  const changes = file
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "model_change")
    .map((entry) => `${entry.provider}:${entry.model}`);
  assert.deepEqual(changes, ["down:claude-sonnet-4-5", "quota:gpt-5-mini", "claude:claude-sonnet-4-5"]);

  // A new run starts on the first model again.
  const again = await runCli(["-y", "-p", "hello"], { cwd, env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout.trim(), "gemini again");
});

test("an auth error never falls back; --fallback-model wins over config.json; a bad entry is a usage error", async () => {
  const anthropic = await serve([ANTHROPIC_AUTH]);
  const openai = await serve([]);
  const cwd = tempDir();
  const env = cleanEnv();
  const config = {
    fallbackModels: ["other:"],
    providers: {
      claude: { api: "anthropic", baseUrl: anthropic.url },
      other: { api: "chat", baseUrl: openai.baseUrl },
    },
  };
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify(config));
  const bad = await runCli(["--provider", "claude", "--model", "claude-sonnet-4-5", "-p", "hi"], { cwd, env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /fallback model "other:": no model for provider "other"/);

  const flags = ["--provider", "claude", "--model", "claude-sonnet-4-5", "--fallback-model", "other:gpt-5-mini"];
  const refused = await runCli([...flags, "-p", "hi"], { cwd, env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /401 authentication failed/);
  assert.doesNotMatch(refused.stderr, /going on with/);
  assert.equal(openai.requests.length, 0);
});

test("a batch task falls back by config.json, and its result line says which model answered", async () => {
  const openai = await serve([OPENAI_QUOTA]);
  const anthropic = await serve([{ reply: { text: "claude did it" } }]);
  const dir = tempDir();
  const env = cleanEnv();
  const config = {
    provider: "quota",
    model: "gpt-5-mini",
    fallbackModels: ["claude:claude-sonnet-4-5"],
    providers: {
      quota: { api: "chat", baseUrl: openai.baseUrl },
      claude: { api: "anthropic", baseUrl: anthropic.url },
    },
  };
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify(config));
  writeFileSync(join(dir, "tasks.jsonl"), `${JSON.stringify({ id: "t", prompt: "do it" })}\n`);
  const result = await runCli(["batch", "tasks.jsonl"], { cwd: dir, env });
  assert.equal(result.code, 0, result.stderr);
  const [line] = readFileSync(join(dir, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((text) => JSON.parse(text));
  assert.equal(line.status, "ok");
  assert.equal(line.answer, "claude did it");
  assert.equal(line.model, "gpt-5-mini");
  assert.equal(line.answeredBy, "claude-sonnet-4-5");
});

test("Gemini's 503 UNAVAILABLE (overloaded) falls back after its retries; a bare 503 does not", async () => {
  const overloaded = Array.from({ length: 5 }, () => GEMINI_OVERLOADED); // the first try and its 4 retries
  const gemini = await serve(overloaded);
  const bare = await serve(Array.from({ length: 5 }, () => BARE_503));
  const anthropic = await serve([{ reply: { text: "claude took over" } }]);
  const cwd = tempDir();
  const env = cleanEnv();
  const config = {
    providers: {
      google: { api: "gemini", baseUrl: `${gemini.url}/v1beta` },
      proxy: { api: "chat", baseUrl: bare.baseUrl },
      claude: { api: "anthropic", baseUrl: anthropic.url },
    },
  };
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify(config));
  const fallback = ["--fallback-model", "claude:claude-sonnet-4-5"];
  const moved = await runCli(["--provider", "google", "--model", "gemini-3-pro-preview", ...fallback, "-p", "hi"], {
    cwd,
    env,
  });
  assert.equal(moved.code, 0, moved.stderr);
  assert.equal(moved.stdout.trim(), "claude took over");
  assert.match(
    moved.stderr,
    /google:gemini-3-pro-preview failed \(503 .*The model is overloaded.*going on with claude:/,
  );
  assert.equal(gemini.requests.length, 5, "retried 4 times before falling back");

  const stayed = await runCli(["--provider", "proxy", "--model", "gpt-5-mini", ...fallback, "-p", "hi"], { cwd, env });
  assert.equal(stayed.code, 1);
  assert.doesNotMatch(stayed.stderr, /going on with/);
  assert.equal(anthropic.requests.length, 1, "a bare 503 never reached the fallback model");
});

test("over ACP: config.json's fallbackModels take over from an overloaded Gemini, and the editor is told", async () => {
  const gemini = await serve(Array.from({ length: 5 }, () => GEMINI_OVERLOADED));
  const anthropic = await serve([{ reply: { text: "claude answered the editor" } }]);
  const cwd = tempDir();
  const env = cleanEnv();
  const config = {
    provider: "google",
    model: "gemini-3-pro-preview",
    fallbackModels: ["claude:claude-sonnet-4-5"],
    providers: {
      google: { api: "gemini", baseUrl: `${gemini.url}/v1beta` },
      claude: { api: "anthropic", baseUrl: anthropic.url },
    },
  };
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify(config));
  let stopReason: unknown;
  const log = await withEditor({ env, cwd, answer: () => "reject_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    const answer = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    stopReason = answer.stopReason;
  });
  assert.equal(log.code, 0, log.stderr);
  assert.equal(stopReason, "end_turn");
  const said = log.updates
    .map((n) => n.update)
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => (u as { content: { text?: string } }).content.text)
    .join("");
  assert.match(said, /claude answered the editor/);
  assert.match(log.stderr, /google:gemini-3-pro-preview failed \(503 .*going on with claude:claude-sonnet-4-5/);
  assert.equal(gemini.requests.length, 5);
});
