// npm's `prepare`: builds dist/ (scripts/build.mjs) wherever npm runs it: `npm ci` / `npm install`
// in a clone, `npm pack` and `npm publish`, and an install from a git URL. A package installed
// from the registry ships dist/ built and never runs this.
//
// Two cases need more than `node scripts/build.mjs`:
// - `npm install -g git+https://...` (or git+file:): npm prepares the clone with an inner
//   `npm install`, but it inherits the outer install's global setting and installs the clone
//   into the global prefix instead of installing its devDependencies into it
//   (https://github.com/npm/cli/issues/8440, open in npm 11), so esbuild is not there. Here that
//   inner install is done again, locally and from the lockfile (`npm ci`), then the build runs.
// - `npm ci --omit=dev` in a clone: there are no build tools by request. With dist/ already built
//   (an earlier `npm ci`), there is nothing to do; without it, say what to run instead of
//   failing on a missing module.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function hasBuildTools() {
  try {
    require.resolve("esbuild");
    require.resolve("typescript");
    return true;
  } catch {
    return false;
  }
}

/** npm preparing a git dependency: it clones into its cache's tmp folder and runs `install --force` there. */
const preparingGitDependency = /[\\/]_cacache[\\/]tmp[\\/]git-clone/.test(process.cwd());

if (!hasBuildTools() && preparingGitDependency) {
  const env = { ...process.env, npm_config_global: "false", npm_config_location: "project" };
  delete env.npm_config_prefix;
  console.error("agent-harness: installing the build tools into the git clone (npm ci), then building dist/");
  execFileSync(
    process.env.npm_execpath ? process.execPath : "npm",
    [...npmCommand(), "ci", "--include=dev", "--ignore-scripts", "--no-audit", "--no-fund"],
    {
      stdio: ["ignore", 2, 2],
      env,
    },
  );
}

if (hasBuildTools()) {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
} else if (existsSync("dist/cli.js")) {
  console.error("agent-harness: devDependencies omitted; keeping the dist/ already built");
} else {
  console.error(
    "agent-harness: dist/ is not built, and building it needs the devDependencies (esbuild, typescript).\n" +
      "Run `npm ci` first (then `npm ci --omit=dev` drops them and keeps dist/), or install the package:\n" +
      "  npm install -g agent-harness",
  );
  process.exit(1);
}

/** The npm that runs this script (npm_execpath is its CLI file), else the one on PATH. */
function npmCommand() {
  return process.env.npm_execpath ? [process.env.npm_execpath] : [];
}
