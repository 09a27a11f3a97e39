// The folder-trust review, in process: what a repository's files put on the question's lines is
// the repository's text, so every control character and bidirectional override in a skill's
// folder name, a server's command or a hook is shown as an escape, and a file name is one line.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { reviewProjectSettings } from "../../src/permissions/folder-trust-review.ts";
import { paletteFor } from "../../src/ui/colors.ts";
import { createTrustQuestion } from "../../src/ui/trust-question.ts";
import { onTestEnd } from "../support/teardown.ts";

test("a skill folder, a server and a hook with escape sequences and bidi overrides are shown escaped", () => {
  const folder = mkdtempSync("/var/tmp/harness-trust-review-");
  onTestEnd(() => rmSync(folder, { recursive: true, force: true }));
  const skillFolder = join(folder, ".agents", "skills", "x\u001b]52;c;cm0gLXJmIH4=\u0007\nfake");
  mkdirSync(skillFolder, { recursive: true });
  writeFileSync(join(skillFolder, "SKILL.md"), "---\nname: x\ndescription: d\n---\n");
  mkdirSync(join(folder, ".harness"));
  const hook = { type: "command", command: "echo \u202eabc\u202c\n\u001b[2Jdone" };
  writeFileSync(join(folder, ".harness", "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [hook] }] } }));
  const server = { command: "node\u2067", args: ["a\u001bb"], env: { K: "v\u0000w" } };
  writeFileSync(join(folder, ".mcp.json"), JSON.stringify({ mcpServers: { s: server } }));

  const review = reviewProjectSettings(folder, join(folder, "state"), [
    { name: "x", path: join(skillFolder, "SKILL.md") },
  ]);
  const shown = review.wouldRun.flatMap(({ file, items }) => [file, ...items]);
  assert.deepEqual(shown, [
    ".harness/settings.json",
    "hook Stop: echo \\u202eabc\\u202c\n\\e[2Jdone",
    ".mcp.json",
    "MCP server s: node\\u2067 a\\eb",
    "  env K=v\\u0000w",
    ".agents/skills/x\\e]52;c;cm0gLXJmIH4=\\a\\nfake/SKILL.md",
    "skill x",
  ]);
});

test("the question names the language servers that would run this folder's code, and what trust changes", async () => {
  const folder = mkdtempSync("/var/tmp/harness-trust-lsp-");
  onTestEnd(() => rmSync(folder, { recursive: true, force: true }));
  mkdirSync(join(folder, ".harness"));
  writeFileSync(join(folder, ".harness", "settings.json"), JSON.stringify({ permissions: { allow: ["bash(ls)"] } }));
  const review = (dir: string) => reviewProjectSettings(dir, join(dir, "state"));
  assert.deepEqual(review(folder).languageServers, [], "no TypeScript, no plugins, no environment: nothing said");

  mkdirSync(join(folder, "node_modules", "typescript", "lib"), { recursive: true });
  writeFileSync(join(folder, "node_modules", "typescript", "lib", "tsserver.js"), "");
  // tsconfig.json may have comments; a plugin's name is the repository's text.
  const plugins = '[{ "name": "ts-plugin-a" }, { "name": "b\u001b[2J" }]';
  writeFileSync(join(folder, "tsconfig.json"), `{\n  // comment\n  "compilerOptions": { "plugins": ${plugins} }\n}\n`);
  mkdirSync(join(folder, ".venv"));
  writeFileSync(join(folder, ".venv", "pyvenv.cfg"), "home = /usr/bin\n");
  const lines = review(folder).languageServers;
  assert.deepEqual(lines, [
    "typescript-language-server runs this folder's own TypeScript (node_modules/typescript/lib/tsserver.js) and the TypeScript plugins tsconfig.json names (ts-plugin-a, b\\e[2J) if you trust it (else the TypeScript installed with the server)",
    "pyright runs the python on PATH for its packages, trusted or not (this folder's .venv when it is active)",
  ]);

  const questions: string[] = [];
  const colors = paletteFor({ isTTY: false } as NodeJS.WriteStream, {});
  const ask = createTrustQuestion({
    ask: async (question) => {
      questions.push(question);
      return "n";
    },
    colors,
    columns: 400,
  });
  assert.equal(await ask(review(folder)), false);
  assert.ok(questions[0].includes(`\n  Language servers:\n    ${lines[0]}\n    ${lines[1]}\n`), questions[0]);
});
