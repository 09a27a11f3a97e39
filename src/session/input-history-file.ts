// Lines typed in chat, kept across runs in $HARNESS_HOME/history (one per line, oldest first)
// for the up/down arrows.
import { appendFileSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import { writeWhole } from "../shared/write-whole.ts";

/** Lines kept; the file is trimmed back to this when it grows past twice as many. */
export const HISTORY_LINES = 1000;

/** The saved lines, oldest first, at most HISTORY_LINES. A missing or unreadable file is an empty history. */
export function loadInputHistory(path: string): string[] {
  try {
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "");
    return lines.slice(-HISTORY_LINES);
  } catch {
    return [];
  }
}

/**
 * Appends one entered line (a repeat of the previous one is skipped, as shells do). Appending is
 * one write, so concurrent chats do not tear each other's lines; the trim rewrites the file
 * through a rename so a reader never sees it half written. History is a convenience: a failure to
 * save it never stops the chat.
 */
export function appendInputHistory(path: string, line: string): void {
  const entry = line.replace(/[\r\n]+/g, " ");
  if (entry.trim() === "" || loadInputHistory(path).at(-1) === entry) return;
  try {
    makePrivateFolder(dirname(path));
    appendFileSync(path, `${entry}\n`, { mode: PRIVATE_FILE_MODE });
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    if (lines.length > 2 * HISTORY_LINES) {
      writeWhole(path, `${lines.slice(-HISTORY_LINES).join("\n")}\n`);
    }
  } catch {
    // read-only home, full disk: the chat goes on without history
  }
}
