// A tool's name is written in its own file (src/tools/) and in the one names table
// (src/settings/tool-names.ts); everything else asks the table, so a renamed or added tool
// cannot leave a second list behind. Checked for the names that are no ordinary word
// (`bash`, `grep`, `todo`, `task` and `lsp` are also a shell, a program, an event, a batch's unit
// and the session's language servers).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/helpers.ts";

const NAMES = ["read_file", "write_file", "edit_file", "list_files", "web_fetch", "bash_output", "bash_kill"];

/** Files that may still spell a tool's name, each with the reason. */
const ALLOWED: Record<string, string> = {
  "src/settings/tool-names.ts": "the names table itself",
  "src/core/system-prompt.ts": "its guidelines name the tools they advise, in the model's words",
  "src/providers/local/local-tools.ts": "which tools a small local model is offered: a choice about that model",
  "src/wiring/subagents.ts": "the read-only tools a task child gets when its agent names none",
};

test("tool names are spelled only in their tools' files and the names table", () => {
  const pattern = new RegExp(`["'\`](${NAMES.join("|")})["'\`]`);
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const file = relative(ROOT, path);
      if (entry.isDirectory()) walk(path);
      else if (file.endsWith(".ts") && !file.startsWith("src/tools/") && !(file in ALLOWED))
        readFileSync(path, "utf8")
          .split("\n")
          .forEach((line, index) => {
            if (pattern.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line))
              found.push(`${file}:${index + 1}: ${line.trim()}`);
          });
    }
  };
  walk(join(ROOT, "src"));
  assert.deepEqual(found, []);
});
