// harness as a dependency: a temporary consumer project that has it in node_modules (a symlink,
// as `npm link` makes) imports the built package, type-checks against its declarations, and
// runs docs/library.md's library example against the fake server. Needs the full build (`npm run
// build`, which `npm test` runs first), since it checks dist/types too.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { cleanEnv, fakeServerPerTest, ROOT, tempDir } from "../support/helpers.ts";

const run = promisify(execFile);

const serve = fakeServerPerTest();

/** The ```ts blocks of docs/library.md's Library section, in order: the loop, then the session. */
function readmeExamples(): string[] {
  const readme = readFileSync(join(ROOT, "docs", "library.md"), "utf8");
  const start = readme.indexOf("## Library");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
  assert.ok(
    blocks.length >= 2,
    "docs/library.md's Library section has a ```ts example of the loop and one of the session",
  );
  return blocks;
}

function readmeExample(): string {
  return readmeExamples()[0];
}

function consumerProject(): string {
  assert.ok(
    existsSync(join(ROOT, "dist", "types", "index.d.ts")),
    "dist/types is missing: run `npm run build` (not --no-types) first",
  );
  const dir = tempDir("harness-consumer-");
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules", "agent-harness"), "dir");
  symlinkSync(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
  symlinkSync(join(ROOT, "node_modules", "@types", "node"), join(dir, "node_modules", "@types", "node"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
      },
    }),
  );
  return dir;
}

test("docs/library.md's example runs from a consumer project against the fake server", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_1", name: "shout", arguments: { text: "hello" } }] } },
    { reply: { text: "HELLO, as shouted." } },
  ]);
  const dir = consumerProject();
  writeFileSync(join(dir, "example.mjs"), readmeExample());
  const env = cleanEnv({
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });
  const { stdout } = await run(process.execPath, ["example.mjs"], { cwd: dir, env });
  assert.equal(stdout, "HELLO, as shouted.");
  assert.equal(fake.requests[1].body.messages.at(-1).content, "HELLO");
  assert.ok(fake.requests[0].body.tools.some((tool: { function: { name: string } }) => tool.function.name === "shout"));
});

test("docs/library.md's session example runs the CLI's session: rules, sandbox, recorder", async () => {
  const fake = await serve([{ reply: { text: "Two files." } }]);
  const dir = consumerProject();
  const home = tempDir("harness-consumer-home-");
  writeFileSync(join(dir, "session.mjs"), readmeExamples()[1]);
  const env = cleanEnv({
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
    HARNESS_HOME: home,
  });
  const { stdout } = await run(process.execPath, ["session.mjs"], { cwd: dir, env });
  assert.equal(stdout, "Two files.");
  // The session's own system prompt and tools went out, and the run was recorded where -r finds it.
  assert.ok(fake.requests[0].body.tools.some((tool: { function: { name: string } }) => tool.function.name === "bash"));
  const sessions = readdirSync(join(home, "sessions"), { recursive: true }).map(String);
  assert.ok(
    sessions.some((name) => name.endsWith(".jsonl")),
    `a session file under HARNESS_HOME: ${sessions.join(", ")}`,
  );
});

test("a CommonJS consumer can require() the package (Node's require of ES modules)", async () => {
  const dir = consumerProject();
  writeFileSync(
    join(dir, "consumer.cjs"),
    'const harness = require("agent-harness");\nconsole.log(typeof harness.createSession, typeof harness.runAgent, typeof harness.defineTool);\n',
  );
  const { stdout } = await run(process.execPath, ["consumer.cjs"], { cwd: dir });
  assert.equal(stdout.trim(), "function function function");
});

test("the build ships the licence and the notices of every package it bundles", () => {
  assert.match(readFileSync(join(ROOT, "LICENSE"), "utf8"), /^MIT License/);
  const notices = readFileSync(join(ROOT, "dist", "THIRD-PARTY-NOTICES.md"), "utf8");
  // Bundled packages of each licence kind, Apache-2.0 ones with their licence text.
  for (const name of ["zod", "@agentclientprotocol/sdk", "@modelcontextprotocol/sdk", "turndown"])
    assert.match(notices, new RegExp(`^## ${name.replace("/", "\\/")} \\d`, "m"), `${name} is listed`);
  assert.match(notices, /Apache License\s+Version 2\.0/);
  const files = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] }).files;
  assert.ok(
    files.includes("LICENSE") && files.includes("dist"),
    "the package carries LICENSE and dist/ with the notices",
  );
});

test("the package's declarations type-check a consumer that uses Agent, runAgent, defineTool and the events", async () => {
  const dir = consumerProject();
  writeFileSync(join(dir, "example.ts"), readmeExample());
  writeFileSync(join(dir, "session.ts"), readmeExamples()[1]);
  writeFileSync(
    join(dir, "typed.ts"),
    `import { runAgent, defineTool, type AgentEvent, type RunResult, type ToolHook } from "agent-harness";
import { z } from "zod";
const count = defineTool({ name: "count", description: "Count letters.", kind: "read", input: z.object({ word: z.string() }), effects: () => ({}), run: async ({ word }) => String(word.length) });
const lines = defineTool({ name: "lines", description: "Count a file's lines.", kind: "read", input: z.object({ file_path: z.string() }), effects: ({ file_path }) => ({ reads: [file_path] }), run: async () => "0" });
const formatter: ToolHook = { afterToolCall: async (_call, result) => ({ content: \`\${result.content} (\${result.changedFiles?.length ?? 0} changed)\` }) };
export async function last(provider: Parameters<typeof runAgent>[0]["provider"]): Promise<RunResult> {
  const run = runAgent({ provider, tools: [count, lines], system: "", cwd: ".", messages: [], prompt: "hi", toolHooks: [formatter], toolContext: { env: {} }, beforeToolCall: async (call) => (call.name === "count" ? { block: "no" } : undefined) });
  for (let step = await run.next(); ; step = await run.next()) if (step.done) return step.value;
}
export const isToolEnd = (event: AgentEvent): boolean => event.type === "tool_end" && event.isError;
// @ts-expect-error: a tool's run gets its typed input, so a number field does not exist
defineTool({ name: "x", description: "", kind: "read", input: z.object({ a: z.string() }), run: async ({ b }) => b });
`,
  );
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  const result = await run(process.execPath, [tsc, "-p", "."], { cwd: dir }).catch((error: { stdout: string }) => ({
    stdout: error.stdout,
    failed: true,
  }));
  assert.equal(result.stdout, "", "tsc reports no errors");
  assert.ok(!("failed" in result));
});
