import { renameSync, writeFileSync } from "node:fs";

/**
 * Writes `text` to `file` whole or not at all: into a temporary file next to it (named by this
 * process, so two processes never share one), then renamed into place. Private to the user by default.
 */
export function writeWhole(file: string, text: string, mode = 0o600): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, file);
}
