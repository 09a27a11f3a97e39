// The after-edit step: a tool hook that, when a call changed files a language server serves
// (ToolOutput.changedFiles: edit_file, write_file; a command's changes it finds itself, see
// command-changes.ts), appends that server's diagnostics to the result. Before the call it keeps the file's text, so what the edit brought can be told from what
// was there. A read of such a file starts its server in the background, so the first edit seldom
// waits for a cold one. Nothing is loaded, started or read for a file no server serves, and the
// client itself is imported on the first file that one does.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ToolHook } from "../core/run-tools.ts";
import type { Tool, ToolOutput } from "../core/tool.ts";
import { changedSince, MAX_COMMAND_FILES } from "./command-changes.ts";
import type { LanguageServers, LanguageServersOptions, ServerStatus } from "./language-servers.ts";
import { serverFor } from "./server-specs.ts";
import { serversHere } from "./servers-here.ts";

/** A file larger than this is not sent to a server (nor read for it). */
const MAX_CHECKED_FILE_BYTES = 1024 * 1024;

/** The hook, and the servers behind it once the first one was needed. */
export interface LanguageServerHook {
  hook: ToolHook;
  /** The session's servers, or undefined while none was needed. */
  servers(): LanguageServers | undefined;
  /** Each server's state now (for /lsp): none while no file needed one. */
  status(): ServerStatus[];
  /** The session's servers, the client loaded first if need be (the lsp tool's way in). */
  load(): Promise<LanguageServers>;
  close(): Promise<void>;
}

export function languageServerHook(
  options: LanguageServersOptions & { tools: () => readonly Tool[] },
): LanguageServerHook {
  const { root, specs } = options;
  let servers: LanguageServers | undefined;
  let loading: Promise<LanguageServers> | undefined;
  let closed = false;
  const load = () => {
    loading ??= import("./language-servers.ts").then((module) => {
      servers = new module.LanguageServers(options);
      return servers;
    });
    return loading;
  };
  /** The texts of the files each running call may change, before it ran, by call id. */
  const before = new Map<string, Map<string, string | undefined>>();
  /** When each running command started (Date.now()), by call id. */
  const beforeCommand = new Map<string, number>();
  const isServed = (file: string) => serverFor(file, specs) !== undefined;
  const served = (files: readonly string[] | undefined) =>
    [...new Set((files ?? []).map((file) => path.resolve(root, file)))].filter(isServed);
  // Commands are watched only where a server can run and the workspace has its files (looked at
  // once, on the first command): elsewhere a command costs no walk.
  let watchCommands: boolean | undefined;
  const watchesCommands = () =>
    (watchCommands ??= serversHere(specs, root, options.env, options.isProjectTrusted).length > 0);
  const effectsOf = (name: string, input: unknown) =>
    options
      .tools()
      .find((tool) => tool.name === name)
      ?.effects?.(input, root);

  const hook: ToolHook = {
    async beforeToolCall(call, input) {
      if (closed) return;
      const effects = effectsOf(call.name, input);
      const writes = served(effects?.writes);
      if (writes.length > 0) before.set(call.id, new Map(writes.map((file) => [file, textOf(file)])));
      if (effects?.command !== undefined && watchesCommands()) beforeCommand.set(call.id, Date.now());
    },
    async afterToolCall(call, result, input, signal) {
      const earlier = before.get(call.id);
      const startedAt = beforeCommand.get(call.id);
      before.delete(call.id);
      beforeCommand.delete(call.id);
      if (closed || signal.aborted) return;
      // A command that failed may still have changed files (a build step, a sed before a failing test).
      if (startedAt !== undefined && !result.changedFiles)
        return afterCommand(result, changedSince(root, isServed, startedAt));
      if (result.isError) return;
      const changed = served(result.changedFiles);
      if (changed.length === 0) {
        for (const file of served(effectsOf(call.name, input)?.reads)) {
          const text = textOf(file);
          if (text !== undefined) void load().then((loaded) => loaded.warm(file, text));
        }
        return;
      }
      return noteOn(result, changed, (file) => ({ before: earlier?.get(file) }));
    },
  };
  /** The result with the diagnostics of `files` appended, or undefined when they have none to tell. */
  const noteOn = async (
    result: ToolOutput,
    files: string[],
    how: (file: string) => { before?: string; byCommand?: boolean; bound?: { deadline?: number } },
    extra = "",
  ) => {
    const [loaded, { diagnosticsNote, newErrorsNotice }] = await Promise.all([load(), import("./diagnostics-note.ts")]);
    let notes = "";
    const notices: string[] = [];
    for (const file of files) {
      const text = textOf(file);
      if (text === undefined) continue;
      const { before: earlier, ...rest } = how(file);
      const found = await loaded.afterEdit(file, text, earlier, rest);
      if (!found) continue;
      notes += diagnosticsNote(shownPath(root, file), found, rest.byCommand ? "command" : "edit");
      notices.push(newErrorsNotice(shownPath(root, file), found));
    }
    const notice = notices.filter(Boolean).join("\n") || undefined;
    return notes ? { content: `${result.content}${notes}${notes && extra}`, notice } : undefined;
  };
  /** After a command: the first few files it changed, checked within one edit's wait. */
  const afterCommand = (result: ToolOutput, changed: string[]) => {
    if (changed.length === 0) return undefined;
    const bound = {};
    const left = changed.length - MAX_COMMAND_FILES;
    const extra = left > 0 ? `\n(${left} more changed file${left === 1 ? "" : "s"} not checked)` : "";
    return noteOn(result, changed.slice(0, MAX_COMMAND_FILES), () => ({ byCommand: true, bound }), extra);
  };
  return {
    hook,
    servers: () => servers,
    status: () => servers?.status() ?? [],
    load,
    async close() {
      closed = true;
      await (await loading?.catch(() => undefined))?.close();
    },
  };
}

/** The file's text, or undefined when it is missing, not a regular file, or too large to check. */
function textOf(file: string): string | undefined {
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MAX_CHECKED_FILE_BYTES) return undefined;
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** `file` relative to the workspace when inside it, else as it is: how the model and the user see paths. */
export function shownPath(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}
