// What the undo tests share: the turn that changes three files three ways, reading a file that
// may be gone, and git run without the machine's own config.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptStep } from "./fake-llm/server.ts";

/** A turn that edits a.txt with edit_file (after reading it), changes b.txt with sed and deletes c.txt with rm. */
export const CHANGING_TURN: ScriptStep[] = [
  { reply: { toolCalls: [{ id: "read_a", name: "read_file", arguments: { path: "a.txt" } }] } },
  {
    reply: {
      toolCalls: [
        { id: "edit_a", name: "edit_file", arguments: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
        { id: "sed_b", name: "bash", arguments: { command: "sed -i s/beta/BETA/ b.txt" } },
        { id: "rm_c", name: "bash", arguments: { command: "rm c.txt" } },
      ],
    },
  },
  { reply: { text: "changed all three" } },
];

/** A file's text, or undefined when it is not there. */
export function readIfThere(root: string, path: string): string | undefined {
  return existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : undefined;
}

/** git in `cwd`, with no system or global config of the machine running the tests. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}
