// Why a prompt file (`--system-prompt @file`) could not be read, in the user's words.
import { statSync } from "node:fs";

/** Why readRegularFile gave nothing for `file`, in the user's words. */
export function whyNotReadable(file: string): string {
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return "a folder, not a file";
    if (!stat.isFile()) return "not a regular file (a FIFO, device or socket is never read)";
    return "permission denied";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "no such file" : (code ?? (error as Error).message);
  }
}
