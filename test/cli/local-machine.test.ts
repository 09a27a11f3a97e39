// `--provider local` on the machine it runs on: threads, context and memory chosen and said,
// a leaner tool prompt, per-family sampling, and errors that say what to do (issue 37). The CLI
// tests run the built harness with tiny GGUF models made here (test/support/gguf).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { QwenChatWrapper } from "node-llama-cpp";
import { toToolSpec } from "../../src/core/tool.ts";
import { chooseSampling, describeToolSyntax } from "../../src/providers/local/local-chat-settings.ts";
import { toFunctions } from "../../src/providers/local/local-history.ts";
import { chooseContextSize, chooseThreads, describeLoad } from "../../src/providers/local/local-resources.ts";
import {
  documentedSchema,
  offeredTools,
  toDocumentedFunctions,
  withDocumentedTools,
} from "../../src/providers/local/local-tools.ts";
import { codingTools } from "../../src/tools/index.ts";
import { tinyModelGguf } from "../support/gguf/tiny-model.ts";
import { cleanEnv, ROOT, runCli, runInTerminal, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const models = tempDir("harness-local-machine-");
const HELLO = join(models, "hello.gguf");
writeFileSync(HELLO, tinyModelGguf({ reply: ["Hello", " from", " a", " tiny", " model."] }));
const GB = 1e9;
/** The tools a session offers: the coding tools, and the task tool the session adds. */
const TOOL_SPECS = [
  ...codingTools.map(toToolSpec),
  { name: "task", description: "Runs a subagent", parameters: { type: "object", properties: {} } },
];

test("threads: the math cores, never node-llama-cpp's floor of 4; a toy model one; the setting wins", () => {
  assert.equal(chooseThreads({ mathCores: 2, modelBytes: 2.5 * GB }), 2);
  assert.equal(chooseThreads({ mathCores: 8, modelBytes: 2.5 * GB }), 8);
  assert.equal(chooseThreads({ mathCores: 2, modelBytes: 350_000 }), 1);
  assert.equal(chooseThreads({ configured: 3, mathCores: 2, modelBytes: 2.5 * GB }), 3);
});

/** A KV cache of `perToken` bytes a token, as node-llama-cpp's estimate grows. */
const kv = (perToken: number) => async (contextSize: number) => contextSize * perToken;

test("context: capped for a small model, shrunk to the free memory, the setting taken as it is", async () => {
  // Qwen3 0.6B: trained on 40k tokens, capped at 8k for its size.
  const small = await chooseContextSize({
    trainedLength: 40_960,
    parameters: 0.6e9,
    modelBytes: 0.4 * GB,
    freeBytes: 20 * GB,
    bytesFor: kv(112_000),
  });
  assert.deepEqual(small, { contextSize: 8192, memoryBytes: 0.4 * GB + 8192 * 112_000, limitedBy: "model size" });
  // Qwen3 4B with plenty of memory: 16k; with 4 GB free, the largest step that fits 75% of it.
  const roomy = await chooseContextSize({
    trainedLength: 262_144,
    parameters: 4e9,
    modelBytes: 2.5 * GB,
    freeBytes: 20 * GB,
    bytesFor: kv(147_000),
  });
  assert.equal(roomy.contextSize, 16_384);
  const tight = await chooseContextSize({
    trainedLength: 262_144,
    parameters: 4e9,
    modelBytes: 2.5 * GB,
    freeBytes: 4 * GB,
    bytesFor: kv(147_000),
  });
  assert.deepEqual([tight.contextSize, tight.limitedBy], [2048, "free memory"]);
  // A model trained on less than a step keeps its own length.
  const short = await chooseContextSize({
    trainedLength: 6000,
    parameters: 1e9,
    modelBytes: GB,
    freeBytes: 20 * GB,
    bytesFor: kv(1000),
  });
  assert.equal(short.contextSize, 6000);
  const configured = await chooseContextSize({
    configured: 32_768,
    trainedLength: 40_960,
    parameters: 0.6e9,
    modelBytes: 0.4 * GB,
    freeBytes: 1 * GB,
    bytesFor: kv(100),
  });
  assert.equal(configured.contextSize, 32_768);
  assert.equal(
    describeLoad(small, 2),
    "context 8k (capped for model size; config.json contextWindow sets it) · ~1.3 GB · 2 threads",
  );
});

test("sampling: the model file's own, else its family's, else llama.cpp's defaults; never Qwen's for all", () => {
  assert.deepEqual(chooseSampling(["qwen3", "Qwen3 4B Instruct 2507"], undefined).sampling, {
    temperature: 0.7,
    topP: 0.8,
    topK: 20,
    minP: 0,
  });
  assert.deepEqual(chooseSampling(["gemma3", "Gemma 3 270m It"], undefined).sampling, {
    temperature: 1.0,
    topP: 0.95,
    topK: 64,
  });
  assert.equal(chooseSampling(["phi3", "Phi 4 Mini"], undefined).source, "llama.cpp's defaults");
  assert.deepEqual(chooseSampling(["qwen3"], { temp: 0.6, top_k: 20, top_p: 0.95 }), {
    sampling: { temperature: 0.6, topK: 20, topP: 0.95 },
    source: "the model file",
  });
  assert.equal(describeToolSyntax("Qwen", false), "tool calls in the model's own template");
  assert.match(describeToolSyntax("Gemma", false), /generic syntax \(the Gemma template has no tool section\)/);
});

test("the model reads the tools as written, without the grammar's null wrappers; the grammar keeps them", () => {
  const specs = TOOL_SPECS;
  const readFile = specs.find((spec) => spec.name === "read_file");
  assert.ok(readFile);
  const documented = documentedSchema(readFile.parameters) as { properties: Record<string, { type: unknown }> };
  assert.deepEqual(documented.properties.limit.type, ["integer", "null"]);
  assert.equal(JSON.stringify(documented).includes("additionalProperties"), false);

  // Rendered by node-llama-cpp's real Qwen wrapper, as the prompt the model evaluates.
  const grammar = toFunctions(specs);
  const render = (wrapper: QwenChatWrapper | ReturnType<typeof withDocumentedTools>) =>
    wrapper
      .generateContextState({ chatHistory: [{ type: "user", text: "hi" }], availableFunctions: grammar })
      .contextText.toString();
  const stock = render(new QwenChatWrapper());
  const lean = render(withDocumentedTools(new QwenChatWrapper(), () => toDocumentedFunctions(specs)));
  assert.match(stock, /optional: null leaves it out/);
  assert.doesNotMatch(lean, /optional: null leaves it out/);
  assert.ok(lean.length < stock.length, `lean ${lean.length} chars, stock ${stock.length}`);
});

test("a CPU or a small context offers the core tools and keeps every tool of MCP servers and library users", () => {
  const specs = [...TOOL_SPECS, { name: "srv__lookup", description: "an MCP tool", parameters: {} }];
  const { offered, left } = offeredTools(specs, { contextSize: 8192, onCpu: false });
  assert.deepEqual(offered.map((spec) => spec.name).sort(), [
    "bash",
    "edit_file",
    "grep",
    "list_files",
    "read_file",
    "srv__lookup",
    "write_file",
  ]);
  assert.ok(left.includes("web_fetch") && left.includes("task"));
  assert.equal(offeredTools(specs, { contextSize: 16_384, onCpu: false }).offered.length, specs.length);
  assert.deepEqual(offeredTools(specs, { contextSize: 16_384, onCpu: true }).offered, offered);
});

test("at a terminal the load says context, memory, threads, how tools are called and which were left out", {
  skip: needs("script"),
}, async () => {
  const result = await runInTerminal(["--provider", "local", "--model", HELLO, "-p", "Say hello."], {
    env: cleanEnv({ HARNESS_LOCAL_THREADS: "2" }),
  });
  assert.equal(result.code, 0, result.output);
  assert.match(
    result.output,
    /local model: context 8k · ~\d+ MB · 2 threads · tool calls in the model's own template · sampling from Llama's recommendation · 6 of 13 tools \(on the CPU: [a-z_, ]+ left out\)/,
  );
  assert.match(result.output, /Hello from a tiny model\./);
});

test("off a terminal the load says nothing; a broken HARNESS_LOCAL_THREADS is a usage error", async () => {
  const quiet = await runCli(["--provider", "local", "--model", HELLO, "-p", "Say hello."]);
  assert.equal(withoutSandboxWarning(quiet.stderr), "");
  assert.equal(quiet.stdout, "Hello from a tiny model.\n");
  const broken = await runCli(["--provider", "local", "--model", HELLO, "-p", "hi"], {
    env: cleanEnv({ HARNESS_LOCAL_THREADS: "many" }),
  });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /HARNESS_LOCAL_THREADS must be a whole number from 1 to 256, not "many"/);
});

