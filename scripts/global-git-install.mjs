// What `npm install -g <git URL>` needs from prepare on the npm that ships with Node 20, 22 and 24
// (npm 10.8, 10.9, 11.x). npm/pacote prepares a git dependency by running `npm install --force` in
// its clone (pacote lib/git.js #prepareDir). That inner npm inherits npm_config_global=true from
// the outer one (@npmcli/config puts every non-default setting into the environment), so instead
// of installing the clone's devDependencies it installs the clone itself as a global package:
// it moves aside (arborist's retirePath: `.<name>-<hash>` beside it) the folder the outer npm
// had already made for the package in <prefix>/lib/node_modules, with the dependencies the outer
// npm had extracted into it, and puts a symlink to the clone there
// (https://github.com/npm/cli/issues/8440; fixed in pacote by npm/pacote#494, which passes
// --global=false). Then it runs this prepare, in the clone. Two things follow:
// - no build tools: we install only what the build needs (installBuildTools), as a local install
//   into a temporary folder outside the clone, and remove it after the build;
// - the symlink: the outer npm then extracts the package through it into the clone, which npm
//   deletes afterwards, so the installed package would be an empty folder or a dangling link
//   (what an earlier attempt that only installed the tools got). We put the folder npm moved
//   aside back in its place, as the inner npm found it; the outer npm then fills it as it meant to.
//   That is done first, before the seconds of installing and building: the outer npm extracts the
//   package's dependencies into that folder at the same time, and what it writes while the
//   symlink stands lands in the clone (in practice it has finished: a dependency from the cache
//   takes milliseconds, the clone and the inner npm's start seconds).
// The inner npm then skips linking the package's bin (bin-links skips a target that is not there
// yet; the outer npm links it) and deletes what it moved aside (back in place: nothing to delete).
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** True when this prepare runs inside the inner npm of a global git install (the npm/cli#8440 case). */
export function insideGlobalGitPreparation(preparingGitDependency) {
  return preparingGitDependency && process.env.npm_config_global === "true";
}

/**
 * What scripts/build.mjs needs, and nothing else: esbuild (its platform binary is an optional
 * dependency), typescript for the declarations with the types tsc reads (@types/*), and every
 * package src/ imports, which esbuild bundles (their code) and tsc resolves (their types:
 * node-llama-cpp's, without its ~690 MB of llama.cpp binaries, which are optional dependencies).
 * A package src/ starts importing and this list lacks fails the build, and with it the one-step
 * test in test/install/package-install.test.ts. The test-only devDependencies (node-llama-cpp's binaries,
 * the MCP test servers, playwright-core, Biome, tsx) are what made the old `npm ci` take minutes.
 */
const BUILD_PACKAGES = [
  "esbuild",
  "typescript",
  "@types/node",
  "@types/turndown",
  "@agentclientprotocol/sdk",
  "@modelcontextprotocol/sdk",
  "@silvia-odwyer/photon-node",
  "bullmq",
  "node-llama-cpp",
  "turndown",
  "zod",
];

/**
 * Installs BUILD_PACKAGES into a temporary folder outside the clone, at exactly the versions of
 * the clone's package-lock.json (a package.json naming them, and the clone's lock with its root
 * entry replaced: `npm ci` keeps the locked version of everything those reach and drops the rest),
 * and links the clone's node_modules to it, so esbuild and tsc resolve from src/ as in any clone
 * (tsc has no search path to point at the folder: it walks up from each source file). Locally:
 * not globally, not into the user's prefix. Returns what removes the link and the folder.
 */
export function installBuildTools() {
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
  const locked = (name) => lock.packages[`node_modules/${name}`]?.version;
  const esbuildBinary = Object.keys(lock.packages).find((key) => {
    const entry = lock.packages[key];
    return (
      key.startsWith("node_modules/@esbuild/") &&
      entry.os?.includes(process.platform) &&
      entry.cpu?.includes(process.arch)
    );
  });
  const names = esbuildBinary ? [...BUILD_PACKAGES, esbuildBinary.slice("node_modules/".length)] : BUILD_PACKAGES;
  const dependencies = Object.fromEntries(names.map((name) => [name, locked(name)]));
  const tools = mkdtempSync(join(tmpdir(), "agent-harness-build-"));
  const manifest = { name: "agent-harness-build-tools", version: "0.0.0", private: true, dependencies };
  lock.name = manifest.name;
  lock.version = manifest.version;
  lock.packages[""] = { name: manifest.name, version: manifest.version, dependencies };
  writeFileSync(join(tools, "package.json"), JSON.stringify(manifest));
  writeFileSync(join(tools, "package-lock.json"), JSON.stringify(lock));
  // The inner npm may have installed the clone's production dependency into the clone: kept
  // aside for the build and put back after, as the inner npm left it.
  const aside = existsSync("node_modules") ? ".node_modules-before-build" : undefined;
  if (aside) renameSync("node_modules", aside);
  const remove = () => {
    rmSync("node_modules", { force: true });
    if (aside) renameSync(aside, "node_modules");
    rmSync(tools, { recursive: true, force: true });
  };
  try {
    runNpm(esbuildBinary ? ["--omit=optional"] : [], tools);
    symlinkSync(join(tools, "node_modules"), "node_modules", "junction");
  } catch (error) {
    remove();
    throw error;
  }
  return remove;
}

/** `npm ci` in `cwd` with the npm running this prepare (npm sets npm_execpath for scripts): the same version and cache. */
function runNpm(extraFlags, cwd) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^npm_config_(global|prefix|global_prefix|local_prefix)$/i.test(key),
    ),
  );
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ["npm", []];
  // --omit=optional (when esbuild's binary for this platform is named above, so kept): drops
  // node-llama-cpp's binaries. --ignore-scripts: nothing the build needs has an install step that
  // matters; node-llama-cpp's would try to download or compile llama.cpp.
  const flags = ["ci", "--global=false", "--ignore-scripts", "--no-audit", "--no-fund", ...extraFlags];
  execFileSync(command, [...args, ...flags], { cwd, stdio: ["ignore", "inherit", "inherit"], env });
}

/** Puts back, in the user's global prefix, the package folder the inner npm replaced by a symlink to this clone. */
export function undoGlobalLinkToClone() {
  const prefix = process.env.npm_config_prefix;
  if (!prefix) return;
  const { name } = JSON.parse(readFileSync("package.json", "utf8"));
  const modules = process.platform === "win32" ? join(prefix, "node_modules") : join(prefix, "lib", "node_modules");
  const installed = join(modules, name);
  if (!isLinkTo(installed, process.cwd())) return;
  // arborist's retirePath: `.${basename}-${8 characters of a hash}` in the same folder.
  const base = name.split("/").at(-1);
  const parent = join(installed, "..");
  const retired = readdirSync(parent).filter(
    (entry) => entry.startsWith(`.${base}-`) && entry.length === base.length + 10,
  );
  rmSync(installed);
  if (retired.length === 1) renameSync(join(parent, retired[0]), installed);
  else mkdirSync(installed);
}

function isLinkTo(path, target) {
  try {
    return lstatSync(path).isSymbolicLink() && realpathSync(path) === realpathSync(target);
  } catch {
    return false;
  }
}
