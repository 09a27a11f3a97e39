// A new wire API is its own files (request, stream, adapter) and one record in
// src/providers/wire-apis.ts: checked here on the source, as test/unit/layering.test.ts checks imports.
// An API's own files are the modules only its record reaches (through what the record names and
// what those import); no other file may switch on an API id (`case "gemini"`, `api === "openai"`,
// a table keyed by API kind) or import another API's own files, so whatever the rest of harness
// needs of an API it reads from the record, and a new one needs no case anywhere else.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { WIRE_API_NAMES, WIRE_APIS } from "../../src/providers/wire-apis.ts";
import { ROOT } from "../support/helpers.ts";

const SRC = join(ROOT, "src");
const RECORD = join(SRC, "providers", "wire-apis.ts");

interface SourceFile {
  path: string;
  text: string;
}

function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [{ path, text: readFileSync(path, "utf8") }] : [];
  });
}

/** The relative modules a text imports, statically or with import(), resolved from `path`. */
function importsOf(path: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g),
  ];
  return specifiers.map((match) => resolve(dirname(path), match[1] ?? match[2]));
}

/**
 * The record's units, by name: each entry of WIRE_APIS (`  chat: {` to `  },`) and each other
 * top-level `const X = {` object (the local model's record), with the modules each one reaches: the
 * ones it import()s and those of the imported or locally declared names it uses.
 */
