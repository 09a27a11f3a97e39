import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArguments, type Tool, type ToolOutput } from "../../src/core/tool.ts";

const madeFolders: string[] = [];

/** A fresh real folder under the OS temp dir, with these files (path -> content) written in it; removed when the test process exits. */
export function makeFolder(files: Record<string, string | Buffer> = {}): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), "harness-tools-"));
  if (madeFolders.length === 0)
    process.once("exit", () => {
      for (const made of madeFolders) rmSync(made, { recursive: true, force: true });
    });
  madeFolders.push(folder);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), content);
  }
  return folder;
}

/** Calls a tool as the loop does: raw JSON arguments through its schema, then run. Always returns a ToolOutput. */
export async function callTool(
  tool: Tool,
  args: unknown,
  cwd: string,
  state = new Map<string, unknown>(),
): Promise<ToolOutput> {
  const parsed = parseArguments(tool, JSON.stringify(args));
  assert.ok(parsed.ok, `arguments rejected: ${parsed.ok ? "" : parsed.problem.message}`);
  const result = await tool.run(parsed.input, { cwd, signal: new AbortController().signal, state });
  return typeof result === "string" ? { content: result } : result;
}

/** The schema error message for arguments a tool must reject. */
export function argumentError(tool: Tool, args: unknown): string {
  const parsed = parseArguments(tool, JSON.stringify(args));
  assert.ok(!parsed.ok, "arguments were accepted");
  return parsed.problem.message;
}