/** A port on 127.0.0.1 that nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("a model host that cannot be reached is said as such, with how to use a file instead; nothing 'broke off'", async () => {
  const port = await closedPort();
  const env = cleanEnv();
  const result = await runCli(["--provider", "local", "--model", `http://127.0.0.1:${port}/m.gguf`, "-p", "hi"], {
    env,
  });
  assert.equal(result.code, 1);
  assert.doesNotMatch(result.stderr, /broke off/);
  assert.match(
    result.stderr,
    new RegExp(
      `error: cannot reach 127\\.0\\.0\\.1:${port} to download the model \\(ECONNREFUSED\\); nothing was downloaded\\. Instead, use a GGUF file you have with --model /path/to/file\\.gguf \\(in chat: /model /path/to/file\\.gguf\\), or download one into ${env.HARNESS_HOME}/models`,
    ),
  );
});

test("harness models --provider local with none downloaded says how to add a model file", async () => {
  const env = cleanEnv();
  const result = await runCli(["models", "--provider", "local"], { env });
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "");
  assert.match(
    result.stderr,
    /harness models: no local model downloaded yet: use a GGUF file you have with --model \/path\/to\/file\.gguf/,
  );
});

test("without a prebuilt llama.cpp binary, --provider local says what to install, no stack", () => {
  // A copy of the built harness whose node_modules has node-llama-cpp but none of its binary packages.
  const install = tempDir("harness-no-binary-");
  for (const entry of ["bin", "dist", "package.json"])
    cpSync(join(ROOT, entry), join(install, entry), { recursive: true });
  mkdirSync(join(install, "node_modules"));
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === "@node-llama-cpp") continue;
    symlinkSync(join(ROOT, "node_modules", name), join(install, "node_modules", name));
  }
  const child = spawnSync(
    process.execPath,
    // --preserve-symlinks: node-llama-cpp, linked in, looks for its binaries in this node_modules, not in ROOT's.
    ["--preserve-symlinks", join(install, "bin", "harness.js"), "--provider", "local", "--model", HELLO, "-p", "hi"],
    { cwd: tempDir(), env: { ...cleanEnv(), NODE_LLAMA_CPP_SKIP_DOWNLOAD: "true" }, encoding: "utf8", input: "" },
  );
  assert.equal(child.status, 1, child.stderr);
  assert.match(
    withoutSandboxWarning(child.stderr),
    /^error: --provider local found no prebuilt llama\.cpp binary for linux-x64: node-llama-cpp brings them as optional packages such as @node-llama-cpp\/linux-x64\. Run `npm ci` in \/.* without --omit=optional/,
  );
  assert.doesNotMatch(child.stderr, /NoBinaryFoundError|\n\s+at /);
});

test("while it reads a long prompt the model says how far it is, before any output, and the clock shows it", {
  skip: needs("script"),
}, async () => {
  const result = await runCli(["--provider", "local", "--model", HELLO, "--output", "stream-json", "-p", "Say hello."]);
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const progress = events.filter((event) => event.type === "prompt_progress");
  assert.ok(progress.length >= 1, result.stdout);
  assert.equal(progress[0].done, 0);
  const total = progress[0].total;
  assert.ok(total > 256, `total ${total}`); // the tiny model's tokens are characters: thousands
  for (const [i, event] of progress.entries()) {
    assert.equal(event.total, total);
    assert.ok(event.done <= total && (i === 0 || event.done > progress[i - 1].done), JSON.stringify(progress));
  }
  const firstText = events.findIndex((event) => event.type === "text_delta");
  assert.ok(events.lastIndexOf(progress.at(-1)) < firstText, "progress comes before the reply");

  // On a colour terminal the waiting clock carries it.
  const env = cleanEnv();
  delete env.NO_COLOR;
  const screen = await runInTerminal(["--provider", "local", "--model", HELLO, "-p", "Say hello."], { env });
  assert.equal(screen.code, 0, screen.output);
  assert.match(screen.output, /thinking \d+s · reading the prompt 0\/[\d,]+ tokens/);
});
