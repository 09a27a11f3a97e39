// npm's `prepare`: builds dist/ (scripts/build.mjs) wherever npm runs it: `npm ci` / `npm install`
// in a clone, `npm pack` and `npm publish`, and an install from a git URL. A package installed
// from the registry ships dist/ built and never runs this.
//
// Three cases need more than `node scripts/build.mjs`:
// - `npm install -g git+https://...` (or git+file:) on npm before pacote's fix (npm/cli#8440):
//   npm's inner install of the clone is global, so there are no build tools and the clone is
//   linked into the global prefix; scripts/global-git-install.mjs says why and what we do.
// - npm packing that clone after the inner install (pacote's DirFetcher runs prepare again):
//   dist/ was built a moment ago, in that clone; building it again would only cost time.
// - `npm ci --omit=dev` in a clone: there are no build tools by request. With dist/ already built
//   (an earlier `npm ci`), there is nothing to do; without it, the build's packages are installed
//   into a temporary folder for the build, as for a global git install, and removed after.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { insideGlobalGitPreparation, installBuildTools, undoGlobalLinkToClone } from "./global-git-install.mjs";

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

const build = () => execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });

if (preparingGitDependency && existsSync("dist/cli.js")) {
  // Built by this clone's inner install a moment ago (a git clone npm makes has no dist/ of its own).
} else if (hasBuildTools()) {
  build();
} else if (insideGlobalGitPreparation(preparingGitDependency)) {
  // First: until the folder is back, whatever the outer npm still extracts into it goes into this clone.
  undoGlobalLinkToClone();
  const removeBuildTools = installBuildTools();
  try {
    build();
  } finally {
    removeBuildTools();
  }
} else if (existsSync("dist/cli.js")) {
  console.error("agent-harness: devDependencies omitted; keeping the dist/ already built");
} else {
  // `npm ci --omit=dev` in a fresh clone: the user asked for no build tools in node_modules, not
  // for no build. The same temporary tools folder as a global git install (removed after), so
  // node_modules ends as asked: the production dependencies alone.
  console.error(
    "agent-harness: devDependencies omitted; building dist/ with the build's packages in a temporary folder",
  );
  const removeBuildTools = installBuildTools();
  try {
    build();
  } finally {
    removeBuildTools();
  }
}
