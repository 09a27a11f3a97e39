// The JSON, CSS, HTML, YAML and Bash servers (devDependencies: vscode-langservers-extracted,
// yaml-language-server, bash-language-server), through the real CLI against the fake model: one
// run reads a small file of each language (starting every server at once), then edits each to
// bring an error, and each edit's result must carry its server's error. A server not installed
// is left out of the run and its check skips with the reason.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, toolResultOf } from "../support/helpers.ts";
import { needsServer, SERVER_BIN } from "../support/language-servers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

/** Each server's file, the edit that breaks it, and the error its result must then carry. */
const CASES = [
  {
    server: "json",
    program: "vscode-json-language-server",
    file: "data.json",
    text: '{ "a": 1 }\n',
    edit: ['"a": 1', '"a": 1,'],
    error: /line 1: error: Trailing comma/,
  },
  {
    server: "css",
    program: "vscode-css-language-server",
    file: "style.css",
    text: "a { color: red; }\n",
    edit: ["color: red;", "color: ;"],
    error: /line 1: error: property value expected/,
  },
  {
    server: "html",
    program: "vscode-html-language-server",
    file: "page.html",
    text: "<!DOCTYPE html>\n<html><head><style>\na { color: red; }\n</style></head></html>\n",
    edit: ["color: red;", "color: ;"],
    error: /line 3: error: property value expected/,
  },
  {
    server: "yaml",
    program: "yaml-language-server",
    file: "config.yaml",
    text: "name: one\ncount: 1\n",
    edit: ["count: 1", "count: 1\nname: two"],
    error: /line 3: error: Map keys must be unique/,
  },
  {
    server: "bash",
    program: "bash-language-server",
    file: "run.sh",
    text: '#!/bin/bash\necho "hello"\n',
    edit: ['echo "hello"', 'echo "hello'],
    error: /error: .*(double quoted|quote)/i,
    alsoNeeds: needs("shellcheck"),
  },
];

const skipOf = (c: (typeof CASES)[number]) => needsServer(c.program) || c.alsoNeeds || false;

test("JSON, CSS, HTML, YAML and Bash: an edit that brings an error gets it in its result", async (t) => {
  const cases = CASES.filter((c) => !skipOf(c));
  const cwd = tempDir("harness-lsp-more-");
  for (const c of cases) writeFileSync(join(cwd, c.file), c.text);
  const fake = await serve([
    {
      reply: {
        toolCalls: cases.map((c) => ({ id: `read-${c.server}`, name: "read_file", arguments: { path: c.file } })),
      },
    },
    ...cases.map((c) => ({
      reply: {
        toolCalls: [
          {
            id: `edit-${c.server}`,
            name: "edit_file",
            arguments: { path: c.file, old_string: c.edit[0], new_string: c.edit[1] },
          },
        ],
      },
    })),
    { reply: { text: "done" } },
  ]);
  // A long wait: what is asserted is what each server says, not how fast a cold one is.
  const env = cleanEnv({ PATH: `${SERVER_BIN}${delimiter}${process.env.PATH}`, HARNESS_LSP_WAIT_MS: "60000" });
  const run =
    cases.length > 0 ? await runCli([...fakeFlags(fake), "-y", "-p", "edit the files"], { env, cwd }) : undefined;
  if (run) assert.equal(run.code, 0, run.stderr);
  for (const c of CASES) {
    await t.test(c.server, { skip: skipOf(c) }, () => {
      const result = toolResultOf(fake, cases.indexOf(c) + 2, `edit-${c.server}`);
      assert.match(
        result,
        new RegExp(
          `\\n\\n${c.server} diagnostics for ${c.file.replace(".", "\\.")}:\\nnew with this edit: \\d+ errors?`,
        ),
      );
      assert.match(result, c.error);
    });
  }
  if (run) assert.doesNotMatch(run.stderr, /lsp:/, "nothing went wrong to tell the user");
});
