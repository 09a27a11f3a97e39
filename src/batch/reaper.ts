// Ends the process groups of a batch's (or worker's) tasks when the batch itself dies, even by
// SIGKILL, which no handler of ours sees. A small helper process holds the read end of a pipe
// from this one and the list of live groups; when the pipe closes (this process is gone, for
// whatever reason), it kills each group still listed. Without it, a killed batch left its
// tasks' harnesses running (spending tokens, writing their working copies) until their next
// write to the dead pipe.
import { type ChildProcess, spawn } from "node:child_process";
import type { GroupTracker } from "./harness-child.ts";

/**
 * The helper: reads `+pid` / `-pid` lines; at end of input kills each listed group. Its stdout and
 * stderr go nowhere, it ignores the terminal's signals (its own session), and it exits once done.
 */
const REAPER_SOURCE = `
const groups = new Set();
let buffer = "";
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text) => {
  buffer += text;
  const lines = buffer.split("\\n");
  buffer = lines.pop();
  for (const line of lines) {
    const pid = Number(line.slice(1));
    if (!Number.isInteger(pid) || pid <= 1) continue;
    if (line[0] === "+") groups.add(pid); else groups.delete(pid);
  }
});
process.stdin.on("end", () => {
  for (const pid of groups) { try { process.kill(-pid, "SIGKILL"); } catch {} }
  process.exit(0);
});
`;

/** The helper of this process, started on first use. */
export class Reaper implements GroupTracker {
  private helper: ChildProcess | undefined;

  track(pid: number): void {
    this.send(`+${pid}`);
  }

  untrack(pid: number): void {
    this.send(`-${pid}`);
  }

  /** This process ends normally: the helper exits, killing whatever is still listed. */
  close(): void {
    this.helper?.stdin?.end();
    this.helper = undefined;
  }

  private send(line: string): void {
    this.helper ??= this.start();
    this.helper.stdin?.write(`${line}\n`);
  }

  private start(): ChildProcess {
    const helper = spawn(process.execPath, ["-e", REAPER_SOURCE], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
    helper.stdin?.on("error", () => {}); // the helper died: nothing to tell it
    helper.unref();
    (helper.stdin as unknown as { unref?(): void } | null)?.unref?.();
    return helper;
  }
}
