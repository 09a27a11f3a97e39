// Bundles the CLI and the library with esbuild (start-up: one file to parse, not hundreds),
// then emits type declarations with tsc. Dynamic imports become lazy chunks, so --help
// and --version never load the provider SDKs.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: { cli: "src/cli.ts", index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "bundle",
  sourcemap: false,
  minifySyntax: true,
  legalComments: "none",
  define: { __HARNESS_VERSION__: JSON.stringify(pkg.version) },
  // Some bundled CommonJS code calls require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __harnessCreateRequire } from 'node:module'; const require = __harnessCreateRequire(import.meta.url);" },
  logLevel: "warning",
});
if (!process.argv.includes("--no-types")) {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
