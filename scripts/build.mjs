// Bundles the CLI and the library with esbuild (start-up: one file to parse, not hundreds),
// then emits type declarations with tsc. Dynamic imports become lazy chunks, so --help
// and --version never load the provider SDKs.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/**
 * zod's classic API re-exports every locale (about 350 KB of error messages in 40 languages);
 * we only ever use English. Resolving the locale index to English alone halves zod's load time.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${"node_modules"}/zod/`)
        ? { path: args.resolveDir, namespace: "zod-locales" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(`${args.path}/../locales/en.js`)};`,
      resolveDir: args.path,
    }));
  },
};

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: { cli: "src/cli/cli.ts", index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "bundle",
  // Native addon and optional: resolved at run time from node_modules, only by --provider local.
  // photon-node loads its WebAssembly from beside its own file, so it cannot be bundled either
  // (only images that need downscaling load it).
  external: ["node-llama-cpp", "@silvia-odwyer/photon-node"],
  sourcemap: false,
  minifySyntax: true,
  legalComments: "none",
  define: { __HARNESS_VERSION__: JSON.stringify(pkg.version) },
  // Some bundled CommonJS code calls require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __harnessCreateRequire } from 'node:module'; const require = __harnessCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
  plugins: [zodEnglishOnly],
});
if (!process.argv.includes("--no-types")) {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    stdio: "inherit",
  });
  // tsc keeps our `./x.ts` specifiers in declarations (rewriteRelativeImportExtensions covers
  // only emitted JavaScript); a consumer's TypeScript resolves `./x.js` to `./x.d.ts`.
  for (const file of readdirSync("dist/types", { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".d.ts")) continue;
    const path = `dist/types/${file}`;
    const text = readFileSync(path, "utf8");
    const fixed = text.replace(/((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, "$1$2.js$3");
    if (fixed !== text) writeFileSync(path, fixed);
  }
}
