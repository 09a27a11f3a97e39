// Two of AGENTS.md's prose rules as checks that can only tighten: a file past 300 lines, and an
// export no other module uses, are each allowed only where test/support/structure-allowances.json lists
// them as they were when the check came in. A new one fails; one that shrank, or came into use,
// fails too until its entry is lowered or removed, so the lists only get shorter.
// `UPDATE_STRUCTURE_ALLOWANCES=1 node --import tsx --test <this file>` rewrites the file (for a
// reviewer to read in the diff).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/helpers.ts";

/** The line count past which a file wants splitting (AGENTS.md). */
const MAX_LINES = 300;
const ALLOWANCES_FILE = join(ROOT, "test", "support", "structure-allowances.json");

interface Allowances {
  /** File -> the line count it may not exceed. */
  longFiles: Record<string, number>;
  /** `file: name` of exports no other module imports. */
  unusedExports: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "fixtures" ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function longFiles(): Record<string, number> {
  const found: Record<string, number> = {};
  for (const file of sourceFiles(join(ROOT, "src"))) {
    const lines = readFileSync(file, "utf8").split("\n").length;
    if (lines > MAX_LINES) found[relative(ROOT, file)] = lines;
  }
  return found;
}

/** The names a module declares with `export` (its own, not re-exported ones). */
function declaredExports(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(
    /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm,
  ))
    names.add(match[1]);
  for (const match of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*;/gm))
    for (const part of match[1].split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .pop();
      if (name) names.add(name);
    }
  return [...names];
}

/** What each module imports of each other: target file -> names (`*`: all of it). */
function usedNames(files: string[]): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const use = (from: string, specifier: string, names: string[]) => {
    if (!specifier.startsWith(".")) return;
    const target = resolve(dirname(from), specifier);
    const set = used.get(target) ?? new Set<string>();
    for (const name of names) set.add(name);
    used.set(target, set);
  };
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:import|export)\s+(?:type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g)) {
      const clause = match[1];
      const braces = /\{([^}]*)\}/.exec(clause);
      const names = braces
        ? braces[1]
            .split(",")
            .map(
              (part) =>
                part
                  .trim()
                  .replace(/^type\s+/, "")
                  .split(/\s+as\s+/)[0],
            )
            .filter(Boolean)
        : [];
      if (!braces || /\*/.test(clause.replace(/\{[^}]*\}/, ""))) names.push("*");
      use(file, match[2], names);
    }
    // A dynamic import hands the whole module over.
    for (const match of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) use(file, match[1], ["*"]);
  }
  return used;
}

function unusedExports(): string[] {
  const src = sourceFiles(join(ROOT, "src"));
  const users = [...src, ...sourceFiles(join(ROOT, "test")), ...sourceFiles(join(ROOT, "bench"))];
  const used = usedNames(users);
  const unused: string[] = [];
  for (const file of src) {
    if (relative(ROOT, file) === "src/index.ts") continue; // the library's API: used by its users
    const names = used.get(file) ?? new Set<string>();
    if (names.has("*")) continue;
    for (const name of declaredExports(readFileSync(file, "utf8")))
      if (!names.has(name)) unused.push(`${relative(ROOT, file)}: ${name}`);
  }
  return unused.sort();
}

const allowances: Allowances = existsSync(ALLOWANCES_FILE)
  ? JSON.parse(readFileSync(ALLOWANCES_FILE, "utf8"))
  : { longFiles: {}, unusedExports: [] };

if (process.env.UPDATE_STRUCTURE_ALLOWANCES === "1")
  writeFileSync(
    ALLOWANCES_FILE,
    `${JSON.stringify({ longFiles: longFiles(), unusedExports: unusedExports() } satisfies Allowances, null, 2)}\n`,
  );

test(`no file of src/ is past ${MAX_LINES} lines but those allowed, and none grows`, () => {
  const problems: string[] = [];
  const found = longFiles();
  for (const [file, lines] of Object.entries(found)) {
    const allowed = allowances.longFiles[file];
    if (allowed === undefined)
      problems.push(`${file}: ${lines} lines; split it (new files past ${MAX_LINES} are not allowed)`);
    else if (lines > allowed)
      problems.push(`${file}: ${lines} lines, allowed ${allowed}; split it rather than grow it`);
    else if (lines < allowed) problems.push(`${file}: ${lines} lines; lower its allowance from ${allowed} to ${lines}`);
  }
  for (const file of Object.keys(allowances.longFiles))
    if (!(file in found)) problems.push(`${file}: now within ${MAX_LINES} lines (or gone); remove its allowance`);
  assert.deepEqual(problems, []);
});

test("every export of src/ is used by another module, but those allowed", () => {
  const found = unusedExports();
  const allowed = new Set(allowances.unusedExports);
  const problems = [
    ...found.filter((entry) => !allowed.has(entry)).map((entry) => `${entry}: exported but used by no other module`),
    ...[...allowed]
      .filter((entry) => !found.includes(entry))
      .map((entry) => `${entry}: now used (or gone); remove it from the allowances`),
  ];
  assert.deepEqual(problems, []);
});

test("the export reader sees what a module declares and what another imports", () => {
  assert.deepEqual(
    declaredExports("export function a() {}\nexport const b = 1;\nexport interface C {}\nexport { d, type E as F };\n"),
    ["a", "b", "C", "d", "F"],
  );
});
