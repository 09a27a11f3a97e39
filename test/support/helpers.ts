// Shared test plumbing: temporary folders, the built CLI as a child process, a provider on the fake server.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "node:test";
import { fileURLToPath } from "node:url";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-messages.ts";
import type { ProviderSettings } from "../../src/providers/index.ts";
import { createOpenAIChatProvider } from "../../src/providers/openai-chat/openai-chat.ts";
import { type FakeLLM, type ScriptStep, startFakeLLM } from "./fake-llm/server.ts";
import { killAtTestEnd, onFileEnd } from "./teardown.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI = join(ROOT, "bin", "harness.js");

/** A bound on one CLI run: far above any test's run, so only a hung harness reaches it. */
const RUN_CLI_LIMIT_MS = 90_000;

const createdDirs: string[] = [];
// The benchmark runs outside node's test runner (no hooks): its folders go when it exits.
process.on("exit", () => {
  for (const dir of createdDirs) removeTempDir(dir);
});

/** A new temporary folder, removed after the test file's last test (passed or failed). */
export function tempDir(prefix = "harness-test-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  createdDirs.push(dir);
  onFileEnd(() => removeTempDir(dir));
  return dir;
}

/**
 * No retries: nothing the harness starts may still write into a test's folders once the test has
 * ended (snapshot pruning's `git gc` is awaited, and ended with the harness: src/snapshots/shadow-git.ts),
 * so an ENOTEMPTY here is a bug to find, not a race to wait out.
 */
function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** An environment with no real keys, settings or proxies leaking in from the developer's shell. */
/** The signing key of every queue in the tests (cleanEnv sets it); an attack test forges without it. */
export const TEST_QUEUE_KEY = "test-queue-key-0123456789abcdef";

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/API_KEY|^HARNESS_|^OPENAI|^ANTHROPIC|^OPENROUTER|^FORCE_COLOR$/.test(key)) continue;
    // A developer's proxy would carry the tests' loopback traffic; test/cli/proxy.test.ts sets its own.
    if (/^(https?|no|all)_proxy$/i.test(key)) continue;
    env[key] = value;
  }
  // CLAUDE_CONFIG_DIR: the user's ~/.claude/settings.json would apply to every run; tests read nothing of the machine's.
  return {
    ...env,
    HARNESS_HOME: tempDir("harness-home-"),
    CLAUDE_CONFIG_DIR: tempDir("claude-home-"),
    HARNESS_RETRY_BASE_MS: "5",
    // The queue's signing key (batch/queue/queue-signature.ts): the tests' batches and workers share it.
    HARNESS_QUEUE_KEY: TEST_QUEUE_KEY,
    NO_COLOR: "1",
    ...extra,
  };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI with stdin from `input` (closed when absent, so it is never a TTY). A run past
 * RUN_CLI_LIMIT_MS is killed and ends with SIGKILL and a note on stderr; a run still going when the
 * test ends (a failed assertion while `onSpawn` held it) is killed then.
 */
