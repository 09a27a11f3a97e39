// npm's `prepare`: builds dist/ (scripts/build.mjs) wherever npm runs it: `npm ci` / `npm install`
// in a clone, `npm pack` and `npm publish`, and an install from a git URL. A package installed
// from the registry ships dist/ built and never runs this.
//
// Two cases need more than `node scripts/build.mjs`:
// - `npm install -g git+https://...` (or git+file:): npm prepares the clone with an inner
//   `npm install` that inherits the outer install's global setting, so it installs the clone into
//   the global prefix instead of installing its devDependencies into it
//   (https://github.com/npm/cli/issues/8440, open in npm 11): esbuild is not there. Installing them
//   here was tried: the build then works, but what npm installs afterwards is empty. So say the
//   two steps that work (`npm pack <url>`, then install the tarball) instead of failing on a
//   missing module.
// - `npm ci --omit=dev` in a clone: there are no build tools by request. With dist/ already built
//   (an earlier `npm ci`), there is nothing to do; without it, say what to run.
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

if (hasBuildTools()) {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
} else if (preparingGitDependency) {
  console.error(
    "agent-harness: npm did not install the build tools (esbuild, typescript) into its clone, as happens\n" +
      "for `npm install -g <git URL>` (https://github.com/npm/cli/issues/8440). Install in two steps:\n" +
      "  npm pack <git URL> && npm install -g ./agent-harness-<version>.tgz",
  );
  process.exit(1);
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