function recordUnits(record: SourceFile): Map<string, string[]> {
  const byName = new Map<string, string>();
  for (const match of record.text.matchAll(/(?:^|\n)import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(\.[^"]+)"/g))
    for (const name of match[1].split(",")) {
      const local = name
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .at(-1);
      if (local) byName.set(local, resolve(dirname(record.path), match[2]));
    }
  const declarations = new Map<string, string>();
  for (const match of record.text.matchAll(
    /\nconst (\w+)[^=]*=([\s\S]*?)(?=\n(?:\/\*\*|\/\/|const |export |function )|$)/g,
  ))
    declarations.set(match[1], match[2]);
  const modulesOf = (text: string, depth = 0): string[] => [
    ...importsOf(record.path, text),
    ...[...text.matchAll(/\b[A-Za-z_]\w*\b/g)].flatMap(([word]) => {
      const imported = byName.get(word);
      if (imported) return [imported];
      const declared = declarations.get(word);
      return declared !== undefined && depth < 3 ? modulesOf(declared, depth + 1) : [];
    }),
  ];
  const units = new Map<string, string[]>();
  const table = /export const WIRE_APIS = \{\n([\s\S]*?)\n\}/.exec(record.text)?.[1] ?? "";
  for (const entry of table.matchAll(/^ {2}(\w+): \{\n([\s\S]*?)^ {2}\},?$/gm))
    units.set(entry[1], modulesOf(entry[2]));
  for (const [name, text] of declarations)
    if (name !== "WIRE_APIS" && /^\s*\{/.test(text)) units.set(name, modulesOf(text));
  return units;
}

/**
 * Each wire API's own files: the modules its entry names and no other unit names, and those they
 * reach that no other unit reaches (a walk from a unit stops at another unit's named modules, so
 * an API that imports another's files does not make them shared).
 */
function ownFiles(files: SourceFile[], record: SourceFile, apiNames: readonly string[]): Map<string, Set<string>> {
  const graph = new Map(files.map((file) => [file.path, importsOf(file.path, file.text)]));
  const units = recordUnits(record);
  const namedBy = new Map<string, Set<string>>();
  for (const [unit, roots] of units)
    for (const module of roots) namedBy.set(module, (namedBy.get(module) ?? new Set()).add(unit));
  const reachedBy = new Map<string, Set<string>>();
  for (const [unit, roots] of units) {
    const stack = [...roots];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const module = stack.pop() as string;
      const naming = namedBy.get(module);
      const isOthers = naming !== undefined && !naming.has(unit);
      if (seen.has(module) || isOthers || module === record.path || !graph.has(module)) continue;
      seen.add(module);
      reachedBy.set(module, (reachedBy.get(module) ?? new Set()).add(unit));
      stack.push(...(graph.get(module) ?? []));
    }
  }
  const own = new Map(apiNames.map((name) => [name, new Set<string>()]));
  for (const [module, reaching] of reachedBy) {
    const owners = namedBy.get(module) ?? reaching;
    const [only] = owners;
    if (owners.size === 1) own.get(only)?.add(module);
  }
  return own;
}

/** Lines that switch on an API id: a case, a comparison, or a table keyed by API kind. */
function switchesOn(text: string, ids: readonly string[]): string[] {
  const id = `"(?:${ids.join("|")})"`;
  const pattern = new RegExp(
    `\\bcase\\s+${id}\\s*:|[!=]==?\\s*${id}|${id}\\s*[!=]==?|\\b(?:Record|Exclude)<\\s*(?:ApiKind|WireKind|WireApiName)\\b`,
  );
  return text
    .split("\n")
    .filter((line) => pattern.test(line) && !/^\s*(\/\/|\*)/.test(line))
    .map((line) => line.trim());
}

/** Files outside the record and an API's own files that switch on an API id or import an API's own files. */
function recordViolations(
  files: SourceFile[],
  record: SourceFile,
  apiNames: readonly string[],
  ids: readonly string[],
) {
  const own = ownFiles(files, record, apiNames);
  const ownerOf = new Map([...own].flatMap(([api, modules]) => [...modules].map((module) => [module, api] as const)));
  const violations: string[] = [];
  for (const file of files) {
    if (file.path === record.path) continue;
    const name = relative(SRC, file.path);
    const owner = ownerOf.get(file.path);
    if (!owner) for (const line of switchesOn(file.text, ids)) violations.push(`${name} switches on an API: ${line}`);
    for (const target of importsOf(file.path, file.text)) {
      const targetOwner = ownerOf.get(target);
      if (targetOwner && targetOwner !== owner)
        violations.push(`${name} imports ${relative(SRC, target)}, one of ${targetOwner}'s own files`);
    }
  }
  return { own, violations: violations.sort() };
}

/** Every id users or messages give a wire API: the names (`chat`) and the kinds (`openai`). */
const API_IDS = [...new Set([...WIRE_API_NAMES, ...WIRE_API_NAMES.map((name) => WIRE_APIS[name].kind)])];

test("only the record and each API's own files switch on a wire API or name its files", () => {
  const files = sourceFiles(SRC);
  const record = files.find((file) => file.path === RECORD) as SourceFile;
  const { own, violations } = recordViolations(files, record, WIRE_API_NAMES, API_IDS);
  assert.deepEqual(violations, []);
  // The derivation found each API's adapter among its own files, so the check above had something to hold.
  for (const name of WIRE_API_NAMES) assert.ok(own.get(name)?.size, `${name} has own files`);
  assert.ok(
    own.get("gemini")?.has(join(SRC, "providers", "gemini", "gemini-stream.ts")),
    "gemini-stream.ts is Gemini's",
  );
  assert.ok(
    own.get("anthropic")?.has(join(SRC, "providers", "anthropic", "anthropic-request.ts")),
    "anthropic-request.ts is Anthropic's",
  );
});

test("the check catches a case, a comparison, a table keyed by kind and an import of an API's files elsewhere, and leaves the API's own files alone", () => {
  const at = (path: string) => join(SRC, "providers", path);
  const record = {
    path: at("wire-apis.ts"),
    text: [
      'import { alphaThinking } from "./alpha-request.ts";',
      'import { betaThinking } from "./beta-request.ts";',
      'import { jsonHeaders } from "./shared.ts";',
      "",
      "export const WIRE_APIS = {",
      "  alpha: {",
      '    create: async () => (await import("./alpha.ts")).createAlpha(),',
      "    thinking: alphaThinking,",
      "    headers: jsonHeaders,",
      "  },",
      "  beta: {",
      '    create: async () => (await import("./beta.ts")).createBeta(),',
      "    thinking: betaThinking,",
      "    headers: jsonHeaders,",
      "  },",
      "};",
    ].join("\n"),
  };
  const files = [
    record,
    { path: at("alpha.ts"), text: 'import { x } from "./alpha-request.ts";\nif (message.api === "alpha") keep();\n' },
    {
      path: at("alpha-request.ts"),
      text: 'import { jsonHeaders } from "./shared.ts";\nexport const ALPHA = "alpha";\n',
    },
    { path: at("beta.ts"), text: 'import { y } from "./alpha-request.ts";\n' },
    { path: at("beta-request.ts"), text: "export const betaThinking = 1;\n" },
    { path: at("shared.ts"), text: 'export function jsonHeaders() {}\nswitch (api) {\n  case "beta":\n}\n' },
    { path: at("thinking.ts"), text: 'switch (target.api) {\n  case "alpha":\n    return 1;\n}\n' },
    {
      path: join(SRC, "resolve.ts"),
      text: 'import { d } from "./providers/alpha-request.ts";\nif (api === "beta") x();\n',
    },
    { path: at("table.ts"), text: "const ADAPTERS: Record<WireKind, () => void> = {};\n" },
  ];
  const { own, violations } = recordViolations(files, record, ["alpha", "beta"], ["alpha", "beta"]);
  assert.deepEqual([...(own.get("alpha") ?? [])].sort(), [at("alpha-request.ts"), at("alpha.ts")]);
  assert.deepEqual(violations, [
    "providers/beta.ts imports providers/alpha-request.ts, one of alpha's own files",
    'providers/shared.ts switches on an API: case "beta":',
    "providers/table.ts switches on an API: const ADAPTERS: Record<WireKind, () => void> = {};",
    'providers/thinking.ts switches on an API: case "alpha":',
    "resolve.ts imports providers/alpha-request.ts, one of alpha's own files",
    'resolve.ts switches on an API: if (api === "beta") x();',
  ]);
});
