// The layers AGENTS.md describes, checked on every import in src/: a module that reaches across
// them, or imports itself back through others, fails this test, so the rules are not prose alone.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/helpers.ts";

const SRC = join(ROOT, "src");

/**
 * What each folder of src/ may import besides itself. `shared` is the leaf every layer may use;
 * `core` is the loop and its types; `wiring` builds a session from the folders; `cli` (the command
 * line, with its subcommands in cli/commands) may import anything, and nothing imports it.
 */
const ALLOWED: Record<string, readonly string[]> = {
  // Leaf utilities (redaction, paths, proxies, diffs, ...): nothing of ours outside shared/.
  shared: [],
  core: ["shared"],
  providers: ["core", "shared"],
  tools: ["core", "shared"],
  session: ["core", "shared"],
  // The terminal asks the questions the permission layer puts (their types live there).
  ui: ["core", "shared", "permissions"],
  sandbox: ["core", "shared"],
  // Settings files read once, by section (settings.json, config.json, .mcp.json), and the one table
  // of tool names (Claude Code's and ours). config.json's provider keys take the providers layer's
  // words (wire API names, thinking levels), so that is read from there.
  settings: ["core", "shared", "providers"],
  // The sandbox is how the permission layer confines commands; settings/ reads its rules.
  permissions: ["core", "shared", "sandbox", "settings"],
  hooks: ["core", "shared", "settings"],
  // A server's tools are named as the name table says.
  mcp: ["core", "shared", "settings"],
  acp: ["core", "shared"],
  // `harness serve`: HTTP over sessions the command builds (as acp's), and its client library.
  server: ["core", "shared"],
  batch: ["core", "shared"],
  // Skills and custom commands: Markdown files of the user's own, turned into prompt text.
  // An agent file's `tools` in Claude Code's names are read through the one names table.
  prompts: ["core", "shared", "settings"],
  // Workspace snapshots in a shadow git repository, for undo.
  snapshots: ["core", "shared"],
  // Language servers (LSP over stdio): diagnostics after edits; settings.json declares more servers.
  lsp: ["core", "shared", "settings"],
  // OpenTelemetry export (docs/telemetry.md): it reads the session's event stream, after the one
  // redaction point, and turns it into spans, metrics and log records; the exporter loads lazily.
  telemetry: ["core", "shared"],
  // The session factory: one-shot, chat and the editor share it, so it draws on no terminal (ui)
  // and no mode (cli, acp, batch): a mode gives it what it needs (command names, the local-model offer).
  wiring: [
    "core",
    "shared",
    "providers",
    "tools",
    "session",
    "sandbox",
    "settings",
    "permissions",
    "hooks",
    "mcp",
    "prompts",
    "snapshots",
    "lsp",
    "telemetry",
  ],
  cli: ["*"],
  // index.ts, the library's API: the loop, providers, tools and the factory's pieces, never the
  // command line or the terminal.
  ".": ["core", "shared", "providers", "tools", "wiring", "server"],
};

/** The one top-level file of src/; everything else lives in a folder that says which layer it is. */
const TOP_LEVEL = ["index.ts"];

/** Packages src/core and src/shared may import: they know nothing of terminals, SDKs or servers. */
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
    const allowed = ALLOWED[from] ?? [];
    for (const specifier of importsOf(file.text)) {
      const name = `${relative(SRC, file.path)} -> ${specifier}`;
      if (!specifier.startsWith(".")) {
        const isBuiltin = specifier.startsWith("node:");
        const isLeafLayer = from === "core" || from === "shared";
        if (isLeafLayer && !isBuiltin && !CORE_PACKAGES.has(specifier)) violations.push(name);
        continue;
      }
      const to = folderOf(resolve(dirname(file.path), specifier));
      if (to === from || allowed.includes("*")) continue;
      if (!allowed.includes(to)) violations.push(name);
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
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  assert.deepEqual(
    folders,
    Object.keys(ALLOWED)
      .filter((folder) => folder !== ".")
      .sort(),
  );
});