export function runCli(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    input?: string;
    onSpawn?(child: ReturnType<typeof spawn>): void;
    wrap?: string[];
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // `wrap`: a command the CLI runs under (bwrap with a tiny filesystem), given the CLI's argv last.
    const argv = [...(options.wrap ?? []), process.execPath, CLI, ...args];
    const child = killAtTestEnd(
      spawn(argv[0], argv.slice(1), {
        cwd: options.cwd ?? tempDir(),
        env: options.env ?? cleanEnv(),
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    let stdout = "";
    let stderr = "";
    const limit = setTimeout(() => {
      stderr += `\n[runCli: killed after ${RUN_CLI_LIMIT_MS} ms]\n`;
      child.kill("SIGKILL");
    }, RUN_CLI_LIMIT_MS);
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
    options.onSpawn?.(child);
  });
}

/**
 * Runs the built CLI with a pseudo-terminal as stdin, stdout and stderr (util-linux `script`),
 * so what harness says only on a terminal is seen; the output is merged.
 */
export function runInTerminal(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = killAtTestEnd(
      spawn("script", ["-qefc", command, "/dev/null"], {
        cwd: options.cwd ?? tempDir(),
        env: options.env ?? cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** CLI flags that point the harness at a fake server. */
/** The tool result for call `id` in the fake's `request`-th request (OpenAI chat shape), as the model got it. */
export function toolResultOf(fake: FakeLLM, request: number, id: string): string {
  return fake.requests[request].body.messages.find(
    (m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === id,
  )?.content as string;
}

/** Writes an executable `#!/bin/sh` script (a hook command a test sets up); returns its path. */
export function shellScript(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Writes `value` as JSON, making the folders on the way (a settings file a test sets up). */
export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

export function fakeFlags(server: FakeLLM): string[] {
  return ["--provider", "openai", "--base-url", server.baseUrl, "--model", "fake-model"];
}

/** The real OpenAI-compatible provider, aimed at the fake server. */
export function fakeOpenAIProvider(server: FakeLLM) {
  return createOpenAIChatProvider({
    name: "fake",
    model: "fake-model",
    baseUrl: server.baseUrl,
    apiKey: "test-key",
    keyEnv: "OPENAI_API_KEY",
  });
}

/** The real Anthropic provider, aimed at the fake server; `extra` overrides a setting. */
export function fakeAnthropicProvider(server: FakeLLM, extra: Partial<ProviderSettings> = {}) {
  return createAnthropicProvider({
    name: "anthropic",
    api: "anthropic",
    model: "claude-sonnet-4-5",
    baseUrl: server.url,
    apiKey: "test-key",
    keyEnv: "ANTHROPIC_API_KEY",
    ...extra,
  });
}

/** The events of a `--output stream-json` run, one JSON object a line. */
export function jsonLines(stdout: string): any[] {
  return stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

/** Runs an event generator to its end: every event it yielded, and what it returned. */
export async function drain<Event, Result>(
  generator: AsyncGenerator<Event, Result>,
): Promise<{ events: Event[]; result: Result }> {
  const events: Event[] = [];
  while (true) {
    const next = await generator.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

/**
 * One fake server per test: `serve(script)` starts it; after the test it must have seen no
 * protocol errors (unpaired tool calls, an exhausted script), and it is closed.
 */
export function fakeServerPerTest(): (script: ScriptStep[]) => Promise<FakeLLM> {
  // Every server a test started, not only the last: a test may start several, and one left open keeps the
  // test file's process alive after its last test.
  let servers: FakeLLM[] = [];
  afterEach(async () => {
    const current = servers;
    servers = [];
    for (const server of current) await server.close();
    for (const server of current) assert.deepEqual(server.errors, []);
  });
  return async (script) => {
    const server = await startFakeLLM(script);
    servers.push(server);
    return server;
  };
}

/** The one warning every run prints on a machine without bubblewrap (test/cli/permissions-cli.test.ts checks it). */
const NO_BWRAP_WARNING = /^harness: warning: bubblewrap \(bwrap\) is not installed[^\n]*\n/m;

/** Output without that warning, for tests about something else, so they check the same with or without bwrap. */
export function withoutSandboxWarning(output: string): string {
  return output.replace(NO_BWRAP_WARNING, "");
}

/**
 * A runCli `onSpawn` that sends `signal` to the harness once `file` exists (a command in the run
 * writes it when it has started): polled, and no longer once the harness has exited.
 */
export function signalOnceFileExists(file: string, signal: NodeJS.Signals): (child: ChildProcess) => void {
  return (child) => {
    const timer = setInterval(() => {
      if (!existsSync(file)) return;
      clearInterval(timer);
      child.kill(signal);
    }, 20);
    child.on("exit", () => clearInterval(timer));
  };
}

/**
 * Every file under a state folder (a HARNESS_HOME), as text, but Node's compile cache (Node 22.1+,
 * src/cli/cli.ts): it holds V8's compiled code of harness's own modules, made from their files on disk
 * before any key is read, and its bytes happen to contain runs such as "0123456789", which the
 * secret tests' canary keys end with.
 */
export function stateFiles(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name !== "compile-cache" && !name.startsWith("compile-cache/"))
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, "utf8") }));
}

/** A port on 127.0.0.1 with nothing listening (bound, then released): a provider that is down. */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
