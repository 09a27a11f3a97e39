// The package a user installs: `npm pack`, then `npm install -g` from the tarball and from a git
// URL (built by scripts/prepare.mjs in npm's clone), each into a prefix of its own, and the
// installed `harness` answers --version and a one-shot against the fake server. Slow (a git URL
// installs every devDependency to build): the bounds are liveness bounds, far above a real run.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { tinyModelGguf } from "./gguf/tiny-model.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, tempDir, withoutSandboxWarning } from "./helpers.ts";
import { killAtTestEnd } from "./teardown.ts";

const run = promisify(execFile);
const serve = fakeServerPerTest();
/** One npm command may take this long (a git URL's preparation installs ~100 MB of build tools). */
const NPM_LIMIT_MS = 8 * 60_000;

/** npm's environment without the npm_* variables of the `npm test` that runs this (its prefix, its lifecycle). */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
}

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run("npm", [...args, "--no-audit", "--no-fund"], {
    cwd,
    env: npmEnv(),
    timeout: NPM_LIMIT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Why npm could not do it for want of the registry, or undefined when it failed for another reason. */
function offlineReason(error: unknown): string | undefined {
  const text = String((error as { stderr?: string }).stderr ?? error);
  return /ENOTFOUND|EAI_AGAIN|ENOTCACHED|ECONNREFUSED|ETIMEDOUT|ECONNRESET/.test(text)
    ? `npm cannot reach the registry: ${/npm error code (\w+)/.exec(text)?.[1] ?? "network"}`
    : undefined;
}

/** Installs `spec` globally into a new prefix; the installed package's folder. */
async function installGlobally(spec: string, cwd: string): Promise<string> {
  const prefix = tempDir("harness-prefix-");
  await npm(["install", "--global", "--prefix", prefix, "--prefer-offline", spec], cwd);
  return join(prefix, "lib", "node_modules", "agent-harness");
}

/** The installed CLI answers --version and a one-shot against the fake server, with nothing on stderr. */
async function assertInstalledWorks(installed: string): Promise<void> {
  const cli = join(installed, "bin", "harness.js");
  const version = await runInstalled(cli, ["--version"]);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const fake = await serve([{ reply: { text: "installed and answering" } }]);
  const oneShot = await runInstalled(cli, [...fakeFlags(fake), "-p", "hi"]);
  assert.equal(oneShot.stdout, "installed and answering\n");
  assert.equal(withoutSandboxWarning(oneShot.stderr), "");
}

/** Runs an installed CLI with stdin closed, as a script would. */
function runInstalled(cli: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = killAtTestEnd(
      spawn(process.execPath, [cli, ...args], { cwd: tempDir(), env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] }),
    );
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", () => resolve({ stdout, stderr }));
  });
}

test("the packed tarball installs globally with one dependency (photon-node), ships docs/, and the installed harness runs", async (t) => {
  assert.ok(existsSync(join(ROOT, "dist", "cli.js")), "dist/ is built (npm test builds first)");
  const packs = tempDir("harness-pack-");
  // --ignore-scripts: dist/ is built already, and rebuilding it would pull it from under the tests running beside this one.
  const tarball = (await npm(["pack", "--ignore-scripts", "--pack-destination", packs], ROOT))
    .trim()
    .split("\n")
    .at(-1)!;
  let installed: string;
  try {
    installed = await installGlobally(join(packs, tarball), packs);
  } catch (error) {
    const reason = offlineReason(error);
    if (reason) return t.skip(reason);
    throw error;
  }
  assert.deepEqual(readdirSync(join(installed, "node_modules")), ["@silvia-odwyer"]);
  assert.ok(existsSync(join(installed, "docs", "events.md")), "docs/events.md, which --help names, is in the package");
  assert.equal(existsSync(join(installed, "src")), false, "no sources, only the bundle");
  await assertInstalledWorks(installed);
  // The local model: the message names one command, and what it installs (node-llama-cpp, in the
  // prefix's node_modules beside agent-harness) is where the installed harness finds it.
  const model = join(tempDir("harness-models-"), "hello.gguf");
  writeFileSync(model, tinyModelGguf({ reply: ["Hello", " from", " beside"] }));
  const local = ["--provider", "local", "--model", model, "-p", "hi"];
  const missing = await runInstalled(join(installed, "bin", "harness.js"), local);
  assert.equal(
    withoutSandboxWarning(missing.stderr),
    "error: --provider local needs node-llama-cpp, which is not installed: run `npm install -g --ignore-scripts node-llama-cpp@3.21.1`\n",
  );
  // What that command makes, without fetching 730 MB again: the package in <prefix>/lib/node_modules.
  symlinkSync(join(ROOT, "node_modules", "node-llama-cpp"), join(installed, "..", "node-llama-cpp"), "dir");
  const found = await runInstalled(join(installed, "bin", "harness.js"), local);
  assert.equal(found.stdout, "Hello from beside\n", found.stderr);
});

test("from a git URL: npm builds the clone (prepare), and the package it makes installs globally and runs", async (t) => {
  // A clone of the committed tree, as a user's git URL would give. `npm install -g <git URL>` in one
  // step is broken by npm itself (npm/cli#8440; README "Install"): `npm pack <git URL>` then the tarball is the way.
  const clone = join(tempDir("harness-clone-"), "agent-harness");
  await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone]);
  const packs = tempDir("harness-pack-");
  let installed: string;
  try {
    const tarball = (await npm(["pack", "--prefer-offline", `git+file://${clone}`], packs)).trim().split("\n").at(-1)!;
    installed = await installGlobally(join(packs, tarball), packs);
  } catch (error) {
    const reason = offlineReason(error);
    if (reason) return t.skip(reason);
    throw error;
  }
  assert.ok(existsSync(join(installed, "dist", "cli.js")), "prepare built dist/ in npm's clone");
  await assertInstalledWorks(installed);
});
