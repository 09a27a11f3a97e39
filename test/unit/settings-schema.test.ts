// The settings reader's promises that hold without a run: docs/settings.schema.json is what the
// sections' zod schemas generate, and accepts a file the reader accepts; the one table of
// Claude Code's tool names covers every built-in tool and is the table README shows.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { configJsonSchemas } from "../../src/settings/config-file.ts";
import { settingsJsonSchema } from "../../src/settings/settings-file.ts";
import {
  CLAUDE_TOOLS,
  compileMatcher,
  namesOfTool,
  resolveRuleTool,
  specifierOf,
  withClaudeFields,
} from "../../src/settings/tool-names.ts";
import { codingTools } from "../../src/tools/index.ts";
import { ROOT } from "../support/helpers.ts";

const SCHEMA_PATH = join(ROOT, "docs", "settings.schema.json");

test("docs/settings.schema.json is the schema the settings reader declares (regenerate: node --import tsx scripts/write-settings-schema.ts)", () => {
  const written = JSON.parse(readFileSync(SCHEMA_PATH, "utf8"));
  assert.deepEqual(written, settingsJsonSchema());
  const validate = new Ajv2020({ strict: false }).compile(written);
  const good = {
    permissions: { allow: ["Bash(npm test:*)"], deny: ["Write"], additionalDirectories: ["../lib"] },
    hooks: { PreToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "./check.sh", timeout: 5 }] }] },
  };
  assert.equal(validate(good), true, JSON.stringify(validate.errors));
  assert.equal(validate({ permisions: { deny: ["Write"] } }), false, "a mistyped key is flagged in the editor too");
});

test("docs/config.schema.json and docs/mcp.schema.json are what config.json's and .mcp.json's readers declare", () => {
  const { config, mcp } = configJsonSchemas();
  const read = (name: string) => JSON.parse(readFileSync(join(ROOT, "docs", name), "utf8"));
  assert.deepEqual(read("config.schema.json"), config);
  assert.deepEqual(read("mcp.schema.json"), mcp);
  const ajv = new Ajv2020({ strict: false });
  const servers = {
    mcpServers: { srv: { command: "node", args: ["server.js"] }, web: { url: "https://x.example/mcp" } },
  };
  assert.equal(ajv.compile(mcp)(servers), true);
  assert.equal(ajv.compile(config)({ provider: "openai", model: "gpt-5-mini", ...servers }), true);
  assert.equal(ajv.compile(config)({ provders: {} }), false, "a mistyped key is flagged");
});

test("every built-in tool has its line in the name table, and every Claude name there names a built-in tool or none", () => {
  // task and lsp come and go with subagents and language servers.
  const builtIn = [...codingTools.map((tool) => tool.name), "task", "lsp"];
  for (const name of builtIn)
    assert.notEqual(specifierOf(name), undefined, `${name} says whether its rules take a pattern`);
  for (const [claude, entry] of Object.entries(CLAUDE_TOOLS))
    if (entry.harness) assert.ok(builtIn.includes(entry.harness), `${claude} -> ${entry.harness} is a real tool`);
  assert.deepEqual(namesOfTool("edit_file"), ["edit_file", "Edit", "MultiEdit"]);
  assert.deepEqual(namesOfTool("srv__echo"), ["srv__echo", "mcp__srv__echo"]);
  // Claude Code's LSP tool is ours: in rules, hook matchers and payloads (filePath beside path).
  assert.deepEqual(namesOfTool("lsp"), ["lsp", "LSP"]);
  assert.deepEqual(resolveRuleTool("LSP"), { tool: "lsp" });
  assert.equal(specifierOf("lsp"), "path");
  assert.deepEqual(withClaudeFields("lsp", { operation: "hover", path: "a.ts" }, "/w"), {
    operation: "hover",
    path: "a.ts",
    filePath: "a.ts",
  });
});

test("docs/claude-code.md's table of Claude Code's names lists each of them", () => {
  const readme = readFileSync(join(ROOT, "docs", "claude-code.md"), "utf8");
  const table = readme.slice(readme.indexOf("### Claude Code's names"));
  for (const name of Object.keys(CLAUDE_TOOLS))
    assert.match(table, new RegExp(`\\| \`${name}\``), `${name} is in the table`);
});

test("hook matchers read as Claude Code reads them: plain names exactly, anything else a regex found anywhere", () => {
  const test = (matcher: string, names: string[]) => {
    const compiled = compileMatcher(matcher);
    assert.equal(typeof compiled, "function");
    return (compiled as (names: string[]) => boolean)(names);
  };
  assert.equal(test("Edit|MultiEdit|Write", namesOfTool("write_file")), true);
  assert.equal(test("Edit", namesOfTool("write_file")), false);
  assert.equal(test("Edit", ["MultiEdit"]), false, "a plain name is exact, not a substring");
  assert.equal(test("mcp__srv__.*", namesOfTool("srv__echo")), true);
  assert.equal(test("^Notebook", namesOfTool("edit_file")), false);
  assert.equal(test("bash|write_file", namesOfTool("bash")), true, "harness's own names still match");
  assert.deepEqual(compileMatcher("(unclosed"), {
    error: "not a valid regular expression (Invalid regular expression: /(unclosed/: Unterminated group)",
  });
});
