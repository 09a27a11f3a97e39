// Bundles the CLI and the library with esbuild (start-up: one file to parse, not hundreds),
// then emits type declarations with tsc. Dynamic imports become lazy chunks, so --help
// and --version never load the provider SDKs.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

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
const bundled = await build({
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
  metafile: true,
});
writeThirdPartyNotices(Object.keys(bundled.metafile.inputs));
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

/**
 * The bundle carries other packages' code, whose licences ask that their notices travel with it
 * (legalComments is off, so the notices are gathered here instead): every package esbuild put
 * into dist/, with its version, licence and licence text, in dist/THIRD-PARTY-NOTICES.md.
 */
function writeThirdPartyNotices(inputs) {
  const folders = new Set();
  for (const input of inputs) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) folders.add(input.slice(0, match.index + match[0].length - 1).replace(/^[^/]*:/, ""));
  }
  const sections = [...folders]
    .map((folder) => {
      const manifest = JSON.parse(readFileSync(`${folder}/package.json`, "utf8"));
      // The licence, and an Apache-2.0 package's NOTICE, which must travel too.
      const files = readdirSync(folder).filter((name) => /^(licen[cs]e|copying|notice)(\.|-|$)/i.test(name));
      const text = files.map((name) => readFileSync(`${folder}/${name}`, "utf8").trim()).join("\n\n") || undefined;
      return { name: manifest.name, version: manifest.version, licence: manifest.license ?? "see its package", text };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const missing = sections.filter((section) => !section.text).map((section) => section.name);
  const body = sections
    .map(
      (section) =>
        `## ${section.name} ${section.version}\n\nLicence: ${section.licence}\n\n${
          section.text
            ? `\`\`\`\n${section.text}\n\`\`\``
            : "(the package ships no licence file; its licence is named above)"
        }\n`,
    )
    .join("\n");
  writeFileSync(
    "dist/THIRD-PARTY-NOTICES.md",
    `# Third-party notices\n\nThe bundle in this folder contains code from these ${sections.length} packages, under their licences.\n\n${body}`,
  );
  if (missing.length > 0)
    console.warn(`build: no licence file in ${missing.join(", ")}; their licence field is named instead`);
}
