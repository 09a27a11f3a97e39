// The layers AGENTS.md describes, checked on every import in src/: a module that reaches across
// them fails this test, so the rule is not prose alone.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT } from "./helpers.ts";

const SRC = join(ROOT, "src");

/**
 * What each folder of src/ may import besides itself and the leaf modules. The top-level files
 * and src/commands are the wiring and may import anything.
 */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  providers: ["core"],
  tools: ["core"],
  session: ["core"],
  // The terminal asks the questions the permission layer puts (their types live there).
  ui: ["core", "permissions"],
  sandbox: ["core"],
  // The sandbox is how the permission layer confines commands.
  permissions: ["core", "sandbox"],
  hooks: ["core"],
  mcp: ["core"],
  acp: ["core"],
  batch: ["core"],
  // Skills and custom commands: Markdown files of the user's own, turned into prompt text.
  prompts: ["core"],
  // Workspace snapshots in a shadow git repository, for undo.
  snapshots: ["core"],
};

/** Top-level modules that import nothing of ours, so every layer may use them. */
const LEAVES = new Set(["version.ts"]);

/** Packages src/core may import: the core knows nothing of terminals, SDKs or servers. */
const CORE_PACKAGES = new Set(["zod"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every module a source text imports or re-exports, statically or lazily. */
function importsOf(text: string): string[] {
  const specifiers = [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)|(?:^|\n)\s*import\s+"([^"]+)"/g,
    ),
  ];
  return specifiers.map((match) => match[1] ?? match[2] ?? match[3]);
}

/** `core`, `ui`, ...; `.` for the top-level files. */
function folderOf(path: string): string {
  const parts = relative(SRC, path).split("/");
  return parts.length > 1 ? parts[0] : ".";
}

/** The imports that cross the layers, as `file -> module` lines, in the given files of src/. */
function layeringViolations(files: { path: string; text: string }[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const from = folderOf(file.path);
    if (from === "." || from === "commands") continue;
    for (const specifier of importsOf(file.text)) {
      const name = `${relative(SRC, file.path)} -> ${specifier}`;
      if (!specifier.startsWith(".")) {
        const isBuiltin = specifier.startsWith("node:");
        if (from === "core" && !isBuiltin && !CORE_PACKAGES.has(specifier)) violations.push(name);
        continue;
      }
      const target = resolve(dirname(file.path), specifier);
      const to = folderOf(target);
      if (to === from) continue;
      if (to === "." && LEAVES.has(relative(SRC, target))) continue;
      if (!(ALLOWED[from] ?? []).includes(to)) violations.push(name);
    }
  }
  return violations.sort();
}

test("no module in src/ imports across the layers AGENTS.md forbids", () => {
  const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
  assert.ok(files.length > 50, "the source files were found");
  assert.deepEqual(layeringViolations(files), []);
});

test("every folder of src/ has its layer rule, so a new folder is a decision, not an accident", () => {
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== "commands")
    .map((entry) => entry.name)
    .sort();
  assert.deepEqual(folders, Object.keys(ALLOWED).sort());
});

test("the check catches each kind of crossing: a tool drawing on the terminal, the core loading an SDK or the wiring", () => {
  const files = [
    {
      path: join(SRC, "tools", "fancy.ts"),
      text: 'import { paletteFor } from "../ui/colors.ts";\nimport { bash } from "./bash.ts";\n',
    },
    {
      path: join(SRC, "core", "loop.ts"),
      text: 'import type { ProviderSettings } from "../providers/index.ts";\nconst sdk = await import("openai");\nimport { z } from "zod";\n',
    },
    {
      path: join(SRC, "ui", "status.ts"),
      text: 'export { runCli } from "../run-cli.ts";\nimport { VERSION } from "../version.ts";\n',
    },
    { path: join(SRC, "commands", "anything.ts"), text: 'import { runCli } from "../run-cli.ts";\n' },
  ];
  assert.deepEqual(layeringViolations(files), [
    "core/loop.ts -> ../providers/index.ts",
    "core/loop.ts -> openai",
    "tools/fancy.ts -> ../ui/colors.ts",
    "ui/status.ts -> ../run-cli.ts",
  ]);
});
