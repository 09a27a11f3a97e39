// The folder-trust review, in process: what a repository's files put on the question's lines is
// the repository's text, so every control character and bidirectional override in a skill's
// folder name, a server's command or a hook is shown as an escape, and a file name is one line.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { reviewProjectSettings } from "../../src/permissions/folder-trust-review.ts";
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
