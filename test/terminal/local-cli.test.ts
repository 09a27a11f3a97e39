// `--provider local` from the command line: the built CLI as a child process, a tiny GGUF model,
// the first-run offer in a real terminal, and a harness installed without node-llama-cpp.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { tinyModelGguf } from "../support/gguf/tiny-model.ts";
import { cleanEnv, ROOT, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const models = tempDir("harness-local-cli-");
const HELLO = join(models, "hello.gguf");
writeFileSync(HELLO, tinyModelGguf({ reply: ["Hello", " from", " a", " tiny", " model."] }));

let terminal: TmuxTerminal | undefined;
after(() => terminal?.kill());

test("--provider local runs a GGUF model in-process: only the answer on stdout", async () => {
  const result = await runCli(["--provider", "local", "--model", HELLO, "-p", "Say hello."]);
  assert.equal(withoutSandboxWarning(result.stderr), "");
  assert.equal(result.stdout, "Hello from a tiny model.\n");
  assert.equal(result.code, 0);
});

test("--output json reports the local provider, the model and counted usage", async () => {
  const result = await runCli(["--provider", "local", "--model", HELLO, "--output", "json", "-p", "Say hello."]);
  assert.equal(result.code, 0, result.stderr);
  const done = JSON.parse(result.stdout);
  assert.equal(done.answer, "Hello from a tiny model.");
  assert.equal(done.reason, "stop");
  assert.equal(done.usage.output, 6);
  assert.ok(done.usage.input > 0);
});

test("a headless first run with no key and no provider says how to choose one, --provider local included", async () => {
  const result = await runCli(["-p", "hi"]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^error: no provider configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY, or use --provider local to run a model in-process with no key/,
  );
});

test("a first run at a terminal offers the local model, and a yes runs it", { skip: needs("tmux") }, async () => {
  terminal = TmuxTerminal.start({
    args: ["-p", "Say hello."],
    cwd: tempDir(),
    env: { ...stringEnv(cleanEnv()), TERM: "xterm-256color", HARNESS_MODEL: HELLO },
  });
  await terminal.waitFor(/Run a model on this computer instead\?.*\n.*\[y\/N\]/, "the offer");
  terminal.type("y");
  terminal.send(["Enter"]);
  // Loading node-llama-cpp's native build took more than 20 s on a loaded 2-core machine.
  const screen = await terminal.waitFor(/\[exit \d+\]/, "the end of the run", 90_000);
  assert.match(screen, /using --provider local/);
  assert.match(screen, /Hello from a tiny model\.\n(.*\n)*\[exit 0\]/);
});

test("without node-llama-cpp installed, --provider local says exactly how to add it", async () => {
  // A copy of the built harness whose node_modules has everything but node-llama-cpp.
  const install = tempDir("harness-no-llama-");
  for (const entry of ["bin", "dist", "package.json"])
    cpSync(join(ROOT, entry), join(install, entry), { recursive: true });
  mkdirSync(join(install, "node_modules"));
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === "node-llama-cpp" || name === "@node-llama-cpp") continue;
    symlinkSync(join(ROOT, "node_modules", name), join(install, "node_modules", name));
  }
  const child = spawnSync(
    process.execPath,
    [join(install, "bin", "harness.js"), "--provider", "local", "--model", HELLO, "-p", "hi"],
    { cwd: tempDir(), env: cleanEnv(), encoding: "utf8", input: "" },
  );
  const result = { code: child.status, stderr: child.stderr };
  assert.equal(
    withoutSandboxWarning(result.stderr),
    // A clone's `npm ci` installs it (a devDependency); an installed package's message is in package-install.test.ts.
    `error: --provider local needs node-llama-cpp, which is not installed: run \`npm ci\` in ${install}\n`,
  );
  assert.equal(result.code, 1);
});

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

test("a local model has no vision: an attached image ends the run with one line that says so, not retried", async () => {
  const cwd = tempDir();
  writeFileSync(
    join(cwd, "shot.gif"),
    Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64"),
  );
  const result = await runCli(["--provider", "local", "--model", HELLO, "-p", "what is @shot.gif?"], { cwd });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.equal(
    withoutSandboxWarning(result.stderr),
    "error: the local model hello.gguf has no vision: it reads text only and cannot see the attached image; send the prompt without it, or use a provider with a vision model\n",
  );
});
