// Keys never on disk and never on the terminal, tried from the attacker's side: a key split across
// streamed deltas, in a command's spilled output, typed into the chat's history, inside a base
// URL, and in hook and MCP messages. The canary home lives under /var/tmp, outside the sandbox's
// private /tmp, so a leak is not hidden from the check.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { StreamRedactor } from "../../src/core/stream-redactor.ts";
import { redactText, redactUrl } from "../../src/shared/redact.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, fakeServerPerTest, runCli, stateFiles, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

/** A key by shape, and a credential known only by the variable that holds it. */
const SHAPED_KEY = "sk-ant-api03-Zx8Kq2Lm9Np4Rs7Tv1Wy";
const ENV_KEY = "canary-value-0123456789";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function canaryEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync("/var/tmp/harness-canary-");
  homes.push(home);
  return cleanEnv({ HARNESS_HOME: home, MY_SERVICE_API_KEY: ENV_KEY, ...extra });
}

function assertNoKeys(where: string, text: string): void {
  for (const key of [SHAPED_KEY, ENV_KEY, SHAPED_KEY.slice(-12), ENV_KEY.slice(-10)])
    assert.ok(!text.includes(key), `${where} holds (part of) a key:\n${text.slice(0, 2000)}`);
}

test("a stream redactor catches a key however the stream is cut, and gives back the same text as redacting it whole", () => {
  const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1b2c3\nd4e5f6g7h8\n-----END RSA PRIVATE KEY-----";
  const text = `one ${SHAPED_KEY} two Authorization: Bearer abcdef123456 three https://bob:hunter2hunter2@example.com/x?api_key=zzz123&q=1 four ${ENV_KEY} end\nexport DB_PASSWORD = "hunter2hunter2"\n${pem}\nbye`;
  for (let size = 1; size <= 40; size++) {
    const redactor = new StreamRedactor([ENV_KEY]);
    let out = "";
    for (let at = 0; at < text.length; at += size) out += redactor.push(text.slice(at, at + size));
    out += redactor.flush();
    assert.equal(out, redactText(text, [ENV_KEY]), `pieces of ${size}`);
  }
  assert.equal(
    redactText(text, [ENV_KEY]),
    'one [redacted] two Authorization: [redacted] three https://[redacted]@example.com/x?api_key=[redacted]&q=1 four [redacted] end\nexport DB_PASSWORD = "[redacted]"\n[redacted]\nbye',
  );
});

test("a stream redactor holds back a bounded tail, even of a stream with no break in it", () => {
  const redactor = new StreamRedactor();
  let out = "";
  for (let i = 0; i < 200; i++) out += redactor.push("x".repeat(1000));
  assert.ok(out.length >= 200_000 - 16 * 1024, `held back ${200_000 - out.length} characters`);
  assert.equal(out + redactor.flush(), "x".repeat(200_000));
});

test("URLs lose their userinfo and credential-looking query parameters", () => {
  assert.equal(
    redactUrl("http://user:pw-secret@127.0.0.1:8080/v1?api_key=abc&x=2&sig=s1"),
    "http://127.0.0.1:8080/v1?x=2",
  );
  assert.equal(redactUrl("https://api.openai.com/v1"), "https://api.openai.com/v1");
  assert.equal(redactUrl("http://a:b@h.example"), "http://h.example");
});

test("stream-json: a key split across text deltas is caught, and the reply and the session hold none", async () => {
  const prose = "The reply goes on for a while, so that it streams in many pieces before and after the keys. ";
  const text = `${prose}Here it is: ${SHAPED_KEY} and the other one ${ENV_KEY}. ${prose}`;
  const fake = await serve([{ reply: { text, chunkSize: 3 } }]);
  const env = canaryEnv();
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "show me"], { env });
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const deltas = events.filter((e) => e.type === "text_delta");
  assert.ok(deltas.length > 5, "the reply arrived in many deltas");
  assert.equal(
    deltas.map((e) => e.text).join(""),
    `${prose}Here it is: [redacted] and the other one [redacted]. ${prose}`,
  );
  assertNoKeys("stdout", result.stdout);
  assertNoKeys("stderr", result.stderr);
  for (const file of stateFiles(env.HARNESS_HOME as string)) assertNoKeys(file.path, file.text);
});

test("--output json and text: a key split across deltas is redacted in the JSON answer and in the printed one", async () => {
  const prose = "A reply long enough to stream in many small pieces around the keys. ";
  const text = `${prose}First ${SHAPED_KEY}, then ${ENV_KEY}. ${prose}`;
  const redacted = `${prose}First [redacted], then [redacted]. ${prose}`;
  const fake = await serve([{ reply: { text, chunkSize: 3 } }, { reply: { text, chunkSize: 3 } }]);
  const env = canaryEnv();
  const json = await runCli([...fakeFlags(fake), "--output", "json", "-p", "show me"], { env });
  assert.equal(json.code, 0, json.stderr);
  const done = JSON.parse(json.stdout);
  assert.deepEqual([done.type, done.answer], ["done", redacted]);
  const plain = await runCli([...fakeFlags(fake), "-p", "show me again"], { env });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, `${redacted}\n`);
  for (const output of [json.stdout, json.stderr, plain.stdout, plain.stderr]) assertNoKeys("the output", output);
  for (const file of stateFiles(env.HARNESS_HOME as string)) assertNoKeys(file.path, file.text);
});

