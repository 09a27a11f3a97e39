// What the language-server tests share: whether a real server (a devDependency) is installed,
// and the declaration of the test's own server (fake-language-server.mjs) in Claude Code's shape.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.ts";

/** Where the devDependencies' programs are (typescript-language-server, pyright-langserver). */
export const SERVER_BIN = join(ROOT, "node_modules", ".bin");

/** The skip reason when the devDependency that brings `command` is not installed. */
export function needsServer(command: string): false | string {
  return existsSync(join(SERVER_BIN, command))
    ? false
    : `${command} is not installed (npm install: it is a devDependency)`;
}

/** `lspServers.fake`: the test server for `.fk` files, with its FAKE_LSP_* variables. */
export function fakeServerDeclaration(env: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return {
    command: process.execPath,
    args: [join(ROOT, "test", "support", "fake-language-server.mjs")],
    extensionToLanguage: { ".fk": "fake" },
    env,
    ...extra,
  };
}