test("the top level of src/ is the library entry alone, so `ls src/` shows the layers", () => {
  const files = readdirSync(SRC, { withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => entry.name);
  assert.deepEqual(files.sort(), TOP_LEVEL);
});

test("the check catches each kind of crossing: a tool drawing on the terminal, the core loading an SDK or the wiring", () => {
  const files = [
    {
      path: join(SRC, "tools", "fancy.ts"),
      text: 'import { paletteFor } from "../ui/colors.ts";\nimport { bash } from "./bash.ts";\n',
    },
    {
      path: join(SRC, "core", "loop.ts"),
      text: 'import type { ProviderSettings } from "../providers/index.ts";\nconst sdk = await import("openai");\nimport { z } from "zod";\nimport { redact } from "../shared/redact.ts";\n',
    },
    {
      path: join(SRC, "shared", "leaf.ts"),
      text: 'import type { AgentEvent } from "../core/events.ts";\nimport chalk from "chalk";\nimport { isInside } from "./is-inside.ts";\n',
    },
    {
      path: join(SRC, "ui", "status.ts"),
      text: 'export { runCli } from "../cli/run-cli.ts";\nimport { createSession } from "../wiring/create-session.ts";\nimport { VERSION } from "../shared/version.ts";\n',
    },
    {
      path: join(SRC, "wiring", "factory.ts"),
      text: 'import { paletteFor } from "../ui/colors.ts";\nimport { FLAGS } from "../cli/cli-args.ts";\nimport { bash } from "../tools/bash.ts";\n',
    },
    {
      path: join(SRC, "index.ts"),
      text: 'export { runCli } from "./cli/run-cli.ts";\nexport * from "./core/messages.ts";\n',
    },
    {
      path: join(SRC, "cli", "commands", "any.ts"),
      text: 'import { runCli } from "../run-cli.ts";\nimport "../../ui/chat.ts";\n',
    },
  ];
  assert.deepEqual(layeringViolations(files), [
    "core/loop.ts -> ../providers/index.ts",
    "core/loop.ts -> openai",
    "index.ts -> ./cli/run-cli.ts",
    "shared/leaf.ts -> ../core/events.ts",
    "shared/leaf.ts -> chalk",
    "tools/fancy.ts -> ../ui/colors.ts",
    "ui/status.ts -> ../cli/run-cli.ts",
    "ui/status.ts -> ../wiring/create-session.ts",
    "wiring/factory.ts -> ../cli/cli-args.ts",
    "wiring/factory.ts -> ../ui/colors.ts",
  ]);
});

test("the session factory imports nothing of the terminal's: a mode gives it what it needs (command names, the local-model offer)", () => {
  const crossings = sourceFiles(join(SRC, "wiring")).flatMap((path) =>
    importsOf(readFileSync(path, "utf8"))
      .filter((specifier) => /^\.\.\/(?:ui|cli)\//.test(specifier))
      .map((specifier) => `${relative(SRC, path)} -> ${specifier}`),
  );
  assert.ok(sourceFiles(join(SRC, "wiring")).some((path) => path.endsWith("create-session.ts")));
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

/**
 * Rooms inside the larger folders, and who may enter them: the line editor knows nothing of how
 * output is drawn (the renderer draws the editor, never the other way), and the queue of shared
 * batches is reached only from the command line that starts a batch or a worker, never from the
 * local pool it is an alternative to. Each wire API's room is test/unit/wire-api-records.test.ts's.
 */
const ROOM_RULES: Array<{ room: string; importedOnlyFrom: string[] }> = [
  { room: "ui/render", importedOnlyFrom: ["ui/render", "ui/chat.ts", "ui/transcript-replay.ts", "cli"] },
  { room: "batch/queue", importedOnlyFrom: ["batch/queue", "cli"] },
];

test("the rooms of the larger folders are entered only from where their rule says", () => {
  const found: string[] = [];
  for (const path of sourceFiles(SRC)) {
    const from = relative(SRC, path);
    for (const specifier of importsOf(readFileSync(path, "utf8"))) {
      if (!specifier.startsWith(".")) continue;
      const target = relative(SRC, resolve(dirname(path), specifier));
      for (const rule of ROOM_RULES)
        if (
          target.startsWith(`${rule.room}/`) &&
          !rule.importedOnlyFrom.some((place) => from === place || from.startsWith(`${place}/`))
        )
          found.push(`${from} -> ${target}`);
    }
  }
  assert.deepEqual(found, []);
});
