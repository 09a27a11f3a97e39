// Tool output too long for the model: the model gets the head and the tail, and the whole of it
// is saved to a file it can page through with read_file. Files go to the session's `spill/`
// folder when there is a session (kept with it), else to one temporary folder per process
// (removed when the process exits).
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cutMiddle } from "../shared/helpers.ts";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import { redactText } from "../shared/redact.ts";
import type { ToolContext, ToolOutput } from "./tool.ts";

/**
 * Most bytes any tool result may hand the model. The built-in tools cut their own output at
 * 30 KiB (src/tools/output-limit.ts), so this generic limit only catches other tools (MCP,
 * library users' tools) and is set above theirs so a built-in result is never cut twice.
 */
export const MAX_TOOL_RESULT_BYTES = 40 * 1024;
/** Bytes of a spilled result's head and of its tail that the model still sees. */
const SPILL_PREVIEW_BYTES = 8 * 1024;

let temporaryDir: string | undefined;

/** Where this call's spill files go: the run's folder, else one temporary folder per process. */
export function spillDirOf(context: Pick<ToolContext, "spillDir">): string {
  if (context.spillDir) return context.spillDir;
  if (!temporaryDir) {
    const dir = mkdtempSync(join(tmpdir(), "harness-spill-"));
    // Without a session nothing can read these files after this process: do not leave them behind.
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    temporaryDir = dir;
  }
  return temporaryDir;
}

/**
 * Creates `<dir>/<callId>.txt` for writing and returns its descriptor. Call ids are not unique
 * across a session (some servers number them per reply), so a taken name gets a `-2`, `-3`...
 */
export function openSpillFile(dir: string, callId: string | undefined): { fd: number; path: string } {
  makePrivateFolder(dir);
  const base = (callId ?? "output").replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 100) || "output";
  for (let attempt = 1; ; attempt++) {
    const path = join(dir, attempt === 1 ? `${base}.txt` : `${base}-${attempt}.txt`);
    try {
      return { fd: openSync(path, "wx", PRIVATE_FILE_MODE), path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 1000) throw error;
    }
  }
}

/** The line that tells the model where the whole output is and how to read it. */
export function spillNote(path: string, bytes: number): string {
  return `[the full output (${bytes} bytes) is saved in ${path}; read it in pages with read_file (offset, limit) or search it with grep]`;
}

/**
 * The generic limit, applied to every tool result: one over MAX_TOOL_RESULT_BYTES is saved to
 * a spill file and replaced by its head, its tail and the file's path. If the file cannot be
 * written the result is still cut, and says so.
 */
export function limitToolOutput(
  output: ToolOutput,
  callId: string,
  context: Pick<ToolContext, "spillDir" | "secrets">,
): ToolOutput {
  const bytes = Buffer.byteLength(output.content);
  if (bytes <= MAX_TOOL_RESULT_BYTES) return output;
  let note: string;
  try {
    const { fd, path } = openSpillFile(spillDirOf(context), callId);
    try {
      writeFileSync(fd, redactText(output.content, context.secrets)); // keys never reach the disk
    } finally {
      closeSync(fd);
    }
    note = spillNote(path, bytes);
  } catch (error) {
    note = `[the full output (${bytes} bytes) could not be saved: ${(error as Error).message}]`;
  }
  return { ...output, content: `${cutMiddle(output.content, SPILL_PREVIEW_BYTES)}\n${note}` };
}
