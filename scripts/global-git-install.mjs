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
// - no build tools: we install them ourselves, into the clone, as a local install;
// - the symlink: the outer npm then extracts the package through it into the clone, which npm
//   deletes afterwards, so the installed package would be an empty folder or a dangling link
//   (what an earlier attempt that only installed the tools got). We put the folder npm moved
//   aside back in its place, as the inner npm found it; the outer npm then fills it as it meant to.
//   That is done first, before the minutes of installing and building: the outer npm extracts the
//   package's dependencies into that folder at the same time, and what it writes while the
//   symlink stands lands in the clone (in practice it has finished: a dependency from the cache
//   takes milliseconds, the clone and the inner npm's start seconds).
// The inner npm then skips linking the package's bin (bin-links skips a target that is not there
// yet; the outer npm links it) and deletes what it moved aside (back in place: nothing to delete).
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/** True when this prepare runs inside the inner npm of a global git install (the npm/cli#8440 case). */
export function insideGlobalGitPreparation(preparingGitDependency) {
  return preparingGitDependency && process.env.npm_config_global === "true";
}

/** The clone's devDependencies (from its package-lock.json), installed locally: not globally, not into the user's prefix. */
export function installBuildToolsLocally() {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^npm_config_(global|prefix|global_prefix|local_prefix)$/i.test(key),
    ),
  );
  // The npm running this prepare (npm sets npm_execpath for scripts), so the same version and cache.
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ["npm", []];
  // --ignore-scripts: nothing the build needs has an install step that matters (esbuild's binary
  // comes as an optional dependency); node-llama-cpp's would try to download or compile llama.cpp.
  const flags = ["ci", "--global=false", "--include=dev", "--ignore-scripts", "--no-audit", "--no-fund"];
  execFileSync(command, [...args, ...flags], { stdio: ["ignore", "inherit", "inherit"], env });
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
