// The layers AGENTS.md describes, checked on every import in src/: a module that reaches across
// them, or imports itself back through others, fails this test, so the rules are not prose alone.
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
  // Settings files read once, by section, and the one table of tool names (Claude Code's and ours).
  settings: ["core"],
  // The sandbox is how the permission layer confines commands; settings/ reads its rules.
  permissions: ["core", "sandbox", "settings"],
  hooks: ["core", "settings"],
  // A server's tools are named as the name table says.
  mcp: ["core", "settings"],
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

/**
 * The import cycles among the given files, each as its modules joined by " -> " from the
 * alphabetically first, so a cycle reads the same whichever file it is found from. Type-only
 * imports count: a type belongs to the module that owns it, and a cycle says one of two does not.
 */
function importCycles(files: { path: string; text: string }[]): string[] {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file.text)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(dirname(file.path), specifier));
    graph.set(file.path, targets);
  }
  const cycles = new Set<string>();
  const onPath: string[] = [];
  const done = new Set<string>();
  const visit = (module: string): void => {
    const at = onPath.indexOf(module);
    if (at >= 0) {
      cycles.add(cycleName(onPath.slice(at)));
      return;
    }
    if (done.has(module) || !graph.has(module)) return;
    onPath.push(module);
    for (const target of graph.get(module) ?? []) visit(target);
    onPath.pop();
    done.add(module);
  };
  for (const module of graph.keys()) visit(module);
  return [...cycles].sort();
}

/** A cycle rotated to start at its alphabetically first module, as relative paths. */
function cycleName(modules: string[]): string {
  const names = modules.map((module) => relative(SRC, module));
  const first = names.indexOf([...names].sort()[0]);
  return [...names.slice(first), ...names.slice(0, first), names[first]].join(" -> ");
}

test("no module in src/ imports across the layers AGENTS.md forbids", () => {
  const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
  assert.ok(files.length > 50, "the source files were found");
  assert.deepEqual(layeringViolations(files), []);
});

test("no module in src/ imports itself back through other modules: each type lives with its owner", () => {
  const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
  assert.deepEqual(importCycles(files), []);
});

test("the cycle check catches a direct cycle, a longer one through a type-only import, and leaves a chain alone", () => {
  const files = [
    { path: join(SRC, "b.ts"), text: 'import { a } from "./a.ts";\n' },
    { path: join(SRC, "a.ts"), text: 'import { b } from "./b.ts";\nimport { c } from "./core/c.ts";\n' },
    { path: join(SRC, "core", "c.ts"), text: 'import { d } from "./d.ts";\n' },
    { path: join(SRC, "core", "d.ts"), text: 'import type { E } from "./e.ts";\n' },
    { path: join(SRC, "core", "e.ts"), text: 'export type E = 1;\nconst f = await import("./f.ts");\n' },
    { path: join(SRC, "core", "f.ts"), text: 'export { d } from "./d.ts";\n' },
    { path: join(SRC, "ui", "chain.ts"), text: 'import { c } from "../core/c.ts";\n' },
  ];
  assert.deepEqual(importCycles(files), ["a.ts -> b.ts -> a.ts", "core/d.ts -> core/e.ts -> core/f.ts -> core/d.ts"]);
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

/** The modules that build a session: one-shot, chat and the editor share them, so none of them draws on the terminal. */
const SESSION_FACTORY = ["create-session.ts", "subagents.ts", "extensions.ts", "stored-sessions.ts"];

test("the session factory imports nothing of the terminal's: a mode gives it what it needs (command names, the local-model offer)", () => {
  const crossings = SESSION_FACTORY.flatMap((name) =>
    importsOf(readFileSync(join(SRC, name), "utf8"))
      .filter((specifier) => specifier.startsWith("./ui/"))
      .map((specifier) => `${name} -> ${specifier}`),
  );
  assert.deepEqual(crossings, []);
});

test("the permission layer judges what a tool declares (Tool.effects), never its name or its arguments' names", () => {
  const readings = sourceFiles(join(SRC, "permissions")).flatMap((path) =>
    readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => /\btool\.name\s*[!=]==|\binput as \{|\bargs\.[a-z_]+/.test(line))
      .map((line) => `${relative(SRC, path)}: ${line.trim()}`),
  );
  assert.deepEqual(readings, []);
});
