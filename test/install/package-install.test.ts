// The package a user installs: `npm pack`, then `npm install -g` from the tarball and, in one step,
// from a git URL (built by scripts/prepare.mjs in npm's clone), each into a prefix of its own, and
// the installed `harness` answers --version and a one-shot against the fake server. npm runs with
// --offline: everything comes from its cache, which `npm ci` filled with every tarball; the
// production dependency's registry document `npm ci` does not keep, so .ci/run adds it
// (`npm cache add`), and elsewhere a test whose cache lacks it skips, naming the command. A git
// URL's build tools come from the repository's package-lock.json (scripts/global-git-install.mjs),
// so their tarballs, which `npm ci` cached, are all it needs. The bounds are liveness bounds, far
// above a real run.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { tinyModelGguf } from "../support/gguf/tiny-model.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { killAtTestEnd } from "../support/teardown.ts";

const run = promisify(execFile);
const serve = fakeServerPerTest();
/** One npm command may take this long (a git URL's preparation installs ~150 MB of build tools). */
const NPM_LIMIT_MS = 8 * 60_000;

/** npm's environment without the npm_* variables of the `npm test` that runs this (its prefix, its lifecycle). */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
}

async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run("npm", [...args, "--no-audit", "--no-fund"], {
    cwd,
    env: { ...npmEnv(), ...env },
    timeout: NPM_LIMIT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** The production dependencies as npm specs, which `npm cache add` puts in the cache for --offline. */
const PRODUCTION_DEPENDENCIES = Object.entries(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> })
    .dependencies,
).map(([name, version]) => `${name}@${version}`);

/**
 * Why npm could not install from its cache alone (what it lacked), or undefined when it failed for
 * another reason. Under HARNESS_TEST_REQUIRE_ALL=1 (CI, whose .ci/run fills the cache) that is a failure.
 */
function cacheMissReason(error: unknown): string | undefined {
  const text = String((error as { stderr?: string }).stderr ?? error);
  if (!/ENOTCACHED/.test(text)) return undefined;
  const url = /request to (\S+) failed/.exec(text)?.[1] ?? "a registry document";
  // A tarball is one of package-lock.json's (a git URL's build tools): `npm ci` caches those.
  const fix = url.endsWith(".tgz")
    ? "`npm ci` in the repository caches it"
    : `\`npm cache add ${PRODUCTION_DEPENDENCIES.join(" ")}\` adds it`;
  const reason = `npm's cache lacks ${url} (--offline); ${fix}`;
  if (process.env.HARNESS_TEST_REQUIRE_ALL === "1") throw new Error(`HARNESS_TEST_REQUIRE_ALL=1 but ${reason}`);
  return reason;
}

/** Installs `spec` globally into a new prefix, from npm's cache alone; the prefix. */
async function installGlobally(spec: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const prefix = tempDir("harness-prefix-");
  await npm(["install", "--global", "--prefix", prefix, "--offline", spec], cwd, env);
  return prefix;
}

/** Where a global install into `prefix` put the package. */
const packageIn = (prefix: string) => join(prefix, "lib", "node_modules", "agent-harness");

/** The CLI npm linked into <prefix>/bin. */
const linkedCli = (prefix: string) => join(prefix, "bin", "harness");

/** The installed CLI answers --version and a one-shot, with nothing on stderr. */
async function assertInstalledWorks(cli: string): Promise<void> {
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
  let prefix: string;
  try {
    prefix = await installGlobally(join(packs, tarball), packs);
  } catch (error) {
    const reason = cacheMissReason(error);
    if (reason) return t.skip(reason);
    throw error;
  }
  const installed = packageIn(prefix);
  assert.deepEqual(readdirSync(join(installed, "node_modules")), ["@silvia-odwyer"]);
  assert.ok(existsSync(join(installed, "docs", "events.md")), "docs/events.md, which --help names, is in the package");
  assert.equal(existsSync(join(installed, "src")), false, "no sources, only the bundle");
  await assertInstalledWorks(linkedCli(prefix));
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

test("from a git URL in one step: npm builds its clone (prepare), installs the package globally, and it runs", async (t) => {
  // A clone of the committed tree, as a user's git URL would give. npm before pacote's fix runs the
  // clone's preparation as a global install of the clone (npm/cli#8440): prepare puts back the
  // folder npm replaced, installs only the build tools, outside the clone, builds and removes them
  // (scripts/global-git-install.mjs).
  const clone = join(tempDir("harness-clone-"), "agent-harness");
  // The temporary folder of npm and of prepare's build tools (os.tmpdir()), to see them removed.
  const npmTemp = tempDir("harness-npm-tmp-");
  await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone]);
  let prefix: string;
  try {
    prefix = await installGlobally(`git+file://${clone}`, tempDir(), { TMPDIR: npmTemp });
  } catch (error) {
    const reason = cacheMissReason(error);
    if (reason) return t.skip(reason);
    throw error;
  }
  const installed = packageIn(prefix);
  assert.ok(lstatSync(installed).isDirectory(), "a folder of its own, not a link into npm's clone (deleted by now)");
  assert.ok(existsSync(join(installed, "dist", "cli.js")), "prepare built dist/ in npm's clone");
  assert.deepEqual(readdirSync(join(installed, "node_modules")), ["@silvia-odwyer"]);
  assert.equal(existsSync(join(installed, "src")), false, "no sources, only the bundle");
  assert.deepEqual(
    readdirSync(join(prefix, "lib", "node_modules")),
    ["agent-harness"],
    "nothing npm moved aside is left",
  );
  assert.deepEqual(
    readdirSync(npmTemp).filter((entry) => entry.startsWith("agent-harness-build-")),
    [],
    "prepare removed its build tools",
  );
  await assertInstalledWorks(linkedCli(prefix));
});

test("npm ci --omit=dev in a fresh clone builds dist/ with tools it removes after, and leaves node_modules to the production dependency", async (t) => {
  const clone = join(tempDir("harness-clone-"), "agent-harness");
  const npmTemp = tempDir("harness-npm-tmp-");
  await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone]);
  try {
    await npm(["ci", "--omit=dev", "--offline"], clone, { TMPDIR: npmTemp });
  } catch (error) {
    const reason = cacheMissReason(error);
    if (reason) return t.skip(reason);
    throw error;
  }
  assert.ok(existsSync(join(clone, "dist", "cli.js")), "prepare built dist/");
  assert.ok(
    lstatSync(join(clone, "node_modules")).isDirectory(),
    "node_modules is the clone's own again, not the tools' link",
  );
  assert.deepEqual(
    readdirSync(join(clone, "node_modules")).filter((entry) => !entry.startsWith(".")),
    ["@silvia-odwyer"],
  );
  assert.deepEqual(
    readdirSync(npmTemp).filter((entry) => entry.startsWith("agent-harness-build-")),
    [],
    "prepare removed its build tools",
  );
  await assertInstalledWorks(join(clone, "bin", "harness.js"));
});