test("a chat at a terminal streams a reply whose keys arrive split across deltas without them", {
  skip: needs("script"),
}, async (t) => {
  const text = `Streaming to the terminal now: ${SHAPED_KEY} and ${ENV_KEY}, and the reply ends here.`;
  const fake = await serve([{ reply: { text, chunkSize: 3, delayMs: 5 } }]);
  const env = canaryEnv();
  const chat = chatAtTerminal(fake, env, t);
  await chat.waitFor(/> $/);
  chat.child.stdin.write("show me\r");
  await chat.waitFor(/reply ends here\.[\s\S]*> $/);
  chat.child.stdin.write("/exit\r");
  await chat.closed;
  assert.match(
    chat.output(),
    /Streaming to the terminal now: \[redacted\] and \[redacted\], and the reply ends here\./,
  );
  assertNoKeys("the terminal", chat.output());
});

test("a command's long output is spilled to a file with the key redacted, even when the key arrives in two pieces", async () => {
  // 40 KB of filler, then a key read in two halves a moment apart, so it spans two chunks.
  const cwd = tempDir();
  writeFileSync(join(cwd, "part1"), SHAPED_KEY.slice(0, 15));
  writeFileSync(join(cwd, "part2"), `${SHAPED_KEY.slice(15)} and `);
  const command =
    "head -c 40000 /dev/zero | tr '\\0' 'a'; echo; cat part1; sleep 0.2; cat part2; echo \"$LEAKED_COPY\"; head -c 40000 /dev/zero | tr '\\0' 'b'";
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_spill", name: "bash", arguments: { command } }] } },
    { reply: { text: "ok" } },
  ]);
  // The command gets no credential variables (command-env.ts): a copy under a harmless name plays the leaked key.
  const env = canaryEnv({ LEAKED_COPY: ENV_KEY });
  const result = await runCli(["-y", "--sandbox", "off", ...fakeFlags(fake), "-p", "run it"], { env, cwd });
  assert.equal(result.code, 0, result.stderr);
  const spills = stateFiles(env.HARNESS_HOME as string).filter((file) => file.path.includes("/spill/"));
  assert.equal(spills.length, 1, "the output was spilled");
  assert.match(spills[0].text, /\n\[redacted\] and \[redacted\]\n/);
  for (const file of stateFiles(env.HARNESS_HOME as string)) assertNoKeys(file.path, file.text);
});

test("a base URL with credentials is stored and shown without them", async () => {
  // The request goes out (http sends the URL's user part as Basic auth, as curl does; our bearer key wins).
  const fake = await serve([{ reply: { text: "hello" } }]);
  const env = canaryEnv();
  const url = `http://user:${ENV_KEY}@${fake.url.replace("http://", "")}/v1`;
  const result = await runCli(["--provider", "openai", "--base-url", url, "--model", "fake-model", "-p", "hi"], {
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const [session] = readdirSync(join(env.HARNESS_HOME as string, "sessions")).filter((name) => name.endsWith(".jsonl"));
  const header = JSON.parse(readFileSync(join(env.HARNESS_HOME as string, "sessions", session), "utf8").split("\n")[0]);
  assert.equal(header.baseUrl, `${fake.url}/v1`);
  assertNoKeys("stdout", result.stdout);
  assertNoKeys("stderr", result.stderr);
  for (const file of stateFiles(env.HARNESS_HOME as string)) assertNoKeys(file.path, file.text);
});

test("hook and MCP messages on stderr are redacted", async () => {
  const fake = await serve([{ reply: { text: "hello" } }]);
  const env = canaryEnv();
  const home = env.HARNESS_HOME as string;
  const hook = join(home, "leaky-hook.sh");
  writeFileSync(hook, `#!/bin/sh\necho "failed with token ${SHAPED_KEY}" >&2\nexit 1\n`, { mode: 0o755 });
  writeFileSync(
    join(home, "settings.json"),
    JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: hook }] }] } }),
  );
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ mcpServers: { leaky: { url: `http://user:${ENV_KEY}@127.0.0.1:1/mcp?api_key=${ENV_KEY}` } } }),
  );
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /\[redacted\]/);
  assert.match(result.stderr, /leaky/);
  assertNoKeys("stderr", result.stderr);
  assertNoKeys("stdout", result.stdout);
});

/** A chat at a terminal (`script` gives it a pty; TERM=dumb keeps the line editor plain), and what it showed. */
function chatAtTerminal(fake: FakeLLM, env: NodeJS.ProcessEnv, t: { after(fn: () => void): void }) {
  const command = [process.execPath, CLI, ...fakeFlags(fake)].map((arg) => `'${arg}'`).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...env, TERM: "dumb" },
    cwd: tempDir(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const waitFor = async (pattern: RegExp) => {
    for (const deadline = Date.now() + 30_000; !pattern.test(output); ) {
      if (Date.now() > deadline) throw new Error(`the chat never showed ${pattern}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, closed, waitFor, output: () => output };
}

test("a key typed into the chat does not reach the input history", { skip: needs("script") }, async (t) => {
  const fake = await serve([{ reply: { text: "noted" } }]);
  const env = canaryEnv();
  const chat = chatAtTerminal(fake, env, t);
  await chat.waitFor(/> $/);
  chat.child.stdin.write(`my key is ${SHAPED_KEY} remember it\r`);
  await chat.waitFor(/noted[\s\S]*> $/);
  chat.child.stdin.write("/exit\r");
  await chat.closed;
  const history = readFileSync(join(env.HARNESS_HOME as string, "history"), "utf8");
  assert.equal(history.split("\n")[0], "my key is [redacted] remember it");
  for (const file of stateFiles(env.HARNESS_HOME as string)) assertNoKeys(file.path, file.text);
});
